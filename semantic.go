package engram

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
)

// Semantic is the agent's long-term knowledge. Get it from
// [Memory.Semantic]; it is safe for concurrent use.
type Semantic struct{ m *Memory }

// semanticCols are the columns scanSemantic reads (see
// store.SemanticCols).
const semanticCols = store.SemanticCols

// maxSummaryRunes bounds a summary derived from content.
const maxSummaryRunes = 200

// Store saves one entry and returns its ID. An empty ID gets a new
// time-ordered ID, a zero CreatedAt the clock's now, and an empty Summary a
// one-line summary of Content. When [ZettelkastenConfig.Enabled] is set,
// the entry is linked to its most similar entries in the same transaction
// (see [Links.AutoLink]), each to those stored before it; except in Tier 1
// while the index auto-linking uses is built in the background (in the
// first seconds after opening a memory of more than a thousand entries),
// when the store does not wait for it: the links are made, the same, in
// the transaction that installs the index, or by [Memory.Close] at the
// latest. That the entry waits is written with it: should the process end
// without Close, or crash, the next Memory to open the agent makes its
// links.
//
// It returns an error matching [ErrInvalid] for bad input, [ErrExists] if
// the agent already has an entry with that ID, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails. On error nothing was written.
func (s *Semantic) Store(ctx context.Context, e SemanticEntry) (string, error) {
	now := s.m.now()
	row, err := s.prepare("entry", e, now)
	if err != nil {
		return "", err
	}
	es, err := s.m.embedNew(ctx, []string{row.Content})
	if err != nil {
		return "", err
	}
	err = s.m.write(ctx, "semantic.store", func(q store.Tx) error {
		return s.store(q, row, es, 0, now)
	})
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// StoreBatch saves many entries in one transaction and returns their IDs in
// order. Either every entry is stored or, on error, none is. Errors are as
// for [Semantic.Store]; an invalid entry is named by its index.
//
// A batch holds the database's write lock for all of its entries: about
// 75 µs an entry at Tier 1 and 0.5 ms at Tier 2 on a small machine (its
// texts are embedded before the lock is taken). Writers in this process
// queue behind it; another process's writes wait up to its
// [StorageConfig].BusyTimeout (5 s by default) and then fail with
// [ErrBusy]. When other processes write to the same file, keep a batch
// shorter than their busy timeout (a few thousand entries), or raise it.
func (s *Semantic) StoreBatch(ctx context.Context, entries []SemanticEntry) ([]string, error) {
	now := s.m.now()
	rows, err := s.prepareAll(entries, now)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Content
	}
	es, err := s.m.embedNew(ctx, texts)
	if err != nil {
		return nil, err
	}
	err = s.m.write(ctx, "semantic.store_batch", func(q store.Tx) error {
		if es == nil {
			return s.storeRows(q, rows, now)
		}
		for i, r := range rows {
			if err := s.store(q, r, es, i, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// store inserts a prepared row in q's transaction with its vector, the
// i-th of embedNew's answer es (none when es is nil: the row stays
// pending), and auto-links it when the Zettelkasten is enabled, by its
// vector when it has one (Tier 2).
func (s *Semantic) store(q store.Tx, r semanticRow, es []embedded, i int, now time.Time) error {
	pk, err := s.insert(q, r)
	if err != nil {
		return err
	}
	q.KnowTerms(r.Content, r.stems)
	if err := s.m.putNew(q, TypeSemantic, pk, es, i); err != nil {
		return err
	}
	if !s.m.cfg.Zettelkasten.Enabled {
		return nil
	}
	emb := vectorOf(es, i)
	if emb == nil && s.m.cfg.Zettelkasten.MaxLinksPerEntry > 0 {
		wait, err := s.m.links.deferring(q, 0)
		if err != nil {
			return err
		}
		if wait {
			return s.m.stems.deferLink(q, pk)
		}
	}
	_, err = s.m.links.autoLink(q, pk, r.ID, r.Content, emb, now)
	return err
}

// prepareParallelMin is how many entries a batch holds at least for
// prepareAll to prepare them on several goroutines: stemming a text
// costs about ten microseconds, a goroutine less than one.
const prepareParallelMin = 256

// prepareAll prepares a batch's entries, as prepare does each (entries[i]
// named as such), on up to GOMAXPROCS goroutines for a large batch. The
// entries without an ID get theirs first, in order, so that the
// time-ordered IDs follow the batch's order whichever goroutine prepares
// them. It returns the error of the first invalid entry.
func (s *Semantic) prepareAll(entries []SemanticEntry, now time.Time) ([]semanticRow, error) {
	rows := make([]semanticRow, len(entries))
	workers := min(runtime.GOMAXPROCS(0), len(entries)/(prepareParallelMin/2))
	if workers < 2 || len(entries) < prepareParallelMin {
		for i, e := range entries {
			r, err := s.prepare(fmt.Sprintf("entries[%d]", i), e, now)
			if err != nil {
				return nil, err
			}
			rows[i] = r
		}
		return rows, nil
	}
	entries = slices.Clone(entries)
	for i := range entries {
		if entries[i].ID == "" {
			entries[i].ID = s.m.newID(now)
		}
	}
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	per := (len(entries) + workers - 1) / workers
	for lo := 0; lo < len(entries); lo += per {
		wg.Go(func() {
			for i := lo; i < min(len(entries), lo+per); i++ {
				if rows[i], errs[i] = s.prepare(fmt.Sprintf("entries[%d]", i), entries[i], now); errs[i] != nil {
					return // the first error of this goroutine's entries is all that may be returned
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// storeRows stores prepared rows without vectors in q's transaction, as
// store would one after the other, but inserted a few dozen per
// statement and linked after: FTS5 writes what it holds to its index
// whenever a statement of the transaction begins, so rows inserted one
// statement each leave one index segment each, which FTS5 then spends
// most of a batch merging. Each row is auto-linked, when the Zettelkasten
// is enabled, to the entries stored before it, not to those after it in
// the batch: the links are those of one store after the other. It
// returns an error matching ErrExists for the first row (in order) whose
// ID the agent or an earlier row of the batch holds.
func (s *Semantic) storeRows(q store.Tx, rows []semanticRow, now time.Time) error {
	if err := s.checkNew(q, rows); err != nil {
		return err
	}
	recs := make([]*store.SemanticRow, len(rows))
	for i := range rows {
		q.KnowTerms(rows[i].Content, rows[i].stems)
		recs[i] = &rows[i].rec
	}
	pks, err := store.InsertSemanticBatch(q, s.m.agent, recs)
	if store.IsUniqueViolation(err) { // checkNew found none: not expected
		return fmt.Errorf("engram: semantic entries: %w", ErrExists)
	}
	if err != nil {
		return err
	}
	if !s.m.cfg.Zettelkasten.Enabled {
		return nil
	}
	return s.m.links.linkRows(q, rows, pks, now)
}

// checkNew returns an error matching ErrExists for the first of rows
// whose ID the agent's entries or an earlier row hold.
func (s *Semantic) checkNew(q store.Tx, rows []semanticRow) error {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return checkIDsNew(q, semanticKind, s.m.agent, ids)
}

// checkIDsNew returns an error matching ErrExists for the first of ids
// that agent's rows of kind k, or an earlier of ids, hold: a batch's
// check, in one query.
func checkIDsNew(q store.Tx, k *kind, agent string, ids []string) error {
	held, err := store.HeldIDs(q, k.Table, agent, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if held[id] {
			return fmt.Errorf("engram: %s %q: %w", k.Noun, id, ErrExists)
		}
		held[id] = true
	}
	return nil
}

// semanticRow is a validated entry ready to insert.
type semanticRow struct {
	SemanticEntry
	rec   store.SemanticRow // what the store writes, its derived columns computed
	stems map[string]uint32 // auto-linking's term vector of content (see termVector)
}

// semanticTerms is the term vector of an entry's indexed text: its
// content and its tags, encoded as the tags column holds them (see
// semanticKind.indexed).
func semanticTerms(content, tags string) ([]byte, int) { return bm25.Vector(content, tags) }

// semanticRecord is the store's row of a prepared entry e, its metadata
// encoded as meta.
func semanticRecord(e SemanticEntry, meta string) store.SemanticRow {
	return store.SemanticRow{ID: e.ID, Content: e.Content, Summary: e.Summary, Importance: e.Importance,
		Verified: e.Verified, Tags: e.Tags, Source: e.Source, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		AccessCount: e.AccessCount, LastAccessedAt: e.LastAccessedAt, Resonance: e.Resonance, MergedFrom: e.MergedFrom,
		Retrievals: e.Retrievals, UserID: e.UserID, SessionID: e.SessionID, Metadata: meta}
}

// semanticEntry is the entry the store's row r holds.
func semanticEntry(r store.SemanticRow) (SemanticEntry, error) {
	e := SemanticEntry{ID: r.ID, Content: r.Content, Summary: r.Summary, Importance: r.Importance,
		Verified: r.Verified, Tags: r.Tags, Source: r.Source, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		AccessCount: r.AccessCount, LastAccessedAt: r.LastAccessedAt, Resonance: r.Resonance, MergedFrom: r.MergedFrom,
		Retrievals: r.Retrievals, UserID: r.UserID, SessionID: r.SessionID}
	if r.Metadata != "" {
		var err error
		if e.Metadata, err = decodeAnyMetadata(r.Metadata); err != nil {
			return e, fmt.Errorf("semantic entry %q: %w", e.ID, err)
		}
	}
	return e, nil
}

// derive has the store compute r's derived columns and, from the same
// stems, the term vector auto-linking's index keeps of its content
// (termVector's): a store stems its text once.
func (r *semanticRow) derive() {
	v := map[string]uint32{} // counts, then weights
	r.rec.Derive(func(i int, tok, stem string) {
		if i == 0 && !query.IsStopword(tok) {
			v[stem]++
		}
	})
	for st, tf := range v {
		v[st] = termWeight32(int(tf))
	}
	r.stems = v
}

// prepare validates e, fills in what the caller left empty and encodes it.
func (s *Semantic) prepare(field string, e SemanticEntry, now time.Time) (semanticRow, error) {
	lim := s.m.cfg.Limits
	if e.ID != "" {
		if err := validateID(field+".ID", e.ID); err != nil {
			return semanticRow{}, err
		}
	}
	if err := validateText(field+".Content", e.Content, true, lim.MaxContentBytes); err != nil {
		return semanticRow{}, err
	}
	if err := validateText(field+".Summary", e.Summary, false, lim.MaxContentBytes); err != nil {
		return semanticRow{}, err
	}
	if err := validateImportance(field+".Importance", e.Importance); err != nil {
		return semanticRow{}, err
	}
	if err := validateTags(field+".Tags", e.Tags, lim); err != nil {
		return semanticRow{}, err
	}
	if err := validateText(field+".Source", e.Source, false, lim.MaxTagBytes); err != nil {
		return semanticRow{}, err
	}
	if err := validateTime(field+".CreatedAt", e.CreatedAt); err != nil {
		return semanticRow{}, err
	}
	if err := validateScope(field, e.UserID, e.SessionID); err != nil {
		return semanticRow{}, err
	}
	meta, err := encodeAnyMetadata(field+".Metadata", e.Metadata)
	if err != nil {
		return semanticRow{}, err
	}
	if e.ID == "" {
		e.ID = s.m.newID(now)
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now
	}
	if strings.TrimSpace(e.Summary) == "" {
		e.Summary = summarize(e.Content)
	}
	e.UpdatedAt = now
	e.LastAccessedAt = e.CreatedAt
	e.AccessCount = 0
	if e.Importance == 0 {
		e.Importance = DefaultImportance
	}
	e.Resonance, e.MergedFrom = resonance(0, 0, 0, e.Importance), nil
	e.Tags = cloneStrings(e.Tags)
	if e.Metadata, err = decodeAnyMetadata(meta); err != nil {
		return semanticRow{}, err
	}
	r := semanticRow{SemanticEntry: e, rec: semanticRecord(e, meta)}
	r.derive()
	return r, nil
}

// insert adds the row, with its derived columns, and returns its rowid.
func (s *Semantic) insert(q store.Tx, r semanticRow) (int64, error) {
	pk, err := store.InsertSemantic(q, s.m.agent, &r.rec)
	if store.IsUniqueViolation(err) {
		return 0, fmt.Errorf("engram: semantic entry %q: %w", r.ID, ErrExists)
	}
	return pk, err
}

// promote keeps a flushed working item: an entry with the item's ID is
// updated if its content changed, an item whose content is already known
// is skipped, anything else is inserted.
func (s *Semantic) promote(q store.Tx, e *SemanticEntry, now time.Time) error {
	row, err := s.prepare("working item", *e, now)
	if err != nil {
		return err
	}
	pk, content, ok, err := store.SemanticContentByID(q, s.m.agent, row.ID)
	switch {
	case err != nil:
		return err
	case ok:
		if content == row.rec.Content {
			return nil
		}
		return store.UpdateSemanticContent(q, pk, &row.rec, now)
	}
	_, err = s.insertNew(q, row, now)
	return err
}

// insertNew inserts and links the row unless the agent holds an entry with
// the same content already, and reports whether it did.
func (s *Semantic) insertNew(q store.Tx, row semanticRow, now time.Time) (bool, error) {
	held, err := s.holding(q, []string{row.Content}, row.UserID)
	if err != nil || held[row.Content] {
		return false, err
	}
	return true, s.store(q, row, nil, 0, now) // embedded when its pending mark is settled
}

// holding returns which of contents the agent's entries hold, in one
// query (found by hash, then compared): the entries of user, or of any
// user when user is "".
func (s *Semantic) holding(q store.Tx, contents []string, user string) (map[string]bool, error) {
	return store.SemanticHolding(q, s.m.agent, contents, user)
}

// Get returns the entry with the given ID. It returns [ErrNotFound] if the
// agent has none, an error matching [ErrInvalid] for a malformed ID,
// [ErrClosed] after Close and a [*DatabaseError] when SQLite fails.
func (s *Semantic) Get(ctx context.Context, id string) (SemanticEntry, error) {
	if err := validateID("id", id); err != nil {
		return SemanticEntry{}, err
	}
	var e SemanticEntry
	err := s.m.read(ctx, "semantic.get", func(q store.Tx) error {
		var err error
		e, err = s.one(q, id)
		return err
	})
	return e, err
}

// best reads up to limit of the agent's entries in the scope sc (nil for
// all), the most important first, from offset on, in q's transaction.
func (s *Semantic) best(q store.Tx, sc *scope, limit, offset int) ([]SemanticEntry, error) {
	list, err := store.SemanticPage(q, semanticEntry, s.m.agent, sc.storedOrNil(), limit, offset)
	if err != nil {
		return nil, err
	}
	return list, overlayAll(s.m, q, list)
}

// one reads the agent's entry with the given ID, or returns ErrNotFound.
func (s *Semantic) one(q store.Tx, id string) (SemanticEntry, error) {
	list, err := store.SemanticByID(q, semanticEntry, s.m.agent, id)
	if err == nil {
		err = overlayAll(s.m, q, list)
	}
	if err != nil {
		return SemanticEntry{}, err
	}
	if len(list) == 0 {
		return SemanticEntry{}, notFound("semantic entry", id)
	}
	return list[0], nil
}

// Update applies patch to the entry with the given ID and returns the
// result. Fields the patch leaves nil keep their value; UpdatedAt becomes
// the clock's now. Errors are as for [Semantic.Get] and [Semantic.Store].
func (s *Semantic) Update(ctx context.Context, id string, patch SemanticPatch) (SemanticEntry, error) {
	if err := validateID("id", id); err != nil {
		return SemanticEntry{}, err
	}
	if err := s.validatePatch(patch); err != nil {
		return SemanticEntry{}, err
	}
	now := s.m.now()
	var out SemanticEntry
	err := s.m.write(ctx, "semantic.update", func(q store.Tx) error {
		var err error
		out, err = s.update(q, id, patch, now)
		return err
	})
	if err != nil {
		return SemanticEntry{}, err
	}
	s.m.embedSoon(ctx) // new content
	return out, nil
}

// validatePatch returns an error matching ErrInvalid for a patch that
// Update would refuse.
func (s *Semantic) validatePatch(patch SemanticPatch) error {
	lim := s.m.cfg.Limits
	if patch.Content != nil {
		if err := validateText("patch.Content", *patch.Content, true, lim.MaxContentBytes); err != nil {
			return err
		}
	}
	if patch.Summary != nil {
		if err := validateText("patch.Summary", *patch.Summary, false, lim.MaxContentBytes); err != nil {
			return err
		}
	}
	if patch.Importance != nil {
		if err := validateImportance("patch.Importance", *patch.Importance); err != nil {
			return err
		}
	}
	if patch.Tags != nil {
		if err := validateTags("patch.Tags", *patch.Tags, lim); err != nil {
			return err
		}
	}
	return nil
}

// update applies a validated patch to the entry with the given ID in q's
// transaction and returns the result, or ErrNotFound.
func (s *Semantic) update(q store.Tx, id string, patch SemanticPatch, now time.Time) (SemanticEntry, error) {
	e, err := s.one(q, id)
	if err != nil {
		return SemanticEntry{}, err
	}
	contentChanged := patch.Content != nil && *patch.Content != e.Content
	if patch.Content != nil {
		e.Content = *patch.Content
	}
	switch {
	case patch.Summary != nil && strings.TrimSpace(*patch.Summary) != "":
		e.Summary = *patch.Summary
	case patch.Summary != nil || contentChanged:
		// A cleared summary, or new content without a new summary:
		// derive it again so memory.md does not show stale text.
		e.Summary = summarize(e.Content)
	}
	if patch.Importance != nil {
		e.Importance = *patch.Importance
	}
	if patch.Verified != nil {
		e.Verified = *patch.Verified
	}
	if patch.Tags != nil {
		e.Tags = cloneStrings(*patch.Tags)
	}
	e.UpdatedAt = now
	rec := semanticRecord(e, "")
	return e, store.UpdateSemantic(q, s.m.agent, &rec)
}

// Delete removes the entry with the given ID, its full-text entry and its
// links. It returns [ErrNotFound] if the agent has no such entry; other
// errors are as for [Semantic.Get].
func (s *Semantic) Delete(ctx context.Context, id string) error {
	if err := validateID("id", id); err != nil {
		return err
	}
	return s.m.write(ctx, "semantic.delete", func(q store.Tx) error {
		return deleteByID(q, semanticKind, s.m.agent, id)
	})
}

// List returns entries, most important first and, among equals, most
// recently updated first; with opts.Filter, only those it keeps (none when
// its kinds leave semantic memory out). Errors are as for [Semantic.Get];
// an error matching [ErrInvalid] names a bad part of the filter.
func (s *Semantic) List(ctx context.Context, opts ListOptions) ([]SemanticEntry, error) {
	limit, offset, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	sc, err := s.m.listScope(opts.Filter)
	if err != nil || !sc.admitsKind(semanticKind) {
		return nil, err
	}
	var out []SemanticEntry
	err = s.m.read(ctx, "semantic.list", func(q store.Tx) (err error) {
		out, err = s.best(q, sc, limit, offset)
		return err
	})
	return out, err
}

// RecordAccess notes that the entries with the given IDs were used: each
// access count goes up by one and the last access time becomes the clock's
// now, in one statement. If any ID is unknown it returns [ErrNotFound] and
// changes nothing.
func (s *Semantic) RecordAccess(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	set := make(map[string]bool, len(ids))
	for i, id := range ids {
		if err := validateID(fmt.Sprintf("ids[%d]", i), id); err != nil {
			return err
		}
		set[id] = true
	}
	now := s.m.now()
	return s.m.write(ctx, "semantic.record_access", func(q store.Tx) error {
		n, err := s.bumpAccess(q, ids, now)
		if err != nil {
			return err
		}
		if n != len(set) {
			return fmt.Errorf("engram: record access: %d of %d entries: %w", len(set)-n, len(set), ErrNotFound)
		}
		return nil
	})
}

// bumpAccess raises the access count of the agent's entries with the given
// IDs by one and sets their last access to now, in one statement, and
// returns how many entries it changed. Unknown IDs are skipped.
func (s *Semantic) bumpAccess(q store.Tx, ids []string, now time.Time) (int, error) {
	return store.BumpSemanticAccess(q, s.m.agent, ids, now)
}

// scanSemantic scans a row of semanticCols as an entry.
func scanSemantic(r store.Scanner) (SemanticEntry, error) {
	rec, err := store.ScanSemantic(r)
	if err != nil {
		return SemanticEntry{}, err
	}
	return semanticEntry(rec)
}

// compactSummary is what a semantic entry's summary_own column holds for
// the summary (see store.CompactSummary).
func compactSummary(summary, content string) string { return store.CompactSummary(summary, content) }

// summarize derives a one-line summary from content: its first non-empty
// line, whitespace collapsed, cut at maxSummaryRunes.
func summarize(content string) string {
	line := content
	for l := range strings.Lines(content) {
		if strings.TrimSpace(l) != "" {
			line = l
			break
		}
	}
	return oneLine(line, maxSummaryRunes)
}

// oneLine returns s on one line, white space collapsed, cut to at most
// max runes (ending in "…" when cut).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}
