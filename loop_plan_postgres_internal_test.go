package engram

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/pgtest"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// TestAgentLoopQueryPlansPostgres is TestAgentLoopQueryPlans on
// PostgreSQL: no statement of the agent loop (log, store, assert, search,
// recall, context, the text index's catch-up after another server's
// write) may read all of an agent's rows of a table. The statements are
// those the loop ran, as the engine recorded them; each is planned as
// PostgreSQL plans a prepared statement (a generic plan, whatever the
// parameters), with sequential scans priced out, so that a scan left in
// the plan is one no index can replace, not the planner's choice on a
// small table.
func TestAgentLoopQueryPlansPostgres(t *testing.T) {
	err := pgtest.Start()
	if err != nil {
		t.Skipf("no PostgreSQL to test on: %v", err)
	}
	dsn := pgtest.NewDatabase(t).DSN
	ctx := context.Background()
	open := func(agent string) *Memory {
		m, err := New(Tier1, WithPostgres(dsn), WithAgent(agent))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	// Every kind's rows, and a crowd of another agent's beside the
	// loop's: tables as large as a service's, so that the planner plans as it
	// would there (on a few hundred rows it rightly reads them all), and
	// a read bounded by agent_id alone is far from the whole table.
	crowd := open("crowd")
	seedLoop(t, crowd, 6000)
	seedKinds(t, crowd, 300, 1500)
	m := open("loop")
	seedLoop(t, m, 300)
	seedKinds(t, m, 20, 20)
	loopTurn(t, m, 0)
	indexReady(t, m)
	settle(m)
	pg, ok := m.db.(*postgres.DB)
	if !ok {
		t.Fatalf("the memory's database is %s's", m.db.Engine())
	}
	pg.ForgetStatements()
	for turn := 1; turn <= 5; turn++ {
		loopTurn(t, m, turn)
	}
	// Another server's write: the search catches the index up itself.
	other := open("loop")
	if _, err := other.Episodic().Log(ctx, Episode{Content: "kayak lantern from another server"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Search(ctx, SearchOptions{Query: "kayak lantern"}); err != nil {
		t.Fatal(err)
	}
	if err := m.flushAccess(ctx); err != nil {
		t.Fatal(err)
	}
	settle(m)
	stmts := pg.Statements()
	if len(stmts) < 20 {
		t.Fatalf("%d statements recorded", len(stmts))
	}

	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, set := range []string{`ANALYZE`, `SET plan_cache_mode = force_generic_plan`, `SET enable_seqscan = off`,
		`SET random_page_cost = ` + postgres.RandomPageCost} {
		if _, err := conn.ExecContext(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	tables, err := pgAgentTables(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	bounded := pgBoundedReads()
	checked := 0
	for i, stmt := range stmts {
		if !planned.MatchString(stmt) || strings.Contains(stmt, "pg_temp.") {
			continue // pg_temp's: the session's one row of history's context
		}
		plan, err := genericPlan(ctx, conn, fmt.Sprintf("loop_%d", i), stmt)
		if err != nil {
			t.Errorf("%s: %v", flat(stmt), err)
			continue
		}
		checked++
		if why, ok := bounded[flat(stmt)]; ok {
			t.Logf("bounded: %s: %s", why, flat(stmt))
			continue
		}
		if why := pgReadsAgent(plan, tables, false); why != "" {
			out, _ := json.Marshal(plan)
			t.Errorf("%s\n\t%s\n\t%s", why, flat(stmt), out)
		}
	}
	t.Logf("%d statements recorded, %d planned", len(stmts), checked)
	// The search after the other server's write caught the index up, by
	// pk: that statement was among those checked.
	after, err := postgres.Translate(store.TextAfterSQL)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(stmts, after) {
		t.Errorf("no search caught the text index up after another server's write")
	}
	// The check must be able to fail: a read of all of an agent's
	// episodes by agent_id alone is caught.
	plan, err := genericPlan(ctx, conn, "canary", `SELECT content FROM episodic_log WHERE agent_id = $1 ORDER BY content`)
	if err != nil {
		t.Fatal(err)
	}
	if pgReadsAgent(plan, tables, false) == "" {
		t.Errorf("a read of every episode of an agent passes the check")
	}
}

// seedKinds gives m n procedures, session snapshots and aliases of its
// facts' entities, and docs documents of two chunks.
func seedKinds(t *testing.T, m *Memory, n, docs int) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for i := range docs {
		doc := fmt.Sprintf("# Runbook %d\n\nDeploy the pipeline after the backup.\n\n## Rollback\n\nRestore the index %d.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.md", i)), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Ingest(ctx, dir, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := m.Procedural().Store(ctx, Procedure{Name: fmt.Sprintf("procedure %d", i),
			Description: "roll the canary back", Pattern: fmt.Sprintf("step %d: migrate the schema", i)}); err != nil {
			t.Fatal(err)
		}
		if err := m.Facts().Alias(ctx, fmt.Sprintf("Entity %d", i%17), fmt.Sprintf("E%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := m.Snapshot(ctx, SessionSnapshot{SessionID: fmt.Sprintf("s%d", i), Summary: "the canary was rolled back",
			KeyDecisions: []string{"migrate the schema first"}}); err != nil {
			t.Fatal(err)
		}
	}
}

// planned are the statements that have a plan to check.
var planned = regexp.MustCompile(`(?is)^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b`)

// planNode is a node of PostgreSQL's EXPLAIN (FORMAT JSON).
type planNode struct {
	Type      string     `json:"Node Type"`
	Relation  string     `json:"Relation Name,omitempty"`
	Index     string     `json:"Index Name,omitempty"`
	IndexCond string     `json:"Index Cond,omitempty"`
	Recheck   string     `json:"Recheck Cond,omitempty"`
	Plans     []planNode `json:"Plans,omitempty"`
}

// genericPlan prepares stmt as name on conn and returns its generic plan
// (EXPLAIN EXECUTE with NULL for every parameter: under
// force_generic_plan the values do not change the plan).
func genericPlan(ctx context.Context, conn *sql.Conn, name, stmt string) (planNode, error) {
	if _, err := conn.ExecContext(ctx, `PREPARE `+name+` AS `+stmt); err != nil {
		return planNode{}, err
	}
	defer conn.ExecContext(ctx, `DEALLOCATE `+name)
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = $1`, name).Scan(&n); err != nil {
		return planNode{}, err
	}
	call := name
	if n > 0 {
		call += "(" + strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ") + ")"
	}
	var out string
	if err := conn.QueryRowContext(ctx, `EXPLAIN (FORMAT JSON) EXECUTE `+call).Scan(&out); err != nil {
		return planNode{}, err
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		return planNode{}, fmt.Errorf("EXPLAIN's output %q: %v", out, err)
	}
	return plans[0].Plan, nil
}

// byAgentOnly matches an index condition on agent_id alone.
var byAgentOnly = regexp.MustCompile(`^\(*(\w+\.)?agent_id = [^()]+\)*$`)

// pgReadsAgent says why the plan under n reads all of an agent's rows of
// one of tables, or "" if it does not: a sequential scan of the table, or
// an index scan with no condition or one on agent_id alone, unless a
// LIMIT above it stops the read before anything sorts, hashes or
// aggregates all of its rows.
func pgReadsAgent(n planNode, tables map[string]bool, limited bool) string {
	switch n.Type {
	case "Limit":
		limited = true
	case "Sort", "Incremental Sort", "Hash", "Aggregate", "HashAggregate", "GroupAggregate", "Materialize", "Unique", "WindowAgg", "SetOp":
		limited = false
	}
	if tables[n.Relation] && n.Type != "ModifyTable" {
		cond, index := n.IndexCond, n.Index
		if n.Type == "Bitmap Heap Scan" {
			cond, index = n.Recheck, "a bitmap"
		}
		switch {
		case n.Type == "Seq Scan":
			return "scans " + n.Relation
		case !limited && (cond == "" || byAgentOnly.MatchString(cond)):
			return "reads all of the agent's rows of " + n.Relation + " through " + index
		}
	}
	for _, c := range n.Plans {
		if why := pgReadsAgent(c, tables, limited); why != "" {
			return why
		}
	}
	return ""
}

// pgAgentTables returns the tables of the database that have an agent_id
// column, but for those whose primary key is agent_id (one row an agent).
func pgAgentTables(ctx context.Context, conn *sql.Conn) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, `SELECT c.table_name FROM information_schema.columns c
		WHERE c.column_name = 'agent_id' AND c.table_schema = current_schema()
		AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = to_regclass(c.table_name) AND i.indisprimary
			AND i.indnkeyatts = 1 AND i.indkey[0] = (SELECT attnum FROM pg_attribute WHERE attrelid = i.indrelid AND attname = 'agent_id'))`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// pgBoundedReads are boundedReads in PostgreSQL's dialect (those over
// FTS5, which PostgreSQL never runs, left out).
func pgBoundedReads() map[string]string {
	out := map[string]string{}
	for stmt, why := range boundedReads() {
		if pg, err := postgres.Translate(stmt); err == nil {
			out[flat(pg)] = why
		}
	}
	return out
}
