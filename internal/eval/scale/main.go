// Command scale measures engram with one agent of a million memories
// (issue 15): store, text search, vector search with its recall, hybrid
// search, Bootstrap, the time from opening the file to the first result,
// and the file's size. It is a benchmark outside CI: building the files
// takes minutes, so they are built once under -dir and reused.
//
//	go run ./internal/eval/scale -n 1000000 -dir /path/with/room -tier 1|2|both [-reps 5] [-cpuprofile-dir dir]
//
// The data are the root benchmarks' at -n entries (see data.go): the Tier
// 1 file is the text-search benchmarks' file, the Tier 2 file the vector
// benchmarks' "clustered" one (384 dimensions), and each is measured
// against its bare-driver baseline (BenchmarkBaselineInsertFTS's table,
// filled with the same texts) for store. Each measurement runs -reps
// times, a number of operations each; the table gives the median of the
// repetitions' p50s, their range (this machine's speed drifts) and the
// p99 of all operations. -cpuprofile-dir writes one CPU profile per
// measurement (for store, the engram and bare-driver operations carry the
// pprof label op=engram or op=bare: use -tagfocus).
//
// Measurements run on a copy of the cached files (work-*, removed at the
// end unless -keep-work), so that the cache stays as built: searches
// write access counts and stores add entries. -rebuild builds the files
// again, as is needed after a change of engram's on-disk layout. Opening
// is measured with the file in the operating system's page cache (the
// copy just made): dropping the page cache would slow every other process
// on the machine.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	_ "modernc.org/sqlite"
)

// config is the command's flags.
type config struct {
	n         int
	dir       string
	tiers     []int
	rebuild   bool
	buildOnly bool
	keepWork  bool
	autolink  bool // while building the Tier 1 file
	storeOps  int
	searchOps int
	// warm is how long text searches run untimed before the timed ones:
	// the first searches after opening build the in-memory text index
	// in the background, and ask FTS5 until it is ready.
	warm time.Duration
}

func main() {
	var c config
	var tier, only string
	r := &runner{}
	flag.IntVar(&c.n, "n", 1_000_000, "memories in the agent")
	flag.StringVar(&c.dir, "dir", filepath.Join(os.TempDir(), "engram-scale"), "where the built files are kept (several GB at 1M)")
	flag.StringVar(&tier, "tier", "1", "which files to measure: 1, 2 or both")
	flag.IntVar(&r.reps, "reps", 5, "repetitions of each measurement")
	flag.StringVar(&r.profDir, "cpuprofile-dir", "", "write a CPU profile per measurement into this directory")
	flag.StringVar(&only, "only", "", "comma-separated measurements to run (size, bootstrap, open, text, vector, hybrid, store); default all")
	flag.BoolVar(&c.rebuild, "rebuild", false, "build the files again even when cached")
	flag.BoolVar(&c.buildOnly, "build-only", false, "build the files and stop")
	flag.BoolVar(&c.keepWork, "keep-work", false, "keep the work copies measured on")
	flag.BoolVar(&c.autolink, "build-autolink", true, "auto-link while building the Tier 1 file, as the text-search benchmarks' searchDir does (the corpus has no near-duplicates: it makes no links, but costs build time)")
	flag.IntVar(&c.storeOps, "store-ops", 100, "stores per repetition")
	flag.IntVar(&c.searchOps, "search-ops", 200, "searches per repetition")
	flag.DurationVar(&c.warm, "warm", 20*time.Second, "text searches run untimed this long before the timed ones, while the in-memory text index is built")
	flag.Parse()
	log.SetFlags(log.Ltime)
	switch tier {
	case "1":
		c.tiers = []int{1}
	case "2":
		c.tiers = []int{2}
	case "both":
		c.tiers = []int{1, 2}
	default:
		log.Fatalf("-tier %q: want 1, 2 or both", tier)
	}
	if only != "" {
		r.only = map[string]bool{}
		for _, m := range strings.Split(only, ",") {
			r.only[strings.TrimSpace(m)] = true
		}
	}
	if r.reps < 1 || c.n < 1000 || c.storeOps < 1 || c.searchOps < 1 {
		log.Fatal("-reps, -store-ops and -search-ops must be at least 1, -n at least 1000")
	}
	if 2*r.reps*(c.storeOps+1) > storeTexts {
		log.Fatalf("-reps × -store-ops stores more than the %d texts there are", storeTexts)
	}
	for _, d := range []string{c.dir, r.profDir} {
		if d != "" {
			if err := os.MkdirAll(d, 0o700); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := run(context.Background(), c, r); err != nil {
		log.Fatal(err)
	}
}

// run builds what the tiers asked for need, measures them and prints the
// results.
func run(ctx context.Context, c config, r *runner) error {
	start := time.Now()
	log.Printf("corpus of %d", c.n)
	corpus := benchdata.NewCorpus(c.n)
	stored := storeEntries()
	var builds []buildInfo
	sizes := map[int]int64{}
	for _, tier := range c.tiers {
		var err error
		var bs []buildInfo
		switch tier {
		case 1:
			bs, err = runTier1(ctx, c, r, corpus, stored, sizes)
		case 2:
			bs, err = runTier2(ctx, c, r, corpus, stored, sizes)
		}
		builds = append(builds, bs...)
		if err != nil {
			return err
		}
		runtime.GC()
	}
	if c.buildOnly {
		return nil
	}
	if sizes[1] > 0 && sizes[2] > 0 {
		extra := float64(sizes[2]-sizes[1]) / float64(c.n)
		r.note("Tier 2 over Tier 1: %.0f bytes per memory more, %.2f× the raw float32 vector (%d bytes)", extra, extra/float64(4*dims), 4*dims)
	}
	fmt.Printf("## engram with one agent of %d memories\n\n", c.n)
	fmt.Printf("%s, %s/%s, GOMAXPROCS %d, code at %s; %d repetitions; run took %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0),
		commit(), r.reps, time.Since(start).Round(time.Second))
	fmt.Print(r.table())
	fmt.Println()
	for _, n := range r.notes {
		fmt.Printf("- %s\n", n)
	}
	fmt.Println("\nBuilds:")
	for _, b := range builds {
		fmt.Printf("- %s\n", b)
	}
	return nil
}

// runTier1 measures the Tier 1 file.
func runTier1(ctx context.Context, c config, r *runner, corpus benchdata.Corpus, stored []engram.SemanticEntry, sizes map[int]int64) ([]buildInfo, error) {
	built, b1, err := cached(c.dir, fmt.Sprintf("tier1-%d", c.n), c.rebuild, func(into string) (buildInfo, error) {
		return buildTier1(ctx, into, corpus.Docs, c.autolink)
	})
	if err != nil {
		return nil, err
	}
	bare, b2, err := cached(c.dir, fmt.Sprintf("bare-%d", c.n), c.rebuild, func(into string) (buildInfo, error) {
		return buildBare(into, corpus.Docs, nil)
	})
	builds := []buildInfo{b1, b2}
	if err != nil || c.buildOnly {
		return builds, err
	}
	if r.want("size") {
		if sizes[1], err = r.size(1, filepath.Join(built, "default", "memory.db"), c.n); err != nil {
			return builds, err
		}
	}
	work, err := workCopy(c.dir, built, "work-tier1")
	if err != nil {
		return builds, err
	}
	if !c.keepWork {
		defer os.RemoveAll(work)
	}
	questions := corpus.Questions(textQueries)
	open := func(opts ...engram.Option) (*engram.Memory, error) {
		return engram.New(engram.Tier1, append([]engram.Option{engram.WithDir(work)}, opts...)...)
	}
	if r.want("bootstrap") {
		if err := r.bootstrap(ctx, 1, open, work); err != nil {
			return builds, err
		}
	}
	if r.want("open") {
		if err := r.openToFirst(ctx, 1, "open → first text search", 100*time.Millisecond, open,
			func(m *engram.Memory, i int) error { return textSearch(ctx, m, questions[i%len(questions)]) }); err != nil {
			return builds, err
		}
	}
	if r.want("text") {
		m, err := open()
		if err != nil {
			return builds, err
		}
		if err := textSearch(ctx, m, questions[len(questions)-1]); err != nil {
			m.Close()
			return builds, err
		}
		var warm []time.Duration
		for start := time.Now(); time.Since(start) < c.warm; {
			t := time.Now()
			if err := textSearch(ctx, m, questions[len(warm)%len(questions)]); err != nil {
				m.Close()
				return builds, err
			}
			warm = append(warm, time.Since(t))
		}
		if len(warm) > 0 {
			log.Printf("text search: %d untimed in %s (the first while the index is built: %s, the last: %s)",
				len(warm), c.warm, warm[0].Round(time.Microsecond), warm[len(warm)-1].Round(time.Microsecond))
		}
		_, err = r.time(1, "text search", c.searchOps, 10*time.Millisecond, func(_, i int) error {
			return textSearch(ctx, m, questions[i%len(questions)])
		})
		if cerr := m.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return builds, err
		}
	}
	if r.want("store") {
		bareWork, err := workCopy(c.dir, bare, "work-bare")
		if err != nil {
			return builds, err
		}
		if !c.keepWork {
			defer os.RemoveAll(bareWork)
		}
		err = r.store(ctx, 1, c.storeOps, stored, nil, filepath.Join(bareWork, "bare.db"), func(cfg engram.Config) (*engram.Memory, error) {
			return open(engram.WithConfig(cfg))
		})
		if err != nil {
			return builds, err
		}
	}
	return builds, nil
}

// runTier2 measures the Tier 2 file.
func runTier2(ctx context.Context, c config, r *runner, corpus benchdata.Corpus, stored []engram.SemanticEntry, sizes map[int]int64) ([]buildInfo, error) {
	log.Printf("vectors: %d clustered, %d dimensions", c.n, dims)
	set := newVectorSet(corpus, storeTexts)
	emb := set.embedder(stored)
	built, b1, err := cached(c.dir, fmt.Sprintf("tier2-%d", c.n), c.rebuild, func(into string) (buildInfo, error) {
		return buildTier2(ctx, into, set, emb)
	})
	if err != nil {
		return []buildInfo{b1}, err
	}
	bare, b2, err := cached(c.dir, fmt.Sprintf("bare-vec-%d", c.n), c.rebuild, func(into string) (buildInfo, error) {
		return buildBare(into, corpus.Docs, set.vecs)
	})
	if err != nil {
		return []buildInfo{b1, b2}, err
	}
	truthDir, b3, err := cached(c.dir, fmt.Sprintf("truth-%d", c.n), c.rebuild, func(into string) (buildInfo, error) {
		return buildTruth(into, set)
	})
	builds := []buildInfo{b1, b2, b3}
	if err != nil || c.buildOnly {
		return builds, err
	}
	if r.want("size") {
		if sizes[2], err = r.size(2, filepath.Join(built, "default", "memory.db"), c.n); err != nil {
			return builds, err
		}
	}
	work, err := workCopy(c.dir, built, "work-tier2")
	if err != nil {
		return builds, err
	}
	if !c.keepWork {
		defer os.RemoveAll(work)
	}
	open := func(opts ...engram.Option) (*engram.Memory, error) {
		return engram.New(engram.Tier2, append([]engram.Option{engram.WithDir(work), engram.WithEmbedder(emb),
			engram.WithClock(func() time.Time { return benchEpoch })}, opts...)...)
	}
	vectorSearch := func(m *engram.Memory, i int) ([]engram.Result, error) {
		res, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[i%len(set.queries)], Mode: engram.SearchVector,
			Types: []engram.MemoryType{engram.TypeSemantic}, Limit: 10})
		if err == nil && len(res) != 10 {
			err = fmt.Errorf("%d results", len(res))
		}
		return res, err
	}
	if r.want("open") {
		if err := r.openToFirst(ctx, 2, "open → first vector search", 0, open,
			func(m *engram.Memory, i int) error { _, err := vectorSearch(m, i); return err }); err != nil {
			return builds, err
		}
	}
	if r.want("vector") || r.want("hybrid") {
		m, err := open()
		if err != nil {
			return builds, err
		}
		err = r.searchTier2(ctx, c, set, truthDir, m, vectorSearch)
		if cerr := m.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return builds, err
		}
	}
	if r.want("store") {
		bareWork, err := workCopy(c.dir, bare, "work-bare-vec")
		if err != nil {
			return builds, err
		}
		if !c.keepWork {
			defer os.RemoveAll(bareWork)
		}
		err = r.store(ctx, 2, c.storeOps, stored, set.store, filepath.Join(bareWork, "bare.db"), func(cfg engram.Config) (*engram.Memory, error) {
			return open(engram.WithConfig(cfg))
		})
		if err != nil {
			return builds, err
		}
	}
	return builds, nil
}

// searchTier2 measures vector search (with its first search on a new
// Memory, which loads the index, and its recall@10 against an exact scan)
// and hybrid search on m.
func (r *runner) searchTier2(ctx context.Context, c config, set *vectorSet, truthDir string, m *engram.Memory,
	vectorSearch func(m *engram.Memory, i int) ([]engram.Result, error)) error {
	start := time.Now()
	if _, err := vectorSearch(m, 0); err != nil {
		return err
	}
	r.note("Tier 2: the first vector search of a new Memory (loads the vector index) took %s", fmtDur(time.Since(start)))
	if r.want("vector") {
		truth, err := readTruth(truthDir, len(set.qvecs))
		if err != nil {
			return err
		}
		at := make(map[string]int, len(set.docs))
		for i, d := range set.docs {
			if _, dup := at[d]; !dup {
				at[d] = i
			}
		}
		hit := 0
		for i := range set.qvecs {
			res, err := vectorSearch(m, i)
			if err != nil {
				return err
			}
			for _, x := range res {
				if slices.Contains(truth[i], at[x.Content]) {
					hit++
				}
			}
		}
		recall := float64(hit) / float64(10*len(set.qvecs))
		rw, err := r.time(2, "vector search (limit 10)", c.searchOps, 15*time.Millisecond, func(_, i int) error {
			_, err := vectorSearch(m, i)
			return err
		})
		if err != nil {
			return err
		}
		rw.note = fmt.Sprintf("recall@10 %.3f (target ≥ 0.95)", recall)
		r.note("Tier 2: vector search recall@10 %.3f over %d queries, against an exact scan of the %d vectors", recall, len(set.qvecs), len(set.vecs))
	}
	if r.want("hybrid") {
		_, err := r.time(2, "hybrid search", c.searchOps, 0, func(_, i int) error {
			res, err := m.Search(ctx, engram.SearchOptions{Query: set.queries[i%len(set.queries)]})
			if err == nil && len(res) == 0 {
				err = fmt.Errorf("no results")
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// textSearch runs the text benchmarks' search: the question, default
// options.
func textSearch(ctx context.Context, m *engram.Memory, q string) error {
	res, err := m.Search(ctx, engram.SearchOptions{Query: q})
	if err == nil && len(res) == 0 {
		err = fmt.Errorf("no results for %q", q)
	}
	return err
}

// bootstrap measures Bootstrap on an open Memory (memory.md present, as
// BenchmarkBootstrap), a cold start (New + Bootstrap + Close, as
// BenchmarkColdStart) and a Bootstrap that regenerates a missing
// memory.md from the database.
func (r *runner) bootstrap(ctx context.Context, tier int, open func(...engram.Option) (*engram.Memory, error), work string) error {
	m, err := open()
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := m.Bootstrap(ctx); err != nil {
		m.Close()
		return err
	}
	first := time.Since(start)
	rw, err := r.time(tier, "Bootstrap (open Memory)", 100, 0, func(int, int) error {
		_, err := m.Bootstrap(ctx)
		return err
	})
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	rw.note = "first after New: " + fmtDur(first)
	if _, err := r.time(tier, "cold start (New + Bootstrap + Close)", 10, 0, func(int, int) error {
		m, err := open()
		if err != nil {
			return err
		}
		if _, err := m.Bootstrap(ctx); err != nil {
			m.Close()
			return err
		}
		return m.Close()
	}); err != nil {
		return err
	}
	md := filepath.Join(work, "regenerated.md")
	m, err = open(engram.WithMarkdownPath(md))
	if err != nil {
		return err
	}
	rw, err = r.time(tier, "Bootstrap, memory.md missing (regenerated)", 5, 0, func(int, int) error {
		if err := os.Remove(md); err != nil && !os.IsNotExist(err) {
			return err
		}
		res, err := m.Bootstrap(ctx)
		if err == nil && res.SemanticContext == "" {
			err = fmt.Errorf("no context")
		}
		return err
	})
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		rw.note = "includes writing memory.md"
	}
	return err
}

// openToFirst measures New followed by a first search (first(m, rep)),
// once per repetition, each on a new Memory; it notes how the time
// splits between the two.
func (r *runner) openToFirst(ctx context.Context, tier int, name string, target time.Duration,
	open func(...engram.Option) (*engram.Memory, error), first func(m *engram.Memory, i int) error) error {
	var news, searches []time.Duration
	rw := row{tier: tier, name: name, target: target}
	err := r.profile(tier, slug(name), func() error {
		for rep := range r.reps {
			start := time.Now()
			m, err := open()
			if err != nil {
				return err
			}
			opened := time.Since(start)
			err = first(m, rep)
			took := time.Since(start)
			// Close is outside the timing, but in the profile; it writes
			// the search's access counts.
			if cerr := m.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			news, searches = append(news, opened), append(searches, took-opened)
			rw.perRep, rw.all = append(rw.perRep, took), append(rw.all, took)
			runtime.GC() // the Memory closed is garbage; the next is timed without it
		}
		return nil
	})
	if err != nil {
		return err
	}
	rw.note = fmt.Sprintf("New %s + search %s (medians)", fmtDur(median(news)), fmtDur(median(searches)))
	r.add(rw)
	return nil
}

// store measures one Semantic().Store into the memory, with auto-linking
// off and on (the default), each repetition followed by as many inserts
// through the bare driver into barePath, so that both see the machine in
// the same phase; with vecs (Tier 2), the bare driver writes the i-th
// entry's vector too. The first store of a new Memory is noted apart: it
// builds auto-linking's index.
func (r *runner) store(ctx context.Context, tier, ops int, entries []engram.SemanticEntry, vecs [][]float32, barePath string,
	open func(engram.Config) (*engram.Memory, error)) error {
	bl, err := openBare(barePath, vecs != nil, false)
	if err != nil {
		return err
	}
	defer bl.db.Close()
	next := 0 // the next entry to store, by either
	bareLabel := pprof.Labels("op", "bare")
	engramLabel := pprof.Labels("op", "engram")
	bareName := "bare driver insert (FTS5)"
	if vecs != nil {
		bareName = "bare driver insert (FTS5 + vec0)"
	}
	for _, autolink := range []bool{false, true} {
		cfg := engram.DefaultConfig()
		cfg.Zettelkasten.Enabled = autolink
		m, err := open(cfg)
		if err != nil {
			return err
		}
		var first time.Duration
		err = r.profile(tier, "store-autolink-"+onOff(autolink)+"-first", func() error {
			start := time.Now()
			_, err := m.Semantic().Store(ctx, entries[next])
			first = time.Since(start)
			return err
		})
		if err != nil {
			m.Close()
			return err
		}
		next++
		name := fmt.Sprintf("Semantic().Store, auto-linking %s", onOff(autolink))
		es := row{tier: tier, name: name, note: "first after New: " + fmtDur(first)}
		bs := row{tier: tier, name: bareName + ", same run"}
		err = r.profile(tier, "store-autolink-"+onOff(autolink), func() error {
			for range r.reps {
				for _, x := range []struct {
					rw    *row
					label pprof.LabelSet
					op    func(i int) error
				}{
					{&es, engramLabel, func(i int) error { _, err := m.Semantic().Store(ctx, entries[i]); return err }},
					{&bs, bareLabel, func(i int) error {
						var blob []byte
						if vecs != nil {
							blob = encodeVector(vecs[i])
						}
						return bl.insert(fmt.Sprintf("id-%d", i), entries[i], i, blob)
					}},
				} {
					var err error
					lat := make([]time.Duration, 0, ops)
					pprof.Do(ctx, x.label, func(context.Context) {
						for range ops {
							start := time.Now()
							if err = x.op(next); err != nil {
								return
							}
							lat = append(lat, time.Since(start))
							next++
						}
					})
					if err != nil {
						return fmt.Errorf("%s: %w", x.rw.name, err)
					}
					x.rw.perRep = append(x.rw.perRep, median(lat))
					x.rw.all = append(x.rw.all, lat...)
				}
			}
			return nil
		})
		if cerr := m.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		es.target = bs.p50() * 12 / 10
		es.goal = fmt.Sprintf("≤ 1.2× bare = %s", fmtDur(es.target))
		es.note = fmt.Sprintf("%.2f× the bare driver; %s", float64(es.p50())/float64(bs.p50()), es.note)
		r.add(es)
		r.add(bs)
	}
	return nil
}

// size notes the database file's size (with its WAL, if any), per memory
// and against the raw vectors, and the largest tables and indexes in it.
func (r *runner) size(tier int, path string, n int) (int64, error) {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		} else if !os.IsNotExist(err) {
			return 0, err
		}
	}
	raw := int64(n) * 4 * dims
	r.note("Tier %d file: %s, %.0f bytes per memory, %.2f× the raw float32 vectors (%s)",
		tier, mb(total), float64(total)/float64(n), float64(total)/float64(raw), mb(raw))
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var parts []string
	var rest int64
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			return 0, err
		}
		if len(parts) < 8 && size*100 >= total {
			parts = append(parts, fmt.Sprintf("%s %s (%.0f B/memory)", name, mb(size), float64(size)/float64(n)))
		} else {
			rest += size
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	r.note("Tier %d file by table (dbstat): %s, the rest %s", tier, strings.Join(parts, ", "), mb(rest))
	return total, nil
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

// workCopy copies the built directory src to dir/name (replacing it) and
// returns the copy; build.json is left out.
func workCopy(dir, src, name string) (string, error) {
	dst := filepath.Join(dir, name)
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	start := time.Now()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case rel == "build.json":
			return nil
		}
		return copyFile(p, to)
	})
	if err != nil {
		return "", err
	}
	log.Printf("copied %s to %s in %s", src, dst, time.Since(start).Round(time.Millisecond))
	return dst, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
