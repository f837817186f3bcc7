package engram_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/enginetest"
)

// TestForgetWhileAnotherHandleWrites forgets a memory while another
// Memory on the same file, an agent of its own, stores and searches
// without pause: when Forget returns, the forgotten text must be in no
// file (the database, its write-ahead log), whatever the other connection
// does. Other connections used to keep the log from being truncated, and
// the text stayed there until the Memory closed. Each trial is a new
// text; ten catch a failure that happens half the time but in one run of
// 1,024. The other Memory writes back to back, which is what kept the log
// from being truncated; Forget then waits for its moment, up to seconds.
func TestForgetWhileAnotherHandleWrites(t *testing.T) {
	t.Parallel()                                             // parallel: see helpers_test.go
	needs(t, enginetest.CapSecureDelete, enginetest.CapFile) // the forgotten text is in no file
	trials := 10
	if testing.Short() {
		trials = 3
	}
	db := newDB(t)
	ctx := context.Background()
	a := openOn(t, db, "a", engram.Tier1)
	r := openOn(t, db, "r", engram.Tier1)
	for i := range 200 {
		if _, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("background note %d about deploys and dashboards", i), Importance: 0.4}); err != nil {
			t.Fatal(err)
		}
	}
	for trial := range trials {
		secret := fmt.Sprintf("forget-me-%02d the locker combination is %d", trial, 40000+trial*37)
		id, err := a.Semantic().Store(ctx, engram.SemanticEntry{Content: secret, Importance: 0.8})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Search(ctx, engram.SearchOptions{Query: "locker combination"}); err != nil {
			t.Fatal(err)
		}
		// r writes in one goroutine and searches in two, so that its
		// reads overlap and a reader always holds a snapshot.
		stop := make(chan struct{})
		started := make(chan struct{}, 3)
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ; n++ {
					var err error
					if g == 0 {
						_, err = r.Semantic().Store(ctx, engram.SemanticEntry{Content: fmt.Sprintf("r writes note %d of trial %d", n, trial), Importance: 0.5})
					} else {
						_, err = r.Search(ctx, engram.SearchOptions{Query: "note trial writes", Limit: 50})
					}
					if err != nil {
						t.Error(err)
						return
					}
					if n == 3 {
						started <- struct{}{}
					}
					select {
					case <-stop:
						return
					default:
					}
				}
			}()
		}
		for range 3 {
			<-started
		}
		began := time.Now()
		err = a.Forget(ctx, id)
		took := time.Since(began)
		// Looked at while r goes on writing.
		left := filesHolding(t, filepath.Dir(db.file(t)), secret)
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatalf("trial %d: Forget: %v", trial, err)
		}
		t.Logf("trial %d: Forget took %v", trial, took.Round(time.Millisecond))
		if len(left) > 0 {
			t.Errorf("trial %d: when Forget returned, the forgotten text was still in %v", trial, left)
		}
	}
}
