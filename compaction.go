package engram

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/store"
)

// CompactionReport says what a run of [Memory.Compact], [Memory.Decay] or
// [Memory.Consolidate] did, one action per memory.
type CompactionReport struct {
	// Strategy is the strategy run, or "decay" or "consolidate".
	Strategy CompactionStrategy
	At       time.Time
	Actions  []CompactionAction
	// Decayed counts the memories whose resonance was recomputed.
	Decayed int
	// HistoryPruned counts the history entries older than
	// Config.History.Retention that Compact deleted.
	HistoryPruned int
}

// step runs fn, one transaction's work, and keeps what it adds to the
// report only if write commits it: a report tells only what was done.
func (r *CompactionReport) step(write func(fn func(q store.Tx) error) error, fn func(q store.Tx, r *CompactionReport) error) error {
	n, decayed := len(r.Actions), r.Decayed
	err := write(func(q store.Tx) error {
		// A retried or failed attempt starts from what was committed.
		r.Actions, r.Decayed = r.Actions[:n], decayed
		return fn(q, r)
	})
	if err != nil {
		r.Actions, r.Decayed = r.Actions[:n], decayed
	}
	return err
}

// Count returns how many actions of the kind the report holds.
func (r CompactionReport) Count(kind ActionKind) int {
	n := 0
	for _, a := range r.Actions {
		if a.Kind == kind {
			n++
		}
	}
	return n
}

// ActionKind says what happened to a memory.
type ActionKind string

// Actions of a [CompactionReport].
const (
	// ActionArchive: the memory left its table for the archive.
	ActionArchive ActionKind = "archive"
	// ActionMerge: a near-duplicate was merged into Into and archived.
	ActionMerge ActionKind = "merge"
	// ActionDigest: a digest episode was written for the day in Detail.
	ActionDigest ActionKind = "digest"
	// ActionPromote: a semantic entry gained importance (Detail: old → new).
	ActionPromote ActionKind = "promote"
	// ActionRecur: an event seen on several days became the semantic
	// fact ID, linked to its episodes.
	ActionRecur ActionKind = "recur"
)

// CompactionAction is one thing a run did to one memory.
type CompactionAction struct {
	Kind ActionKind
	// Step is what caused it: "count", "time", "semantic", "decay",
	// "promote" or "recur".
	Step string
	Type MemoryType
	ID   string
	// Into names the memory that took this one's place: the survivor of a
	// merge, or the digest of an archived episode's day.
	Into   string
	Detail string
}

// Compaction steps, as named in [CompactionAction.Step].
const (
	stepCount    = "count"
	stepTime     = "time"
	stepSemantic = "semantic"
	stepDecay    = "decay"
	stepPromote  = "promote"
)

// meta keys of the last runs, per agent.
const (
	metaTimeRun    = "compaction.time.last:"
	metaCompactRun = "compaction.last:"
)

// digestMaxBytes bounds the content of a digest episode.
const digestMaxBytes = 2048

// Compact keeps memory within its limits and returns what it did. It runs
// the strategies given, in order, or the one in [CompactionConfig.Strategy]
// if none is:
//
//   - [CompactCount]: each memory type holding more than MaxEntries loses
//     its lowest-value entries until it is at the limit. An entry's value
//     is its decayed importance (importance × resonance; an episode's
//     importance is 0.5, a procedure's its success rate); ties go to the
//     older entry.
//   - [CompactTime]: at most once per Interval (the last run is recorded in
//     the database), episodes of every UTC day that ended more than
//     RetainDays ago leave, after the day is rolled into one digest
//     episode ([EventDigest], at the day's last millisecond) that lists its
//     decisions, task outcomes, errors and first events, at most 2 KiB, so
//     the day stays findable. Digests themselves are not rolled up again.
//   - [CompactSemantic]: near-duplicate semantic entries (cosine
//     similarity of their term vectors at least SimilarityThreshold) merge
//     into one survivor: a verified or never-decay entry if there is one,
//     else the entry with the highest importance (then the most accessed,
//     then the oldest). It keeps the highest importance, the union of the
//     tags, the summed access count, and the merged IDs in MergedFrom.
//   - [CompactProgressive]: count, then time, then semantic, then
//     [Memory.Decay].
//
// Compaction never removes a verified memory or one carrying a tag in
// [Config.NeverDecayTags], and it never deletes: what leaves goes to the
// archive with its links, from where [Memory.Restore] brings it back, and
// only [Memory.PurgeArchive] deletes for good. Each strategy runs in one
// transaction; then history entries older than Config.History.Retention
// are deleted (see [HistoryConfig]), and the full-text indexes are merged
// if they need it (see [Memory.Optimize]). [Memory.Flush] runs Compact when Interval has passed
// since its last run.
//
// It returns an error matching [ErrInvalid] for an unknown strategy,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails; a
// failed strategy changes nothing, though earlier ones are kept.
func (m *Memory) Compact(ctx context.Context, strategies ...CompactionStrategy) (CompactionReport, error) {
	for i, s := range strategies {
		if err := s.Validate(); err != nil {
			return CompactionReport{}, invalid(fmt.Sprintf("strategies[%d]", i), "unknown strategy %q", string(s))
		}
	}
	if len(strategies) == 0 {
		strategies = []CompactionStrategy{m.cfg.Compaction.Strategy}
	}
	now := m.now()
	rep := CompactionReport{Strategy: strategies[0], At: now}
	if len(strategies) > 1 {
		rep.Strategy = CompactProgressive
	}
	var steps []string
	for _, s := range strategies {
		switch s {
		case CompactCount:
			steps = append(steps, stepCount)
		case CompactTime:
			steps = append(steps, stepTime)
		case CompactSemantic:
			steps = append(steps, stepSemantic)
		case CompactProgressive:
			steps = append(steps, stepCount, stepTime, stepSemantic, stepDecay)
		}
	}
	for _, step := range steps {
		write := func(fn func(q store.Tx) error) error { return m.write(ctx, "compact."+step, fn) }
		err := rep.step(write, func(q store.Tx, rep *CompactionReport) error {
			var err error
			switch step {
			case stepCount:
				err = m.compactCount(q, rep, now)
			case stepTime:
				err = m.compactTime(q, rep, now)
			case stepSemantic:
				err = m.mergeDuplicates(q, rep, now)
			case stepDecay:
				err = m.decay(q, rep, now)
			}
			if err != nil {
				return err
			}
			return store.SetMeta(q, metaCompactRun+m.agent, strconv.FormatInt(store.MS(now), 10))
		})
		if err != nil {
			return rep, err
		}
	}
	if m.cfg.History.Enabled {
		err := m.write(ctx, "compact.history", func(q store.Tx) (err error) {
			rep.HistoryPruned, err = m.pruneHistory(q, now)
			return err
		})
		if err != nil {
			return rep, err
		}
	}
	m.embedSoon(ctx) // the day digests
	return rep, m.optimize(ctx, false)
}

// Optimize merges each full-text index into one segment. FTS5 writes a
// segment per transaction and merges them only now and then, and every
// term of a query is looked up in every segment, so a memory written one
// entry at a time searches slower than it needs to; merging made searches
// of 10,000 entries 17% faster. [Memory.Compact] runs it after its
// strategies when an index has more than one segment. Then Optimize (not
// Compact's merge) writes the file anew, packed (SQLite's VACUUM): the
// pages the merge and deletes left free go back to the file system, and
// the indexes that inserts in random order left with half-empty pages
// (the order of importance, for one) are written full: an eighth of a
// file of 100,000 short memories. The two cost about as much as writing the file anew
// (0.2 to 0.4 s per 10,000 memories here) and hold up writes meanwhile,
// so a file that holds other agents' memories too (a [Store] on one
// file) is merged but not written anew: one agent's Optimize must not
// hold up the others' writes for that long.
// On PostgreSQL, which has no such index, it vacuums the tables of
// memories (VACUUM: their space for reuse, and their statistics), as a
// forget does. It returns [ErrClosed] after Close and a [*DatabaseError]
// when the database fails.
func (m *Memory) Optimize(ctx context.Context) error { return m.optimize(ctx, true) }

// optimize merges the indexes with more than one segment, or all of them
// when always is set. The indexes are shared by every agent of the file;
// merging changes how they are stored, not what they hold.
func (m *Memory) optimize(ctx context.Context, always bool) error {
	if !m.db.FullText() {
		if !always {
			return nil // no segments to merge
		}
		if m.closed.Load() {
			return ErrClosed
		}
		return m.db.Scrub(ctx)
	}
	for _, src := range ftsSources {
		err := m.write(ctx, "optimize", func(q store.Tx) error { return store.OptimizeText(q, src.Kind, always) })
		if err != nil {
			return err
		}
	}
	if v, ok := m.db.(store.Vacuumer); ok && always {
		var agents []string
		err := m.read(ctx, "optimize", func(q store.Tx) (err error) {
			agents, err = agentsIn(q)
			return err
		})
		if err != nil {
			return err
		}
		if len(agents) > 1 || len(agents) == 1 && agents[0] != m.agent {
			return nil // a file others share: writing it anew would hold up their writes
		}
		return v.Vacuum(ctx)
	}
	return nil
}

// Decay recomputes every memory's resonance (see [DecayConfig]) and
// archives the semantic entries and procedures whose resonance fell below
// MinResonance and whose importance (a procedure's success rate) is under
// 0.5, except verified ones and those carrying a never-decay tag. Episodes
// count as importance 0.5, so decay never archives them; time-based
// compaction retires them instead. Search ranks by resonance, so decayed
// memories sink before they leave. Errors are as for [Memory.Compact].
func (m *Memory) Decay(ctx context.Context) (CompactionReport, error) {
	now := m.now()
	rep := CompactionReport{Strategy: stepDecay, At: now}
	write := func(fn func(q store.Tx) error) error { return m.write(ctx, "decay", fn) }
	err := rep.step(write, func(q store.Tx, rep *CompactionReport) error { return m.decay(q, rep, now) })
	return rep, err
}

// compactDue reports whether Interval has passed since the last
// compaction. The first time it is asked for an agent it starts the clock
// instead: a new memory has nothing worth compacting yet.
func (m *Memory) compactDue(ctx context.Context) (bool, error) {
	var last string
	var set bool
	err := m.read(ctx, "compact.due", func(q store.Tx) (err error) {
		last, set, err = store.Meta(q, metaCompactRun+m.agent)
		return err
	})
	if err != nil {
		return false, err
	}
	if !set {
		return false, m.write(ctx, "compact.due", func(q store.Tx) error {
			return store.SetMetaIfUnset(q, metaCompactRun+m.agent, strconv.FormatInt(store.MS(m.now()), 10))
		})
	}
	at, err := strconv.ParseInt(last, 10, 64)
	if err != nil {
		return true, nil // a value engram did not write: run, and write it again
	}
	return m.now().Sub(store.FromMS(at)) >= m.cfg.Compaction.Interval, nil
}

// archivable are the kinds compaction may archive.
var archivable = kindsWith(func(k *kind) bool { return k.Protected != "" })

// leaving is a row on its way to the archive.
type leaving = store.Leaving

// archive moves the rows of kind k to the archive table with the links
// that touch them, then deletes them (their FTS entries and links go with
// them, by trigger).
func (m *Memory) archive(q store.Tx, k *kind, rows []leaving, reason string, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	return recordAs(q, OpArchive, reason, func() error { return store.ArchiveRows(q, k.Kind, m.agent, rows, reason, now) })
}

func (m *Memory) neverDecayJSON() string {
	b, _ := json.Marshal(m.cfg.NeverDecayTags)
	if len(m.cfg.NeverDecayTags) == 0 {
		return "[]"
	}
	return string(b)
}

// compactCount archives the lowest-value entries of each type over
// MaxEntries.
func (m *Memory) compactCount(q store.Tx, rep *CompactionReport, now time.Time) error {
	limit := m.cfg.Compaction.MaxEntries
	for _, k := range archivable {
		n, err := store.CountRows(q, k.Kind, m.agent)
		if err != nil {
			return err
		}
		if n <= limit {
			continue
		}
		rows, err := store.LowestValued(q, k.Kind, m.agent, m.neverDecayJSON(), n-limit)
		if err != nil {
			return err
		}
		out := m.leaving(rows, rep, ActionArchive, stepCount, k.typ, "")
		if err := m.archive(q, k, out, stepCount, now); err != nil {
			return err
		}
	}
	return nil
}

// leaving returns rows on their way to the archive (merged into into),
// and records an action for each.
func (m *Memory) leaving(rows []store.PKID, rep *CompactionReport, kind ActionKind, step string, typ MemoryType, into string) []leaving {
	out := make([]leaving, len(rows))
	for i, p := range rows {
		out[i] = leaving{PK: p.PK, Into: into}
		rep.Actions = append(rep.Actions, CompactionAction{Kind: kind, Step: step, Type: typ, ID: p.ID, Into: into})
	}
	return out
}

// compactTime rolls each expired day of episodes into a digest and
// archives the day's episodes, at most once per Interval.
func (m *Memory) compactTime(q store.Tx, rep *CompactionReport, now time.Time) error {
	last, set, err := store.Meta(q, metaTimeRun+m.agent)
	if err != nil {
		return err
	}
	if at, perr := strconv.ParseInt(last, 10, 64); set && perr == nil && now.Sub(store.FromMS(at)) < m.cfg.Compaction.Interval {
		return nil
	}
	if err := store.SetMeta(q, metaTimeRun+m.agent, strconv.FormatInt(store.MS(now), 10)); err != nil {
		return err
	}
	today := now.UTC().Truncate(24 * time.Hour)
	cutoff := today.AddDate(0, 0, -m.cfg.Episodic.RetainDays)
	// A digest per day and user: one user's episodes never go into
	// another's digest.
	rows, err := store.EpisodesBefore(q, m.agent, cutoff, string(EventDigest))
	if err != nil {
		return err
	}
	type old struct {
		pk int64
		ep Episode
	}
	eps := make([]old, len(rows))
	for i, r := range rows {
		eps[i].pk = r.PK
		if eps[i].ep, err = episodeOf(r.EpisodeRow); err != nil {
			return err
		}
	}
	for start := 0; start < len(eps); {
		day := eps[start].ep.Day()
		end := start
		for end < len(eps) && eps[end].ep.Day() == day && eps[end].ep.UserID == eps[start].ep.UserID {
			end++
		}
		dayEps := make([]Episode, end-start)
		out := make([]leaving, end-start)
		for i, o := range eps[start:end] {
			dayEps[i] = o.ep
		}
		dayStart := eps[start].ep.CreatedAt.UTC().Truncate(24 * time.Hour)
		digest := Episode{
			ID:        m.newID(now),
			Content:   digestOf(day, dayEps),
			Type:      EventDigest,
			Metadata:  map[string]string{"day": day, "events": strconv.Itoa(len(dayEps))},
			CreatedAt: dayStart.Add(24*time.Hour - time.Millisecond),
			UserID:    eps[start].ep.UserID,
		}
		row, err := m.episodic.prepare("digest", digest, now)
		if err != nil {
			return err
		}
		if err := m.episodic.log(q, row, nil, 0); err != nil {
			return err
		}
		rep.Actions = append(rep.Actions, CompactionAction{Kind: ActionDigest, Step: stepTime, Type: TypeEpisodic, ID: digest.ID, Detail: day})
		for i, o := range eps[start:end] {
			out[i] = leaving{PK: o.pk, Into: digest.ID}
			rep.Actions = append(rep.Actions, CompactionAction{Kind: ActionArchive, Step: stepTime, Type: TypeEpisodic, ID: o.ep.ID, Into: digest.ID})
		}
		if err := m.archive(q, episodicKind, out, stepTime, now); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// digestOf summarises a day of episodes in at most digestMaxBytes: how
// many of each type, then the decisions, task outcomes and errors, then
// the other events, in order, as far as they fit.
func digestOf(day string, eps []Episode) string {
	counts := map[EventType]int{}
	for _, e := range eps {
		counts[e.Type]++
	}
	types := make([]EventType, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	slices.Sort(types)
	var b strings.Builder
	fmt.Fprintf(&b, "Digest of %s: %d events (", day, len(eps))
	for i, t := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", counts[t], t)
	}
	b.WriteString(").")
	section := func(title string, keep func(Episode) bool) {
		first := true
		for _, e := range eps {
			if !keep(e) {
				continue
			}
			if first {
				b.WriteString(" " + title + ":")
				first = false
			}
			line := strings.Join(strings.Fields(e.Content), " ")
			if e.TaskID != "" {
				line = e.TaskID + ": " + line
			}
			b.WriteString(" " + line + ";")
		}
	}
	important := func(e Episode) bool {
		switch e.Type {
		case EventDecisionMade, EventTaskCompleted, EventTaskFailed, EventErrorEncountered:
			return true
		}
		return false
	}
	section("Decisions", func(e Episode) bool { return e.Type == EventDecisionMade })
	section("Completed", func(e Episode) bool { return e.Type == EventTaskCompleted })
	section("Failed", func(e Episode) bool { return e.Type == EventTaskFailed })
	section("Errors", func(e Episode) bool { return e.Type == EventErrorEncountered })
	section("Events", func(e Episode) bool { return !important(e) })
	return truncateUTF8(b.String(), digestMaxBytes)
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary, ending in
// "…" when it cut.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// mergeCandidate is a semantic entry's state that merging needs.
type mergeCandidate struct {
	pk         int64
	id         string
	content    string
	importance float64
	access     int
	created    int64
	tags       []string
	mergedFrom []string
	protected  bool
	user       string // its user: entries of different users never merge
}

// mergeDuplicates merges near-duplicate semantic entries.
func (m *Memory) mergeDuplicates(q store.Tx, rep *CompactionReport, now time.Time) error {
	groups, err := m.duplicateGroups(q)
	if err != nil || len(groups) == 0 {
		return err
	}
	var all []int64
	for _, g := range groups {
		all = append(all, g...)
	}
	byPK, err := m.mergeCandidates(q, all)
	if err != nil {
		return err
	}
	for _, pks := range groups {
		// A group of one user's entries at a time: one user's memory
		// never merges into another's (nor into one of no user).
		byUser := map[string][]mergeCandidate{}
		var users []string
		for _, pk := range pks {
			if c, ok := byPK[pk]; ok {
				if byUser[c.user] == nil {
					users = append(users, c.user)
				}
				byUser[c.user] = append(byUser[c.user], c)
			}
		}
		for _, u := range users {
			if g := byUser[u]; len(g) >= 2 {
				if err := m.mergeGroup(q, rep, g, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// duplicateGroups finds, in the stem index, the groups of near-duplicate
// entries: each entry joins the group of the first (oldest) entry it is
// similar enough to. Each group starts with the entry anchoring it.
func (m *Memory) duplicateGroups(q store.Tx) ([][]int64, error) {
	x := &m.stems
	if err := x.sync(q); err != nil {
		return nil, err
	}
	pks := make([]int64, 0, len(x.docs))
	for pk := range x.docs {
		pks = append(pks, pk)
	}
	slices.Sort(pks)
	grouped := map[int64]bool{}
	var groups [][]int64
	for _, pk := range pks {
		if grouped[pk] {
			continue
		}
		var g []int64
		for _, s := range x.similar(pk, m.cfg.Compaction.SimilarityThreshold, m.cfg.Zettelkasten.MaxLinksPerEntry+10) {
			if grouped[s.pk] {
				continue
			}
			if g == nil {
				grouped[pk] = true
				g = []int64{pk}
			}
			grouped[s.pk] = true
			g = append(g, s.pk)
		}
		if g != nil {
			groups = append(groups, g)
		}
	}
	return groups, nil
}

// mergeCandidates reads what merging needs of the agent's entries pks.
func (m *Memory) mergeCandidates(q store.Tx, pks []int64) (map[int64]mergeCandidate, error) {
	cands, err := store.MergeCandidates(q, m.agent, m.neverDecayJSON(), pks)
	if err != nil {
		return nil, err
	}
	byPK := make(map[int64]mergeCandidate, len(cands))
	for _, c := range cands {
		byPK[c.PK] = mergeCandidate{pk: c.PK, id: c.ID, content: c.Content, importance: c.Importance, access: c.Access,
			created: store.MS(c.Created), tags: c.Tags, mergedFrom: c.MergedFrom, protected: c.Protected, user: c.UserID}
	}
	return byPK, nil
}

// mergeGroup merges a group of near-duplicates into its survivor: a
// protected entry if there is one, else the most important (then the most
// accessed, then the oldest). Protected entries other than the survivor
// stay as they are.
func (m *Memory) mergeGroup(q store.Tx, rep *CompactionReport, g []mergeCandidate, now time.Time) error {
	slices.SortStableFunc(g, func(a, b mergeCandidate) int {
		if a.protected != b.protected {
			if a.protected {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.importance, a.importance), cmp.Compare(b.access, a.access),
			cmp.Compare(a.created, b.created), cmp.Compare(a.id, b.id))
	})
	surv := g[0]
	var out []leaving
	for _, c := range g[1:] {
		if c.protected {
			continue // kept as it is: compaction never removes it
		}
		surv.importance = max(surv.importance, c.importance)
		surv.access += c.access
		for _, t := range c.tags {
			if !slices.Contains(surv.tags, t) {
				surv.tags = append(surv.tags, t)
			}
		}
		surv.mergedFrom = append(append(surv.mergedFrom, c.id), c.mergedFrom...)
		out = append(out, leaving{PK: c.pk, Into: surv.id})
		rep.Actions = append(rep.Actions, CompactionAction{Kind: ActionMerge, Step: stepSemantic, Type: TypeSemantic, ID: c.id, Into: surv.id})
	}
	if len(out) == 0 {
		return nil
	}
	// The merged entries leave first, so that a tag the survivor takes
	// over is never counted twice.
	if err := m.archive(q, semanticKind, out, stepSemantic, now); err != nil {
		return err
	}
	terms, ntok := semanticTerms(surv.content, store.EncodeTags(surv.tags))
	return recordAs(q, OpMerge, "", func() error {
		return store.SetMerged(q, surv.pk, surv.importance, surv.access, surv.tags, surv.mergedFrom, now, terms, ntok)
	})
}

// The weights of decay's formula (seed 003): resonance = e^(−rate × days)
// × (resonanceBase + resonanceUse × min(1, uses/resonanceUses) +
// resonanceImportance × importance).
const (
	resonanceBase       = 0.3
	resonanceUse        = 0.4
	resonanceUses       = 10.0
	resonanceImportance = 0.3
)

// resonance is decay's formula: what a memory of the given importance,
// used uses times, has days after its last use at rate per day. A new
// memory is stored with resonance(0, 0, 0, importance), so that new and
// decayed memories rank on one scale.
func resonance(rate, days float64, uses int, importance float64) float64 {
	r := math.Exp(-rate*max(0, days)) * (resonanceBase + resonanceUse*min(1, float64(uses)/resonanceUses) + resonanceImportance*importance)
	return min(1, max(0, r))
}

// decay recomputes resonance and archives what decayed away.
func (m *Memory) decay(q store.Tx, rep *CompactionReport, now time.Time) error {
	d := m.cfg.Decay
	formula := store.Resonance{Base: resonanceBase, Use: resonanceUse, Uses: resonanceUses, Importance: resonanceImportance}
	for _, k := range kindsWith(func(k *kind) bool { return k.Decay != nil }) {
		// The formula of resonance, in SQL.
		var n int64
		err := recordAs(q, OpDecay, stepDecay, func() (err error) {
			n, err = store.DecayRows(q, k.Kind, m.agent, now, k.rate(d), formula)
			return err
		})
		if err != nil {
			return err
		}
		rep.Decayed += int(n)
	}
	for _, k := range kindsWith(func(k *kind) bool { return k.Decay != nil && k.Decay.Archive }) {
		rows, err := store.Faded(q, k.Kind, m.agent, m.neverDecayJSON(), d.MinResonance)
		if err != nil {
			return err
		}
		out := m.leaving(rows, rep, ActionArchive, stepDecay, k.typ, "")
		if err := m.archive(q, k, out, stepDecay, now); err != nil {
			return err
		}
	}
	return nil
}

// Restore brings the archived memory with the given ID back where it was,
// with its full-text entry and the links it had whose other end still
// exists. The archive entry is removed. It returns [ErrNotFound] if the
// agent has no archived memory with that ID, [ErrExists] if a memory with
// that ID has been stored since, an error matching [ErrInvalid] for a
// malformed ID, [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (m *Memory) Restore(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	err := m.write(ctx, "restore", func(q store.Tx) error {
		types, err := store.ArchivedKinds(q, m.agent, id)
		if err != nil {
			return err
		}
		if len(types) == 0 {
			return notFound("archived memory", id)
		}
		for _, t := range types {
			k := kindOf(MemoryType(t))
			if k == nil || k.Protected == "" {
				return fmt.Errorf("engram: restore %q: the archive holds a %q, which engram does not archive", id, t)
			}
			err := recordAs(q, OpRestore, "", func() error { return store.RestoreRow(q, k.Kind, m.agent, id) })
			if store.IsUniqueViolation(err) {
				return fmt.Errorf("engram: restore %s %q: %w", t, id, ErrExists)
			}
			if err != nil {
				return err
			}
			if err := store.RestoreLinks(q, k.Kind, m.agent, id, linkableKinds()); err != nil {
				return err
			}
			if err := store.DropArchived(q, k.Kind, m.agent, id); err != nil {
				return err
			}
			if err := store.FillRowTerms(q, k.Kind, m.agent, id, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		m.embedSoon(ctx)
	}
	return err
}

// Archive moves the memory with the given ID to the archive, as
// compaction does, with the links that touch it: search, listings and Get
// no longer find it, [Memory.History] records the move with reason (or
// the context's, see [ContextWithReason]), and [Memory.Restore] brings it
// back. It returns [ErrNotFound] if the agent has no memory of that ID
// (an archived one included), an error matching [ErrInvalid] for a
// malformed ID or a memory of a kind engram does not archive (a fact,
// which [Facts.Retract] ends instead), [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) Archive(ctx context.Context, id, reason string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	if err := validateActor("reason", reason, false); err != nil {
		return err
	}
	return m.write(ctx, "archive", func(q store.Tx) error {
		for _, k := range archivable {
			pk, found, err := store.RowPK(q, k.Kind, m.agent, id)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			return m.archive(q, k, []leaving{{PK: pk}}, cmp.Or(reason, "archived by hand"), m.now())
		}
		if t, err := resolveType(q, m.agent, id, "", "id"); err == nil {
			return invalid("id", "%q is a %s, which engram does not archive", id, kindOf(t).Noun)
		}
		return notFound("memory", id)
	})
}

// PurgeArchive deletes for good the archived memories that were archived
// more than olderThan ago (0: all of them) and returns how many it
// deleted. It returns an error matching [ErrInvalid] for a negative
// olderThan, [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (m *Memory) PurgeArchive(ctx context.Context, olderThan time.Duration) (int, error) {
	if olderThan < 0 {
		return 0, invalid("olderThan", "%v is negative", olderThan)
	}
	cutoff := store.MS(m.now().Add(-olderThan))
	if olderThan == 0 {
		cutoff = int64(^uint64(0) >> 1)
	}
	var n int64
	err := m.write(ctx, "purge_archive", func(q store.Tx) error {
		purged, err := m.forgetArchived(q, store.ArchiveSelect{Before: store.FromMS(cutoff)})
		n = int64(len(purged))
		return err
	})
	return int(n), err
}

// Consolidate runs the seed's consolidation cycle without any model call:
//
//   - merge: near-duplicate semantic entries merge, as [CompactSemantic];
//   - decay: resonance is recomputed and faded memories leave, as
//     [Memory.Decay];
//   - promote: a semantic entry retrieved PromoteEvery more times since
//     it was last promoted gains PromoteStep importance per PromoteEvery
//     retrievals, up to PromoteMax (see [ConsolidationConfig]);
//   - recur: an event logged with the same text (compared without case
//     or surrounding space) on RecurDays or more different UTC days
//     becomes a semantic fact (source "consolidation", tag "recurring",
//     importance 0.6), and each of its episodes gets a "supports" link to
//     it. A fact already stored with that text is not stored again.
//
// Each step is one transaction. Errors are as for [Memory.Compact].
func (m *Memory) Consolidate(ctx context.Context) (CompactionReport, error) {
	now := m.now()
	rep := CompactionReport{Strategy: "consolidate", At: now}
	steps := []func(q store.Tx, rep *CompactionReport) error{
		func(q store.Tx, rep *CompactionReport) error { return m.mergeDuplicates(q, rep, now) },
		func(q store.Tx, rep *CompactionReport) error { return m.decay(q, rep, now) },
		func(q store.Tx, rep *CompactionReport) error { return m.promote(q, rep, now) },
		func(q store.Tx, rep *CompactionReport) error { return m.recur(q, rep, now) },
	}
	write := func(fn func(q store.Tx) error) error { return m.write(ctx, "consolidate", fn) }
	for _, step := range steps {
		if err := rep.step(write, step); err != nil {
			return rep, err
		}
	}
	m.embedSoon(ctx) // recurring events made facts
	return rep, nil
}

// promote raises the importance of semantic entries that keep being
// retrieved.
func (m *Memory) promote(q store.Tx, rep *CompactionReport, now time.Time) error {
	c := m.cfg.Consolidation
	list, err := store.HotEntries(q, m.agent, c.PromoteEvery, c.PromoteMax)
	if err != nil {
		return err
	}
	for _, h := range list {
		to := min(c.PromoteMax, h.Importance+float64(h.Times)*c.PromoteStep)
		if err := store.Promote(q, h.PK, to, now); err != nil {
			return err
		}
		rep.Actions = append(rep.Actions, CompactionAction{Kind: ActionPromote, Step: stepPromote, Type: TypeSemantic,
			ID: h.ID, Detail: fmt.Sprintf("importance %.2f → %.2f", h.Importance, to)})
	}
	return nil
}

// recurringImportance is the importance of a fact made from a recurring
// event.
const recurringImportance = 0.6

// recur turns events that recur on several days into semantic facts.
func (m *Memory) recur(q store.Tx, rep *CompactionReport, now time.Time) error {
	events, err := store.RecurringEvents(q, m.agent, string(EventDigest), m.cfg.Consolidation.RecurDays)
	if err != nil {
		return err
	}
	for _, e := range events {
		row, err := m.semantic.prepare("recurring event", SemanticEntry{Content: strings.TrimSpace(e.Content),
			Importance: recurringImportance, Tags: []string{"recurring"}, Source: "consolidation"}, now)
		if err != nil {
			return err
		}
		added, err := m.semantic.insertNew(q, row, now)
		if err != nil {
			return err
		}
		if !added {
			continue
		}
		for _, id := range e.IDs {
			if err := store.LinkEpisodeTo(q, m.agent, id, row.ID, string(LinkSupports), now); err != nil {
				return err
			}
		}
		rep.Actions = append(rep.Actions, CompactionAction{Kind: ActionRecur, Step: "recur", Type: TypeSemantic,
			ID: row.ID, Detail: fmt.Sprintf("%d episodes on %d days", len(e.IDs), e.Days)})
	}
	return nil
}
