// Package agentreg keeps track of the agents a server touches, so that a
// read never creates an agent's memory: a read of an agent that has none is
// answered from an empty stand-in, and only a write opens (and so creates)
// the agent's memory. It also keeps a removal of an agent (which closes its
// memory) from running beside other calls on it, and remembers which agents
// a write touched, for a flush at shutdown.
//
// It is generic over the memory type so that it needs nothing of engram's:
// the public packages that serve engram (httpapi, mcpserver) instantiate it
// with *engram.Memory.
package agentreg

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Provider hands out agents' memories: engram's Store, or anything with its
// two methods.
type Provider[M any] interface {
	// Agent returns the memory of agent id, opening (and, for a new agent,
	// creating) it.
	Agent(id string) (M, error)
	// Agents lists the agents that have memory.
	Agents(ctx context.Context) ([]string, error)
}

// Haser is an optional interface of a Provider that says cheaply whether an
// agent has memory, instead of listing every agent.
type Haser interface {
	Has(ctx context.Context, id string) (bool, error)
}

// ErrNoAgent is what Remove returns for an agent that has no memory.
var ErrNoAgent = errors.New("agentreg: the agent has no memory")

// Config is what a Registry needs besides its provider.
type Config[M any] struct {
	// Empty returns an empty stand-in for agent id, which answers reads
	// as an agent with no memory does, and a function that releases it.
	Empty func(id string) (M, func(), error)
	// Closed reports whether err says the memory was closed meanwhile
	// (another caller removed the agent): the call is then tried once
	// more, from the start.
	Closed func(err error) bool
}

// Registry tracks the agents of a provider. It is safe for concurrent use.
type Registry[M any] struct {
	p   Provider[M]
	cfg Config[M]

	mu     sync.Mutex        // guards agents
	agents map[string]*agent // agents known to have memory
}

// agent is what the registry knows of one agent.
type agent struct {
	// rw is held for reading by every call on the agent's memory and
	// for writing by Remove, which closes it.
	rw      sync.RWMutex
	touched bool // written to since the last Touched
}

// New returns a registry of the agents of p.
func New[M any](p Provider[M], cfg Config[M]) *Registry[M] {
	return &Registry[M]{p: p, cfg: cfg, agents: map[string]*agent{}}
}

// entry returns the registry's entry for id, making it when make is set.
func (r *Registry[M]) entry(id string, make bool) *agent {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.agents[id]
	if a == nil && make {
		a = &agent{}
		r.agents[id] = a
	}
	return a
}

// drop forgets that id has memory.
func (r *Registry[M]) drop(id string, a *agent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.agents[id] == a {
		delete(r.agents, id)
	}
}

// exists asks the provider whether id has memory.
func (r *Registry[M]) exists(ctx context.Context, id string) (bool, error) {
	if h, ok := r.p.(Haser); ok {
		return h.Has(ctx, id)
	}
	ids, err := r.p.Agents(ctx)
	if err != nil {
		return false, err
	}
	return slices.Contains(ids, id), nil
}

// Read runs fn on the memory of agent id, or, when the agent has no
// memory, on an empty stand-in that is released afterwards: a read never
// creates an agent's memory.
func (r *Registry[M]) Read(ctx context.Context, id string, fn func(M) error) error {
	return r.read(ctx, id, false, fn)
}

// Change is Read for a call that changes an agent's memory when it has
// one (an update, a deletion), and so counts as touching it; for an agent
// with no memory it runs on the empty stand-in, creating nothing.
func (r *Registry[M]) Change(ctx context.Context, id string, fn func(M) error) error {
	return r.read(ctx, id, true, fn)
}

func (r *Registry[M]) read(ctx context.Context, id string, touch bool, fn func(M) error) error {
	return r.retry(id, func() error {
		a := r.entry(id, false)
		if a == nil {
			ok, err := r.exists(ctx, id)
			if err != nil {
				return err
			}
			if !ok {
				m, release, err := r.cfg.Empty(id)
				if err != nil {
					return err
				}
				defer release()
				return fn(m)
			}
			a = r.entry(id, true)
		}
		return r.run(id, a, touch, fn)
	})
}

// Write runs fn on the memory of agent id, opening (and creating) it, and
// remembers that the agent was touched.
func (r *Registry[M]) Write(ctx context.Context, id string, fn func(M) error) error {
	return r.retry(id, func() error {
		return r.run(id, r.entry(id, true), true, fn)
	})
}

// errStale says an entry was dropped (its agent removed) while a call
// waited for its lock: the call starts again from the registry's
// current state.
var errStale = errors.New("agentreg: stale entry")

// current reports whether a is still the registry's entry for id.
func (r *Registry[M]) current(id string, a *agent) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.agents[id] == a
}

// run runs fn on the memory of the known agent id under its read lock.
// It returns errStale when the agent was removed while it waited.
func (r *Registry[M]) run(id string, a *agent, write bool, fn func(M) error) error {
	a.rw.RLock()
	defer a.rw.RUnlock()
	if !r.current(id, a) {
		return errStale
	}
	m, err := r.p.Agent(id)
	if err != nil {
		return err
	}
	if write {
		r.mu.Lock()
		a.touched = true
		r.mu.Unlock()
	}
	return fn(m)
}

// retry runs call, again when the agent was removed while it waited
// (errStale), and once more when it fails because the memory was closed
// meanwhile, after forgetting what the registry knew of the agent.
func (r *Registry[M]) retry(id string, call func() error) error {
	err := r.fresh(call)
	if err != nil && r.cfg.Closed != nil && r.cfg.Closed(err) {
		if a := r.entry(id, false); a != nil {
			r.drop(id, a)
		}
		err = r.fresh(call)
	}
	return err
}

// fresh runs call until it does not find its entry stale.
func (r *Registry[M]) fresh(call func() error) error {
	for {
		if err := call(); !errors.Is(err, errStale) {
			return err
		}
	}
}

// Remove runs fn, which erases the agent and closes its memory, while no
// other call of the registry uses the agent's memory. It returns
// ErrNoAgent, without calling fn, when the agent has no memory.
func (r *Registry[M]) Remove(ctx context.Context, id string, fn func(M) error) error {
	return r.fresh(func() error {
		a := r.entry(id, false)
		if a == nil {
			ok, err := r.exists(ctx, id)
			if err != nil {
				return err
			}
			if !ok {
				return ErrNoAgent
			}
			a = r.entry(id, true)
		}
		a.rw.Lock()
		defer a.rw.Unlock()
		if !r.current(id, a) {
			return errStale
		}
		m, err := r.p.Agent(id)
		if err != nil {
			return err
		}
		err = fn(m)
		r.drop(id, a)
		return err
	})
}

// Touched returns the agents written to since the last call, sorted, and
// starts counting again.
func (r *Registry[M]) Touched() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id, a := range r.agents {
		if a.touched {
			out = append(out, id)
			a.touched = false
		}
	}
	slices.Sort(out)
	return out
}

// Agents returns the agents of the provider.
func (r *Registry[M]) Agents(ctx context.Context) ([]string, error) {
	return r.p.Agents(ctx)
}

// Flush runs fn on the memory of each agent written to since the last
// Touched or Flush, and returns the errors joined.
func (r *Registry[M]) Flush(ctx context.Context, fn func(id string, m M) error) error {
	var errs []error
	for _, id := range r.Touched() {
		a := r.entry(id, false)
		if a == nil {
			continue // removed since
		}
		err := r.run(id, a, false, func(m M) error { return fn(id, m) })
		if err != nil && !errors.Is(err, errStale) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Value runs get on the memory of agent id through call (a Registry's
// Read, Change or Write) and returns what get returned.
func Value[M, T any](ctx context.Context, id string, call func(context.Context, string, func(M) error) error, get func(M) (T, error)) (T, error) {
	var v T
	err := call(ctx, id, func(m M) (err error) {
		v, err = get(m)
		return err
	})
	return v, err
}
