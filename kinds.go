package engram

import "github.com/engram-go/engram/internal/store"

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
}

// The kinds of stored memory. The working set lives in process and is no
// kind of its own here.
var (
	semanticKind = &kind{Kind: store.Semantic, typ: TypeSemantic,
		count: func(s *Stats) *int { return &s.Semantic },
		rate:  func(d DecayConfig) float64 { return d.SemanticRate }}
	episodicKind = &kind{Kind: store.Episodic, typ: TypeEpisodic,
		count: func(s *Stats) *int { return &s.Episodes },
		rate:  func(d DecayConfig) float64 { return d.EpisodicRate }}
	proceduralKind = &kind{Kind: store.Procedural, typ: TypeProcedural,
		count: func(s *Stats) *int { return &s.Procedures },
		rate:  func(d DecayConfig) float64 { return d.ProceduralRate }}
	snapshotKind = &kind{Kind: store.Snapshot, typ: TypeSnapshot,
		count: func(s *Stats) *int { return &s.Snapshots }}
	// factKind is the facts' kind: see facts.go.
	factKind = &kind{Kind: store.Fact, typ: TypeFact,
		count: func(s *Stats) *int { return &s.Facts }}
	// documentKind is the document chunks' kind: see ingest.go.
	documentKind = &kind{Kind: store.Document, typ: TypeDocument,
		count: func(s *Stats) *int { return &s.Documents }}
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
	for _, k := range kinds {
		if k.typ != MemoryType(k.Name) || (k.rate == nil) != (k.Decay == nil) {
			panic("engram: kind " + k.Name + " does not match its store description")
		}
	}
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
