package memview

import (
	"encoding/json"
	"time"

	"github.com/engram-go/engram"
)

// Change is an entry of a memory's history or of an agent's changes, as
// GET /v1/memory/{id}/history, GET /v1/changes and engram history show
// it: what was done (op) to which memory, by whom and why, with the
// memory's export record before and after.
type Change struct {
	Seq    int64             `json:"seq"`
	Op     engram.HistoryOp  `json:"op"`
	Type   engram.MemoryType `json:"type"`
	ID     string            `json:"id"`
	Before json.RawMessage   `json:"before,omitempty"`
	After  json.RawMessage   `json:"after,omitempty"`
	Actor  string            `json:"actor"`
	Reason string            `json:"reason,omitempty"`
	At     time.Time         `json:"at"`
}

// Changes returns the views of es, in order, their times in UTC.
func Changes(es []engram.HistoryEntry) []Change {
	out := make([]Change, 0, len(es))
	for _, e := range es {
		out = append(out, Change{e.Seq, e.Op, e.Type, e.ID, e.Before, e.After, e.Actor, e.Reason, e.At.UTC()})
	}
	return out
}
