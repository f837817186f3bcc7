package agentreg_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/engram-go/engram/internal/agentreg"
)

// mem is a memory of the fake provider.
type mem struct {
	id     string
	closed atomic.Bool
	using  atomic.Int32 // calls running on it
}

var errClosed = errors.New("closed")

// provider hands out mems; an agent exists once Agent opened it.
type provider struct {
	mu     sync.Mutex
	open   map[string]*mem
	opened int
}

func (p *provider) Agent(id string) (*mem, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.open[id]; m != nil && !m.closed.Load() {
		return m, nil
	}
	p.opened++
	m := &mem{id: id}
	p.open[id] = m
	return m, nil
}

func (p *provider) Agents(context.Context) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for id, m := range p.open {
		if !m.closed.Load() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func newRegistry() (*agentreg.Registry[*mem], *provider, *int) {
	p := &provider{open: map[string]*mem{}}
	empties := new(int)
	r := agentreg.New[*mem](p, agentreg.Config[*mem]{
		Empty:  func(id string) (*mem, func(), error) { *empties++; return &mem{id: "empty:" + id}, func() {}, nil },
		Closed: func(err error) bool { return errors.Is(err, errClosed) },
	})
	return r, p, empties
}

func TestReadNeverOpens(t *testing.T) {
	r, p, empties := newRegistry()
	ctx := context.Background()
	var got string
	if err := r.Read(ctx, "a", func(m *mem) error { got = m.id; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != "empty:a" || p.opened != 0 || *empties != 1 {
		t.Fatalf("read of an agent with no memory: ran on %q, opened %d, empties %d", got, p.opened, *empties)
	}
	if err := r.Change(ctx, "a", func(m *mem) error { got = m.id; return nil }); err != nil || got != "empty:a" || p.opened != 0 {
		t.Fatalf("change of an agent with no memory: ran on %q, opened %d (%v)", got, p.opened, err)
	}
	if err := r.Remove(ctx, "a", func(*mem) error { t.Fatal("removed an agent with no memory"); return nil }); !errors.Is(err, agentreg.ErrNoAgent) {
		t.Fatalf("Remove: got %v, want ErrNoAgent", err)
	}
	r.Write(ctx, "a", func(m *mem) error { got = m.id; return nil })
	r.Read(ctx, "a", func(m *mem) error { got = m.id; return nil })
	if got != "a" || p.opened != 1 {
		t.Fatalf("after a write: read ran on %q, opened %d", got, p.opened)
	}
	if touched := r.Touched(); !slices.Equal(touched, []string{"a"}) {
		t.Fatalf("Touched: %v", touched)
	}
	if touched := r.Touched(); touched != nil {
		t.Fatalf("Touched again: %v", touched)
	}
}

// TestRetryWhenClosed: a call that finds the memory closed meanwhile is
// tried once more on a memory opened again.
func TestRetryWhenClosed(t *testing.T) {
	r, p, _ := newRegistry()
	ctx := context.Background()
	r.Write(ctx, "a", func(*mem) error { return nil })
	first, _ := p.Agent("a")
	first.closed.Store(true)
	calls := 0
	err := r.Write(ctx, "a", func(m *mem) error {
		calls++
		if m.closed.Load() {
			return errClosed
		}
		return nil
	})
	if err != nil || calls != 1 || p.opened != 2 {
		t.Fatalf("got %v after %d calls, %d opened", err, calls, p.opened)
	}
}

// TestConcurrentRemove: Remove runs while no other call uses the agent's
// memory, and calls after it run on a memory opened again.
func TestConcurrentRemove(t *testing.T) {
	r, _, _ := newRegistry()
	ctx := context.Background()
	r.Write(ctx, "a", func(*mem) error { return nil })
	var wg sync.WaitGroup
	var overlap atomic.Bool
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				if i == 0 {
					r.Remove(ctx, "a", func(m *mem) error {
						if m.using.Load() != 0 {
							overlap.Store(true)
						}
						m.closed.Store(true)
						return nil
					})
					continue
				}
				r.Write(ctx, "a", func(m *mem) error {
					m.using.Add(1)
					defer m.using.Add(-1)
					if m.closed.Load() {
						return errClosed
					}
					return nil
				})
			}
		})
	}
	wg.Wait()
	if overlap.Load() {
		t.Fatal("Remove ran beside another call")
	}
}
