package engram

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/sqlite"
)

func countRows(t *testing.T, m *Memory, table string) int {
	t.Helper()
	var n int
	err := m.db.Read(context.Background(), "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT count(*) FROM `+table+` WHERE agent_id = ?`, []any{m.agent}, &n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A savepoint that fails takes back what it wrote and runs the rollback
// callbacks registered in it, while the transaction around it commits;
// its commit callbacks are dropped.
func TestSavepointRollsBackOnlyItself(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	var events []string
	boom := errors.New("boom")
	now := m.now()
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		row, err := m.semantic.prepare("e", SemanticEntry{ID: "kept", Content: "kept before the savepoint"}, now)
		if err != nil {
			return err
		}
		if err := m.semantic.store(q, row, nil, 0, now); err != nil {
			return err
		}
		q.OnCommit(func() { events = append(events, "commit outer") })
		err = q.Savepoint(func(q store.Tx) error {
			row, err := m.semantic.prepare("e", SemanticEntry{ID: "gone", Content: "written in the failed savepoint"}, now)
			if err != nil {
				return err
			}
			if err := m.semantic.store(q, row, nil, 0, now); err != nil {
				return err
			}
			q.OnCommit(func() { events = append(events, "commit inner") })
			q.OnRollback(func() { events = append(events, "rollback inner") })
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("savepoint returned %v, want boom", err)
		}
		// A nested savepoint that succeeds keeps its work.
		return q.Savepoint(func(q store.Tx) error {
			return q.Savepoint(func(q store.Tx) error {
				row, err := m.semantic.prepare("e", SemanticEntry{ID: "nested", Content: "written two savepoints deep"}, now)
				if err != nil {
					return err
				}
				return m.semantic.store(q, row, nil, 0, now)
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"rollback inner", "commit outer"}; !slices.Equal(events, want) {
		t.Fatalf("callbacks ran %q, want %q", events, want)
	}
	for id, want := range map[string]bool{"kept": true, "gone": false, "nested": true} {
		_, err := m.Semantic().Get(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("entry %q present = %v (err %v), want %v", id, got, err, want)
		}
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}

// A transaction that fails runs every rollback callback, last first, and
// no commit callback.
func TestRollbackCallbacksRunLastFirst(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var events []string
	boom := errors.New("boom")
	err = m.db.Write(context.Background(), "test", func(q store.Tx) error {
		q.OnRollback(func() { events = append(events, "first") })
		q.OnCommit(func() { events = append(events, "commit") })
		q.OnRollback(func() { events = append(events, "second") })
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("write returned %v", err)
	}
	if want := []string{"second", "first"}; !slices.Equal(events, want) {
		t.Fatalf("callbacks ran %q, want %q", events, want)
	}
}

// recorder is a follower that keeps what the change log hands it.
type recorder struct{ got []store.Change }

func (r *recorder) Watches(bool) []store.Watch {
	return []store.Watch{{Kind: string(TypeSemantic), Ops: "iud", Text: true}, {Kind: string(TypeProcedural), Ops: "iud", Text: true}}
}

func (r *recorder) Follow(_ store.Tx, cs []store.Change) error {
	for _, c := range cs {
		c.Terms = nil
		r.got = append(r.got, c)
	}
	return nil
}

// The change log sees every insert, delete and change of text, whichever
// statement makes it (a store, an update, compaction's archive, a
// restore), inserts with the kind's text, and nothing that a savepoint
// took back; updates that leave the text alone are not changes.
func TestChangeLogSeesEveryWritePath(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := &recorder{}
	if err := m.db.Follow(context.Background(), m.agent, r); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "a", Content: "the deploy runs from CI"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Procedural().Store(ctx, Procedure{ID: "p", Name: "deploy", Description: "ship it"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Semantic().Update(ctx, "a", SemanticPatch{Importance: new(0.9)}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Semantic().Update(ctx, "a", SemanticPatch{Content: new("the deploy runs from the blue pipeline")}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Procedural().Update(ctx, "p", ProcedurePatch{Description: new("ship it on fridays")}); err != nil {
		t.Fatal(err)
	}
	if err := m.Semantic().RecordAccess(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		if err := m.archive(q, semanticKind, []leaving{{PK: 1}}, "test", m.now()); err != nil {
			return err
		}
		err := q.Savepoint(func(q store.Tx) error {
			if _, err := q.Exec(`DELETE FROM procedural_memory WHERE id = 'p'`); err != nil {
				return err
			}
			return errors.New("taken back")
		})
		if err == nil {
			t.Error("the savepoint did not report its failure")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Restore(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	want := []store.Change{
		{Kind: string(TypeSemantic), PK: 1, Agent: "default", ID: "a", Op: store.ChangeInsert, Text: "the deploy runs from CI"},
		{Kind: string(TypeProcedural), PK: 1, Agent: "default", ID: "p", Op: store.ChangeInsert, Text: "deploy: ship it"},
		{Kind: string(TypeSemantic), PK: 1, Agent: "default", ID: "a", Op: store.ChangeText},
		{Kind: string(TypeProcedural), PK: 1, Agent: "default", ID: "p", Op: store.ChangeText},
		{Kind: string(TypeSemantic), PK: 1, Agent: "default", ID: "a", Op: store.ChangeDelete},
		{Kind: string(TypeSemantic), PK: 1, Agent: "default", ID: "a", Op: store.ChangeInsert, Text: "the deploy runs from the blue pipeline"},
	}
	if !slices.EqualFunc(r.got, want, func(a, b store.Change) bool {
		return a.Kind == b.Kind && a.PK == b.PK && a.Agent == b.Agent && a.ID == b.ID && a.Op == b.Op && a.Text == b.Text
	}) {
		t.Fatalf("the log saw\n%+v\nwant\n%+v", r.got, want)
	}
}

// openOneReader opens a file-backed Memory with a single reader
// connection.
func openOneReader(t *testing.T) *Memory {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Storage.ReadConns = 1
	m, err := New(Tier1, WithPath(filepath.Join(t.TempDir(), "memory.db")), WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// The flag that lets the triggers log changes of text stays in step with
// the hook when the transaction or savepoint that turned them off rolls
// back: else every Update logs rows that nothing takes, handed out later
// as another transaction's changes.
func TestChangesFlagSurvivesRollback(t *testing.T) {
	boom := errors.New("boom")
	for name, fn := range map[string]func(q store.Tx, m *Memory) error{
		"transaction": func(q store.Tx, m *Memory) error {
			m.stems.reset() // thrown away, as when another handle changed the entries
			return boom
		},
		"savepoint": func(q store.Tx, m *Memory) error {
			if err := q.Savepoint(func(q store.Tx) error {
				m.stems.reset()
				return boom
			}); !errors.Is(err, boom) {
				t.Errorf("savepoint returned %v", err)
			}
			return nil // the transaction commits
		},
	} {
		t.Run(name, func(t *testing.T) { checkChangesFlag(t, fn) })
	}
}

func checkChangesFlag(t *testing.T, fn func(q store.Tx, m *Memory) error) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "a", Content: "the deploy runs from CI"}); err != nil {
		t.Fatal(err)
	}
	if !m.stems.built || !sqliteDB(t, m).State().Logging {
		t.Fatal("storing an entry did not build the stem index and turn the log on")
	}
	_ = m.db.Write(ctx, "test", func(q store.Tx) error { return fn(q, m) })
	if _, err := m.Semantic().Update(ctx, "a", SemanticPatch{Content: new("the deploy runs from the blue pipeline")}); err != nil {
		t.Fatal(err)
	}
	var flag, logged int
	err = m.db.Write(ctx, "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT (SELECT count(*) FROM temp.changes_on), (SELECT count(*) FROM temp.changes)`, nil, &flag, &logged)
	})
	if err != nil {
		t.Fatal(err)
	}
	want, on := 0, sqliteDB(t, m).State().Logging
	if on {
		want = 1
	}
	if flag != want || logged != 0 {
		t.Fatalf("hook on = %v, temp.changes_on holds %d rows and temp.changes %d, want %d and 0", on, flag, logged, want)
	}
}

// A savepoint that rolls back undoes what it did in every follower, even
// after its changes were handed out (as auto-linking does, to be current)
// and when the followers had changed earlier in the transaction: once the
// transaction commits, the stem index and the vector index hold what the
// tables hold. Storing without auto-linking, the vector index is kept in
// step, not dropped.
func TestSavepointRollbackUndoesFollowers(t *testing.T) {
	for _, autoLink := range []bool{false, true} {
		t.Run(fmt.Sprintf("autoLink=%v", autoLink), func(t *testing.T) { checkSavepointFollowers(t, autoLink) })
	}
}

func checkSavepointFollowers(t *testing.T, autoLink bool) {
	ctx := context.Background()
	m, _ := openHashingTier2(t, 64)
	s := m.Semantic()
	if _, err := s.StoreBatch(ctx, []SemanticEntry{{ID: "y", Content: "deleted before the savepoint"}, {ID: "z", Content: "kept all along"}}); err != nil {
		t.Fatal(err)
	}
	// A search builds the vector index, so that the transaction updates it.
	if _, err := s.Search(ctx, SearchOptions{Query: "kept", Mode: SearchVector}); err != nil {
		t.Fatal(err)
	}
	put := func(q store.Tx, id string) error {
		return storeInTx(q, m, SemanticEntry{ID: id, Content: "entry " + id + " about tide tables"}, autoLink)
	}
	boom := errors.New("boom")
	err := m.db.Write(ctx, "test", func(q store.Tx) error {
		if err := m.stems.sync(q); err != nil { // built, and changed in this transaction
			return err
		}
		if err := execReported(q, store.Semantic, store.ChangeDelete, `DELETE FROM semantic_memory WHERE agent_id = ? AND id = 'y'`, m.agent); err != nil {
			return err
		}
		if err := put(q, "x"); err != nil {
			return err
		}
		err := q.Savepoint(func(q store.Tx) error {
			if err := put(q, "a"); err != nil {
				return err
			}
			if err := q.Changes(); err != nil { // handed out inside the savepoint
				return err
			}
			if err := put(q, "b"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			return fmt.Errorf("the savepoint returned %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	checkFollowers(t, m, !autoLink)
}

// storeInTx stores e with its vector in q's transaction, auto-linking it
// when autoLink is set.
func storeInTx(q store.Tx, m *Memory, e SemanticEntry, autoLink bool) error {
	s, now := m.Semantic(), m.now()
	row, err := s.prepare("entry", e, now)
	if err != nil {
		return err
	}
	es, err := m.embedNew(q.Context(), []string{row.Content})
	if err != nil {
		return err
	}
	if autoLink {
		return s.store(q, row, es, 0, now)
	}
	pk, err := s.insert(q, row)
	if err != nil {
		return err
	}
	return m.putNew(q, TypeSemantic, pk, es, 0)
}

// checkFollowers checks that the stem index, when built, holds the
// agent's semantic entries, and that the vector index, when built (as it
// must be when built is set), holds their vectors.
func checkFollowers(t *testing.T, m *Memory, built bool) {
	t.Helper()
	rows := map[int64]string{}
	var vecs []int64
	err := m.db.Read(context.Background(), "test", func(q store.Tx) error {
		rs, err := q.Query(`SELECT s.pk, s.id, v.rowid IS NOT NULL FROM semantic_memory s
			LEFT JOIN `+semanticKind.Vec+` v ON v.rowid = s.pk WHERE s.agent_id = ?`, m.agent)
		if err != nil {
			return err
		}
		_, err = store.ScanAll(rs, func(r store.Scanner) (struct{}, error) {
			var pk int64
			var id string
			var hasVec bool
			err := r.Scan(&pk, &id, &hasVec)
			rows[pk] = id
			if hasVec {
				vecs = append(vecs, pk)
			}
			return struct{}{}, err
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.stems.built {
		docs := map[int64]string{}
		for pk, d := range m.stems.docs {
			docs[pk] = d.id
		}
		if !maps.Equal(docs, rows) {
			t.Errorf("the stem index holds %v, the table %v", docs, rows)
		}
	}
	v := m.vectors
	v.mu.RLock()
	defer v.mu.RUnlock()
	if !v.built {
		if built {
			t.Error("the vector index was dropped; want it kept in step")
		}
		return
	}
	x := v.idx[TypeSemantic]
	for _, pk := range vecs {
		if !x.Has(pk) {
			t.Errorf("the vector index lacks row %d (%s)", pk, rows[pk])
		}
	}
	if x.Len() != len(vecs) {
		t.Errorf("the vector index holds %d vectors, the table %d", x.Len(), len(vecs))
	}
}

// The vector index's finish is registered once per transaction, even when
// the savepoint that first touched the vectors rolled back.
func TestVectorsFinishRegisteredOnce(t *testing.T) {
	ctx := context.Background()
	m, _ := openHashingTier2(t, 64)
	put := func(q store.Tx, content string) error {
		return storeInTx(q, m, SemanticEntry{Content: content}, false)
	}
	boom := errors.New("boom")
	before := 0
	err := m.db.Write(ctx, "test", func(q store.Tx) error {
		if err := q.Savepoint(func(q store.Tx) error {
			if err := put(q, "taken back"); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			return fmt.Errorf("the savepoint returned %v", err)
		}
		if err := put(q, "kept"); err != nil {
			return err
		}
		before, _, _ = q.(*sqlite.Tx).Callbacks()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if before != 1 {
		t.Errorf("%d callbacks before commit, want 1 (finish)", before)
	}
}

// A failure keeps its own error when the context ends by the time the
// transaction does without causing it; a context that cut a statement
// short is reported as the context's error.
func TestFailureKeepsItsErrorWhenContextEnds(t *testing.T) {
	m := openOneReader(t)
	for name, run := range map[string]func(ctx context.Context, fn func(q store.Tx) error) error{
		"write": func(ctx context.Context, fn func(q store.Tx) error) error { return m.db.Write(ctx, "test", fn) },
		"read":  func(ctx context.Context, fn func(q store.Tx) error) error { return m.db.Read(ctx, "test", fn) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			err := run(ctx, func(q store.Tx) error {
				cancel()
				return notFound("memory", "x")
			})
			if !errors.Is(err, ErrNotFound) || errors.Is(err, context.Canceled) {
				t.Errorf("a not-found failure after the context ended returned %v, want ErrNotFound", err)
			}
			ctx, cancel = context.WithCancel(context.Background())
			err = run(ctx, func(q store.Tx) error {
				cancel()
				var n int
				return q.QueryRow(`SELECT count(*) FROM semantic_memory`, nil, &n)
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("a query after the context ended returned %v, want context.Canceled", err)
			}
			ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			err = run(ctx, func(q store.Tx) error {
				var n int
				if q.Write() == nil {
					return q.QueryRow(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`, nil, &n)
				}
				_, err := q.Exec(`INSERT INTO meta (key, value) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 'test' || x, x FROM c`)
				return err
			})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a query the context interrupted returned %v, want context.DeadlineExceeded", err)
			}
		})
	}
}
