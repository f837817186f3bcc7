package engram

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/bm25"
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

const factCols = `id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals`

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
	err = f.m.write(ctx, "facts.assert", func(q *dbtx) error {
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

// slotFact is a fact of the slot (subject and predicate) an assertion
// goes into, as consolidation needs it.
type slotFact struct {
	pk                 int64
	objectKey          string
	validFrom, validTo int64 // validTo is openEnd while it holds
	sources, metadata  string
}

// openEnd stands for a ValidTo not set: a fact that still holds.
const openEnd = math.MaxInt64

func (s slotFact) holds(t int64) bool { return s.validFrom <= t && t < s.validTo }

// assert consolidates one prepared assertion in q's transaction; vec is
// the embedding of its predicate, when Tier 2 matches it (see
// matchPredicate).
func (f *Facts) assert(q *dbtx, p preparedFact, vec []float32, now time.Time) (Assertion, error) {
	if err := f.resolve(q, &p); err != nil {
		return Assertion{}, err
	}
	if vec != nil {
		if err := f.matchPredicate(q, &p, vec); err != nil {
			return Assertion{}, err
		}
	}
	vf, vt := ms(p.ValidFrom), int64(openEnd)
	if !p.ValidTo.IsZero() {
		vt = ms(p.ValidTo)
	}
	slot, err := f.slot(q, p, vf)
	if err != nil {
		return Assertion{}, err
	}
	// The same fact holding when the assertion starts takes it in.
	for i := range slot {
		if s := &slot[i]; s.objectKey == p.objectKey && s.holds(vf) {
			return f.merge(q, p, s, vf, now, nil)
		}
	}
	a := Assertion{Action: FactInserted}
	if p.single {
		// What holds when the new value starts ends there.
		for i := range slot {
			s := &slot[i]
			if !s.holds(vf) {
				continue
			}
			var ended Fact
			err := q.recordAs(OpSupersede, "", func() (err error) {
				ended, err = f.end(q, s.pk, vf, now)
				return err
			})
			if err != nil {
				return Assertion{}, err
			}
			if vt < s.validTo {
				// The assertion ends first: it interrupts the fact,
				// which holds again from there.
				if err := f.resume(q, s, vt, now); err != nil {
					return Assertion{}, err
				}
			}
			vt = min(vt, s.validTo)
			a.Action = FactSuperseded
			a.Superseded = append(a.Superseded, ended)
		}
	}
	// The first fact of the slot starting later (of the same object, for
	// a predicate of many values) bounds the new one, or takes it in when
	// it is the same fact and the assertion reaches it.
	var next *slotFact
	for i := range slot {
		s := &slot[i]
		if s.validFrom > vf && (p.single || s.objectKey == p.objectKey) && (next == nil || s.validFrom < next.validFrom) {
			next = s
		}
	}
	if next != nil && next.objectKey == p.objectKey && vt >= next.validFrom {
		return f.merge(q, p, next, vf, now, a.Superseded)
	}
	if next != nil && p.single {
		vt = min(vt, next.validFrom)
	}
	if vt != openEnd {
		p.ValidTo = fromMS(vt)
	}
	if a.Fact, err = f.insert(q, p, now); err != nil {
		return Assertion{}, err
	}
	return a, f.linkEvidence(q, p, a.Fact.ID, now)
}

// resolve puts the assertion's entities under the keys of the entities
// they are aliases of.
func (f *Facts) resolve(q *dbtx, p *preparedFact) error {
	rows, err := q.query(`SELECT alias_key, entity_key FROM fact_aliases WHERE agent_id = ?1 AND alias_key IN (?2, ?3)`,
		f.m.agent, p.subjectKey, p.objectKey)
	if err != nil {
		return err
	}
	aliases, err := store.ScanAll(rows, func(r store.Scanner) ([2]string, error) {
		var a [2]string
		return a, r.Scan(&a[0], &a[1])
	})
	for _, a := range aliases {
		if p.subjectKey == a[0] {
			p.subjectKey = a[1]
		}
		if p.objectKey == a[0] {
			p.objectKey = a[1]
		}
	}
	return err
}

// slot reads the facts of the assertion's subject and predicate that
// consolidation weighs: of every object for a predicate that holds one
// value, or of the same object, and of those the ones that have not
// ended by vf, where the assertion starts. A fact that ended by then
// neither holds when the assertion starts nor starts after it, and a
// long history is mostly such facts: facts_by_slot holds valid_to, so
// they are passed over in the index. Oldest first, so that of two facts
// an alias made the same, the older takes in what follows.
func (f *Facts) slot(q *dbtx, p preparedFact, vf int64) ([]slotFact, error) {
	query := `SELECT pk, object_key, valid_from, coalesce(valid_to, ?4), sources, metadata
		FROM facts WHERE agent_id = ?1 AND subject_key = ?2 AND predicate_key = ?3 AND coalesce(valid_to, ?4) > ?5`
	args := []any{f.m.agent, p.subjectKey, p.predicateKey, int64(openEnd), vf}
	if !p.single {
		query += ` AND object_key = ?6`
		args = append(args, p.objectKey)
	}
	rows, err := q.query(query+` ORDER BY valid_from, pk`, args...)
	if err != nil {
		return nil, err
	}
	return store.ScanAll(rows, func(r store.Scanner) (slotFact, error) {
		var s slotFact
		return s, r.Scan(&s.pk, &s.objectKey, &s.validFrom, &s.validTo, &s.sources, &s.metadata)
	})
}

// merge adds the assertion p to the fact s: strength, sources, metadata,
// and an earlier start. superseded are the facts the assertion ended
// first, if any: the assertion then counts as a supersede.
func (f *Facts) merge(q *dbtx, p preparedFact, s *slotFact, vf int64, now time.Time, superseded []Fact) (Assertion, error) {
	sources, err := mergeSources(s.sources, p.Sources, f.m.cfg.Limits.MaxTags)
	if err != nil {
		return Assertion{}, err
	}
	meta, err := mergeMetadata(s.metadata, p.Metadata)
	if err != nil {
		return Assertion{}, err
	}
	var got []Fact
	err = q.recordAs(OpMerge, "", func() error {
		rows, err := q.query(`UPDATE facts SET strength = min(?3, strength + ?4), sources = ?5, metadata = ?6,
			valid_from = min(valid_from, ?7), updated_at = ?8 WHERE agent_id = ?1 AND pk = ?2 RETURNING `+factCols,
			f.m.agent, s.pk, maxStrength, p.Strength, sources, meta, vf, ms(now))
		if err != nil {
			return err
		}
		got, err = store.ScanAll(rows, scanFact)
		return err
	})
	if err != nil {
		return Assertion{}, err
	}
	a := Assertion{Action: FactMerged, Fact: got[0], Superseded: superseded}
	if len(superseded) > 0 {
		a.Action = FactSuperseded
	}
	return a, f.linkEvidence(q, p, got[0].ID, now)
}

// end sets the fact pk's ValidTo to at, retiring it if at has passed,
// and returns it as it now stands.
func (f *Facts) end(q *dbtx, pk, at int64, now time.Time) (Fact, error) {
	rows, err := q.query(`UPDATE facts SET valid_to = ?3, updated_at = ?4,
			expired_at = CASE WHEN ?3 <= ?4 THEN coalesce(expired_at, ?4) END
		WHERE agent_id = ?1 AND pk = ?2 RETURNING `+factCols, f.m.agent, pk, at, ms(now))
	if err != nil {
		return Fact{}, err
	}
	got, err := store.ScanAll(rows, scanFact)
	if err != nil {
		return Fact{}, err
	}
	return got[0], nil
}

// resume adds the rest of the fact s, which an assertion ending at at
// interrupted: a fact of its own, as strong and of the same sources,
// from at to where s would have ended, retired at once if that has
// passed.
func (f *Facts) resume(q *dbtx, s *slotFact, at int64, now time.Time) error {
	var validTo, expired any
	if s.validTo != openEnd {
		validTo = s.validTo
		if s.validTo <= ms(now) {
			expired = ms(now)
		}
	}
	_, err := q.exec(`INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		SELECT ?3, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			?4, ?5, ?6, ?6, ?7, strength, sources, metadata, terms, ntok
		FROM facts WHERE agent_id = ?1 AND pk = ?2`,
		f.m.agent, s.pk, f.m.newID(now), at, validTo, ms(now), expired)
	return err
}

// insert adds the assertion p as a new fact, retired at once if it ended
// before now.
func (f *Facts) insert(q *dbtx, p preparedFact, now time.Time) (Fact, error) {
	terms, ntok := bm25.Vector(p.Subject, p.Predicate, p.Object)
	var validTo, expired any
	if !p.ValidTo.IsZero() {
		validTo = ms(p.ValidTo)
		if !p.ValidTo.After(now) {
			expired = ms(now)
		}
	}
	meta, err := mergeMetadata("{}", p.Metadata)
	if err != nil {
		return Fact{}, err
	}
	rows, err := q.query(`INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+factCols,
		p.ID, f.m.agent, p.Subject, p.Predicate, p.Object, p.subjectKey, p.predicateKey, p.objectKey,
		ms(p.ValidFrom), validTo, ms(now), ms(now), expired, p.Strength, encodeTags(p.Sources), meta, terms, ntok)
	var got []Fact
	if err == nil {
		got, err = store.ScanAll(rows, scanFact)
	}
	if store.IsUniqueViolation(err) {
		return Fact{}, fmt.Errorf("engram: fact %s: %w", p.ID, ErrExists)
	}
	if err != nil {
		return Fact{}, err
	}
	return got[0], nil
}

// linkEvidence links the memory the assertion was extracted from, if
// any, to the fact id.
func (f *Facts) linkEvidence(q *dbtx, p preparedFact, id string, now time.Time) error {
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
	_, err = q.exec(`INSERT INTO zettel_links (agent_id, `+linkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`,
		f.m.agent, string(typ), p.MemoryID, string(TypeFact), id, string(LinkSupports), 1.0, ms(now))
	return err
}

// mergeSources adds add to the JSON list old, without repeats, and
// returns the list as JSON; more than max sources is an error.
func mergeSources(old string, add []string, max int) (string, error) {
	list, err := decodeTags(old)
	if err != nil {
		return "", err
	}
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
	return encodeTags(list), nil
}

// mergeMetadata adds the keys of add that the JSON object old lacks, and
// returns the object as JSON.
func mergeMetadata(old string, add map[string]string) (string, error) {
	m := map[string]string{}
	if err := json.Unmarshal([]byte(old), &m); err != nil {
		return "", fmt.Errorf("decoding metadata: %w", err)
	}
	for k, v := range add {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	return string(b), err
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
	err := f.m.write(ctx, "facts.retract", func(q *dbtx) error {
		var pk, from int64
		var to *int64
		err := q.queryRow(`SELECT pk, valid_from, valid_to FROM facts WHERE agent_id = ? AND id = ?`, []any{f.m.agent, id}, &pk, &from, &to)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("fact", id)
		}
		if err != nil {
			return err
		}
		if to != nil {
			return invalid("id", "fact %s ended at %v already", id, fromMS(*to))
		}
		if ms(at) <= from {
			return invalid("at", "%v is not after the fact's ValidFrom (%v)", at, fromMS(from))
		}
		out, err = f.end(q, pk, ms(at), now)
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
	list, err := readCounted(ctx, f.m, "facts.get", scanFact, `SELECT `+factCols+` FROM facts WHERE agent_id = ? AND id = ?`, f.m.agent, id)
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
	return f.m.write(ctx, "facts.delete", func(q *dbtx) error {
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
	return f.m.write(ctx, "facts.alias", func(q *dbtx) error {
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
		if _, err := q.exec(`UPDATE fact_aliases INDEXED BY fact_aliases_by_entity SET entity_key = ?3 WHERE agent_id = ?1 AND entity_key = ?2`, f.m.agent, ae, ne); err != nil {
			return err
		}
		// The alias's own key, and that of the entity it stood for.
		for _, k := range slices.Compact([]string{ae, ak}) {
			if _, err := q.exec(`INSERT INTO fact_aliases (agent_id, alias_key, entity_key, alias, created_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (agent_id, alias_key) DO UPDATE SET entity_key = excluded.entity_key`, f.m.agent, k, ne, alias, ms(now)); err != nil {
				return err
			}
		}
		if _, err := q.exec(`UPDATE facts SET subject_key = ?3 WHERE agent_id = ?1 AND subject_key = ?2`, f.m.agent, ae, ne); err != nil {
			return err
		}
		_, err = q.exec(`UPDATE facts SET object_key = ?3 WHERE agent_id = ?1 AND object_key = ?2`, f.m.agent, ae, ne)
		return err
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
	return f.list(ctx, "facts.as_of", fq, `f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5)`, ms(t))
}

// KnownAt returns what engram held true at t: the facts it had recorded
// by t and had not retired by t that held at t, as they now stand. Where
// [Facts.AsOf] answers what was true with today's knowledge, KnownAt
// answers what the agent believed then. Errors are as for [Facts.AsOf].
func (f *Facts) KnownAt(ctx context.Context, t time.Time, fq FactQuery) ([]Fact, error) {
	if err := validateTime("t", t); err != nil {
		return nil, err
	}
	return f.list(ctx, "facts.known_at", fq, `f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5)`, ms(t))
}

// History returns every fact of the subject's predicate, current and
// past, in the order they started: how the slot changed. For a predicate
// that holds many values it lists each value's stretches. Errors are as
// for [Facts.AsOf].
func (f *Facts) History(ctx context.Context, subject, predicate string) ([]Fact, error) {
	return f.list(ctx, "facts.history", FactQuery{Entity: subject, Direction: DirectionOut, Predicate: predicate, Limit: maxListLimit}, "1", nil)
}

// list runs a query of facts that pass the condition when (over the row
// f, with ?5 bound to at, unless at is nil).
func (f *Facts) list(ctx context.Context, op string, fq FactQuery, when string, at any) ([]Fact, error) {
	if err := f.validateQuery(&fq); err != nil {
		return nil, err
	}
	var out []Fact
	err := f.m.read(ctx, op, func(q *dbtx) error {
		ent, err := f.entityKey(q, fq.Entity)
		if err != nil {
			return err
		}
		pred := ""
		if fq.Predicate != "" {
			pred = f.m.preds.Key(fq.Predicate)
		}
		sel := `SELECT ` + prefixed("f.", factCols) + `, f.subject_key, f.predicate_key FROM facts f`
		var parts []string
		switch {
		case ent == "":
			parts = []string{sel + ` WHERE f.agent_id = ?1`}
		case fq.Direction == DirectionOut:
			parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.subject_key = ?2`}
		case fq.Direction == DirectionIn:
			parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.object_key = ?2`}
		default:
			parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.subject_key = ?2`,
				sel + ` WHERE f.agent_id = ?1 AND f.object_key = ?2 AND f.subject_key <> ?2`}
		}
		for i := range parts {
			parts[i] += ` AND (?3 = '' OR f.predicate_key = ?3) AND ` + when
		}
		// Facts are ordered by their entity and predicate as matched, not
		// as written, so that a slot's facts stay together and in time
		// order whatever names and synonyms they were asserted with.
		query := `SELECT ` + factCols + ` FROM (` + strings.Join(parts, " UNION ALL ") + `)
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4`
		args := []any{f.m.agent, ent, pred, fq.Limit}
		if at != nil {
			args = append(args, at)
		}
		out, err = queryCounted(f.m, q, scanFact, query, args...)
		return err
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
func (f *Facts) strongest(q *dbtx, limit int, sc *scope) ([]Fact, error) {
	if !sc.admitsKind(factKind) {
		return nil, nil
	}
	cond, args := sc.whereOrAll(factKind, "f")
	return queryCounted(f.m, q, scanFact, `SELECT `+factCols+` FROM facts f WHERE agent_id = ? AND `+factKind.liveAt("f", "?")+`
		AND `+cond+` ORDER BY strength DESC, updated_at DESC, id LIMIT ?`, append(append([]any{f.m.agent, ms(f.m.now()), ms(f.m.now())}, args...), limit)...)
}

// entityKey is the key of the entity name stands for, aliases resolved;
// "" for "".
func (f *Facts) entityKey(q *dbtx, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	k := facts.EntityKey(name)
	var e string
	err := q.queryRow(`SELECT coalesce((SELECT entity_key FROM fact_aliases WHERE agent_id = ? AND alias_key = ?), ?)`,
		[]any{f.m.agent, k, k}, &e)
	return e, err
}

// prefixed puts prefix before each of the comma-separated columns cols.
func prefixed(prefix, cols string) string {
	fields := strings.Split(cols, ",")
	for i, c := range fields {
		fields[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(fields, ", ")
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
