package engram

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/engram-go/engram/internal/store"
)

// Rows waiting for their vectors (vector_pending): marking them,
// embedding them a batch at a time, recording failures, and Reindex.

// markPending marks every row of agent pending, or of every agent when
// agent is "", in q's transaction.
func markPending(q store.Tx, agent string) error {
	for _, vk := range vecKinds {
		if err := store.MarkPending(q, vk, agent); err != nil {
			return err
		}
	}
	return nil
}

// embedBatch is how many pending rows are embedded per call and written
// per transaction.
const embedBatch = 64

// pendingRow is a row waiting for its vector.
type pendingRow struct {
	typ  MemoryType
	pk   int64
	text string
}

// embedPending embeds the agent's pending rows, embedBatch at a time,
// each batch written in its own transaction, until none is left, limit
// rows are done (limit < 0: no limit) or the embedder fails. progress,
// if not nil, is called after each batch with the number done so far.
//
// When a batch fails, its first row is tried alone: if that fails too the
// embedder is taken to be down, the failure is recorded on the batch's
// rows (attempts, last_error) and returned, matching [ErrEmbedding];
// otherwise the rows are embedded one by one, so that one text the
// embedder rejects holds up no other.
func (v *vectors) embedPending(ctx context.Context, limit int, progress func(done int)) (int, error) {
	done := 0
	for limit < 0 || done < limit {
		var batch []pendingRow
		err := v.m.read(ctx, "embed.pending", func(q store.Tx) error {
			n := embedBatch
			if limit >= 0 {
				n = min(n, limit-done)
			}
			pending, err := store.PendingVectors(q, vecKinds, v.m.agent, n)
			batch = make([]pendingRow, len(pending))
			for i, p := range pending {
				batch[i] = pendingRow{typ: MemoryType(p.Type), pk: p.PK, text: p.Text}
			}
			return err
		})
		if err != nil || len(batch) == 0 {
			return done, err
		}
		n, err := v.embedRows(ctx, batch)
		done += n
		if progress != nil && n > 0 {
			progress(done)
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, nil // every row failed alone and was recorded
		}
	}
	return done, nil
}

// embedRows embeds and writes one batch of pending rows; see
// embedPending. It returns how many it wrote.
func (v *vectors) embedRows(ctx context.Context, batch []pendingRow) (int, error) {
	texts := make([]string, len(batch))
	for i, p := range batch {
		texts[i] = p.text
	}
	es, err := v.embed(ctx, texts)
	if err == nil {
		// Progress counts what is committed: a write that fails (or is
		// cancelled) wrote nothing.
		if err := v.write(ctx, batch, es); err != nil {
			return 0, err
		}
		return len(batch), nil
	}
	if ctx.Err() != nil || len(batch) == 1 {
		return 0, v.failed(ctx, batch, err)
	}
	if _, alone := v.embed(ctx, texts[:1]); alone != nil {
		return 0, v.failed(ctx, batch, err)
	}
	written := 0
	var errs []error
	for i := range batch {
		n, err := v.embedRows(ctx, batch[i:i+1])
		written += n
		if err != nil {
			if ctx.Err() != nil {
				return written, ctx.Err()
			}
			errs = append(errs, err)
		}
	}
	if written == 0 {
		return 0, errors.Join(errs...)
	}
	return written, nil
}

// write puts the vectors of a batch of pending rows, in one transaction:
// those still pending with the text they were embedded from (a row may
// have changed or gone meanwhile).
func (v *vectors) write(ctx context.Context, batch []pendingRow, es []embedded) error {
	return v.m.write(ctx, "embed.pending", func(q store.Tx) error {
		for i, p := range batch {
			text, ok, err := store.PendingText(q, vecKindOf(p.typ), p.pk, v.m.agent)
			if err != nil {
				return err
			}
			if !ok || text != p.text {
				continue
			}
			if err := v.put(q, p.typ, p.pk, es[i], true); err != nil {
				return err
			}
		}
		return nil
	})
}

// failed records an embedding failure on the rows and returns it.
func (v *vectors) failed(ctx context.Context, batch []pendingRow, cause error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := cause.Error()
	if len(msg) > 500 {
		msg = truncateUTF8(msg, 500)
	}
	err := v.m.write(ctx, "embed.pending", func(q store.Tx) error {
		for _, p := range batch {
			if err := store.VectorFailed(q, string(p.typ), p.pk, msg); err != nil {
				return err
			}
		}
		return nil
	})
	return errors.Join(cause, err)
}

// Reindex embeds every memory of the agent again with the current
// embedder and writes the vectors, embedBatch memories per transaction;
// progress, if not nil, is called after each batch with how many this call
// has embedded and how many were left to embed when it began. Texts the embedding cache holds for the
// embedder's model are not sent to it again.
//
// It can be interrupted and resumed: the first call marks every memory
// pending (recording that in meta) and each batch clears its marks, so a
// call after a crash, a cancelled context or an embedder failure carries
// on where the last one stopped instead of starting over.
//
// It returns [ErrTierUnsupported] in Tier 1, an error matching
// [ErrEmbedding] when the embedder fails (the memories left stay
// pending), the context's error when it is done, [ErrClosed] after Close
// and a [*DatabaseError] when SQLite fails.
func (m *Memory) Reindex(ctx context.Context, progress func(done, total int)) error {
	v := m.vectors
	if v == nil {
		return fmt.Errorf("engram: reindex: %w", ErrTierUnsupported)
	}
	var total int
	err := m.write(ctx, "reindex", func(q store.Tx) error {
		_, started, err := store.Meta(q, metaReindex+m.agent)
		if err != nil {
			return err
		}
		for _, vk := range vecKinds { // marks whose row is gone (none should be)
			if err := store.DropStalePending(q, vk, m.agent); err != nil {
				return err
			}
		}
		if !started {
			if err := markPending(q, m.agent); err != nil {
				return err
			}
			if err := store.SetMeta(q, metaReindex+m.agent, strconv.FormatInt(store.MS(m.now()), 10)); err != nil {
				return err
			}
		}
		total, err = store.PendingCount(q, m.agent)
		return err
	})
	if err != nil {
		return err
	}
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(done, total) }
	}
	for {
		n, err := v.embedPending(ctx, -1, report)
		if err != nil {
			return err
		}
		var left int
		err = m.write(ctx, "reindex", func(q store.Tx) error {
			var err error
			if left, err = store.PendingCount(q, m.agent); err != nil || left > 0 {
				return err
			}
			return store.DeleteMeta(q, metaReindex+m.agent)
		})
		if err != nil || left == 0 {
			return err
		}
		if n > 0 {
			continue // memories stored meanwhile
		}
		// Rows failed alone (recorded): report them rather than loop.
		var why string
		err = m.read(ctx, "reindex", func(q store.Tx) error {
			var err error
			why, err = store.PendingError(q, m.agent)
			return err
		})
		if err != nil {
			return err
		}
		return fmt.Errorf("engram: reindex: %d memories could not be embedded (%s): %w", left, why, ErrEmbedding)
	}
}
