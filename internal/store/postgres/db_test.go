package postgres_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/pgtest"
	"github.com/engram-go/engram/internal/store"
	"github.com/engram-go/engram/internal/store/postgres"
)

// openDB opens a DB on a fresh database, closed when t ends.
func openEngine(t *testing.T) (*postgres.DB, string) {
	t.Helper()
	dsn := pgtest.NewDatabase(t).DSN
	db, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// TestOpenBadDSN: a DSN pgx cannot read, and one naming a server that is
// not there, are errors, not a hang or a panic.
func TestOpenBadDSN(t *testing.T) {
	ctx := context.Background()
	if _, err := postgres.Open(ctx, postgres.Config{DSN: "host=/nonexistent/dir port=1 dbname=x connect_timeout=2"}); err == nil {
		t.Fatal("opened a server that is not there")
	}
	if _, err := postgres.Open(ctx, postgres.Config{DSN: "postgres://[::1"}); err == nil || !strings.Contains(err.Error(), "DSN") {
		t.Fatalf("a DSN pgx cannot read: %v, want an error naming the DSN", err)
	}
}

// TestOpenReadOnly: a read-only DB on a database without engram's schema
// is not found (nothing was made), and on a migrated one refuses writes
// with store.ErrReadOnly.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t).DSN
	if _, err := postgres.Open(ctx, postgres.Config{DSN: dsn, ReadOnly: true}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("read-only on an empty database: %v, want store.ErrNotFound", err)
	}
	db, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := postgres.Open(ctx, postgres.Config{DSN: dsn, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.Write(ctx, "test", func(q store.Tx) error { return nil })
	if !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("a write on a read-only DB: %v, want store.ErrReadOnly", err)
	}
}

// TestWriteLocksAgent: two DBs on one database (two processes) that
// increment one agent's counter at once lose no increment: LockAgent
// serialises them; and a write that changes an agent's rows without
// locking it fails and leaves nothing.
func TestWriteLocksAgent(t *testing.T) {
	ctx := context.Background()
	a, dsn := openEngine(t)
	b, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	incr := func(db *postgres.DB) error {
		return db.Write(ctx, "test", func(q store.Tx) error {
			if err := q.LockAgent("ada"); err != nil {
				return err
			}
			var n int64
			err := q.QueryRow(`SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'n'), 0)`, nil, &n)
			if err != nil {
				return err
			}
			time.Sleep(time.Millisecond) // room for the other to interleave, were it not locked out
			_, err = q.Exec(`INSERT INTO meta (key, value) VALUES ('n', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(n+1, 10))
			return err
		})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for _, db := range []*postgres.DB{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				errs <- incr(db)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	if err := a.Read(ctx, "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'n'`, nil, &n)
	}); err != nil {
		t.Fatal(err)
	}
	if n != 40 {
		t.Fatalf("counter %d after 40 locked increments from two DBs", n)
	}
}

// TestWriteUnlocked: a write that reports a change of an agent's row
// without having locked the agent fails, and rolls back.
func TestWriteUnlocked(t *testing.T) {
	ctx := context.Background()
	db, _ := openEngine(t)
	err := db.Write(ctx, "test", func(q store.Tx) error {
		if _, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('x', '1')`); err != nil {
			return err
		}
		q.Changed(store.Change{Kind: "semantic", Agent: "ada", ID: "m1", Op: store.ChangeDelete})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "without locking") {
		t.Fatalf("an unlocked change: %v, want the error of a write without its lock", err)
	}
	var n int
	if err := db.Read(ctx, "test", func(q store.Tx) error {
		return q.QueryRow(`SELECT count(*) FROM meta WHERE key = 'x'`, nil, &n)
	}); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("the failed write was kept")
	}
}

// TestReadSnapshot: a read sees one snapshot, whatever commits while it
// runs.
func TestReadSnapshot(t *testing.T) {
	ctx := context.Background()
	db, _ := openEngine(t)
	put := func(v string) {
		t.Helper()
		if err := db.Write(ctx, "test", func(q store.Tx) error {
			_, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('k', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, v)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("1")
	var first, second string
	err := db.Read(ctx, "test", func(q store.Tx) error {
		if err := q.QueryRow(`SELECT value FROM meta WHERE key = 'k'`, nil, &first); err != nil {
			return err
		}
		put("2")
		return q.QueryRow(`SELECT value FROM meta WHERE key = 'k'`, nil, &second)
	})
	if err != nil {
		t.Fatal(err)
	}
	if first != "1" || second != "1" {
		t.Fatalf("a read saw %q then %q: want one snapshot (1, 1)", first, second)
	}
}

// TestSavepoint: a savepoint that fails rolls back what it wrote and the
// transaction goes on, even after a statement failed in it (which
// aborts a PostgreSQL transaction until ROLLBACK TO).
func TestSavepoint(t *testing.T) {
	ctx := context.Background()
	db, _ := openEngine(t)
	err := db.Write(ctx, "test", func(q store.Tx) error {
		if _, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('a', '1')`); err != nil {
			return err
		}
		err := q.Savepoint(func(q store.Tx) error {
			if _, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('b', '1')`); err != nil {
				return err
			}
			_, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('a', '2')`) // a duplicate key
			return err
		})
		if !store.IsUniqueViolation(err) {
			t.Errorf("the savepoint's error: %v, want a unique violation", err)
		}
		_, err = q.Exec(`INSERT INTO meta (key, value) VALUES ('c', '1')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	err = db.Read(ctx, "test", func(q store.Tx) error {
		rows, err := q.Query(`SELECT key FROM meta WHERE key IN ('a', 'b', 'c') ORDER BY key`)
		if err != nil {
			return err
		}
		keys, err = store.ScanAll(rows, func(r store.Scanner) (string, error) {
			var k string
			return k, r.Scan(&k)
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "a,c" {
		t.Fatalf("keys %v after a failed savepoint: want a, c", keys)
	}
}

// TestWriteCancelled: a write whose context ends while it waits for an
// agent's lock returns the context's error.
func TestWriteCancelled(t *testing.T) {
	ctx := context.Background()
	a, dsn := openEngine(t)
	b, err := postgres.Open(ctx, postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = a.Write(ctx, "hold", func(q store.Tx) error {
			if err := q.LockAgent("ada"); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer close(release)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = b.Write(short, "wait", func(q store.Tx) error { return q.LockAgent("ada") })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a write that waited past its deadline: %v, want context.DeadlineExceeded", err)
	}
}

// TestClosed: after Close, reads and writes return store.ErrClosed.
func TestClosed(t *testing.T) {
	ctx := context.Background()
	db, _ := openEngine(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Read(ctx, "test", func(store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("read after close: %v", err)
	}
	if err := db.Write(ctx, "test", func(store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
}

// TestUnavailable: while the server is down (its socket gone) and while
// it shuts down under a session, reads and writes fail with an
// *UnavailableError that matches store.ErrBusy, and work again once it
// is back.
func TestUnavailable(t *testing.T) {
	ctx := context.Background()
	c := pgtest.NewCluster(t, pgtest.Options{})
	db, err := postgres.Open(ctx, postgres.Config{DSN: c.NewDatabase(t).DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := func() error {
		return db.Read(ctx, "test.read", func(q store.Tx) error { return q.QueryRow(`SELECT count(*) FROM meta`, nil, new(int)) })
	}
	write := func() error {
		return db.Write(ctx, "test.write", func(q store.Tx) error {
			_, err := q.Exec(`INSERT INTO meta (key, value) VALUES ('k', '1') ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
			return err
		})
	}
	if err := errors.Join(read(), write()); err != nil {
		t.Fatal(err)
	}
	if err := c.Down(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{"read": read, "write": write} {
		err := f()
		var ue *postgres.UnavailableError
		if !errors.Is(err, store.ErrBusy) || !errors.As(err, &ue) || !strings.Contains(err.Error(), "unavailable") {
			t.Errorf("a %s while the server is down: %v, want an *UnavailableError matching store.ErrBusy", name, err)
		}
	}
	if err := c.Up(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(read(), write()); err != nil {
		t.Errorf("once the server is back: %v", err)
	}
}
