// Package kindreg hands the transports' shared package (internal/memview)
// what the root package's registry of kinds (kinds.go) knows of each kind
// of stored memory and its public API does not say: the noun messages
// name one memory of it by, where [engram.Stats] counts it, and which
// field of an [engram.Record] holds it. The root package registers every
// kind when it is initialised, in its registry's order; nothing else
// registers. A new kind is registered with the others and shows in every
// transport without a change of theirs.
//
// The package imports nothing of engram's: a Kind is over the root's
// Stats and Record types as type parameters.
package kindreg

// Kind is one kind of stored memory, over the root package's Stats (S)
// and Record (R) types.
type Kind[S, R any] struct {
	Type string // the kind's MemoryType
	Noun string // one memory of it in messages: "a semantic entry"
	// Count returns the kind's count in a Stats.
	Count func(S) int
	// Held returns the memory of the kind a Record holds (a pointer to
	// the kind's public type), or nil when it holds none of the kind.
	Held func(R) any
}

// kinds are the registered kinds, each a Kind[S, R].
var kinds []any

// Register adds k to the registered kinds. Only the root package calls
// it, once per kind, when it is initialised.
func Register[S, R any](k Kind[S, R]) { kinds = append(kinds, k) }

// All returns the registered kinds over S and R, in the order they were
// registered: every kind of stored memory when S and R are the root
// package's Stats and Record, none for other types.
func All[S, R any]() []Kind[S, R] {
	var out []Kind[S, R]
	for _, k := range kinds {
		if k, ok := k.(Kind[S, R]); ok {
			out = append(out, k)
		}
	}
	return out
}
