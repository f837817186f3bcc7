package sqlite

import (
	"context"

	"github.com/engram-go/engram/internal/store"
)

// StartHistory makes the history's context table and triggers of h on
// the writer connection (store.HistoryStatements), when a
// Memory of the database records history; a writer opened again (see
// Park) runs them again. It is called when a Memory opens, and does
// nothing when another agent's Memory on the database started it. It
// returns store.ErrClosed after Close, and the driver's error as
// Config.Wrap makes it for "open".
func (s *DB) StartHistory(ctx context.Context, h store.HistorySpec) error {
	if err := s.lockWriter(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if s.history {
		return nil
	}
	stmts := store.HistoryStatements(h.Kinds, h.CreateOp, h.UpdateOp, h.DeleteOp, h.DecayOp)
	if err := s.installHistory(ctx, stmts); err != nil {
		return s.fail("open", err)
	}
	s.history, s.historySQL = true, stmts
	return nil
}

// installHistory makes the history's table and triggers on the writer
// connection. The writer lock is held.
func (s *DB) installHistory(ctx context.Context, stmts []string) error {
	return store.InstallHistory(ctx, s.wconn, stmts)
}
