package engram

import (
	"errors"

	"github.com/engram-go/engram/internal/store"
)

// checkDerived checks the data derived from the rows (term vectors and
// text statistics, vectors, the embedding cache) against them, in q's
// transaction: what the engine's integrity check and a backup's check
// run after SQLite's own.
func checkDerived(q store.Tx) error {
	return errors.Join(checkText(q), checkVectors(q))
}

// deleteByID deletes the agent's row of kind k with the given ID, or
// returns ErrNotFound. The table's triggers remove its full-text entry,
// vector and links.
func deleteByID(q store.Tx, k *kind, agent, id string) error {
	found, err := store.DeleteRow(q, k.Kind, agent, id)
	if err == nil && !found {
		return notFound(k.Noun, id)
	}
	return err
}

const (
	defaultListLimit = 100
	maxListLimit     = 10_000
)

// resolve returns the limit and offset to use, or an error matching
// ErrInvalid.
func (o ListOptions) resolve() (limit, offset int, err error) {
	switch {
	case o.Limit < 0 || o.Limit > maxListLimit:
		return 0, 0, invalid("Limit", "%d is outside [0, %d]", o.Limit, maxListLimit)
	case o.Offset < 0:
		return 0, 0, invalid("Offset", "%d is negative", o.Offset)
	case o.Limit == 0:
		return defaultListLimit, o.Offset, nil
	}
	return o.Limit, o.Offset, nil
}
