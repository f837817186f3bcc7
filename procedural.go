package engram

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/store"
)

// Procedural is the agent's learned workflows and how well they work. Get it
// from [Memory.Procedural]; it is safe for concurrent use.
type Procedural struct{ m *Memory }

// procedureCols are the columns scanProcedure reads (see
// store.ProcedureCols).
const procedureCols = store.ProcedureCols

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
	err = p.m.write(ctx, "procedural.store", func(q store.Tx) error {
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
func (p *Procedural) store(q store.Tx, pr Procedure, es []embedded, i int) error {
	pk, err := p.insert(q, pr)
	if err != nil {
		return err
	}
	return p.m.putNew(q, TypeProcedural, pk, es, i)
}

// storeNew stores a prepared procedure in q's transaction unless the agent
// has one of the same name, and reports whether it did.
func (p *Procedural) storeNew(q store.Tx, pr Procedure) (bool, error) {
	held, err := p.named(q, []string{pr.Name})
	if err != nil || held[pr.Name] {
		return false, err
	}
	return true, p.store(q, pr, nil, 0)
}

// named returns which of names the agent's procedures have, in one query.
func (p *Procedural) named(q store.Tx, names []string) (map[string]bool, error) {
	return store.ProceduresNamed(q, p.m.agent, names)
}

// procedureRecord is the store's row of the procedure pr, its metadata
// encoded as meta.
func procedureRecord(pr Procedure, meta string) store.ProcedureRow {
	return store.ProcedureRow{ID: pr.ID, Name: pr.Name, Description: pr.Description, Pattern: pr.Pattern,
		SuccessRate: pr.SuccessRate, UseCount: pr.UseCount, Tags: pr.Tags, Disabled: pr.Disabled,
		CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt, Resonance: resonance(0, 0, pr.UseCount, pr.SuccessRate),
		Retrievals: pr.Retrievals, UserID: pr.UserID, SessionID: pr.SessionID, Metadata: meta}
}

// procedureOf is the procedure the store's row r holds.
func procedureOf(r store.ProcedureRow) (Procedure, error) {
	pr := Procedure{ID: r.ID, Name: r.Name, Description: r.Description, Pattern: r.Pattern,
		SuccessRate: r.SuccessRate, UseCount: r.UseCount, Tags: r.Tags, Disabled: r.Disabled,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Retrievals: r.Retrievals, UserID: r.UserID, SessionID: r.SessionID}
	var err error
	if pr.Metadata, err = decodeAnyMetadata(r.Metadata); err != nil {
		return pr, fmt.Errorf("procedure %q: %w", pr.ID, err)
	}
	return pr, nil
}

// insert adds the procedure, with its derived columns, and returns its
// rowid.
func (p *Procedural) insert(q store.Tx, pr Procedure) (int64, error) {
	meta, err := encodeAnyMetadata("Metadata", pr.Metadata) // checked by prepare
	if err != nil {
		return 0, err
	}
	rec := procedureRecord(pr, meta)
	pk, err := store.InsertProcedure(q, p.m.agent, &rec)
	if store.IsUniqueViolation(err) {
		return 0, fmt.Errorf("engram: procedure %q (%s): %w", pr.Name, pr.ID, ErrExists)
	}
	return pk, err
}

// Get returns the procedure with the given ID. It returns [ErrNotFound] if
// the agent has none, an error matching [ErrInvalid] for a malformed ID,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails.
func (p *Procedural) Get(ctx context.Context, id string) (Procedure, error) {
	if err := validateID("id", id); err != nil {
		return Procedure{}, err
	}
	return p.one(ctx, "procedural.get", store.ProcedureByID[Procedure], "procedure", id)
}

// GetByName returns the procedure with the given name. Errors are as for
// [Procedural.Get].
func (p *Procedural) GetByName(ctx context.Context, name string) (Procedure, error) {
	if err := validateText("name", name, true, p.m.cfg.Limits.MaxTagBytes*4); err != nil {
		return Procedure{}, err
	}
	return p.one(ctx, "procedural.get_by_name", store.ProcedureByName[Procedure], "procedure named", name)
}

// one reads the agent's procedure that by finds by key (its ID or its
// name), or returns ErrNotFound naming it as kind.
func (p *Procedural) one(ctx context.Context, op string, by func(q store.Querier, as func(store.ProcedureRow) (Procedure, error), agent, key string) ([]Procedure, error), kind, key string) (Procedure, error) {
	list, err := p.list(ctx, op, func(q store.Tx) ([]Procedure, error) { return by(q, procedureOf, p.m.agent, key) })
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
	err := p.m.write(ctx, "procedural.update", func(q store.Tx) error {
		list, err := store.ProcedureByID(q, procedureOf, p.m.agent, id)
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
		rec := procedureRecord(pr, "")
		out = pr
		return store.UpdateProcedure(q, p.m.agent, &rec)
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
	err := p.m.write(ctx, "procedural.record_outcome", func(q store.Tx) error {
		var err error
		out, err = store.RecordProcedureOutcome(q, procedureOf, p.m.agent, id, 1-outcomeAlpha, outcomeAlpha*outcome, now)
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
	err = p.m.read(ctx, "procedural.list_active", func(q store.Tx) error {
		out, err = p.active(q, limit, nil)
		return err
	})
	return out, err
}

// active reads up to limit active procedures in q's transaction, best
// first.
func (p *Procedural) active(q store.Tx, limit int, sc *scope) ([]Procedure, error) {
	if limit == 0 || !sc.admitsKind(proceduralKind) {
		return nil, nil
	}
	out, err := store.ProceduresActive(q, procedureOf, p.m.agent, sc.storedOrNil(), limit)
	if err != nil {
		return nil, err
	}
	return out, overlayAll(p.m, q, out)
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
	return p.list(ctx, "procedural.find_by_tags", func(q store.Tx) ([]Procedure, error) {
		return store.ProceduresByTags(q, procedureOf, p.m.agent, tags, limit)
	})
}

// Delete removes the procedure with the given ID, its full-text entry and
// its links. It returns [ErrNotFound] if the agent has none; other errors are
// as for [Procedural.Get].
func (p *Procedural) Delete(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	return p.m.write(ctx, "procedural.delete", func(q store.Tx) error {
		return deleteByID(q, proceduralKind, p.m.agent, id)
	})
}

// list reads, in one read, the procedures read returns, with the
// accesses noted and not written yet added (see Memory.overlayAccess).
func (p *Procedural) list(ctx context.Context, op string, read func(q store.Tx) ([]Procedure, error)) ([]Procedure, error) {
	var out []Procedure
	err := p.m.read(ctx, op, func(q store.Tx) error {
		var err error
		if out, err = read(q); err != nil {
			return err
		}
		return overlayAll(p.m, q, out)
	})
	return out, err
}

// scanProcedure scans a row of procedureCols as a procedure.
func scanProcedure(r store.Scanner) (Procedure, error) {
	rec, err := store.ScanProcedure(r)
	if err != nil {
		return Procedure{}, err
	}
	return procedureOf(rec)
}
