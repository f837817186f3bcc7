package engram

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/engram-go/engram/internal/store"
)

// unreported runs the statements of a transaction and drops their reports
// of changes: a write that forgot to report.
type unreported struct{ *dbtx }

func (unreported) Changed(store.Change) {}

// execReported runs stmt, an UPDATE or DELETE of rows of k written in a
// test, and reports each row it changed as op, as the statements of
// internal/store do (see store.Change).
func execReported(q *dbtx, k *store.Kind, op store.ChangeOp, stmt string, args ...any) error {
	rows, err := q.query(stmt+` RETURNING pk, agent_id, id`, args...)
	if err != nil {
		return err
	}
	_, err = store.ScanAll(rows, func(r store.Scanner) (struct{}, error) {
		c := store.Change{Kind: k, Op: op}
		if err := r.Scan(&c.PK, &c.Agent, &c.ID); err != nil {
			return struct{}{}, err
		}
		q.Changed(c)
		return struct{}{}, nil
	})
	return err
}

// A statement that changes a memory row without reporting it fails its
// transaction when the change log checks the reports (as every test
// does), and leaves the followers as they were; the same row written
// through the store is reported and followed.
func TestChangeLogCatchesAnUnreportedWrite(t *testing.T) {
	if !checkChangeLog {
		t.Skip("the change log does not check the reports: TestMain turns the check on for the tests")
	}
	ctx := context.Background()
	m, err := New(Tier1, WithPath(filepath.Join(t.TempDir(), "memory.db")), WithAgent("ada"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "s1", Content: "the billing service"}); err != nil {
		t.Fatal(err)
	}
	// A search builds the text index, which follows inserts from then on.
	if _, err := m.Search(ctx, SearchOptions{Query: "billing"}); err != nil {
		t.Fatal(err)
	}
	err = m.db.write(ctx, "test.raw", func(q *dbtx) error {
		_, err := store.InsertSemantic(unreported{q}, "ada", &store.SemanticRow{ID: "raw", Content: "a billing row nobody reported"})
		return err
	})
	if !errors.Is(err, errChangeLog) {
		t.Fatalf("an unreported insert: %v, want errChangeLog", err)
	}
	res, err := m.Search(ctx, SearchOptions{Query: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].ID != "s1" {
		t.Fatalf("after the failed write, a search finds %+v, want s1 alone", res)
	}
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "s2", Content: "billing, reported"}); err != nil {
		t.Fatal(err)
	}
	if res, err = m.Search(ctx, SearchOptions{Query: "billing"}); err != nil || len(res) != 2 {
		t.Fatalf("after a reported write, a search finds %+v (%v), want two", res, err)
	}
}
