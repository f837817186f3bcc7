package engram

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// Memories of any kind, by ID: what a server needs to add, read and list
// memories without knowing their kind first. Each kind keeps its own
// methods (Semantic, Episodic, Procedural, Facts); these work through
// them, in one transaction.

// ID returns the ID of the memory r holds, or "" when it holds none.
func (r Record) ID() string {
	for _, k := range listed {
		if id, _, ok := k.rec.key(&r); ok {
			return id
		}
	}
	return ""
}

// CreatedAt returns when the memory r holds was stored (a fact's
// RecordedAt), the time [Memory.List] orders by.
func (r Record) CreatedAt() time.Time {
	for _, k := range listed {
		if _, at, ok := k.rec.key(&r); ok {
			return at
		}
	}
	return time.Time{}
}

// kindOf returns the kind of the one memory r holds, checking that Type,
// when set, says the same; field names r in errors.
func (r Record) kindOf(field string) (MemoryType, error) {
	var set []MemoryType
	for _, k := range listed {
		if _, _, ok := k.rec.key(&r); ok {
			set = append(set, k.typ)
		}
	}
	if len(set) != 1 {
		return "", invalid(field, "holds %d memories; a record holds one", len(set))
	}
	if r.Type != "" && r.Type != set[0] {
		return "", invalid(field+".Type", "is %q but the record holds a %s memory", string(r.Type), set[0])
	}
	return set[0], nil
}

// Added is what [Memory.AddAll] did with one record.
type Added struct {
	Type MemoryType
	ID   string
	// Assertion is what asserting a fact did (insert, merge or
	// supersede; see [Facts.Assert]); nil for the other kinds. A merge's
	// ID is the fact merged into.
	Assertion *Assertion
}

// AddAll stores semantic entries, episodes, procedures and facts, in the
// records' order and in one transaction: all of them or, on error, none.
// Each is stored as its kind's own method stores it ([Semantic.Store],
// [Episodic.Log], [Procedural.Store], [Facts.Assert]), so a fact whose
// MemoryID names a memory earlier in the list is linked to it. Every
// record is validated before anything is written.
//
// It returns an error matching [ErrInvalid] for a record that holds no
// memory, more than one, a Type that is not the kind it holds, a session
// snapshot or a document chunk (which have their own ways in:
// [Episodic.SaveSnapshot], [Memory.Ingest]), or a memory its kind's
// method would refuse, the field named after the record's index
// ("records[2].Content"); then as those methods do: [ErrExists] for an ID
// the agent has (or a procedure's name), [ErrNotFound] for a fact's
// MemoryID the agent does not have, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) AddAll(ctx context.Context, records []Record) ([]Added, error) {
	now := m.now()
	type prepared struct {
		typ MemoryType
		sem semanticRow
		ep  episodeRow
		pr  Procedure
		f   preparedFact
		i   int // the index of its text among its kind's embedded texts
	}
	list := make([]prepared, len(records))
	var semTexts, epTexts, prTexts []string
	var facts []preparedFact
	for i, r := range records {
		field := fmt.Sprintf("records[%d]", i)
		typ, err := r.kindOf(field)
		if err != nil {
			return nil, err
		}
		p := prepared{typ: typ}
		switch typ {
		case TypeSemantic:
			p.sem, err = m.semantic.prepare(field, *r.Semantic, now)
			p.i, semTexts = len(semTexts), append(semTexts, p.sem.Content)
		case TypeEpisodic:
			p.ep, err = m.episodic.prepare(field, *r.Episode, now)
			p.i, epTexts = len(epTexts), append(epTexts, p.ep.Content)
		case TypeProcedural:
			p.pr, err = m.procedural.prepare(field, *r.Procedure, now)
			p.i, prTexts = len(prTexts), append(prTexts, p.pr.Name+": "+p.pr.Description)
		case TypeFact:
			p.f, err = m.facts.prepare(field, *r.Fact, now)
			facts = append(facts, p.f)
		default:
			err = invalid(field, "is a %s; AddAll stores semantic entries, episodes, procedures and facts", typ)
		}
		if err != nil {
			return nil, err
		}
		list[i] = p
	}
	semVecs, err := m.embedNew(ctx, semTexts)
	if err != nil {
		return nil, err
	}
	epVecs, err := m.embedNew(ctx, epTexts)
	if err != nil {
		return nil, err
	}
	prVecs, err := m.embedNew(ctx, prTexts)
	if err != nil {
		return nil, err
	}
	predVecs, err := m.facts.predicateVectors(ctx, facts)
	if err != nil {
		return nil, err
	}
	out := make([]Added, len(list))
	err = m.write(ctx, "memory.add_all", func(q store.Tx) error {
		for i, p := range list {
			var err error
			switch p.typ {
			case TypeSemantic:
				err = m.semantic.store(q, p.sem, semVecs, p.i, now)
				out[i] = Added{Type: p.typ, ID: p.sem.ID}
			case TypeEpisodic:
				err = m.episodic.log(q, p.ep, epVecs, p.i)
				out[i] = Added{Type: p.typ, ID: p.ep.ID}
			case TypeProcedural:
				err = m.procedural.store(q, p.pr, prVecs, p.i)
				out[i] = Added{Type: p.typ, ID: p.pr.ID}
			case TypeFact:
				var a Assertion
				a, err = m.facts.assert(q, p.f, predVecs[p.f.predicateKey], now)
				out[i] = Added{Type: p.typ, ID: a.Fact.ID, Assertion: &a}
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// listed are the kinds [Memory.Get] finds and [Memory.List] lists (those
// a Record holds), in the order Get looks: the registry's, but that facts
// come before snapshots, as Get has always looked; listedTypes are their
// types.
var listed, listedTypes = func() ([]*kind, []MemoryType) {
	ks := kindsWith(func(k *kind) bool { return k.rec != nil })
	if f, s := slices.Index(ks, factKind), slices.Index(ks, snapshotKind); f > s {
		ks = slices.Insert(slices.Delete(ks, f, f+1), s, factKind)
	}
	types := make([]MemoryType, len(ks))
	for i, k := range ks {
		types[i] = k.typ
	}
	return ks, types
}()

// Get returns the memory with the given ID, whatever its kind (a semantic
// entry, an episode, a procedure, a fact current or not, a session
// snapshot or a document chunk), read in one transaction. An ID that two
// kinds share (IDs given by the caller may) is found in that order.
// Archived memories are not found (see [Memory.Restore]).
//
// It returns [ErrNotFound] if the agent has no memory with that ID, an
// error matching [ErrInvalid] for a malformed ID, [ErrClosed] after Close
// and a [*DatabaseError] when SQLite fails.
func (m *Memory) Get(ctx context.Context, id string) (Record, error) {
	if err := validateID("id", id); err != nil {
		return Record{}, err
	}
	var out Record
	err := m.read(ctx, "memory.get", func(q store.Tx) error {
		for _, k := range listed {
			list, err := k.rec.read(m, q, k, store.ByID(id))
			if err != nil {
				return err
			}
			if len(list) > 0 {
				out = list[0]
				return nil
			}
		}
		return notFound("memory", id)
	})
	return out, err
}

// MemoryQuery selects the memories [Memory.List] returns. The zero value
// lists the newest 50 memories of every kind.
type MemoryQuery struct {
	// Types are the kinds to list: semantic, episodic, procedural, fact,
	// snapshot, document; empty means all of them.
	Types []MemoryType
	// Tags keeps only memories carrying at least one of these tags, as
	// [SearchOptions] Tags does: kinds without tags (episodes, facts,
	// snapshots) are left out.
	Tags []string
	// Since and Until keep memories stored in [Since, Until); zero
	// means no bound.
	Since, Until time.Time
	// Filter, when not nil, lists only the memories it keeps as well
	// (see [Filter]): one user's or session's, with metadata conditions.
	// Its kinds, tags and times apply with Types, Tags, Since and Until,
	// all of them: a memory listed meets both.
	Filter *Filter
	// Limit is how many to return, at most [MaxListPage]; 0 means 50.
	Limit int
	// Cursor continues a listing where the page it came from
	// ([MemoryPage].Next) ended; empty starts from the newest.
	Cursor string
}

// MaxListPage is the most memories one page of [Memory.List] holds.
const MaxListPage = 1000

// MemoryPage is one page of [Memory.List].
type MemoryPage struct {
	Records []Record // newest first
	// Next is the cursor of the next page (see [MemoryQuery].Cursor);
	// empty when this page is the last.
	Next string
}

// listCursor is what a cursor holds: the last record of a page, by the
// listing's order (stored time, then ID, then kind, all descending).
type listCursor struct {
	At   int64      `json:"t"`
	ID   string     `json:"i"`
	Type MemoryType `json:"k"`
}

func (c listCursor) encode() string {
	b, _ := json.Marshal(c) // strings and a number always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (listCursor, error) {
	c := listCursor{At: math.MaxInt64}
	if s == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.ID == "" || c.Type.Validate() != nil {
		return c, invalid("Cursor", "%q is not a cursor that List returned", s)
	}
	return c, nil
}

// List returns the agent's memories of every kind (or of Types), newest
// first by when they were stored (a fact's RecordedAt; facts current and
// past alike), a page at a time: the next page starts from the cursor in
// the page's Next, and memories stored meanwhile are on no page until a
// new listing starts. Archived memories are not listed. Each page is read
// in one transaction.
//
// With a Filter, the pages hold the memories it keeps, and the cursor
// goes on through them: the pages of one listing put together are the
// memories the filter keeps, each once. A filter by user or session finds
// the rows by their indexes.
//
// It returns an error matching [ErrInvalid] for an unknown or unstored
// kind (working), invalid tags, Until not after Since, a Limit outside
// [0, MaxListPage], a Cursor that List did not return or a bad part of
// the Filter (named: "Filter.UserID"); [ErrClosed]
// after Close and a [*DatabaseError] when SQLite fails.
func (m *Memory) List(ctx context.Context, mq MemoryQuery) (MemoryPage, error) {
	types := listedTypes
	if len(mq.Types) > 0 {
		for _, t := range mq.Types {
			if !slices.Contains(listedTypes, t) {
				return MemoryPage{}, invalid("Types", "%q is not a kind of stored memory (use %v)", string(t), listedTypes)
			}
		}
		types = mq.Types
	}
	if err := validateTags("Tags", mq.Tags, m.cfg.Limits); err != nil {
		return MemoryPage{}, err
	}
	if err := errors.Join(validateTime("Since", mq.Since), validateTime("Until", mq.Until)); err != nil {
		return MemoryPage{}, err
	}
	until := int64(math.MaxInt64)
	if !mq.Until.IsZero() {
		if !mq.Until.After(mq.Since) {
			return MemoryPage{}, invalid("Until", "%v is not after Since (%v)", mq.Until, mq.Since)
		}
		until = store.MS(mq.Until)
	}
	limit := mq.Limit
	if limit < 0 || limit > MaxListPage {
		return MemoryPage{}, invalid("Limit", "%d is outside [0, %d]", limit, MaxListPage)
	}
	if limit == 0 {
		limit = 50
	}
	cur, err := decodeCursor(mq.Cursor)
	if err != nil {
		return MemoryPage{}, err
	}
	sc, err := m.listScope(mq.Filter)
	if err != nil {
		return MemoryPage{}, err
	}
	tags := ""
	if len(mq.Tags) > 0 {
		b, _ := json.Marshal(mq.Tags) // a []string always marshals
		tags = string(b)
	}
	var all []Record
	err = m.read(ctx, "memory.list", func(q store.Tx) error {
		for _, typ := range types {
			k := kindOf(typ)
			if tags != "" && !k.Tagged || !sc.admitsKind(k) {
				continue
			}
			page := store.ListPage{Since: store.MS(mq.Since), Until: until, At: cur.At, ID: cur.ID, Type: string(cur.Type), Tags: tags, Limit: limit + 1}
			list, err := k.rec.read(m, q, k, page.Select(k.Kind, sc.storedOrNil()))
			if err != nil {
				return err
			}
			all = append(all, list...)
		}
		return nil
	})
	if err != nil {
		return MemoryPage{}, err
	}
	slices.SortFunc(all, func(a, b Record) int {
		return cmp.Or(cmp.Compare(store.MS(b.CreatedAt()), store.MS(a.CreatedAt())), cmp.Compare(b.ID(), a.ID()), cmp.Compare(b.Type, a.Type))
	})
	page := MemoryPage{Records: all[:min(limit, len(all))]}
	if len(all) > limit {
		last := page.Records[limit-1]
		page.Next = listCursor{store.MS(last.CreatedAt()), last.ID(), last.Type}.encode()
	}
	return page, nil
}
