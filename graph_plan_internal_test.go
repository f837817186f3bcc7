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
		plan, err := queryPlan(context.Background(), m.db.read, query)
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
