package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/vecdata"
)

// A built file lives in a directory of -dir named for what it holds and
// its size (tier1-1000000, ...), with a build.json saying how and when it
// was built. A build writes into name.partial and renames it when done,
// so an interrupted build is never reused.

// buildInfo is a built file's build.json.
type buildInfo struct {
	What    string    `json:"what"`
	Entries int       `json:"entries"`
	Seconds float64   `json:"seconds"`
	Rate    float64   `json:"rate"` // entries per second
	Commit  string    `json:"commit"`
	Built   time.Time `json:"built"`
	Note    string    `json:"note,omitempty"`
}

func (b buildInfo) String() string {
	s := fmt.Sprintf("%s: %d entries in %s (%.0f entries/s), built %s by %s",
		b.What, b.Entries, time.Duration(b.Seconds*float64(time.Second)).Round(time.Second), b.Rate,
		b.Built.Format(time.RFC3339), b.Commit)
	if b.Note != "" {
		s += "; " + b.Note
	}
	return s
}

// cached returns the directory dir/name, building it with build (into
// name.partial) when it is absent or rebuild is set, and its build
// information.
func cached(dir, name string, rebuild bool, build func(into string) (buildInfo, error)) (string, buildInfo, error) {
	final := filepath.Join(dir, name)
	var info buildInfo
	if !rebuild {
		if b, err := os.ReadFile(filepath.Join(final, "build.json")); err == nil {
			if err := json.Unmarshal(b, &info); err != nil {
				return "", info, fmt.Errorf("%s: %w", final, err)
			}
			log.Printf("reusing %s (%s)", final, info)
			if c := commit(); c != info.Commit {
				log.Printf("warning: %s was built by %s and the code is at %s: use -rebuild if engram's on-disk layout changed since", final, info.Commit, c)
			}
			return final, info, nil
		}
	}
	partial := final + ".partial"
	for _, d := range []string{final, partial} {
		if err := os.RemoveAll(d); err != nil {
			return "", info, err
		}
	}
	if err := os.MkdirAll(partial, 0o700); err != nil {
		return "", info, err
	}
	log.Printf("building %s", final)
	start := time.Now()
	info, err := build(partial)
	if err != nil {
		return "", info, fmt.Errorf("building %s: %w", name, err)
	}
	info.Seconds = time.Since(start).Seconds()
	info.Rate = float64(info.Entries) / info.Seconds
	info.Commit = commit()
	info.Built = time.Now().UTC().Truncate(time.Second)
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(filepath.Join(partial, "build.json"), append(b, '\n'), 0o600); err != nil {
		return "", info, err
	}
	if err := os.Rename(partial, final); err != nil {
		return "", info, err
	}
	log.Printf("built %s", info)
	return final, info, nil
}

// commit returns the checkout's commit, with "+dirty" when it has
// uncommitted changes to Go files, or "unknown".
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--", "*.go", "*.sql").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

// progress logs how far a build of n entries is, every tenth.
type progress struct {
	what  string
	n     int
	start time.Time
	next  int
}

func newProgress(what string, n int) *progress {
	return &progress{what: what, n: n, start: time.Now(), next: n / 10}
}

func (p *progress) done(k int) {
	if k < p.next && k < p.n {
		return
	}
	p.next = k + p.n/10
	el := time.Since(p.start)
	log.Printf("  %s: %d/%d in %s (%.0f/s)", p.what, k, p.n, el.Round(time.Second), float64(k)/el.Seconds())
}

// buildTier1 stores the corpus as the text-search benchmarks' searchDir
// does (Tier 1, 1,000 entries per StoreBatch, random importance, the
// clock's now), with auto-linking as autolink says, merges the full-text
// indexes (Optimize) and writes memory.md (Flush). The database is
// into/default/memory.db.
func buildTier1(ctx context.Context, into string, docs []string, autolink bool) (buildInfo, error) {
	info := buildInfo{What: "Tier 1 file", Entries: len(docs), Note: fmt.Sprintf("auto-linking %s while building", onOff(autolink))}
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = autolink
	m, err := engram.New(engram.Tier1, engram.WithDir(into), engram.WithConfig(cfg))
	if err != nil {
		return info, err
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	p := newProgress("stored", len(docs))
	for start := 0; start < len(docs); start += 1000 {
		batch := make([]engram.SemanticEntry, 0, 1000)
		for _, d := range docs[start:min(len(docs), start+1000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: float64(rng.IntN(101)) / 100})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			return info, err
		}
		p.done(start + len(batch))
	}
	return info, finish(ctx, m)
}

// buildTier2 stores the vector set as the vector benchmarks' vectorDB
// does (Tier 2 with the table embedder, 2,000 entries per StoreBatch,
// importance 0.5, one shard tag each, all at benchEpoch, auto-linking
// off), merges the full-text indexes and writes memory.md.
func buildTier2(ctx context.Context, into string, set *vectorSet, e engram.Embedder) (buildInfo, error) {
	info := buildInfo{What: "Tier 2 file", Entries: len(set.docs), Note: "auto-linking off while building"}
	cfg := engram.DefaultConfig()
	cfg.Zettelkasten.Enabled = false
	m, err := engram.New(engram.Tier2, engram.WithDir(into), engram.WithEmbedder(e),
		engram.WithConfig(cfg), engram.WithClock(func() time.Time { return benchEpoch }))
	if err != nil {
		return info, err
	}
	defer m.Close()
	n := len(set.docs)
	p := newProgress("stored", n)
	for lo := 0; lo < n; lo += 2000 {
		batch := make([]engram.SemanticEntry, 0, 2000)
		for i, d := range set.docs[lo:min(n, lo+2000)] {
			batch = append(batch, engram.SemanticEntry{Content: d, Importance: 0.5, Tags: []string{shardTag(lo + i)}})
		}
		if _, err := m.Semantic().StoreBatch(ctx, batch); err != nil {
			return info, err
		}
		p.done(lo + len(batch))
	}
	st, err := m.Stats(ctx)
	if err != nil {
		return info, err
	}
	if st.PendingEmbeddings != 0 {
		return info, fmt.Errorf("%d entries still wait for their vectors", st.PendingEmbeddings)
	}
	return info, finish(ctx, m)
}

// finish merges a built memory's full-text indexes, as daily compaction
// does for a memory in use, writes its memory.md and closes it.
func finish(ctx context.Context, m *engram.Memory) error {
	start := time.Now()
	if err := m.Optimize(ctx); err != nil {
		return err
	}
	log.Printf("  optimize: %s", time.Since(start).Round(time.Millisecond))
	if err := m.Flush(ctx); err != nil {
		return err
	}
	return m.Close()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// The bare driver: BenchmarkBaselineInsertFTS's table and pragmas
// (benchdata.BaselineDDL and BaselineDSN), through database/sql and
// modernc.org/sqlite.

// bareDB is a bare-driver database with its prepared inserts: ins of a
// row, vec of a row's vector (nil without vectors).
type bareDB struct {
	db       *sql.DB
	ins, vec *sql.Stmt
}

func openBare(path string, vectors bool, create bool) (*bareDB, error) {
	db, err := sql.Open("sqlite", path+benchdata.BaselineDSN)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	bl := &bareDB{db: db}
	if create {
		for _, q := range benchdata.BaselineDDL(vectors, dims) {
			if _, err := db.Exec(q); err != nil {
				db.Close()
				return nil, err
			}
		}
	}
	if bl.ins, err = db.Prepare(`INSERT INTO t (id, agent_id, content, summary, importance, tags, created_at) VALUES (?, 'default', ?, ?, ?, ?, ?)`); err != nil {
		db.Close()
		return nil, err
	}
	if vectors {
		if bl.vec, err = db.Prepare(`INSERT INTO t_vec (rowid, embedding) VALUES (?, ?)`); err != nil {
			db.Close()
			return nil, err
		}
	}
	return bl, nil
}

// insert inserts one row, with its vector when vec is not nil, in its
// own transaction, as BenchmarkBaselineInsertFTS's rows=1 forms do.
func (bl *bareDB) insert(id string, e engram.SemanticEntry, created int, vec []byte) error {
	tx, err := bl.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.Stmt(bl.ins).Exec(id, e.Content, e.Content, e.Importance, `["x"]`, created)
	if err != nil {
		return err
	}
	if vec != nil {
		pk, _ := res.LastInsertId()
		if _, err := tx.Stmt(bl.vec).Exec(pk, vec); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// buildBare fills a bare-driver database (into/bare.db) with the same
// texts as the engram file it is the baseline of, 10,000 rows per
// transaction, with their vectors when vecs is not nil, and merges its
// full-text index as the engram file's is.
func buildBare(into string, docs []string, vecs [][]float32) (buildInfo, error) {
	info := buildInfo{What: "bare-driver file", Entries: len(docs)}
	if vecs != nil {
		info.What = "bare-driver file with vec0"
	}
	bl, err := openBare(filepath.Join(into, "bare.db"), vecs != nil, true)
	if err != nil {
		return info, err
	}
	defer bl.db.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	p := newProgress("inserted", len(docs))
	for lo := 0; lo < len(docs); lo += 10_000 {
		tx, err := bl.db.Begin()
		if err != nil {
			return info, err
		}
		ins := tx.Stmt(bl.ins)
		var vec *sql.Stmt
		if vecs != nil {
			vec = tx.Stmt(bl.vec)
		}
		for i := lo; i < min(len(docs), lo+10_000); i++ {
			res, err := ins.Exec(fmt.Sprintf("pre-%d", i), docs[i], docs[i], float64(rng.IntN(101))/100, `["x"]`, i)
			if err != nil {
				tx.Rollback()
				return info, err
			}
			if vecs != nil {
				pk, _ := res.LastInsertId()
				if _, err := vec.Exec(pk, encodeVector(vecs[i])); err != nil {
					tx.Rollback()
					return info, err
				}
			}
		}
		if err := tx.Commit(); err != nil {
			return info, err
		}
		p.done(min(len(docs), lo+10_000))
	}
	if _, err := bl.db.Exec(`INSERT INTO t_fts (t_fts) VALUES ('optimize')`); err != nil {
		return info, err
	}
	return info, bl.db.Close()
}

// buildTruth computes the exact 10 nearest stored vectors of each query
// (into/truth.bin: little-endian int32s, 10 per query).
func buildTruth(into string, set *vectorSet) (buildInfo, error) {
	info := buildInfo{What: "exact top 10", Entries: len(set.qvecs)}
	flat := make([]float32, 0, len(set.vecs)*dims)
	for _, v := range set.vecs {
		flat = append(flat, v...)
	}
	out := make([][]int, len(set.qvecs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i] = exactTop(flat, set.qvecs[i], 10)
			}
		})
	}
	p := newProgress("queries", len(out))
	for i := range out {
		next <- i
		p.done(i + 1)
	}
	close(next)
	wg.Wait()
	b := make([]byte, 0, 4*10*len(out))
	for _, top := range out {
		for _, i := range top {
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
		}
	}
	return info, os.WriteFile(filepath.Join(into, "truth.bin"), b, 0o600)
}

// readTruth reads buildTruth's answers.
func readTruth(dir string, queries int) ([][]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "truth.bin"))
	if err != nil {
		return nil, err
	}
	if len(b) != 4*10*queries {
		return nil, fmt.Errorf("%s: %d bytes for %d queries", dir, len(b), queries)
	}
	out := make([][]int, queries)
	for i := range out {
		for j := range 10 {
			out[i] = append(out[i], int(binary.LittleEndian.Uint32(b[4*(10*i+j):])))
		}
	}
	return out, nil
}

// exactTop returns the indexes of the k vectors of flat most similar to
// q, best first.
func exactTop(flat, q []float32, k int) []int {
	top := vecdata.ScanTop(flat, q, dims, 0, len(flat)/dims, k)
	out := make([]int, len(top))
	for i, t := range top {
		out[i] = t.I
	}
	return out
}

// encodeVector is a vector as vec0 stores it (and engram's encodeVector
// makes it): little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
