package engram

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// In a Store's shared file another agent's writes leave an agent's
// summary cached, and Summary does not wait for a write of another agent
// that holds the writer; the agent's own write, and another connection's
// commit, make it compute the summary anew.
func TestSummaryIgnoresOtherAgentsOfAStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.db")
	st, err := Open(Tier1, WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.Agent("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Agent("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Semantic().Store(ctx, SemanticEntry{Content: "a's first note"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Summary(ctx); err != nil {
		t.Fatal(err)
	}
	cached := func() bool {
		t.Helper()
		k, err := a.summaryKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a.summary.mu.Lock()
		defer a.summary.mu.Unlock()
		return a.summary.ok && a.summary.key == k
	}
	if !cached() {
		t.Fatal("a's summary is not kept after it is computed")
	}
	for i := range 20 {
		if _, err := b.Semantic().Store(ctx, SemanticEntry{Content: "b's note", Importance: float64(i) / 20}); err != nil {
			t.Fatal(err)
		}
	}
	if !cached() {
		t.Error("b's writes made a's summary cold")
	}

	// b's write holds the store's writer: a's Summary answers meanwhile.
	holding, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = b.write(ctx, "test.hold", func(q store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	done := make(chan error)
	go func() { _, err := a.Summary(ctx); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("a's Summary waits for b's write")
	}
	close(release)

	if _, err := a.Semantic().Store(ctx, SemanticEntry{Content: "a's second note"}); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Error("a's own write left its summary cached")
	}
	s, err := a.Summary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kinds[0].Count != 2 {
		t.Errorf("a's summary counts %d semantic entries, want 2: %+v", s.Kinds[0].Count, s.Kinds)
	}

	// Another connection's commit, any agent's, moves the file's version.
	other, err := New(Tier1, WithPath(path), WithAgent("c"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Semantic().Store(ctx, SemanticEntry{Content: "c's note"}); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Error("another connection's commit left a's summary cached")
	}
}
