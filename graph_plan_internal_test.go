package engram

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// The graph's statements find facts through the indexes of their ends
// (facts_out, facts_in) by entity, never by scanning the agent's facts
// (a view of the most connected entities, which counts them all, is not
// checked).
func TestGraphQueryPlans(t *testing.T) {
	m, err := New(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	stmts := map[string]string{
		"neighbours both":      neighboursSQL(DirectionBoth, false),
		"neighbours out":       neighboursSQL(DirectionOut, false),
		"neighbours in":        neighboursSQL(DirectionIn, false),
		"neighbours predicate": neighboursSQL(DirectionBoth, true),
		"paths 1":              pathSQL(1, false),
		"paths 2":              pathSQL(2, false),
		"paths 3 walk":         pathSQL(3, false),
		"paths 3 pairs":        pathSQL(3, true),
		"walk":                 walkSQL,
		"edges":                edgesSQL,
		"by pk":                byPKSQL,
		"degree":               `SELECT ` + degreeSQL("?4") + `, ` + degreeSQL("?5"),
	}
	for name, query := range stmts {
		var plan []string
		err := m.db.read(context.Background(), "test", func(q *dbtx) error {
			rows, err := q.query(`EXPLAIN QUERY PLAN `+query, "a", 1, 1, "x", "y", 10, 10)
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
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s:\n\t%s", name, strings.Join(plan, "\n\t"))
		for _, step := range plan {
			if f := strings.Fields(step); len(f) > 1 && f[0] == "SCAN" && slices.Contains([]string{"e", "e1", "e2", "e3", "l", "f", "facts"}, f[1]) ||
				strings.HasSuffix(step, "(agent_id=?)") {
				t.Errorf("%s scans the facts: %s", name, step)
			}
		}
	}
}
