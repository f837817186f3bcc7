package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/bm25"
)

// The facts: subject–predicate–object triples with the times they hold,
// in the table facts, and the entity aliases of fact_aliases. An entity
// or predicate is found by its key (its name matched without case or
// spacing, aliases and synonyms resolved by the caller); a fact's
// ValidTo is NULL while it holds.

// FactCols are the columns of a fact that [ScanFact] reads, in its
// order.
const FactCols = `id, subject, predicate, object, valid_from, valid_to, created_at, expired_at,
	strength, sources, metadata, retrievals`

// FactRow is a fact as the table holds it, decoded.
type FactRow struct {
	ID, Subject, Predicate, Object string
	// ValidFrom and ValidTo are when the fact holds in the world;
	// ValidTo is zero while it holds.
	ValidFrom, ValidTo time.Time
	// RecordedAt is when the row was written (created_at); ExpiredAt when
	// it was retired, zero while it is not.
	RecordedAt, ExpiredAt time.Time
	Strength              float64
	Sources               []string
	Metadata              map[string]string // nil when empty
	Retrievals            int
}

// ScanFact scans the columns [FactCols] of one row. It returns the
// scanner's error, or an error when the sources or the metadata are not
// the JSON they should be.
func ScanFact(r Scanner) (FactRow, error) {
	var f FactRow
	var from, recorded int64
	var to, expired *int64
	var sources, meta string
	err := r.Scan(&f.ID, &f.Subject, &f.Predicate, &f.Object, &from, &to, &recorded, &expired,
		&f.Strength, &sources, &meta, &f.Retrievals)
	if err != nil {
		return f, err
	}
	f.ValidFrom, f.RecordedAt = FromMS(from), FromMS(recorded)
	if to != nil {
		f.ValidTo = FromMS(*to)
	}
	if expired != nil {
		f.ExpiredAt = FromMS(*expired)
	}
	if f.Sources, err = DecodeTags(sources); err != nil {
		return f, err
	}
	if f.Metadata, err = decodeFactMetadata(meta); err != nil {
		return f, err
	}
	return f, nil
}

// decodeFactMetadata decodes a fact's metadata column: nil for "{}".
func decodeFactMetadata(s string) (map[string]string, error) {
	if s == "{}" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("decoding metadata: %w", err)
	}
	return m, nil
}

// encodeFactMetadata encodes a fact's metadata as a JSON object, its keys
// sorted ("{}" for none).
func encodeFactMetadata(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

// factNullTime is the encoding of a time that may be unset: NULL for the
// zero time.
func factNullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return MS(t)
}

// factPrefixScanner scans the columns before a row's fact into pre.
type factPrefixScanner struct {
	r   Scanner
	pre []any
}

func (p factPrefixScanner) Scan(dest ...any) error { return p.r.Scan(append(p.pre, dest...)...) }

// prefixedCols puts prefix before each of the comma-separated columns cols.
func prefixedCols(prefix, cols string) string {
	fields := strings.Split(cols, ",")
	for i, c := range fields {
		fields[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(fields, ", ")
}

// scanOneFact scans the single fact rows holds (the RETURNING of an
// UPDATE or INSERT), or returns sql.ErrNoRows.
func scanOneFact(q Querier, query string, args ...any) (FactRow, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return FactRow{}, err
	}
	got, err := ScanAll(rows, ScanFact)
	if err != nil {
		return FactRow{}, err
	}
	if len(got) == 0 {
		return FactRow{}, sql.ErrNoRows
	}
	return got[0], nil
}

// NewFact is a fact to insert, with the keys of its ends and predicate.
type NewFact struct {
	FactRow
	SubjectKey, PredicateKey, ObjectKey string
}

// InsertFact inserts the agent's fact f, which it was told of at
// f.RecordedAt, with its full-text terms, and returns it as written.
// A zero ValidTo or ExpiredAt is written as unset, empty Metadata as
// "{}"; Retrievals is ignored. It returns the driver's error unchanged:
// a UNIQUE violation (see [IsUniqueViolation]) for an ID the agent has.
func InsertFact(q Querier, agent string, f NewFact) (FactRow, error) {
	terms, ntok := bm25.Vector(f.Subject, f.Predicate, f.Object)
	at := MS(f.RecordedAt)
	rows, err := q.Query(`INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk, `+FactCols,
		f.ID, agent, f.Subject, f.Predicate, f.Object, f.SubjectKey, f.PredicateKey, f.ObjectKey,
		MS(f.ValidFrom), factNullTime(f.ValidTo), at, at, factNullTime(f.ExpiredAt), f.Strength,
		EncodeTags(f.Sources), encodeFactMetadata(f.Metadata), terms, ntok)
	if err != nil {
		return FactRow{}, err
	}
	var pk int64
	got, err := ScanAll(rows, func(r Scanner) (FactRow, error) { return ScanFact(pkFirst{r, &pk}) })
	if err != nil {
		return FactRow{}, err
	}
	if len(got) == 0 {
		return FactRow{}, sql.ErrNoRows
	}
	inserted(q, Fact, agent, f.ID, pk, f.Subject+" "+f.Predicate+" "+f.Object)
	return got[0], nil
}

// FactRef is where a fact is, and when it holds.
type FactRef struct {
	PK                 int64     // its row key
	ValidFrom, ValidTo time.Time // ValidTo zero while it holds
}

// FindFact returns the row key and times of the agent's fact id, and
// whether there is one. It returns the driver's errors unchanged.
func FindFact(q Querier, agent, id string) (FactRef, bool, error) {
	var r FactRef
	var from int64
	var to *int64
	err := q.QueryRow(`SELECT pk, valid_from, valid_to FROM facts WHERE agent_id = ? AND id = ?`, []any{agent, id}, &r.PK, &from, &to)
	if errors.Is(err, sql.ErrNoRows) {
		return FactRef{}, false, nil
	}
	if err != nil {
		return FactRef{}, false, err
	}
	r.ValidFrom = FromMS(from)
	if to != nil {
		r.ValidTo = FromMS(*to)
	}
	return r, true, nil
}

// GetFact returns the agent's fact id, and whether there is one. It
// returns the driver's errors unchanged, or an error decoding the row.
func GetFact(q Querier, agent, id string) (FactRow, bool, error) {
	rows, err := q.Query(`SELECT `+FactCols+` FROM facts WHERE agent_id = ? AND id = ?`, agent, id)
	if err != nil {
		return FactRow{}, false, err
	}
	got, err := ScanAll(rows, ScanFact)
	if err != nil || len(got) == 0 {
		return FactRow{}, false, err
	}
	return got[0], true, nil
}

// ResolveAliases returns the keys of the entities that the entity keys
// subject and object stand for, aliases resolved (each itself when it is
// no alias). It returns the driver's errors unchanged.
func ResolveAliases(q Querier, agent, subject, object string) (string, string, error) {
	rows, err := q.Query(`SELECT alias_key, entity_key FROM fact_aliases WHERE agent_id = ?1 AND alias_key IN (?2, ?3)`,
		agent, subject, object)
	if err != nil {
		return "", "", err
	}
	aliases, err := ScanAll(rows, func(r Scanner) ([2]string, error) {
		var a [2]string
		return a, r.Scan(&a[0], &a[1])
	})
	if err != nil {
		return "", "", err
	}
	s, o := subject, object
	for _, a := range aliases {
		if subject == a[0] {
			s = a[1]
		}
		if object == a[0] {
			o = a[1]
		}
	}
	return s, o, nil
}

// EntityKey returns the key of the entity the entity key k stands for:
// the entity it is an alias of, or k. It returns the driver's errors
// unchanged.
func EntityKey(q Querier, agent, k string) (string, error) {
	var e string
	err := q.QueryRow(`SELECT coalesce((SELECT entity_key FROM fact_aliases WHERE agent_id = ? AND alias_key = ?), ?)`,
		[]any{agent, k, k}, &e)
	return e, err
}

// RepointAliases makes every alias of the entity from an alias of the
// entity to. It returns the driver's errors unchanged.
func RepointAliases(q Querier, agent, from, to string) error {
	_, err := q.Exec(`UPDATE fact_aliases INDEXED BY fact_aliases_by_entity SET entity_key = ?3 WHERE agent_id = ?1 AND entity_key = ?2`, agent, from, to)
	return err
}

// PutAlias records the key aliasKey, written alias, as a name of the
// entity entityKey from now on, replacing the entity it stood for. It
// returns the driver's errors unchanged.
func PutAlias(q Querier, agent, aliasKey, entityKey, alias string, now time.Time) error {
	_, err := q.Exec(`INSERT INTO fact_aliases (agent_id, alias_key, entity_key, alias, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (agent_id, alias_key) DO UPDATE SET entity_key = excluded.entity_key`, agent, aliasKey, entityKey, alias, MS(now))
	return err
}

// RekeyEntity moves the facts of the entity from, at either end, to the
// entity to. It returns the driver's errors unchanged.
func RekeyEntity(q Querier, agent, from, to string) error {
	if _, err := q.Exec(`UPDATE facts SET subject_key = ?3 WHERE agent_id = ?1 AND subject_key = ?2`, agent, from, to); err != nil {
		return err
	}
	_, err := q.Exec(`UPDATE facts SET object_key = ?3 WHERE agent_id = ?1 AND object_key = ?2`, agent, from, to)
	return err
}

// SlotFact is a fact of a slot (a subject and a predicate), as
// consolidating an assertion into it needs it.
type SlotFact struct {
	PK                 int64
	ObjectKey          string
	ValidFrom, ValidTo time.Time // ValidTo zero while it holds
	Sources            []string
	Metadata           map[string]string // nil when empty
}

// openFactEnd stands for an unset valid_to in SlotFacts: after every
// time.
const openFactEnd = math.MaxInt64

// SlotFacts returns the agent's facts of the subject and predicate keys
// that have not ended by after (those still holding, or ending later),
// of the object key object only unless it is "", oldest first (by start,
// then row). facts_by_slot holds valid_to, so the facts that ended are
// passed over in the index. It returns the driver's errors unchanged, or
// an error decoding a row.
func SlotFacts(q Querier, agent, subject, predicate, object string, after time.Time) ([]SlotFact, error) {
	query := `SELECT pk, object_key, valid_from, coalesce(valid_to, ?4), sources, metadata
		FROM facts WHERE agent_id = ?1 AND subject_key = ?2 AND predicate_key = ?3 AND coalesce(valid_to, ?4) > ?5`
	args := []any{agent, subject, predicate, int64(openFactEnd), MS(after)}
	if object != "" {
		query += ` AND object_key = ?6`
		args = append(args, object)
	}
	rows, err := q.Query(query+` ORDER BY valid_from, pk`, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (SlotFact, error) {
		var s SlotFact
		var from, to int64
		var sources, meta string
		if err := r.Scan(&s.PK, &s.ObjectKey, &from, &to, &sources, &meta); err != nil {
			return s, err
		}
		s.ValidFrom = FromMS(from)
		if to != openFactEnd {
			s.ValidTo = FromMS(to)
		}
		var err error
		if s.Sources, err = DecodeTags(sources); err != nil {
			return s, err
		}
		s.Metadata, err = decodeFactMetadata(meta)
		return s, err
	})
}

// FactMerge is what an assertion adds to a fact it merges into.
type FactMerge struct {
	// Strength is added to the fact's, up to MaxStrength.
	Strength, MaxStrength float64
	// Sources and Metadata replace the fact's.
	Sources  []string
	Metadata map[string]string
	// ValidFrom is the assertion's start: the fact starts at the earlier
	// of its own and this.
	ValidFrom time.Time
	// Now is when the fact is updated.
	Now time.Time
}

// MergeFact merges m into the agent's fact of row key pk and returns it
// as it now stands. It returns sql.ErrNoRows when there is no such fact
// and the driver's errors unchanged.
func MergeFact(q Querier, agent string, pk int64, m FactMerge) (FactRow, error) {
	return scanOneFact(q, `UPDATE facts SET strength = min(?3, strength + ?4), sources = ?5, metadata = ?6,
			valid_from = min(valid_from, ?7), updated_at = ?8 WHERE agent_id = ?1 AND pk = ?2 RETURNING `+FactCols,
		agent, pk, m.MaxStrength, m.Strength, EncodeTags(m.Sources), encodeFactMetadata(m.Metadata), MS(m.ValidFrom), MS(m.Now))
}

// EndFact sets the ValidTo of the agent's fact of row key pk to at,
// retiring it at now if at is not after now (unless it was retired
// already), and returns it as it now stands. It returns sql.ErrNoRows
// when there is no such fact and the driver's errors unchanged.
func EndFact(q Querier, agent string, pk int64, at, now time.Time) (FactRow, error) {
	return scanOneFact(q, `UPDATE facts SET valid_to = ?3, updated_at = ?4,
			expired_at = CASE WHEN CAST(?3 AS INTEGER) <= ?4 THEN coalesce(expired_at, ?4) END
		WHERE agent_id = ?1 AND pk = ?2 RETURNING `+FactCols, agent, pk, MS(at), MS(now))
}

// ResumeFact copies the agent's fact of row key pk as a new fact id (the
// same parts, keys, strength, sources, metadata and terms) that holds
// from from to to (zero: while it holds), recorded at now and retired at
// expired (zero: not retired). It returns the driver's errors unchanged;
// no fact of row key pk inserts nothing.
func ResumeFact(q Querier, agent string, pk int64, id string, from, to, now, expired time.Time) error {
	_, err := changing(q, Fact, ChangeInsert, `INSERT INTO facts (id, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			valid_from, valid_to, created_at, updated_at, expired_at, strength, sources, metadata, terms, ntok)
		SELECT ?3, agent_id, subject, predicate, object, subject_key, predicate_key, object_key,
			?4, ?5, ?6, ?6, ?7, strength, sources, metadata, terms, ntok
		FROM facts WHERE agent_id = ?1 AND pk = ?2`,
		agent, pk, id, MS(from), factNullTime(to), MS(now), factNullTime(expired))
	return err
}

// FactTime says which facts [ListFacts] lists, as of its At.
type FactTime int

const (
	// FactsValidAt lists the facts true at At: ValidFrom ≤ At < ValidTo.
	FactsValidAt FactTime = iota
	// FactsKnownAt lists the facts recorded by At and not retired by At
	// that held at At as far as was known then.
	FactsKnownAt
	// FactsEver lists every fact; At is ignored.
	FactsEver
)

// FactList says which of the agent's facts [ListFacts] returns.
type FactList struct {
	// Entity is the key of the entity the facts name; "" for all.
	Entity string
	// Subject and Object say which ends of a fact Entity may be: either
	// when both are set (a fact of the entity with itself counts once).
	Subject, Object bool
	// Predicate is the key of the facts' predicate; "" for all.
	Predicate string
	When      FactTime
	At        time.Time
	Limit     int
}

// ListFacts returns the first l.Limit of the agent's facts that l picks,
// ordered by their subject's and predicate's keys, then by start and
// ID, so that a slot's facts stay together and in time order whatever
// names and synonyms they were asserted with. It returns the driver's
// errors unchanged, or an error decoding a row.
func ListFacts(q Querier, agent string, l FactList) ([]FactRow, error) {
	sel := `SELECT ` + prefixedCols("f.", FactCols) + `, f.subject_key, f.predicate_key FROM facts f`
	var parts []string
	switch {
	case l.Entity == "":
		parts = []string{sel + ` WHERE f.agent_id = ?1 AND ?2 = ''`} // ?2 is the entity, none (PostgreSQL types every parameter)
	case !l.Object:
		parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.subject_key = ?2`}
	case !l.Subject:
		parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.object_key = ?2`}
	default:
		parts = []string{sel + ` WHERE f.agent_id = ?1 AND f.subject_key = ?2`,
			sel + ` WHERE f.agent_id = ?1 AND f.object_key = ?2 AND f.subject_key <> ?2`}
	}
	when := "1"
	switch l.When {
	case FactsValidAt:
		when = `f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5)`
	case FactsKnownAt:
		when = `f.created_at <= ?5 AND (f.expired_at IS NULL OR f.expired_at > ?5)
		AND f.valid_from <= ?5 AND (f.valid_to IS NULL OR f.valid_to > ?5 OR f.expired_at > ?5)`
	}
	for i := range parts {
		parts[i] += ` AND (?3 = '' OR f.predicate_key = ?3) AND ` + when
	}
	query := `SELECT ` + FactCols + ` FROM (` + strings.Join(parts, " UNION ALL ") + `)
			ORDER BY subject_key, predicate_key, valid_from, id LIMIT ?4`
	args := []any{agent, l.Entity, l.Predicate, l.Limit}
	if l.When != FactsEver {
		args = append(args, MS(l.At))
	}
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, ScanFact)
}

// StrongestFacts returns up to limit of the agent's facts that hold at
// now (found by a search then) in the scope sc (nil for all), strongest
// first, then the most recently confirmed. It returns the driver's errors
// unchanged, or an error decoding a row.
func StrongestFacts(q Querier, agent string, now time.Time, sc *Scope, limit int) ([]FactRow, error) {
	cond, condArgs := sc.whereOrAll(Fact, "f")
	args := append(append([]any{agent, MS(now), MS(now)}, condArgs...), limit)
	rows, err := q.Query(`SELECT `+FactCols+` FROM facts f WHERE agent_id = ? AND `+Fact.LiveAt("f", "?")+`
		AND `+cond+` ORDER BY strength DESC, updated_at DESC, id LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, ScanFact)
}

// KnownPredicates returns which of the predicate keys the agent has an
// embedding of by model. It returns the driver's errors unchanged.
func KnownPredicates(q Querier, agent, model string, keys []string) (map[string]bool, error) {
	b, _ := json.Marshal(keys) // a []string always marshals
	return JSONSet(q, `SELECT json_group_array(predicate_key) FROM fact_predicates
			WHERE agent_id = ?1 AND model = ?2 AND predicate_key IN (SELECT value FROM json_each(?3))`, agent, model, string(b))
}

// PredicateEmbedding is a predicate key with its embedding, nil when
// there is none of the model asked for.
type PredicateEmbedding struct {
	Key       string
	Embedding []byte // as the vector index encodes it
}

// SubjectPredicates returns the keys of the predicates of the agent's
// facts of the subject key, each with its embedding by model. It returns
// the driver's errors unchanged.
func SubjectPredicates(q Querier, agent, subject, model string) ([]PredicateEmbedding, error) {
	rows, err := q.Query(`SELECT k.predicate_key, e.embedding FROM
			(SELECT DISTINCT predicate_key FROM facts WHERE agent_id = ?1 AND subject_key = ?2) k
		LEFT JOIN fact_predicates e ON e.agent_id = ?1 AND e.predicate_key = k.predicate_key AND e.model = ?3`,
		agent, subject, model)
	if err != nil {
		return nil, err
	}
	return ScanAll(rows, func(r Scanner) (PredicateEmbedding, error) {
		var p PredicateEmbedding
		return p, r.Scan(&p.Key, &p.Embedding)
	})
}

// PutPredicateEmbedding records embedding, by model, as the embedding of
// the agent's predicate key, replacing any other. It returns the
// driver's errors unchanged.
func PutPredicateEmbedding(q Querier, agent, key, model string, embedding []byte) error {
	_, err := q.Exec(`INSERT INTO fact_predicates (agent_id, predicate_key, model, embedding) VALUES (?, ?, ?, ?)
		ON CONFLICT (agent_id, predicate_key) DO UPDATE SET model = excluded.model, embedding = excluded.embedding`,
		agent, key, model, embedding)
	return err
}
