package engram

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
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
	stmts := store.GraphQueries()
	if len(stmts) == 0 {
		t.Fatal("the store lists no graph statement")
	}
	for name, query := range stmts {
		plan, err := queryPlan(context.Background(), m.db.Read, query)
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
