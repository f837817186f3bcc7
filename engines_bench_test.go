package engram_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/benchdata"
	"github.com/engram-go/engram/internal/pgtest"
)

var (
	enginesSizes = flag.String("engines.sizes", "10000,100000",
		"the sizes of BenchmarkEngines's memories, comma-separated")
	enginesRounds = flag.Int("engines.rounds", 3, "the rounds of BenchmarkEngines, each timing every op on each engine")
	enginesOps    = flag.Int("engines.ops", 300, "the questions, stores and turns of the agent's loop BenchmarkEngines times per round, engine, size and op")
	enginesStmts  = flag.Bool("engines.statements", false, "BenchmarkEngines logs each op's statements on PostgreSQL, with their calls per op and the server's mean time executing each")
	enginesBulk   = flag.Int("engines.bulk", 100_000, "the memories BenchmarkEngines's op=bulk stores (0: no op=bulk)")
)

// BenchmarkEngines times engram on SQLite and on PostgreSQL (a cluster
// of its own on a Unix socket, fsync, synchronous_commit and
// full_page_writes on, with pg_stat_statements loaded) in one run. The
// search benchmarks' memory of each size (see searchEntries) is built
// once per engine (SQLite: a copy of searchDir's); then each round times,
// for each size, op=search (BenchmarkSearchText's search), op=recall
// (BenchmarkRecall's), op=store (one Semantic.Store, auto-linking on) and
// op=loop (engines.ops turns of BenchmarkAgentLoop's loop, each step's
// p50 and p99 apart), on one engine then the other, the order swapped
// every round; op=store-nosync and op=loop-nosync are op=store and
// op=loop with PostgreSQL's synchronous_commit off (a crash may lose the
// last commits, never corrupt: what SQLite's default synchronous=NORMAL
// in WAL mode promises, which syncs at checkpoints, not at commits), the
// same on SQLite; and op=bulk, engines.bulk entries stored 1,000 per
// StoreBatch into a new memory, then Optimize; and op=roundtrip on
// PostgreSQL alone, a SELECT 1 on one connection: what a statement costs
// at least. The writes of op=store
// and op=loop go into the same memories the searches of later rounds
// ask, on both engines alike. On PostgreSQL, stmts/op is the statements
// pg_stat_statements counted in the memory's database per op (BEGIN and
// COMMIT included, background work too): the round trips. Run it with
// -benchtime 1x: each leaf times its own ops.
func BenchmarkEngines(b *testing.B) {
	ctx := context.Background()
	sizes := parseSizes(b, "engines.sizes", *enginesSizes)
	pg := newBenchCluster(b)
	type corpus struct {
		m    *engram.Memory
		loop *agentLoop
		db   string // PostgreSQL: the database's name
	}
	open := map[string]map[int]*corpus{"sqlite": {}, "postgres": {}}
	for _, n := range sizes {
		for _, engine := range []string{"sqlite", "postgres"} {
			var m *engram.Memory
			var db string
			var err error
			if engine == "sqlite" {
				m, err = engram.New(engram.Tier1, engram.WithDir(copyDir(b, searchDir(b, n))))
			} else {
				db = pg.database(b)
				m, err = engram.New(engram.Tier1, engram.WithPostgres(pg.dsn(db)))
				if err == nil {
					err = fillSearch(ctx, m, searchEntries(n))
				}
			}
			if err != nil {
				b.Fatalf("%s, N=%d: %v", engine, n, err)
			}
			b.Cleanup(func() { m.Close() })
			c := benchdata.NewCorpus(n)
			l := &agentLoop{m: m, docs: c.Docs, qs: c.Questions(512), rng: rand.New(rand.NewPCG(13, 13)),
				facts: benchdata.FactGraph(1<<14, 13, factGraphStart)}
			l.warm(b)
			open[engine][n] = &corpus{m: m, loop: l, db: db}
		}
	}
	texts := benchEntries(3, 1<<14)
	stored := 0
	for round := 1; round <= *enginesRounds; round++ {
		engines := []string{"sqlite", "postgres"}
		if round%2 == 0 {
			slices.Reverse(engines)
		}
		b.Run(fmt.Sprintf("op=roundtrip/round=%d/engine=postgres", round), func(b *testing.B) {
			lat := pg.roundTrips(b, *enginesOps)
			lat.report(b)
		})
		for _, n := range sizes {
			for _, op := range []string{"search", "recall", "store", "store-nosync", "loop", "loop-nosync"} {
				for _, engine := range engines {
					c := open[engine][n]
					b.Run(fmt.Sprintf("op=%s/N=%d/round=%d/engine=%s", op, n, round, engine), func(b *testing.B) {
						if engine == "postgres" && strings.HasSuffix(op, "-nosync") {
							pg.syncCommit(b, false)
							defer pg.syncCommit(b, true)
						}
						count := pg.counter(b, c.db)
						switch strings.TrimSuffix(op, "-nosync") {
						case "search", "recall":
							lat := make(latencies, 0, *enginesOps)
							for i := range *enginesOps {
								q := c.loop.qs[(round**enginesOps+i)%len(c.loop.qs)]
								start := time.Now()
								if err := benchQuestion(ctx, c.m, op, q); err != nil {
									b.Fatalf("%q: %v", q, err)
								}
								lat = append(lat, time.Since(start))
							}
							lat.report(b)
						case "store":
							lat := make(latencies, 0, *enginesOps)
							for range *enginesOps {
								e := texts[stored%len(texts)]
								stored++
								start := time.Now()
								if _, err := c.m.Semantic().Store(ctx, e); err != nil {
									b.Fatal(err)
								}
								lat = append(lat, time.Since(start))
							}
							lat.report(b)
						case "loop":
							lat := make(map[string]latencies, len(loopSteps))
							var turns latencies
							for range *enginesOps {
								start := time.Now()
								c.loop.step(b, ctx, lat)
								turns = append(turns, time.Since(start))
							}
							for _, step := range loopSteps {
								lat[step].percentiles(b, step)
							}
							turns.percentiles(b, "turn")
						}
						count(*enginesOps)
					})
				}
			}
		}
		if *enginesBulk == 0 {
			continue
		}
		entries := searchEntries(*enginesBulk)
		for _, engine := range engines {
			b.Run(fmt.Sprintf("op=bulk/N=%d/round=%d/engine=%s", *enginesBulk, round, engine), func(b *testing.B) {
				var m *engram.Memory
				var db string
				var err error
				if engine == "sqlite" {
					m, err = engram.New(engram.Tier1, engram.WithDir(b.TempDir()))
				} else {
					db = pg.database(b)
					m, err = engram.New(engram.Tier1, engram.WithPostgres(pg.dsn(db)))
				}
				if err != nil {
					b.Fatal(err)
				}
				count := pg.counter(b, db)
				start := time.Now()
				if err := fillSearch(ctx, m, entries); err != nil {
					b.Fatal(err)
				}
				took := time.Since(start)
				count((len(entries) + 999) / 1000)
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
				if db != "" {
					pg.drop(b, db)
				}
				b.ReportMetric(took.Seconds(), "s")
				b.ReportMetric(float64(len(entries))/took.Seconds(), "memories/s")
			})
		}
	}
}

// benchQuestion asks q of m as op says: "search" is BenchmarkSearchText's
// search, "recall" BenchmarkRecall's recall; each fails on no answer.
func benchQuestion(ctx context.Context, m *engram.Memory, op, q string) error {
	if op == "search" {
		res, err := m.Search(ctx, engram.SearchOptions{Query: q})
		if err == nil && len(res) == 0 {
			err = errors.New("no results")
		}
		return err
	}
	r, err := m.Recall(ctx, q)
	if err == nil && len(r.Admitted) == 0 {
		err = errors.New("nothing admitted")
	}
	return err
}

// benchCluster is BenchmarkEngines's PostgreSQL cluster: durable, with
// pg_stat_statements.
type benchCluster struct {
	c     *pgtest.Cluster
	admin *sql.DB // to the postgres database
}

// newBenchCluster starts a durable cluster for b with pg_stat_statements
// loaded, or skips b where PostgreSQL is not installed.
func newBenchCluster(b *testing.B) *benchCluster {
	c := pgtest.NewCluster(b, pgtest.Options{Durable: true})
	admin, err := sql.Open("pgx", c.DSN("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := admin.Exec(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`); err != nil {
		b.Fatal(err)
	}
	admin.Close()
	if err := c.Restart(); err != nil {
		b.Fatal(err)
	}
	if admin, err = sql.Open("pgx", c.DSN("postgres")); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`CREATE EXTENSION pg_stat_statements`); err != nil {
		b.Fatal(err)
	}
	return &benchCluster{c: c, admin: admin}
}

// database makes a new database and returns its name.
func (p *benchCluster) database(b testing.TB) string { return p.c.NewDatabase(b).Name }

// dsn returns the DSN of database name.
func (p *benchCluster) dsn(name string) string { return p.c.DSN(name) }

// drop drops database name, which no connection uses any more.
func (p *benchCluster) drop(b testing.TB, name string) {
	if _, err := p.admin.Exec(`DROP DATABASE "` + strings.ReplaceAll(name, `"`, `""`) + `" WITH (FORCE)`); err != nil {
		b.Fatal(err)
	}
}

// roundTrips times n statements SELECT 1 on one connection to the
// cluster.
func (p *benchCluster) roundTrips(b testing.TB, n int) latencies {
	ctx := context.Background()
	conn, err := p.admin.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	lat := make(latencies, 0, n)
	for range n {
		start := time.Now()
		var one int
		if err := conn.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}

// syncCommit sets the cluster's synchronous_commit on or off, in every
// session that has not set its own (a reload of the configuration).
func (p *benchCluster) syncCommit(b testing.TB, on bool) {
	q := `ALTER SYSTEM SET synchronous_commit = off`
	if on {
		q = `ALTER SYSTEM RESET synchronous_commit`
	}
	if _, err := p.admin.Exec(q); err != nil {
		b.Fatal(err)
	}
	if _, err := p.admin.Exec(`SELECT pg_reload_conf()`); err != nil {
		b.Fatal(err)
	}
	// The server's processes read the configuration again when the
	// postmaster's signal reaches them: between two statements.
	time.Sleep(500 * time.Millisecond)
}

// statementUse is what pg_stat_statements counted of one statement.
type statementUse struct {
	calls int64
	ms    float64 // the time the server spent executing it
	rows  int64   // the rows it returned or changed
}

// statements returns what pg_stat_statements counted in database name
// so far, by statement.
func (p *benchCluster) statements(b testing.TB, name string) map[string]statementUse {
	rows, err := p.admin.Query(`SELECT s.query, sum(s.calls)::bigint, sum(s.total_exec_time), sum(s.rows)::bigint FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 GROUP BY s.query`, name)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[string]statementUse{}
	for rows.Next() {
		var q string
		var u statementUse
		if err := rows.Scan(&q, &u.calls, &u.ms, &u.rows); err != nil {
			b.Fatal(err)
		}
		out[q] = u
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return out
}

// counter starts counting the statements run in database name and
// returns the function that reports them per op, for ops ops, as
// stmts/op, and with -engines.statements logs each statement's calls per
// op, the server's mean time executing it and the rows it returned; for "" (SQLite) it reports
// nothing.
func (p *benchCluster) counter(b *testing.B, name string) func(ops int) {
	if name == "" {
		return func(int) {}
	}
	before := p.statements(b, name)
	return func(ops int) {
		type stmt struct {
			q     string
			calls int64
			ms    float64
			rows  int64
		}
		var all []stmt
		total := int64(0)
		for q, u := range p.statements(b, name) {
			if d := u.calls - before[q].calls; d > 0 {
				all = append(all, stmt{q, d, u.ms - before[q].ms, u.rows - before[q].rows})
				total += d
			}
		}
		b.ReportMetric(float64(total)/float64(ops), "stmts/op")
		if !*enginesStmts {
			return
		}
		slices.SortFunc(all, func(x, y stmt) int { return int(y.calls - x.calls) })
		var log strings.Builder
		for _, s := range all {
			fmt.Fprintf(&log, "\n%8.3f %8.1f µs %6.1f rows  %.160s", float64(s.calls)/float64(ops), 1000*s.ms/float64(s.calls),
				float64(s.rows)/float64(s.calls), strings.Join(strings.Fields(s.q), " "))
		}
		b.Logf("statements per op:%s", log.String())
	}
}
