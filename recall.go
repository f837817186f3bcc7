package engram

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// RecallConfig configures [Memory.Recall]'s gate, after seed 004's
// PBWM model (prefrontal cortex and basal ganglia working memory), where a
// memory enters working memory when a gate opens for it:
//
//	x    = RelevanceWeight·relevance + ExpectedValueWeight·expectedValue
//	       + ControlWeight·Control − NoiseWeight·noise
//	gate = sigmoid(x) = 1 / (1 + e^−x)
//
// relevance is how well the memory matches the query (the search's text,
// fused or vector relevance, in [0, 1], 1 for the best match);
// expectedValue = min(1, log(1+retrievals)/log(1+RetrievalSoftcap) +
// log(strength)/log(1+RetrievalSoftcap)), at least 0, where retrievals
// counts how often Recall admitted the memory before and strength is the
// evidence behind it (a semantic entry: 1 + the near-duplicates merged
// into it; a procedure: 1 + its successful uses; an episode or a
// snapshot: 1); noise is Gaussian (mean 0, NoiseStdDev) from a source
// seeded with NoiseSeed, and 0 unless Noise is set, so that recall is
// reproducible.
//
// With the default weights x is at least 0.015 for any candidate, so
// every candidate's gate is above 0.5: the Cap decides what enters. Raise
// Threshold to admit only strong matches (0.6 needs x ≥ 0.405).
type RecallConfig struct {
	RelevanceWeight     float64 // default 1.0
	ExpectedValueWeight float64 // default 0.4
	ControlWeight       float64 // default 0.05
	Control             float64 // the control signal; default 0.3
	NoiseWeight         float64 // default 0.02
	NoiseStdDev         float64 // default 0.05
	Noise               bool    // default false: no noise
	NoiseSeed           uint64  // default 1
	// RetrievalSoftcap is the number of retrievals at which they weigh
	// fully in expectedValue; default 10.
	RetrievalSoftcap int
	// Threshold is the gate a memory must pass to enter the working set;
	// default 0.5.
	Threshold float64
	// Cap bounds how many memories one Recall admits; 0 (the default)
	// means the working set's capacity.
	Cap int
	// PerKind is how many candidates of each kind Recall scores and
	// returns; default 5.
	PerKind int
}

// GateParts are the terms of a memory's gate in [Memory.Recall] (see
// [RecallConfig]).
type GateParts struct {
	Relevance     float64
	Retrievals    int
	Strength      float64
	ExpectedValue float64
	Control       float64
	Noise         float64
	X             float64 // the weighted sum
	Gate          float64 // sigmoid(X)
}

// Recalled is a memory [Memory.Recall] scored: the search result, its
// gate, and whether it entered the working set.
type Recalled struct {
	Result
	Gate     GateParts
	Admitted bool
}

// RecallResult is what [Memory.Recall] did.
type RecallResult struct {
	// Admitted are the memories that entered the working set, best gate
	// first.
	Admitted []Recalled
	// ByKind holds the candidates of each stored kind that matched the
	// query, best gate first, at most RecallConfig.PerKind of each.
	ByKind map[MemoryType][]Recalled
	// Working is the working set after the recall, newest first.
	Working []WorkingItem
	// Pending counts the agent's memories waiting for their vectors (Tier
	// 2): the search found them by text alone.
	Pending int
}

// RecalledID returns the ID of the working item a memory of kind typ and
// ID id becomes when [Memory.Recall] admits it: "semantic/ada-city" for
// the semantic entry "ada-city". Memories of different kinds may share an
// ID; their working items do not, nor do they replace the agent's own
// items.
func RecalledID(typ MemoryType, id string) string { return string(typ) + "/" + id }

// recalledSource is the Source of a working item Recall admitted.
const recalledSource = "recall"

// Recall brings what memory holds about query into the working set: it
// searches every stored kind (see [Memory.Search]), scores each kind's
// best candidates with the gate of [RecallConfig], and lets those whose
// gate passes the threshold, best first and at most the cap, enter the
// working set under its eviction policy (the best is added last, so it is
// evicted last). Their retrieval counts go up, whatever their kind; like
// searches' access counts, they are written with the Memory's next write
// (see [Memory.Search]). A memory recalled again replaces its working
// item; a recalled item remembers its kind ([WorkingItem].Recalled), and
// [Memory.Flush] does not store it again.
//
// It returns an error matching [ErrInvalid] for an empty or invalid query,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails; in Tier
// 2 a query that cannot be embedded is searched by text.
func (m *Memory) Recall(ctx context.Context, query string) (RecallResult, error) {
	return m.RecallWith(ctx, RecallOptions{Query: query})
}

// RecallOptions says what [Memory.RecallWith] recalls.
type RecallOptions struct {
	// Query is what to recall, as for [Memory.Recall]; required.
	Query string
	// Filter, when not nil, recalls only the memories it keeps (see
	// [Filter]): one user's, say.
	Filter *Filter
}

// RecallWith is [Memory.Recall] with options: it recalls only the
// memories opts.Filter keeps. Errors are as for Recall, and an error
// matching [ErrInvalid] names a bad part of the filter.
func (m *Memory) RecallWith(ctx context.Context, opts RecallOptions) (RecallResult, error) {
	res, err := m.recall(ctx, opts, false, m.cfg.Recall.PerKind)
	if err != nil {
		return RecallResult{}, err
	}
	if err := m.admit(res.Admitted); err != nil {
		return RecallResult{}, err
	}
	if res.Working, err = m.working.Items(); err != nil {
		return RecallResult{}, err
	}
	return res, nil
}

// recall scores the candidates and decides what to admit, changing
// nothing. A quiet recall (for Context) notes no access and draws no
// noise, so that it changes nothing at all.
func (m *Memory) recall(ctx context.Context, ro RecallOptions, quiet bool, perKind int) (RecallResult, error) {
	rc := m.cfg.Recall
	// Each kind's best perKind are scored; a search ranks at least Limit
	// full-text matches of each kind (see SearchConfig.Candidates).
	opts := SearchOptions{Query: ro.Query, Types: storedTypes, Limit: min(maxSearchLimit, perKind*len(storedTypes)), Filter: ro.Filter}
	if err := m.validateSearch(&opts); err != nil {
		return RecallResult{}, err
	}
	f, err := m.find(ctx, opts, 0)
	if err != nil {
		return RecallResult{}, err
	}
	f.search.quiet = quiet
	var picked []candidate
	taken := map[MemoryType]int{}
	for _, c := range f.ranked {
		if taken[c.Type] < perKind {
			taken[c.Type]++
			// The retrievals noted and not written yet count too.
			c.retrievals += m.access.unwritten(noteKey{c.Type, c.ID}, f.search.accessVersion).R
			picked = append(picked, c)
		}
	}
	if picked, err = m.present(ctx, f.search, picked); err != nil {
		return RecallResult{}, err
	}
	res := RecallResult{ByKind: map[MemoryType][]Recalled{}, Pending: f.search.pending}
	all := make([]Recalled, len(picked))
	for i, c := range picked {
		all[i] = Recalled{Result: c.Result, Gate: m.gate(c, !quiet)}
	}
	slices.SortStableFunc(all, byGate)
	limit := rc.Cap
	if limit == 0 {
		limit = m.working.Capacity()
	}
	for i := range all {
		if i < limit && all[i].Gate.Gate > rc.Threshold {
			all[i].Admitted = true
			res.Admitted = append(res.Admitted, all[i])
		}
		res.ByKind[all[i].Type] = append(res.ByKind[all[i].Type], all[i])
	}
	return res, nil
}

// byGate orders recalled memories best gate first, then by search score,
// kind and ID, so that equal gates come in a stable order.
func byGate(a, b Recalled) int {
	return cmp.Or(cmp.Compare(b.Gate.Gate, a.Gate.Gate), cmp.Compare(b.Score, a.Score),
		cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
}

// storedTypes are the kinds Recall searches: every stored kind.
var storedTypes = func() []MemoryType {
	var out []MemoryType
	for _, k := range ftsSources {
		out = append(out, k.typ)
	}
	return out
}()

// gate computes the gate of a ranked candidate, with noise when noisy
// and RecallConfig.Noise is set.
func (m *Memory) gate(c candidate, noisy bool) GateParts {
	rc := m.cfg.Recall
	g := GateParts{Relevance: c.relevance, Retrievals: c.retrievals, Strength: c.strength, Control: rc.Control}
	norm := math.Log(1 + float64(rc.RetrievalSoftcap))
	if c.retrievals > 0 {
		g.ExpectedValue = math.Log(1+float64(c.retrievals)) / norm
	}
	if c.strength > 0 {
		g.ExpectedValue += math.Log(c.strength) / norm
	}
	g.ExpectedValue = max(0, min(1, g.ExpectedValue))
	if rc.Noise && noisy {
		g.Noise = m.noise.next() * rc.NoiseStdDev
	}
	g.X = rc.RelevanceWeight*g.Relevance + rc.ExpectedValueWeight*g.ExpectedValue +
		rc.ControlWeight*g.Control - rc.NoiseWeight*g.Noise
	g.Gate = 1 / (1 + math.Exp(-g.X))
	return g
}

// admit puts the admitted memories in the working set, the best last, all
// or none, and notes their retrievals (unless the Memory is read-only:
// they could never be written).
func (m *Memory) admit(admitted []Recalled) error {
	now := m.now()
	byKind := map[MemoryType][]string{}
	items := make([]WorkingItem, 0, len(admitted))
	for i := len(admitted) - 1; i >= 0; i-- {
		r := admitted[i]
		items = append(items, WorkingItem{ID: RecalledID(r.Type, r.ID),
			Content:    truncateUTF8(r.Content, m.cfg.Limits.MaxContentBytes),
			Importance: r.importance(), Source: recalledSource, Tags: r.Tags, AddedAt: now, Recalled: r.Type})
		byKind[r.Type] = append(byKind[r.Type], r.ID)
	}
	if _, err := m.working.put(items...); err != nil {
		return err
	}
	if m.db.ReadOnly() {
		return nil
	}
	due := false
	for typ, ids := range byKind {
		due = m.access.note(typ, ids, accessNote{R: 1}) || due
	}
	if due {
		m.flushAccessSoon()
	}
	return nil
}

// importance is what a recalled memory brings to the working set as its
// importance: its importance part, less its decay (resonance), which a
// working item does not have.
func (r Recalled) importance() float64 { return max(0, min(1, r.Parts.Importance)) }

// noiseSource is Recall's seeded source of Gaussian noise, shared by the
// Memory's calls, so that a sequence of recalls is reproducible.
type noiseSource struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newNoiseSource(seed uint64) *noiseSource {
	return &noiseSource{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// next returns a standard normal variate.
func (n *noiseSource) next() float64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rng.NormFloat64()
}
