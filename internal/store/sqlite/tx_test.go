package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// openOneReader opens a database file with a single reader connection.
func openOneReader(t *testing.T) *DB {
	t.Helper()
	cfg := testConfig()
	cfg.ReadConns = 1
	path := filepath.Join(t.TempDir(), "memory.db")
	if err := createDir(path); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A read waiting for a reader connection is not left waiting forever:
// Close wakes it with ErrClosed, and a reader closed instead of returned
// to the pool lets it open another.
func TestReaderWaitersWake(t *testing.T) {
	t.Run("close", func(t *testing.T) {
		s := openOneReader(t)
		ctx := context.Background()
		inRead, finish := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.Read(ctx, "test", func(store.Tx) error {
				close(inRead)
				<-finish
				return nil
			})
		}()
		<-inRead
		waiter := make(chan error, 1)
		go func() { waiter <- s.Read(ctx, "test", func(store.Tx) error { return nil }) }()
		time.Sleep(50 * time.Millisecond) // let it wait for the reader
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		close(finish)
		<-first
		select {
		case err := <-waiter:
			if !errors.Is(err, store.ErrClosed) {
				t.Fatalf("the waiting read returned %v, want ErrClosed", err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the waiting read is still blocked 2s after Close")
		}
	})
	t.Run("reader closed", func(t *testing.T) {
		s := openOneReader(t)
		ctx := context.Background()
		r, err := s.acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waiter := make(chan error, 1)
		go func() {
			r, err := s.acquire(ctx)
			if err == nil {
				s.release(r, true)
			}
			waiter <- err
		}()
		time.Sleep(50 * time.Millisecond) // let it wait for the reader
		s.release(r, false)               // as after a transaction that did not end
		select {
		case err := <-waiter:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the waiting read is still blocked 2s after the reader was closed")
		}
	})
}
