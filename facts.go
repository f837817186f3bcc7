package engram

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/facts"
	"github.com/engram-go/engram/internal/store"
)

// Facts is the agent's knowledge as subject–predicate–object triples that
// stay true: "Ada | lives in | London". Get it from [Memory.Facts]; it is
// safe for concurrent use.
//
// A fact has two times. ValidFrom and ValidTo say when it is true in the
// world; RecordedAt and ExpiredAt say when engram learned it and when it
// retired it. A fact that stops being true is never deleted: its ValidTo
// is set, so [Facts.AsOf] still answers what was true at a date and
// [Facts.History] shows how a subject's predicate changed.
//
// [Facts.Assert] consolidates: an assertion of what the agent knows
// already strengthens it, a new value of a predicate that holds one value
// at a time (see [FactsConfig]) supersedes the old one, anything else is
// a new fact. Entities are matched without case or spacing differences,
// and [Facts.Alias] makes two names one entity. Search, [Memory.Recall]
// and [Memory.Context] find the facts that hold now as "subject predicate
// object", and memory.md lists them.
type Facts struct{ m *Memory }

// Facts returns the agent's facts.
func (m *Memory) Facts() *Facts { return m.facts }

// Fact is a subject–predicate–object triple with the times it holds.
type Fact struct {
	ID        string // generated when empty
	Subject   string // an entity: "Ada", "User"
	Predicate string // "lives in", "works at", "likes"
	Object    string // an entity or a value: "London", "Europe/London"
	// ValidFrom is when the fact became true in the world; zero means the
	// clock's now. ValidTo is when it stopped being true; zero means it
	// still holds.
	ValidFrom, ValidTo time.Time
	// RecordedAt is when engram learned the fact and ExpiredAt when it
	// retired it, learning that it no longer holds (zero while it is
	// current, or while its end lies ahead). engram sets both.
	RecordedAt, ExpiredAt time.Time
	// Strength is the evidence for the fact: 1 for one assertion, and
	// every assertion of the same fact adds its own (1 when zero).
	Strength float64
	// Sources are where the fact came from: a memory's ID, a document, a
	// user. Assertions of the same fact add theirs.
	Sources []string
	// MemoryID, when set, names the agent's memory the fact was extracted
	// from: Assert adds it to Sources and links it to the fact (a
	// [LinkSupports] link from the memory). Facts read back leave it
	// empty.
	MemoryID string
	Metadata map[string]string
	// Retrievals counts how often [Memory.Recall] admitted the fact into
	// the working set; Assert ignores it.
	Retrievals int
}

// String returns the fact as "subject predicate object".
func (f Fact) String() string { return f.Subject + " " + f.Predicate + " " + f.Object }

// HoldsAt reports whether the fact is true at t: ValidFrom ≤ t < ValidTo.
func (f Fact) HoldsAt(t time.Time) bool {
	return !t.Before(f.ValidFrom) && (f.ValidTo.IsZero() || t.Before(f.ValidTo))
}

// FactAction is what an assertion did.
type FactAction string

// What [Facts.Assert] does with an assertion.
const (
	// FactInserted: the assertion is a new fact.
	FactInserted FactAction = "insert"
	// FactMerged: the agent knew the fact already (same subject,
	// predicate and object, without case differences, holding when the
	// assertion says it starts): its strength and sources grew.
	FactMerged FactAction = "merge"
	// FactSuperseded: the predicate holds one value at a time and the
	// subject had another: that fact ends where the new one starts, and
	// the new one is inserted.
	FactSuperseded FactAction = "supersede"
)

// Assertion is what [Facts.Assert] did.
type Assertion struct {
	Action FactAction
	// Fact is the fact as it now stands: the new one, or the one the
	// assertion was merged into.
	Fact Fact
	// Superseded are the facts the assertion ended, as they now stand.
	Superseded []Fact
}

// FactsConfig configures facts.
type FactsConfig struct {
	// UserEntity is the entity extraction writes for "I", "me" and "my":
	// a rule's (?P<subject>) defaults to it. Default "User", as in seed
	// 004.
	UserEntity string
	// SingleValued are predicates that hold one value at a time, added
	// to the built-in ones: lives in, works at, timezone, name, age, is
	// married to, born on, born in, email, phone number, job title,
	// reports to, is located in, status and nationality. ManyValued are
	// predicates that hold many values even if the built-in list says
	// one.
	SingleValued, ManyValued []string
	// Synonyms maps a predicate to the one it means, added to the
	// built-in ones ("is employed by", "works for" → "works at";
	// "resides in" → "lives in"; "spouse" → "is married to"; …). A
	// predicate is matched by its words' stems, without case: "Lives in"
	// and "living in" are one predicate. A synonym must lead to a
	// predicate that is not itself a synonym.
	Synonyms map[string]string
	// PredicateSimilarity is, in Tier 2, the cosine similarity of their
	// embeddings at which a predicate the subject has no fact of is the
	// subject's known predicate nearest it ("is co-founder of" and
	// "cofounded"); 0 turns matching by embedding off. Default 0.9, as in
	// seed 004.
	PredicateSimilarity float64
}

// FactQuery says which facts to list. The zero value lists the first 100
// facts of every entity.
type FactQuery struct {
	// Entity keeps the facts that name it, matched as assertions match
	// it (aliases included); "" keeps all.
	Entity string
	// Direction says which end of a fact Entity is: its subject
	// ([DirectionOut]), its object ([DirectionIn]) or either
	// ([DirectionBoth], the zero value).
	Direction Direction
	// Predicate keeps the facts of this predicate, matched as
	// assertions match it (synonyms included); "" keeps all.
	Predicate string
	// Limit caps the facts; 0 means 100, at most 10,000.
	Limit int
}

// Direction is which end of a fact an entity is.
type Direction string

// Directions.
const (
	DirectionBoth Direction = ""    // subject or object
	DirectionOut  Direction = "out" // the subject: the fact goes out of the entity
	DirectionIn   Direction = "in"  // the object: the fact comes into the entity
)

// Validate returns an error matching [ErrInvalid] unless d is a known
// direction.
func (d Direction) Validate() error {
	switch d {
	case DirectionBoth, DirectionOut, DirectionIn, "both":
		return nil
	}
	return invalid("direction", "unknown direction %q (want in, out or both)", string(d))
}

// factCols are the columns of a fact that scanFact reads (see
// store.FactCols), for the statements of other files that read facts.
const factCols = store.FactCols

// Assert records a fact and consolidates it with what the agent knows,
// in one transaction, and returns what it did (see [FactAction]):
//
//   - a fact of the same subject, predicate and object that holds when
//     the new one starts (or starts later, with nothing else of the
//     subject's predicate between) is strengthened by the assertion's
//     Strength, gains its sources and metadata, and starts at the
//     earlier ValidFrom: a merge;
//   - otherwise, when the predicate holds one value at a time, the fact
//     of another object holding when the new one starts ends there (its
//     ValidTo is the new ValidFrom, and it is retired if that has
//     passed), and the new fact holds until that one would have ended: a
//     supersede. When the assertion's ValidTo comes first, that one
//     holds again from there, as a fact of its own: a summer in Vancouver
//     does not end a home in Seattle;
//   - otherwise the fact is inserted; when the predicate holds one value,
//     it ends where the next fact of the subject's predicate starts. A
//     fact back-dated into the past slots into the timeline.
//
// A zero ValidFrom is the clock's now. Assert returns an error matching
// [ErrInvalid] for bad input (an empty or over-long part, invalid UTF-8,
// a part of no words for a predicate, ValidTo not after ValidFrom, a
// Strength that is negative, NaN or infinite, a MemoryID that is
// malformed), [ErrNotFound] for a MemoryID that is none of the agent's
// memories, [ErrExists] for an ID the agent has, [ErrClosed] after Close
// and a [*DatabaseError] when SQLite fails. On error nothing was written.
func (f *Facts) Assert(ctx context.Context, fact Fact) (Assertion, error) {
	out, err := f.AssertAll(ctx, []Fact{fact})
	if err != nil {
		return Assertion{}, err
	}
	return out[0], nil
}

// AssertAll asserts facts in order, in one transaction: all of them or,
// on error, none. Errors are as for [Facts.Assert], naming the fact.
func (f *Facts) AssertAll(ctx context.Context, list []Fact) ([]Assertion, error) {
	now := f.m.now()
	prepared := make([]preparedFact, len(list))
	for i, fact := range list {
		field := ""
		if len(list) > 1 {
			field = fmt.Sprintf("facts[%d]", i)
		}
		p, err := f.prepare(field, fact, now)
		if err != nil {
			return nil, err
		}
		prepared[i] = p
	}
	vecs, err := f.predicateVectors(ctx, prepared)
	if err != nil {
		return nil, err
	}
	out := make([]Assertion, len(list))
	err = f.m.write(ctx, "facts.assert", func(q store.Tx) error {
		for i := range prepared {
			a, err := f.assert(q, prepared[i], vecs[prepared[i].predicateKey], now)
			if err != nil {
				return err
			}
			out[i] = a
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// preparedFact is a validated assertion with its keys.
type preparedFact struct {
	Fact
	subjectKey, predicateKey, objectKey string
	single                              bool
}

// prepare validates an assertion and fills in what the caller left empty;
// field prefixes the names of bad fields.
func (f *Facts) prepare(field string, fact Fact, now time.Time) (preparedFact, error) {
	if field != "" {
		field += "."
	}
	lim := f.m.cfg.Limits.MaxFactBytes
	if fact.ID != "" {
		if err := validateID(field+"ID", fact.ID); err != nil {
			return preparedFact{}, err
		}
	}
	for _, part := range []struct{ name, s string }{{"Subject", fact.Subject}, {"Predicate", fact.Predicate}, {"Object", fact.Object}} {
		if err := validateFactPart(field+part.name, part.s, lim); err != nil {
			return preparedFact{}, err
		}
	}
	p := preparedFact{Fact: fact}
	p.subjectKey, p.objectKey = facts.EntityKey(fact.Subject), facts.EntityKey(fact.Object)
	if p.predicateKey = f.m.preds.Key(fact.Predicate); p.predicateKey == "" {
		return preparedFact{}, invalid(field+"Predicate", "%q has no word", fact.Predicate)
	}
	p.single = f.m.preds.Single(p.predicateKey)
	if err := errors.Join(validateTime(field+"ValidFrom", fact.ValidFrom), validateTime(field+"ValidTo", fact.ValidTo)); err != nil {
		return preparedFact{}, err
	}
	if p.ValidFrom.IsZero() {
		p.ValidFrom = now
	}
	p.ValidFrom, p.ValidTo = p.ValidFrom.Truncate(time.Millisecond), p.ValidTo.Truncate(time.Millisecond)
	if !p.ValidTo.IsZero() && !p.ValidTo.After(p.ValidFrom) {
		return preparedFact{}, invalid(field+"ValidTo", "%v is not after ValidFrom (%v)", p.ValidTo, p.ValidFrom)
	}
	if math.IsNaN(fact.Strength) || math.IsInf(fact.Strength, 0) || fact.Strength < 0 || fact.Strength > maxStrength {
		return preparedFact{}, invalid(field+"Strength", "%v is outside [0, %v]", fact.Strength, maxStrength)
	}
	if p.Strength == 0 {
		p.Strength = 1
	}
	if len(fact.Sources) > f.m.cfg.Limits.MaxTags {
		return preparedFact{}, invalid(field+"Sources", "has %d sources, over the limit of %d", len(fact.Sources), f.m.cfg.Limits.MaxTags)
	}
	for i, s := range fact.Sources {
		if err := validateFactPart(fmt.Sprintf("%sSources[%d]", field, i), s, lim); err != nil {
			return preparedFact{}, err
		}
	}
	if fact.MemoryID != "" {
		if err := validateID(field+"MemoryID", fact.MemoryID); err != nil {
			return preparedFact{}, err
		}
	}
	p.Sources = slices.Clone(fact.Sources)
	if fact.MemoryID != "" && !slices.Contains(p.Sources, fact.MemoryID) {
		p.Sources = append(p.Sources, fact.MemoryID)
	}
	if _, err := encodeMetadata(field+"Metadata", fact.Metadata, f.m.cfg.Limits); err != nil {
		return preparedFact{}, err
	}
	p.Metadata = maps.Clone(fact.Metadata)
	if p.ID == "" {
		p.ID = f.m.newID(now)
	}
	return p, nil
}

// maxStrength bounds a fact's strength, far above any count of evidence,
// so that sums stay exact.
const maxStrength = 1e9

// validateFactPart checks a subject, predicate, object or source: one
// line of text.
func validateFactPart(field, s string, maxBytes int) error {
	if err := validateText(field, s, true, maxBytes); err != nil {
		return err
	}
	if strings.ContainsAny(s, "\r\n") {
		return invalid(field, "must be one line")
	}
	return nil
}

// slotHolds reports whether the fact s of a slot holds at t.
func slotHolds(s *store.SlotFact, t time.Time) bool {
	return !t.Before(s.ValidFrom) && (s.ValidTo.IsZero() || t.Before(s.ValidTo))
}

// endsBefore reports whether the end a comes before the end b, a zero
// end (a fact that holds) coming after every time.
func endsBefore(a, b time.Time) bool { return !a.IsZero() && (b.IsZero() || a.Before(b)) }

// firstEnd is the earlier of the ends a and b (see endsBefore).
func firstEnd(a, b time.Time) time.Time {
	if endsBefore(b, a) {
		return b
	}
	return a
}

// assert consolidates one prepared assertion in q's transaction; vec is
// the embedding of its predicate, when Tier 2 matches it (see
// matchPredicate).
func (f *Facts) assert(q store.Tx, p preparedFact, vec []float32, now time.Time) (Assertion, error) {
	if err := f.resolve(q, &p); err != nil {
		return Assertion{}, err
	}
	if vec != nil {
		if err := f.matchPredicate(q, &p, vec); err != nil {
			return Assertion{}, err
		}
	}
	vf, vt := p.ValidFrom, p.ValidTo // vt is zero while the fact would hold
	slot, err := f.slot(q, p, vf)
	if err != nil {
		return Assertion{}, err
	}
	// The same fact holding when the assertion starts takes it in.
	for i := range slot {
		if s := &slot[i]; s.ObjectKey == p.objectKey && slotHolds(s, vf) {
			return f.merge(q, p, s, vf, now, nil)
		}
	}
	a := Assertion{Action: FactInserted}
	if p.single {
		// What holds when the new value starts ends there.
		if a.Superseded, vt, err = f.supersede(q, slot, vf, vt, now); err != nil {
			return Assertion{}, err
		}
		if len(a.Superseded) > 0 {
			a.Action = FactSuperseded
		}
	}
	// The first fact of the slot starting later (of the same object, for
	// a predicate of many values) bounds the new one, or takes it in when
	// it is the same fact and the assertion reaches it.
	next := nextInSlot(slot, p, vf)
	if next != nil && next.ObjectKey == p.objectKey && (vt.IsZero() || !vt.Before(next.ValidFrom)) {
		return f.merge(q, p, next, vf, now, a.Superseded)
	}
	if next != nil && p.single {
		vt = firstEnd(vt, next.ValidFrom)
	}
	p.ValidTo = vt
	if a.Fact, err = f.insert(q, p, now); err != nil {
		return Assertion{}, err
	}
	return a, f.linkEvidence(q, p, a.Fact.ID, now)
}

// supersede ends at vf, where an assertion of a predicate of one value
// starts, the facts of the slot that hold then, and returns them as they
// now stand, with the assertion's end vt cut where the first of them
// would have ended. When the assertion ends first, it interrupts such a
// fact, which holds again from there.
func (f *Facts) supersede(q store.Tx, slot []store.SlotFact, vf, vt, now time.Time) ([]Fact, time.Time, error) {
	var superseded []Fact
	for i := range slot {
		s := &slot[i]
		if !slotHolds(s, vf) {
			continue
		}
		var ended Fact
		err := recordAs(q, OpSupersede, "", func() (err error) {
			ended, err = f.end(q, s.PK, vf, now)
			return err
		})
		if err != nil {
			return nil, vt, err
		}
		if endsBefore(vt, s.ValidTo) {
			if err := f.resume(q, s, vt, now); err != nil {
				return nil, vt, err
			}
		}
		vt = firstEnd(vt, s.ValidTo)
		superseded = append(superseded, ended)
	}
	return superseded, vt, nil
}

// nextInSlot is the first fact of the slot that starts after vf, where
// the assertion p starts: of any object for a predicate of one value, of
// p's object otherwise. It is nil when there is none.
func nextInSlot(slot []store.SlotFact, p preparedFact, vf time.Time) *store.SlotFact {
	var next *store.SlotFact
	for i := range slot {
		s := &slot[i]
		if s.ValidFrom.After(vf) && (p.single || s.ObjectKey == p.objectKey) && (next == nil || s.ValidFrom.Before(next.ValidFrom)) {
			next = s
		}
	}
	return next
}

// resolve puts the assertion's entities under the keys of the entities
// they are aliases of.
func (f *Facts) resolve(q store.Tx, p *preparedFact) error {
	s, o, err := store.ResolveAliases(q, f.m.agent, p.subjectKey, p.objectKey)
	if err != nil {
		return err
	}
	p.subjectKey, p.objectKey = s, o
	return nil
}

// slot reads the facts of the assertion's subject and predicate that
// consolidation weighs: of every object for a predicate that holds one
// value, or of the same object, and of those the ones that have not
// ended by vf, where the assertion starts. A fact that ended by then
// neither holds when the assertion starts nor starts after it, and a
// long history is mostly such facts (see store.SlotFacts). Oldest first,
// so that of two facts an alias made the same, the older takes in what
// follows.
func (f *Facts) slot(q store.Tx, p preparedFact, vf time.Time) ([]store.SlotFact, error) {
	object := p.objectKey
	if p.single {
		object = "" // every object
	}
	return store.SlotFacts(q, f.m.agent, p.subjectKey, p.predicateKey, object, vf)
}

// merge adds the assertion p to the fact s: strength, sources, metadata,
// and an earlier start. superseded are the facts the assertion ended
// first, if any: the assertion then counts as a supersede.
func (f *Facts) merge(q store.Tx, p preparedFact, s *store.SlotFact, vf, now time.Time, superseded []Fact) (Assertion, error) {
	m := store.FactMerge{Strength: p.Strength, MaxStrength: maxStrength,
		Sources:   mergeSources(s.Sources, p.Sources, f.m.cfg.Limits.MaxTags),
		Metadata:  mergeMetadata(s.Metadata, p.Metadata),
		ValidFrom: vf, Now: now}
	var got store.FactRow
	err := recordAs(q, OpMerge, "", func() (err error) {
		got, err = store.MergeFact(q, f.m.agent, s.PK, m)
		return err
	})
	if err != nil {
		return Assertion{}, err
	}
	a := Assertion{Action: FactMerged, Fact: factFromRow(got), Superseded: superseded}
	if len(superseded) > 0 {
		a.Action = FactSuperseded
	}
	return a, f.linkEvidence(q, p, got.ID, now)
}

// end sets the fact pk's ValidTo to at, retiring it if at has passed,
// and returns it as it now stands.
func (f *Facts) end(q store.Tx, pk int64, at, now time.Time) (Fact, error) {
	got, err := store.EndFact(q, f.m.agent, pk, at, now)
	return factFromRow(got), err
}

// resume adds the rest of the fact s, which an assertion ending at at
// interrupted: a fact of its own, as strong and of the same sources,
// from at to where s would have ended, retired at once if that has
// passed.
func (f *Facts) resume(q store.Tx, s *store.SlotFact, at, now time.Time) error {
	var expired time.Time
	if !s.ValidTo.IsZero() && !s.ValidTo.After(now) {
		expired = now
	}
	return store.ResumeFact(q, f.m.agent, s.PK, f.m.newID(now), at, s.ValidTo, now, expired)
}

// insert adds the assertion p as a new fact, retired at once if it ended
// before now.
func (f *Facts) insert(q store.Tx, p preparedFact, now time.Time) (Fact, error) {
	row := store.NewFact{SubjectKey: p.subjectKey, PredicateKey: p.predicateKey, ObjectKey: p.objectKey,
		FactRow: store.FactRow{ID: p.ID, Subject: p.Subject, Predicate: p.Predicate, Object: p.Object,
			ValidFrom: p.ValidFrom, ValidTo: p.ValidTo, RecordedAt: now,
			Strength: p.Strength, Sources: p.Sources, Metadata: p.Metadata}}
	if !p.ValidTo.IsZero() && !p.ValidTo.After(now) {
		row.ExpiredAt = now
	}
	got, err := store.InsertFact(q, f.m.agent, row)
	if store.IsUniqueViolation(err) {
		return Fact{}, fmt.Errorf("engram: fact %s: %w", p.ID, ErrExists)
	}
	if err != nil {
		return Fact{}, err
	}
	return factFromRow(got), nil
}

// linkEvidence links the memory the assertion was extracted from, if
// any, to the fact id.
func (f *Facts) linkEvidence(q store.Tx, p preparedFact, id string, now time.Time) error {
	if p.MemoryID == "" {
		return nil
	}
	typ, err := resolveType(q, f.m.agent, p.MemoryID, "", "MemoryID")
	if err != nil {
		return err
	}
	if typ == TypeFact && p.MemoryID == id {
		return nil
	}
	return store.AddLinkIfAbsent(q, f.m.agent, store.LinkRow{SourceType: string(typ), SourceID: p.MemoryID,
		TargetType: string(TypeFact), TargetID: id, Type: string(LinkSupports), Strength: 1, CreatedAt: now})
}

// mergeSources adds add to the sources old, without repeats; beyond max
// sources, the newest are dropped.
func mergeSources(old, add []string, max int) []string {
	list := slices.Clone(old)
	for _, s := range add {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	if len(list) > max {
		// The oldest evidence stays; the newest beyond the cap is counted
		// in the strength alone.
		list = list[:max]
	}
	return list
}

// mergeMetadata adds to the metadata old the keys of add that it lacks.
func mergeMetadata(old, add map[string]string) map[string]string {
	m := maps.Clone(old)
	if m == nil {
		m = make(map[string]string, len(add))
	}
	for k, v := range add {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return m
}

// Retract ends the fact with the given ID at the time at (the clock's now
// when zero): its ValidTo is set, and it is retired if at has passed. The
// fact keeps its row: [Facts.AsOf] and [Facts.History] still show it. It
// returns the fact as it now stands, [ErrNotFound] if the agent has none
// of that ID, an error matching [ErrInvalid] for a malformed ID, a time
// out of range or one not after the fact's ValidFrom, or a fact that has
// ended already, [ErrClosed] after Close and a [*DatabaseError] when
// SQLite fails.
func (f *Facts) Retract(ctx context.Context, id string, at time.Time) (Fact, error) {
	if err := validateID("id", id); err != nil {
		return Fact{}, err
	}
	if err := validateTime("at", at); err != nil {
		return Fact{}, err
	}
	now := f.m.now()
	if at.IsZero() {
		at = now
	}
	var out Fact
	err := f.m.write(ctx, "facts.retract", func(q store.Tx) error {
		ref, ok, err := store.FindFact(q, f.m.agent, id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound("fact", id)
		}
		if !ref.ValidTo.IsZero() {
			return invalid("id", "fact %s ended at %v already", id, ref.ValidTo)
		}
		if !at.Truncate(time.Millisecond).After(ref.ValidFrom) {
			return invalid("at", "%v is not after the fact's ValidFrom (%v)", at, ref.ValidFrom)
		}
		out, err = f.end(q, ref.PK, at, now)
		return err
	})
	if err != nil {
		return Fact{}, err
	}
	return out, nil
}

// Get returns the fact with the given ID, current or not. It returns
// [ErrNotFound] if the agent has none, an error matching [ErrInvalid] for
// a malformed ID, [ErrClosed] after Close and a [*DatabaseError] when
// SQLite fails.
func (f *Facts) Get(ctx context.Context, id string) (Fact, error) {
	if err := validateID("id", id); err != nil {
		return Fact{}, err
	}
	var list []Fact
	err := f.m.read(ctx, "facts.get", func(q store.Tx) error {
		row, ok, err := store.GetFact(q, f.m.agent, id)
		if err != nil || !ok {
			return err
		}
		list = []Fact{factFromRow(row)}
		return overlayAll(f.m, q, list)
	})
	if err != nil {
		return Fact{}, err
	}
	if len(list) == 0 {
		return Fact{}, notFound("fact", id)
	}
	return list[0], nil
}

// Delete removes the fact with the given ID for good, with its full-text
// entry and links: for a fact that was never true (to end one that
// stopped being true, see [Facts.Retract]). Errors are as for
// [Facts.Get].
func (f *Facts) Delete(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	return f.m.write(ctx, "facts.delete", func(q store.Tx) error {
		return deleteByID(q, factKind, f.m.agent, id)
	})
}

// Alias makes alias another name of the entity name: the facts that name
// either are one entity's, now and in later assertions. When both names
// have facts already, those of alias move to name's entity, and facts
// that become the same (same subject, predicate and object, holding at
// once) stay apart until the next assertion merges into the oldest. It
// returns an error matching [ErrInvalid] for an empty, over-long or
// multi-line name, or for two names that are one already by their
// spelling; [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (f *Facts) Alias(ctx context.Context, name, alias string) error {
	lim := f.m.cfg.Limits.MaxFactBytes
	if err := errors.Join(validateFactPart("name", name, lim), validateFactPart("alias", alias, lim)); err != nil {
		return err
	}
	nk, ak := facts.EntityKey(name), facts.EntityKey(alias)
	if nk == ak {
		return invalid("alias", "%q and %q are one name already", name, alias)
	}
	now := f.m.now()
	return f.m.write(ctx, "facts.alias", func(q store.Tx) error {
		// Both names to the entities they stand for.
		ne, err := f.entityKey(q, name)
		if err != nil {
			return err
		}
		ae, err := f.entityKey(q, alias)
		if err != nil || ae == ne {
			return err // one entity already: nothing to do
		}
		// ae and every alias of it now stand for ne.
		if err := store.RepointAliases(q, f.m.agent, ae, ne); err != nil {
			return err
		}
		// The alias's own key, and that of the entity it stood for.
		for _, k := range slices.Compact([]string{ae, ak}) {
			if err := store.PutAlias(q, f.m.agent, k, ne, alias, now); err != nil {
				return err
			}
		}
		return store.RekeyEntity(q, f.m.agent, ae, ne)
	})
}

// Current returns the facts that hold now, as engram knows them. Errors
// are as for [Facts.AsOf].
func (f *Facts) Current(ctx context.Context, fq FactQuery) ([]Fact, error) {
	return f.AsOf(ctx, f.m.now(), fq)
}

// AsOf returns the facts that were true at t (ValidFrom ≤ t < ValidTo) as
// engram knows them now, back-dated assertions and retractions included,
// by subject and predicate as matched (an entity's aliases and a
// predicate's synonyms together) and by start. It returns an error matching
// [ErrInvalid] for a bad query or time, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (f *Facts) AsOf(ctx context.Context, t time.Time, fq FactQuery) ([]Fact, error) {
	if err := validateTime("t", t); err != nil {
		return nil, err
	}
	return f.list(ctx, "facts.as_of", fq, store.FactsValidAt, t)
}

// KnownAt returns what engram held true at t: the facts it had recorded
// by t and had not retired by t that held at t, as they now stand. Where
// [Facts.AsOf] answers what was true with today's knowledge, KnownAt
// answers what the agent believed then. Errors are as for [Facts.AsOf].
func (f *Facts) KnownAt(ctx context.Context, t time.Time, fq FactQuery) ([]Fact, error) {
	if err := validateTime("t", t); err != nil {
		return nil, err
	}
	return f.list(ctx, "facts.known_at", fq, store.FactsKnownAt, t)
}

// History returns every fact of the subject's predicate, current and
// past, in the order they started: how the slot changed. For a predicate
// that holds many values it lists each value's stretches. Errors are as
// for [Facts.AsOf].
func (f *Facts) History(ctx context.Context, subject, predicate string) ([]Fact, error) {
	return f.list(ctx, "facts.history", FactQuery{Entity: subject, Direction: DirectionOut, Predicate: predicate, Limit: maxListLimit}, store.FactsEver, time.Time{})
}

// list runs a query of the facts that hold at at as when says.
func (f *Facts) list(ctx context.Context, op string, fq FactQuery, when store.FactTime, at time.Time) ([]Fact, error) {
	if err := f.validateQuery(&fq); err != nil {
		return nil, err
	}
	var out []Fact
	err := f.m.read(ctx, op, func(q store.Tx) error {
		ent, err := f.entityKey(q, fq.Entity)
		if err != nil {
			return err
		}
		pred := ""
		if fq.Predicate != "" {
			pred = f.m.preds.Key(fq.Predicate)
		}
		rows, err := store.ListFacts(q, f.m.agent, store.FactList{Entity: ent,
			Subject: fq.Direction != DirectionIn, Object: fq.Direction != DirectionOut,
			Predicate: pred, When: when, At: at, Limit: fq.Limit})
		if err != nil {
			return err
		}
		out = factsFromRows(rows)
		return overlayAll(f.m, q, out)
	})
	return out, err
}

// validateQuery checks a query and fills in its defaults.
func (f *Facts) validateQuery(fq *FactQuery) error {
	if fq.Entity != "" {
		if err := validateFactPart("Entity", fq.Entity, f.m.cfg.Limits.MaxFactBytes); err != nil {
			return err
		}
	}
	if fq.Predicate != "" {
		if err := validateFactPart("Predicate", fq.Predicate, f.m.cfg.Limits.MaxFactBytes); err != nil {
			return err
		}
	}
	if err := fq.Direction.Validate(); err != nil {
		return err
	}
	if fq.Direction == "both" {
		fq.Direction = DirectionBoth
	}
	limit, _, err := ListOptions{Limit: fq.Limit}.resolve()
	fq.Limit = limit
	return err
}

// strongest reads up to limit of the facts that hold now, strongest
// first, then most recently confirmed: what memory.md and Context show.
func (f *Facts) strongest(q store.Tx, limit int, sc *scope) ([]Fact, error) {
	if !sc.admitsKind(factKind) {
		return nil, nil
	}
	rows, err := store.StrongestFacts(q, f.m.agent, f.m.now(), sc.storedOrNil(), limit)
	if err != nil {
		return nil, err
	}
	out := factsFromRows(rows)
	return out, overlayAll(f.m, q, out)
}

// entityKey is the key of the entity name stands for, aliases resolved;
// "" for "".
func (f *Facts) entityKey(q store.Tx, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	return store.EntityKey(q, f.m.agent, facts.EntityKey(name))
}

// scanFact scans a row of the columns factCols as a fact.
func scanFact(r store.Scanner) (Fact, error) {
	row, err := store.ScanFact(r)
	return factFromRow(row), err
}

// factFromRow is the fact the store's row holds.
func factFromRow(r store.FactRow) Fact {
	return Fact{ID: r.ID, Subject: r.Subject, Predicate: r.Predicate, Object: r.Object,
		ValidFrom: r.ValidFrom, ValidTo: r.ValidTo, RecordedAt: r.RecordedAt, ExpiredAt: r.ExpiredAt,
		Strength: r.Strength, Sources: r.Sources, Metadata: r.Metadata, Retrievals: r.Retrievals}
}

// factsFromRows are the facts the store's rows hold.
func factsFromRows(rows []store.FactRow) []Fact {
	out := make([]Fact, len(rows))
	for i, r := range rows {
		out[i] = factFromRow(r)
	}
	return out
}

func (f *Fact) counts() counts { return counts{TypeFact, f.ID, nil, nil, &f.Retrievals} }

// predicates returns how c says predicates are matched.
func (c FactsConfig) predicates() (*facts.Predicates, error) {
	return facts.New(c.SingleValued, c.ManyValued, c.Synonyms)
}

// clone copies c's slices and map.
func (c FactsConfig) clone() FactsConfig {
	c.SingleValued, c.ManyValued = slices.Clone(c.SingleValued), slices.Clone(c.ManyValued)
	c.Synonyms = maps.Clone(c.Synonyms)
	return c
}
