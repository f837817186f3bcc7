package memview

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/kindreg"
)

// What the transports know of the kinds of stored memory comes from the
// root package's registry (through internal/kindreg): the noun of one
// memory, its count in engram.Stats, the view of a kind with none of its
// own. A new kind shows in every transport without a change of theirs.

// registered returns the root package's kinds of stored memory, in its
// order.
func registered() []kindreg.Kind[engram.Stats, engram.Record] {
	return kindreg.All[engram.Stats, engram.Record]()
}

// Noun names one memory of kind t in messages: "a semantic entry", "an
// episode", …; "a t memory" for a type that is no stored kind.
func Noun(t engram.MemoryType) string {
	for _, k := range registered() {
		if k.Type == string(t) {
			return k.Noun
		}
	}
	return "a " + string(t) + " memory"
}

// Kinds returns the kinds of stored memory (every memory type but the
// working set), in the registry's order.
func Kinds() []engram.MemoryType {
	var out []engram.MemoryType
	for _, k := range registered() {
		out = append(out, engram.MemoryType(k.Type))
	}
	return out
}

// Counts returns the counts of st by kind of stored memory, every kind
// (a kind with none counts 0).
func Counts(st engram.Stats) map[engram.MemoryType]int {
	out := map[engram.MemoryType]int{}
	for _, k := range registered() {
		out[engram.MemoryType(k.Type)] = k.Count(st)
	}
	return out
}

// Other is the view of a memory of a kind that has no view of its own
// here: "type", then the fields of the kind's public type (Memory, a
// pointer to it) as its JSON tags name them.
type Other struct {
	Type   engram.MemoryType
	Memory any
}

// MarshalJSON writes the memory's JSON object with "type" first. It
// returns an error for a memory whose JSON is not an object.
func (o Other) MarshalJSON() ([]byte, error) {
	fields, err := json.Marshal(o.Memory)
	if err != nil {
		return nil, err
	}
	if len(fields) < 2 || fields[0] != '{' {
		return nil, fmt.Errorf("memview: a %s memory's JSON is not an object", o.Type)
	}
	typ, err := json.Marshal(o.Type)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(typ)
	if rest := bytes.TrimSpace(fields[1:]); len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(fields[1:])
	return b.Bytes(), nil
}
