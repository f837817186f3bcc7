package engram

import (
	"strings"
	"time"

	"github.com/engram-go/engram/internal/kindreg"
	"github.com/engram-go/engram/internal/store"
)

// kind is one kind of stored memory: its description in the database
// (see store.Kind: table, columns and the SQL templates every piece of
// engram that works on all kinds alike derives its statements from), the
// public MemoryType that names it, and the parts of it that are the
// public API's: where Stats counts it and its rate of decay.
type kind struct {
	*store.Kind
	typ MemoryType
	// count is where Stats counts the kind.
	count func(*Stats) *int
	// rate is the kind's rate of decay per day, nil when it has none
	// (store.Kind.Decay is nil).
	rate func(DecayConfig) float64
	// aliases are the other names ParseMemoryType takes for the kind:
	// plurals, and the nouns people type for it.
	aliases []string
	// noun names one memory of the kind in the transports' messages
	// ("a session snapshot"); empty, it is "a" or "an" and Noun.
	noun string
	// rec is how a Record holds the kind's memories and how Get and List
	// read them (see recordsOf).
	rec *recordKind
}

// recordKind is how a [Record] holds one kind's memories, and how
// [Memory.Get] and [Memory.List] read them.
type recordKind struct {
	// key returns the ID and the stored time of the memory of the kind r
	// holds; ok is false when r holds none of the kind.
	key func(r *Record) (id string, at time.Time, ok bool)
	// value returns the memory of the kind r holds (a pointer), or nil.
	value func(r *Record) any
	// read reads the agent's memories of kind k that sel selects, in the
	// order and number it says.
	read func(m *Memory, q store.Tx, k *kind, sel store.Selection) ([]Record, error)
}

// recordsOf returns the recordKind of a kind whose memories are Ts, held
// in the Record field field points to; key returns a memory's ID and
// stored time, read reads the memories a selection selects.
func recordsOf[T any](field func(*Record) **T, key func(*T) (string, time.Time),
	read func(m *Memory, q store.Tx, k *kind, sel store.Selection) ([]T, error)) *recordKind {
	return &recordKind{
		key: func(r *Record) (string, time.Time, bool) {
			if v := *field(r); v != nil {
				id, at := key(v)
				return id, at, true
			}
			return "", time.Time{}, false
		},
		value: func(r *Record) any {
			if v := *field(r); v != nil {
				return v
			}
			return nil
		},
		read: func(m *Memory, q store.Tx, k *kind, sel store.Selection) ([]Record, error) {
			list, err := read(m, q, k, sel)
			if err != nil {
				return nil, err
			}
			out := make([]Record, len(list))
			for i := range list {
				out[i].Type = k.typ
				*field(&out[i]) = &list[i]
			}
			return out, nil
		},
	}
}

// columnsRead returns the read of recordsOf for a kind whose rows are
// read by MemoriesSelected: the columns cols, scanned by scan, with the
// accesses not written yet that the transaction's snapshot does not hold.
func columnsRead[T any, P counted[T]](cols string, scan func(store.Scanner) (T, error)) func(*Memory, store.Tx, *kind, store.Selection) ([]T, error) {
	return func(m *Memory, q store.Tx, k *kind, sel store.Selection) ([]T, error) {
		rows, err := store.MemoriesSelected(q, k.Kind, cols, m.agent, sel)
		if err != nil {
			return nil, err
		}
		list, err := store.ScanAll(rows, scan)
		if err != nil {
			return nil, err
		}
		return list, overlayAll[T, P](m, q, list)
	}
}

// The kinds of stored memory. The working set lives in process and is no
// kind of its own here.
var (
	semanticKind = &kind{Kind: store.Semantic, typ: TypeSemantic,
		count:   func(s *Stats) *int { return &s.Semantic },
		rate:    func(d DecayConfig) float64 { return d.SemanticRate },
		aliases: []string{"note", "notes"}, noun: "a semantic entry",
		rec: recordsOf(func(r *Record) **SemanticEntry { return &r.Semantic },
			func(e *SemanticEntry) (string, time.Time) { return e.ID, e.CreatedAt }, columnsRead(semanticCols, scanSemantic))}
	episodicKind = &kind{Kind: store.Episodic, typ: TypeEpisodic,
		count:   func(s *Stats) *int { return &s.Episodes },
		rate:    func(d DecayConfig) float64 { return d.EpisodicRate },
		aliases: []string{"episode", "episodes"},
		rec: recordsOf(func(r *Record) **Episode { return &r.Episode },
			func(e *Episode) (string, time.Time) { return e.ID, e.CreatedAt }, columnsRead(episodeCols, scanEpisode))}
	proceduralKind = &kind{Kind: store.Procedural, typ: TypeProcedural,
		count:   func(s *Stats) *int { return &s.Procedures },
		rate:    func(d DecayConfig) float64 { return d.ProceduralRate },
		aliases: []string{"procedure", "procedures"},
		rec: recordsOf(func(r *Record) **Procedure { return &r.Procedure },
			func(p *Procedure) (string, time.Time) { return p.ID, p.CreatedAt }, columnsRead(procedureCols, scanProcedure))}
	snapshotKind = &kind{Kind: store.Snapshot, typ: TypeSnapshot,
		count:   func(s *Stats) *int { return &s.Snapshots },
		aliases: []string{"snapshots"}, noun: "a session snapshot",
		rec: recordsOf(func(r *Record) **SessionSnapshot { return &r.Snapshot },
			func(s *SessionSnapshot) (string, time.Time) { return s.ID, s.CreatedAt },
			func(m *Memory, q store.Tx, _ *kind, sel store.Selection) ([]SessionSnapshot, error) {
				rows, err := store.SnapshotsSelected(q, m.agent, sel)
				if err != nil {
					return nil, err
				}
				return snapshotsOf(m, q, rows)
			})}
	// factKind is the facts' kind: see facts.go. A fact's stored time is
	// its RecordedAt.
	factKind = &kind{Kind: store.Fact, typ: TypeFact,
		count:   func(s *Stats) *int { return &s.Facts },
		aliases: []string{"facts", "triple", "triples"},
		rec: recordsOf(func(r *Record) **Fact { return &r.Fact },
			func(f *Fact) (string, time.Time) { return f.ID, f.RecordedAt }, columnsRead(factCols, scanFact))}
	// documentKind is the document chunks' kind: see ingest.go.
	documentKind = &kind{Kind: store.Document, typ: TypeDocument,
		count:   func(s *Stats) *int { return &s.Documents },
		aliases: []string{"documents", "doc", "docs", "chunk", "chunks"},
		rec: recordsOf(func(r *Record) **DocumentChunk { return &r.Document },
			func(c *DocumentChunk) (string, time.Time) { return c.ID, c.CreatedAt },
			func(m *Memory, q store.Tx, _ *kind, sel store.Selection) ([]DocumentChunk, error) {
				rows, err := store.ChunksSelected(q, m.agent, sel)
				return chunksOf(rows), err
			})}
)

// What a search blends in as the importance of the kinds that have none
// of their own (see store.Kind.Importance).
const (
	documentImportance = store.DocumentImportance
	factImportance     = store.FactImportance
	snapshotImportance = store.SnapshotImportance
)

// kinds lists every kind, in the order engram works through them.
var kinds = []*kind{semanticKind, episodicKind, proceduralKind, snapshotKind, factKind, documentKind}

func init() {
	if len(kinds) != len(store.Kinds) {
		panic("engram: the registry's kinds are not the store's")
	}
	for i, k := range kinds {
		if k.Kind != store.Kinds[i] || k.typ != MemoryType(k.Name) || (k.rate == nil) != (k.Decay == nil) {
			panic("engram: kind " + k.Name + " does not match its store description (store.Kinds, in order)")
		}
		// The transports' view of the kind (see internal/memview).
		kindreg.Register(kindreg.Kind[Stats, Record]{Type: k.Name, Noun: k.nounOne(),
			Count: func(st Stats) int { return *k.count(&st) },
			Held: func(r Record) any {
				if k.rec == nil {
					return nil
				}
				return k.rec.value(&r)
			}})
	}
}

// nounOne names one memory of the kind in the transports' messages.
func (k *kind) nounOne() string {
	if k.noun != "" {
		return k.noun
	}
	if strings.ContainsRune("aeiou", rune(k.Noun[0])) {
		return "an " + k.Noun
	}
	return "a " + k.Noun
}

// kindOf returns the kind of stored memory t names, or nil.
func kindOf(t MemoryType) *kind {
	for _, k := range kinds {
		if k.typ == t {
			return k
		}
	}
	return nil
}

// kindsWith returns the kinds for which has is true, in order.
func kindsWith(has func(*kind) bool) []*kind {
	var out []*kind
	for _, k := range kinds {
		if has(k) {
			out = append(out, k)
		}
	}
	return out
}
