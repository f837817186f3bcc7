package engram

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

// The agent loop's statements: every turn an agent logs an episode or
// stores a fact, then searches, recalls and builds a context. Each
// statement runs once a turn at least, so none may read all of an
// agent's rows of a memory table: neither by scanning the table nor by
// reading them through an index on agent_id alone and sorting them.
// The statements are those the turns of a real loop prepared, collected
// from the connections' statement caches, so that the list follows the
// code.
func TestAgentLoopQueryPlans(t *testing.T) {
	skipWithoutFTS(t, "it checks the plans of the FTS5 path (facts through FTS5) the loop runs with FTS5")
	dir := t.TempDir()
	m, err := New(Tier1, WithDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	seedLoop(t, m, 200)
	// The first turn builds the text index (in the background); the
	// turns after catch it up with the rows they add.
	loopTurn(t, m, 0)
	indexReady(t, m)
	settle(m)
	forgetStatements(t, sqliteDB(t, m))
	for turn := 1; turn <= 5; turn++ {
		loopTurn(t, m, turn)
	}
	// Another handle's write: the search catches the index up itself.
	other, err := New(Tier1, WithDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Episodic().Log(ctx, Episode{Content: "kayak lantern from another handle"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Search(ctx, SearchOptions{Query: "kayak lantern"}); err != nil {
		t.Fatal(err)
	}
	if err := m.flushAccess(ctx); err != nil {
		t.Fatal(err)
	}
	// A turn that finds the index behind by more than rows added builds
	// it again, in the background: build once more here, so that its
	// statements are always among those checked.
	if _, err := loadText(ctx, m); err != nil {
		t.Fatal(err)
	}
	settle(m)
	writes, reads := preparedStatements(t, sqliteDB(t, m))
	if len(writes) == 0 || len(reads) == 0 {
		t.Fatalf("%d write and %d read statements collected", len(writes), len(reads))
	}
	var tables []string
	if err := m.db.Read(ctx, "test", func(q store.Tx) (err error) { tables, err = agentTables(q); return err }); err != nil {
		t.Fatal(err)
	}
	bounded, ran := boundedReads(), map[string]bool{}
	check := func(kind string, stmts []string, run func(ctx context.Context, op string, fn func(q store.Tx) error) error) {
		for _, stmt := range stmts {
			plan, err := queryPlan(ctx, run, stmt)
			if err != nil {
				t.Errorf("%s %q: %v", kind, stmt, err)
				continue
			}
			t.Logf("%s %s\n\t%s", kind, flat(stmt), strings.Join(plan, "\n\t"))
			if why, ok := bounded[flat(stmt)]; ok {
				t.Logf("bounded: %s", why)
				ran[flat(stmt)] = true
				continue
			}
			if why := readsAgent(stmt, plan, tables); why != "" {
				t.Errorf("%s: %s\n\t%s\n\t%s", kind, why, flat(stmt), strings.Join(plan, "\n\t"))
			}
		}
	}
	check("write", writes, m.db.Write)
	check("read", reads, m.db.Read)
	for stmt := range bounded {
		if ran[stmt] || ran[textBuildAlternative[stmt]] {
			continue
		}
		t.Errorf("the loop never ran the bounded statement %s", stmt)
	}
	// The turns' own writes caught the index up as they committed, and
	// the search after the other handle's write caught it up: by pk.
	if !slices.Contains(writes, store.TextAfterSQL) {
		t.Errorf("the loop's writes never caught the text index up")
	}
	if !slices.Contains(reads, store.TextAfterSQL) {
		t.Errorf("no search caught the text index up after another handle's write")
	}
}

// seedLoop gives m n semantic entries, n episodes in a few sessions and
// n/5 facts.
func seedLoop(t *testing.T, m *Memory, n int) {
	t.Helper()
	ctx := context.Background()
	words := strings.Fields(`deploy pipeline rollback canary migrate schema index vacuum backup restore token secret
		kayak garage river tent stove lantern map compass boots rope trail summit lake cabin fire`)
	text := func(i, n int) string {
		w := make([]string, n)
		for j := range w {
			w[j] = words[(i*7+j*13)%len(words)]
		}
		return strings.Join(w, " ")
	}
	entries := make([]SemanticEntry, n)
	eps := make([]Episode, n)
	var fs []Fact
	for i := range n {
		entries[i] = SemanticEntry{Content: text(i, 8), Importance: float64(i%10) / 10, Tags: []string{words[i%len(words)]}}
		eps[i] = Episode{Content: text(i+3, 10), SessionID: fmt.Sprintf("s%d", i/20), TaskID: fmt.Sprintf("t%d", i%7)}
		if i%5 == 0 {
			fs = append(fs, Fact{Subject: fmt.Sprintf("Entity %d", i%17), Predicate: "works on", Object: fmt.Sprintf("Project %d", i%11)})
		}
	}
	if _, err := m.Semantic().StoreBatch(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Episodic().LogBatch(ctx, eps); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Facts().AssertAll(ctx, fs); err != nil {
		t.Fatal(err)
	}
}

// loopTurn runs one turn of an agent's loop: log an episode, store an
// entry and assert a fact, then search, recall and build a context.
func loopTurn(t *testing.T, m *Memory, turn int) {
	t.Helper()
	ctx := context.Background()
	if _, err := m.Episodic().Log(ctx, Episode{Content: fmt.Sprintf("turn %d: rolled the canary back after the schema migrate", turn),
		SessionID: "loop", TaskID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Semantic().Store(ctx, SemanticEntry{Content: fmt.Sprintf("fact %d: the deploy pipeline needs a backup first", turn),
		Importance: 0.5}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Facts().Assert(ctx, Fact{Subject: "Entity 3", Predicate: "works on", Object: fmt.Sprintf("Project %d", turn)}); err != nil {
		t.Fatal(err)
	}
	q := "what did we decide about the deploy pipeline rollback"
	if res, err := m.Search(ctx, SearchOptions{Query: q}); err != nil || len(res) == 0 {
		t.Fatalf("search: %d results, %v", len(res), err)
	}
	if _, err := m.Recall(ctx, q); err != nil {
		t.Fatal(err)
	}
	if c, err := m.Context(ctx, ContextOptions{Query: q, MaxTokens: 2000}); err != nil || c.Tokens == 0 {
		t.Fatalf("context: %d tokens, %v", c.Tokens, err)
	}
}

// settle waits for m's background work, a build of its text index or of
// auto-linking's stem index or a write of access notes, so that no read
// or write is under way.
func settle(m *Memory) {
	m.text.ctl.wg.Wait()
	m.stems.ctl.wg.Wait()
	m.access.background.Wait()
}

// forgetStatements closes the statements the writer and the idle readers
// have prepared, so that those collected afterwards are the ones used
// since.
func forgetStatements(t *testing.T, s *sqlite.DB) {
	t.Helper()
	if err := s.ForgetStatements(); err != nil {
		t.Fatal(err)
	}
}

// preparedStatements returns the statements the writer and the idle
// readers hold prepared, sorted.
func preparedStatements(t *testing.T, s *sqlite.DB) (writes, reads []string) {
	t.Helper()
	return s.Prepared()
}

// queryPlan returns the steps of stmt's query plan, read in a
// transaction that run starts.
func queryPlan(ctx context.Context, run func(ctx context.Context, op string, fn func(q store.Tx) error) error, stmt string) ([]string, error) {
	var plan []string
	err := run(ctx, "test", func(q store.Tx) error {
		// NULL for every parameter: without ANALYZE's statistics, the
		// values do not change the plan.
		rows, err := q.Query(`EXPLAIN QUERY PLAN `+stmt, make([]any, params(stmt))...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			plan = append(plan, detail)
		}
		return rows.Err()
	})
	return plan, err
}

var planSearch = regexp.MustCompile(`^(SCAN|SEARCH) (\S+)(?: USING (?:COVERING )?INDEX (\S+) \((.*)\)| USING (?:COVERING )?INDEX (\S+))?`)

// boundedReads are the loop's statements that read an agent's rows
// through an index on agent_id alone, or all of them, and why that is
// bounded.
func boundedReads() map[string]string {
	out := map[string]string{
		`SELECT EXISTS (SELECT 1 FROM facts WHERE agent_id = ?1), EXISTS (SELECT 1 FROM facts WHERE agent_id < ?1 OR agent_id > ?1)`: "EXISTS stops at the first fact",
	}
	for _, src := range ftsSources {
		out[flat(store.TextRowsSQL[src.Kind])] = "a build of the text index reads all of the agent's rows, once, in the background; a turn catches it up instead"
		out[flat(store.TextScanSQL[src.Kind])] = "a build of the text index reads all of the rows of a table that holds the agent's alone, once, in the background; a turn catches it up instead"
	}
	return out
}

// textBuildAlternative pairs each kind's two statements of a text index
// build (store.TextRowsSQL, store.TextScanSQL), of which a build runs one: the second
// when the table holds the agent's rows alone.
var textBuildAlternative = func() map[string]string {
	out := map[string]string{}
	for _, src := range ftsSources {
		rows, scan := flat(store.TextRowsSQL[src.Kind]), flat(store.TextScanSQL[src.Kind])
		out[rows], out[scan] = scan, rows
	}
	return out
}()

// readsAgent says why stmt's plan reads every row of an agent in a
// memory table (one of memTables), or "" if it does not: a SCAN of the
// table (or of a whole index of it), or a SEARCH through an index on
// agent_id alone, unless the index gives the order (no temporary B-tree
// sorts) and a LIMIT stops the read.
func readsAgent(stmt string, plan []string, memTables []string) string {
	tables := aliases(stmt, memTables)
	sorts := slices.ContainsFunc(plan, func(step string) bool { return strings.HasPrefix(step, "USE TEMP B-TREE") })
	for _, step := range plan {
		f := planSearch.FindStringSubmatch(step)
		if f == nil || !tables[f[2]] {
			continue
		}
		switch {
		case f[1] == "SCAN":
			return "scans " + f[2]
		case f[4] == "agent_id=?" && sorts:
			return "reads all of the agent's rows of " + f[2] + " through " + f[3] + " and sorts them"
		case f[4] == "agent_id=?" && !limited.MatchString(stmt):
			return "reads all of the agent's rows of " + f[2] + " through " + f[3]
		}
	}
	return ""
}

var limited = regexp.MustCompile(`\bLIMIT\b`)

// aliases returns the names stmt gives the agent tables it reads.
func aliases(stmt string, memTables []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range memTables {
		re := regexp.MustCompile(`\b` + t + `\b(?:\s+(?:AS\s+)?(\w+))?`)
		for _, m := range re.FindAllStringSubmatch(stmt, -1) {
			out[t] = true
			if m[1] != "" && !slices.Contains(sqlWords, strings.ToUpper(m[1])) {
				out[m[1]] = true
			}
		}
	}
	return out
}

// sqlWords may follow a table's name without naming it.
var sqlWords = []string{"WHERE", "JOIN", "ON", "SET", "LEFT", "INNER", "CROSS", "USING", "ORDER", "GROUP", "LIMIT",
	"INDEXED", "NOT", "VALUES", "DEFAULT", "SELECT", "UNION", "AS", "WITH", "FROM", "AND", "OR", "RETURNING"}

// params returns how many parameters stmt takes, at most.
func params(stmt string) int {
	n := strings.Count(stmt, "?")
	for _, m := range numbered.FindAllStringSubmatch(stmt, -1) {
		k, _ := strconv.Atoi(m[1])
		n = max(n, k)
	}
	return n
}

var numbered = regexp.MustCompile(`\?(\d+)`)

func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// sqliteDB returns m's database as SQLite's, for the tests of SQLite's
// internals; t fails on another engine.
func sqliteDB(t testing.TB, m *Memory) *sqlite.DB {
	t.Helper()
	db, ok := m.db.(*sqlite.DB)
	if !ok {
		t.Fatalf("the memory's database is %s's, not SQLite's", m.db.Engine())
	}
	return db
}
