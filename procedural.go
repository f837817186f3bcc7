package engram

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/store"
)

// Procedural is the agent's learned workflows and how well they work. Get it
// from [Memory.Procedural]; it is safe for concurrent use.
type Procedural struct{ m *Memory }

const procedureCols = `id, name, description, pattern, success_rate, use_count, tags, disabled,
	created_at, updated_at, retrievals, user_id, session_id, metadata`

// outcomeAlpha is the weight of the newest outcome in the success rate's
// exponential moving average.
const outcomeAlpha = 0.1

// ProcedurePatch changes some fields of a [Procedure]; nil fields are left
// alone.
type ProcedurePatch struct {
	Description *string
	Pattern     *string
	Tags        *[]string
	Disabled    *bool
}

// Store saves a new procedure and returns its ID. An empty ID gets a new
// time-ordered ID and a zero CreatedAt the clock's now.
//
// It returns an error matching [ErrInvalid] for bad input (an empty name, a
// success rate outside [0, 1], …), [ErrExists] if the agent already has a
// procedure with that ID or name, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails. On error nothing was written.
func (p *Procedural) Store(ctx context.Context, pr Procedure) (string, error) {
	now := p.m.now()
	pr, err := p.prepare("", pr, now)
	if err != nil {
		return "", err
	}
	es, err := p.m.embedNew(ctx, []string{pr.Name + ": " + pr.Description})
	if err != nil {
		return "", err
	}
	err = p.m.write(ctx, "procedural.store", func(q *dbtx) error {
		return p.store(q, pr, es, 0)
	})
	if err != nil {
		return "", err
	}
	return pr.ID, nil
}

// prepare validates pr and fills in what the caller left empty; field
// prefixes the names of bad fields.
func (p *Procedural) prepare(field string, pr Procedure, now time.Time) (Procedure, error) {
	lim := p.m.cfg.Limits
	if field != "" {
		field += "."
	}
	if pr.ID != "" {
		if err := validateID(field+"ID", pr.ID); err != nil {
			return pr, err
		}
	}
	if err := validateText(field+"Name", pr.Name, true, lim.MaxTagBytes*4); err != nil {
		return pr, err
	}
	if strings.ContainsAny(pr.Name, "\r\n") {
		return pr, invalid(field+"Name", "must be one line")
	}
	if err := validateText(field+"Description", pr.Description, false, lim.MaxContentBytes); err != nil {
		return pr, err
	}
	if err := validateText(field+"Pattern", pr.Pattern, false, lim.MaxContentBytes); err != nil {
		return pr, err
	}
	if err := validateImportance(field+"SuccessRate", pr.SuccessRate); err != nil {
		return pr, err
	}
	if pr.UseCount < 0 {
		return pr, invalid(field+"UseCount", "%d is negative", pr.UseCount)
	}
	if err := validateTags(field+"Tags", pr.Tags, lim); err != nil {
		return pr, err
	}
	if err := validateTime(field+"CreatedAt", pr.CreatedAt); err != nil {
		return pr, err
	}
	if err := validateScope(strings.TrimSuffix(field, "."), pr.UserID, pr.SessionID); err != nil {
		return pr, err
	}
	meta, err := encodeAnyMetadata(field+"Metadata", pr.Metadata)
	if err != nil {
		return pr, err
	}
	if pr.Metadata, err = decodeAnyMetadata(meta); err != nil {
		return pr, err
	}
	if pr.ID == "" {
		pr.ID = p.m.newID(now)
	}
	if pr.CreatedAt.IsZero() {
		pr.CreatedAt = now
	}
	pr.UpdatedAt = now
	return pr, nil
}

// store inserts a prepared procedure in q's transaction with its vector,
// the i-th of embedNew's answer es (none when es is nil: the row stays
// pending).
func (p *Procedural) store(q *dbtx, pr Procedure, es []embedded, i int) error {
	pk, err := p.insert(q, pr)
	if err != nil {
		return err
	}
	return p.m.putNew(q, TypeProcedural, pk, es, i)
}

// storeNew stores a prepared procedure in q's transaction unless the agent
// has one of the same name, and reports whether it did.
func (p *Procedural) storeNew(q *dbtx, pr Procedure) (bool, error) {
	held, err := p.named(q, []string{pr.Name})
	if err != nil || held[pr.Name] {
		return false, err
	}
	return true, p.store(q, pr, nil, 0)
}

// named returns which of names the agent's procedures have, in one query.
func (p *Procedural) named(q *dbtx, names []string) (map[string]bool, error) {
	b, _ := json.Marshal(names) // a []string always marshals
	return store.JSONSet(q, `SELECT json_group_array(name) FROM procedural_memory
		WHERE agent_id = ?1 AND name IN (SELECT value FROM json_each(?2))`, p.m.agent, string(b))
}

// procedureTerms is the term vector of a procedure's indexed text: its
// name, description, pattern and tags, encoded as the tags column holds
// them (see proceduralKind.indexed).
func procedureTerms(pr Procedure, tags string) ([]byte, int) {
	return bm25.Vector(pr.Name, pr.Description, pr.Pattern, tags)
}

// insert adds the row and returns its rowid.
func (p *Procedural) insert(q *dbtx, pr Procedure) (int64, error) {
	tags := encodeTags(pr.Tags)
	terms, ntok := procedureTerms(pr, tags)
	meta, err := encodeAnyMetadata("Metadata", pr.Metadata) // checked by prepare
	if err != nil {
		return 0, err
	}
	res, err := q.exec(`INSERT INTO procedural_memory (id, agent_id, name, description, pattern,
		success_rate, use_count, tags, disabled, created_at, updated_at, resonance, terms, ntok,
		user_id, session_id, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		pr.ID, p.m.agent, pr.Name, pr.Description, pr.Pattern, pr.SuccessRate, pr.UseCount,
		tags, pr.Disabled, ms(pr.CreatedAt), ms(pr.UpdatedAt), resonance(0, 0, pr.UseCount, pr.SuccessRate), terms, ntok,
		pr.UserID, pr.SessionID, meta)
	if store.IsUniqueViolation(err) {
		return 0, fmt.Errorf("engram: procedure %q (%s): %w", pr.Name, pr.ID, ErrExists)
	}
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Get returns the procedure with the given ID. It returns [ErrNotFound] if
// the agent has none, an error matching [ErrInvalid] for a malformed ID,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails.
func (p *Procedural) Get(ctx context.Context, id string) (Procedure, error) {
	if err := validateID("id", id); err != nil {
		return Procedure{}, err
	}
	return p.one(ctx, "procedural.get", `SELECT `+procedureCols+` FROM procedural_memory
		WHERE agent_id = ? AND id = ?`, "procedure", id)
}

// GetByName returns the procedure with the given name. Errors are as for
// [Procedural.Get].
func (p *Procedural) GetByName(ctx context.Context, name string) (Procedure, error) {
	if err := validateText("name", name, true, p.m.cfg.Limits.MaxTagBytes*4); err != nil {
		return Procedure{}, err
	}
	return p.one(ctx, "procedural.get_by_name", `SELECT `+procedureCols+` FROM procedural_memory
		WHERE agent_id = ? AND name = ?`, "procedure named", name)
}

func (p *Procedural) one(ctx context.Context, op, query, kind, key string) (Procedure, error) {
	list, err := p.list(ctx, op, query, p.m.agent, key)
	if err != nil {
		return Procedure{}, err
	}
	if len(list) == 0 {
		return Procedure{}, notFound(kind, key)
	}
	return list[0], nil
}

// Update applies patch to the procedure with the given ID and returns the
// result. Errors are as for [Procedural.Get] and [Procedural.Store].
func (p *Procedural) Update(ctx context.Context, id string, patch ProcedurePatch) (Procedure, error) {
	lim := p.m.cfg.Limits
	if err := validateID("id", id); err != nil {
		return Procedure{}, err
	}
	if patch.Description != nil {
		if err := validateText("patch.Description", *patch.Description, false, lim.MaxContentBytes); err != nil {
			return Procedure{}, err
		}
	}
	if patch.Pattern != nil {
		if err := validateText("patch.Pattern", *patch.Pattern, false, lim.MaxContentBytes); err != nil {
			return Procedure{}, err
		}
	}
	if patch.Tags != nil {
		if err := validateTags("patch.Tags", *patch.Tags, lim); err != nil {
			return Procedure{}, err
		}
	}
	now := p.m.now()
	var out Procedure
	err := p.m.write(ctx, "procedural.update", func(q *dbtx) error {
		rows, err := q.query(`SELECT `+procedureCols+` FROM procedural_memory WHERE agent_id = ? AND id = ?`, p.m.agent, id)
		if err != nil {
			return err
		}
		list, err := store.ScanAll(rows, scanProcedure)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return notFound("procedure", id)
		}
		pr := list[0]
		if patch.Description != nil {
			pr.Description = *patch.Description
		}
		if patch.Pattern != nil {
			pr.Pattern = *patch.Pattern
		}
		if patch.Tags != nil {
			pr.Tags = cloneStrings(*patch.Tags)
		}
		if patch.Disabled != nil {
			pr.Disabled = *patch.Disabled
		}
		pr.UpdatedAt = now
		tags := encodeTags(pr.Tags)
		terms, ntok := procedureTerms(pr, tags)
		_, err = q.exec(`UPDATE procedural_memory SET description = ?, pattern = ?, tags = ?, disabled = ?,
			updated_at = ?, terms = ?, ntok = ? WHERE agent_id = ? AND id = ?`,
			pr.Description, pr.Pattern, tags, pr.Disabled, ms(now), terms, ntok, p.m.agent, id)
		out = pr
		return err
	})
	if err != nil {
		return Procedure{}, err
	}
	p.m.embedSoon(ctx) // a new name or description
	return out, nil
}

// RecordOutcome records one use of a procedure and whether it succeeded: the
// use count goes up by one and the success rate moves toward the outcome as
// an exponential moving average, rate = 0.9·rate + 0.1·outcome. It returns
// the updated procedure; errors are as for [Procedural.Get].
func (p *Procedural) RecordOutcome(ctx context.Context, id string, success bool) (Procedure, error) {
	if err := validateID("id", id); err != nil {
		return Procedure{}, err
	}
	outcome := 0.0
	if success {
		outcome = 1
	}
	now := p.m.now()
	var out []Procedure
	err := p.m.write(ctx, "procedural.record_outcome", func(q *dbtx) error {
		// min/max keep float rounding from stepping outside the CHECK range.
		rows, err := q.query(`UPDATE procedural_memory
			SET success_rate = min(1.0, max(0.0, success_rate * ? + ?)), use_count = use_count + 1, updated_at = ?
			WHERE agent_id = ? AND id = ? RETURNING `+procedureCols,
			1-outcomeAlpha, outcomeAlpha*outcome, ms(now), p.m.agent, id)
		if err != nil {
			return err
		}
		out, err = store.ScanAll(rows, scanProcedure)
		if err == nil && len(out) == 0 {
			return notFound("procedure", id)
		}
		return err
	})
	if err != nil {
		return Procedure{}, err
	}
	return out[0], nil
}

// ListActive returns up to limit procedures that are not disabled, best
// success rate first and, among equals, most used first; a limit of 0 means
// 100. Errors are as for [Procedural.Get].
func (p *Procedural) ListActive(ctx context.Context, limit int) ([]Procedure, error) {
	limit, _, err := ListOptions{Limit: limit}.resolve()
	if err != nil {
		return nil, err
	}
	var out []Procedure
	err = p.m.read(ctx, "procedural.list_active", func(q *dbtx) error {
		out, err = p.active(q, limit, nil)
		return err
	})
	return out, err
}

// active reads up to limit active procedures in q's transaction, best
// first.
func (p *Procedural) active(q *dbtx, limit int, sc *scope) ([]Procedure, error) {
	if limit == 0 || !sc.admitsKind(proceduralKind) {
		return nil, nil
	}
	cond, args := sc.whereOrAll(proceduralKind, "procedural_memory")
	return queryCounted(p.m, q, scanProcedure, `SELECT `+procedureCols+` FROM procedural_memory WHERE agent_id = ? AND disabled = 0
		AND `+cond+` ORDER BY `+sc.orderBy("success_rate DESC, use_count DESC, id")+` LIMIT ?`, append(append([]any{p.m.agent}, args...), limit)...)
}

// FindByTags returns up to limit procedures carrying at least one of the
// tags, those matching the most tags first, then by success rate; a limit of
// 0 means 100. Disabled procedures are included: the caller asked by tag.
// The matching runs in SQL. Errors are as for [Procedural.Get].
func (p *Procedural) FindByTags(ctx context.Context, tags []string, limit int) ([]Procedure, error) {
	if len(tags) == 0 {
		return nil, invalid("tags", "must not be empty")
	}
	if err := validateTags("tags", tags, p.m.cfg.Limits); err != nil {
		return nil, err
	}
	limit, _, err := ListOptions{Limit: limit}.resolve()
	if err != nil {
		return nil, err
	}
	want, _ := json.Marshal(tags)
	return p.list(ctx, "procedural.find_by_tags", `SELECT `+procedureCols+` FROM (
			SELECT p.*, (SELECT count(DISTINCT t.value) FROM json_each(p.tags) t
			             WHERE t.value IN (SELECT value FROM json_each(?2))) AS hits
			FROM procedural_memory p WHERE p.agent_id = ?1)
		WHERE hits > 0 ORDER BY hits DESC, success_rate DESC, use_count DESC, id LIMIT ?3`,
		p.m.agent, string(want), limit)
}

// Delete removes the procedure with the given ID, its full-text entry and
// its links. It returns [ErrNotFound] if the agent has none; other errors are
// as for [Procedural.Get].
func (p *Procedural) Delete(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	return p.m.write(ctx, "procedural.delete", func(q *dbtx) error {
		return deleteByID(q, proceduralKind, p.m.agent, id)
	})
}

func (p *Procedural) list(ctx context.Context, op, query string, args ...any) ([]Procedure, error) {
	return readCounted(ctx, p.m, op, scanProcedure, query, args...)
}

func scanProcedure(r store.Scanner) (Procedure, error) {
	var pr Procedure
	var tags, meta string
	var created, updated int64
	err := r.Scan(&pr.ID, &pr.Name, &pr.Description, &pr.Pattern, &pr.SuccessRate, &pr.UseCount,
		&tags, &pr.Disabled, &created, &updated, &pr.Retrievals, &pr.UserID, &pr.SessionID, &meta)
	if err != nil {
		return pr, err
	}
	if pr.Metadata, err = decodeAnyMetadata(meta); err != nil {
		return pr, fmt.Errorf("procedure %q: %w", pr.ID, err)
	}
	pr.CreatedAt, pr.UpdatedAt = fromMS(created), fromMS(updated)
	pr.Tags, err = decodeTags(tags)
	return pr, err
}
