package engram

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// The statements a filter by user or session runs find the rows through
// the full-text index or the indexes of the user and the session (see
// migration 0012), never by a scan of the agent's rows: the full-text
// queries of a search (its best matches, its windows, the session context
// and its episodes' sessions and question bits), the vector search's rows,
// Memory.List's pages, the semantic listing, an export's memories and
// ForgetUser's deletes. A metadata condition is checked on the rows a
// search's full-text index found.
func TestScopeQueryPlans(t *testing.T) {
	m, err := New(Tier1, WithDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	filters := map[string]*Filter{
		"user":             {UserID: "u1"},
		"session":          {SessionID: "s1"},
		"user and session": {UserID: "u1", SessionID: "s1"},
		"user and meta":    {UserID: "u1", Metadata: MetaAnd(MetaEq("lang", "go"), MetaNot(MetaGt("n", 3)))},
	}
	stmts := map[string]string{}
	byScope := map[string]bool{} // statements that must use an index of the user or the session
	for name, f := range filters {
		sc := newScope(*f, store.DialectSQLite)
		ff := ftsFilter{sc: sc}
		for _, src := range ftsSources {
			if !sc.admits(src.kind) {
				continue
			}
			stmts[name+": best "+src.Table], _ = ff.scoped(store.TextBestSQL[src.Kind], src.kind, "t", 11)
			stmts[name+": window "+src.Table], _ = ff.scoped(store.TextWindowSQL[src.Kind], src.kind, "t", 7)
			if src.Vec != "" {
				stmts[name+": vector rows "+src.Table], _ = ff.scoped(vectorSQL[src.typ], src.kind, "t", 6)
			}
		}
		stmts[name+": context"], _ = ff.scoped(store.NeighbourQuery(episodicKind.Kind), episodicKind, "e", 5)
		if f.Metadata != nil {
			continue // the rest by metadata alone reads the agent's rows
		}
		for _, k := range kinds {
			if sc.admits(k) {
				// Memory.List's page of each kind, as Memory.records
				// runs it, with a tag filter of its own or not.
				for _, tagged := range []bool{false, k.Tagged} {
					page := store.AllRows
					if tagged {
						page.Tags = `["t"]`
					}
					stmt := fmt.Sprintf("%s: list %s (tags %v)", name, k.Table, tagged)
					stmts[stmt], _ = page.Select(k.Kind, sc.storedOrNil()).Statement(k.Kind, "id", "")
					byScope[stmt] = true
				}
			}
		}
		cond, _ := sc.where(semanticKind, "semantic_memory", 0)
		stmts[name+": semantic list"] = `SELECT ` + semanticCols + ` FROM semantic_memory WHERE agent_id = ? AND ` + cond +
			` ORDER BY ` + store.OrderBy(sc.user, sc.session, "importance DESC, updated_at DESC, id") + ` LIMIT ? OFFSET ?`
		for _, k := range kinds {
			if tab := memoryTable(k); sc.admits(k) {
				cond, _, _ := tab.scoped(&sc)
				stmts[name+": export "+k.Table] = tab.src.Statement(cond)
			}
		}
	}
	// The sessions and question bits of a search's episodes (FTS5 path).
	stmts["traits"] = store.TraitsQuery(episodicKind.Kind)
	for _, k := range kindsWith(func(k *kind) bool { return k.UserCol != "" }) {
		stmts["forget user "+k.Table] = `DELETE FROM ` + k.Table + ` WHERE agent_id = ? AND ` + k.UserCol + ` = ? AND ` + k.UserCol + ` <> '' RETURNING id`
	}
	for name, query := range stmts {
		plan, err := queryPlan(context.Background(), m.db.Read, query)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s:\n\t%s", name, strings.Join(plan, "\n\t"))
		if byScope[name] && !slices.ContainsFunc(plan, func(step string) bool {
			return strings.Contains(step, "_by_user ") || strings.Contains(step, "_by_session ")
		}) {
			t.Errorf("%s does not use an index of the user or the session", name)
		}
		for _, step := range plan {
			f := strings.Fields(step)
			scan := len(f) > 1 && f[0] == "SCAN" && !strings.Contains(step, "VIRTUAL TABLE") && f[1] != "j" && !strings.HasPrefix(f[1], "(") &&
				!strings.Contains(step, "SUBQUERY") && f[1] != "b" && f[1] != "n" && f[1] != "near" && f[1] != "hit" && f[1] != "h"
			if scan || strings.HasSuffix(step, "(agent_id=?)") {
				t.Errorf("%s scans the agent's rows: %s", name, step)
			}
		}
	}
}
