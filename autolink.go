package engram

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/store"
)

// AutoLink links the semantic entry with the given ID to the agent's most
// similar other semantic entries, as [Semantic.Store] does when
// [ZettelkastenConfig.Enabled] is set: every entry whose similarity reaches
// LinkingThreshold gets a "similar" link, at most MaxLinksPerEntry of them
// (the most similar, the newest first among equals), with the similarity
// as strength. Earlier links are kept; a link found again gets the new
// strength. It returns the links it made.
//
// Similarity is the cosine of the two texts' term vectors (Porter stems,
// stopwords left out, sublinear term frequency), in [0, 1]: 1 for the same
// words in the same proportions, 0 for no word in common. Every entry
// that reaches the threshold is found, none missed. By Cauchy–Schwarz, an
// entry reaches it only if it holds one of the entry's rarest terms that
// together carry more than 1 − threshold² of its squared weight, so only
// the entries holding one of those are compared. They are looked up in an
// in-memory index of the agent's stems, which costs no query. An agent
// with many entries (more than a thousand) has that index built in the
// background, from the first link on, so that no store waits for it (a
// store's links then wait for the index: see [Semantic.Store]); until it
// is ready, AutoLink has FTS5 find the entries holding one of those terms
// (among the agent's entries only, however many other agents share the
// file), at a cost set by how many entries hold those terms rather than
// by how many the agent has. Both ways find the same links. With vectors (Tier 2), similarity is the cosine
// of the entries' vectors instead.
//
// It returns [ErrNotFound] if the agent has no such semantic entry;
// other errors are as for [Links.Add].
func (l *Links) AutoLink(ctx context.Context, id string) ([]Link, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	now := l.m.now()
	var out []Link
	err := l.m.write(ctx, "links.auto_link", func(q store.Tx) error {
		pk, content, found, err := store.SemanticText(q, l.m.agent, id)
		if err != nil || !found {
			return cmp.Or(err, notFound("semantic entry", id))
		}
		var vec []float32
		if l.m.vectors != nil {
			var err error
			if vec, err = l.m.vectors.stored(q, TypeSemantic, pk); err != nil {
				return err
			}
		}
		out, err = l.autoLink(q, pk, id, content, vec, now)
		return err
	})
	return out, err
}

// autoLink links the semantic entry with rowid pk and the given content
// to its most similar neighbours, inside the caller's transaction: by the
// cosine of its vector, when it has one (Tier 2), and else of its term
// vector (see similarTexts).
func (l *Links) autoLink(q store.Tx, pk int64, id, content string, emb []float32, now time.Time) ([]Link, error) {
	zc := l.m.cfg.Zettelkasten
	if zc.MaxLinksPerEntry == 0 {
		return nil, nil
	}
	var found []similarDoc
	var err error
	if emb != nil {
		found, err = l.m.vectors.similar(q, semanticKind, pk, emb, zc.LinkingThreshold, zc.MaxLinksPerEntry)
	} else {
		found, err = l.similarTexts(q, pk, content, zc.LinkingThreshold, zc.MaxLinksPerEntry)
	}
	if err != nil {
		return nil, err
	}
	links := make([]Link, 0, len(found))
	for _, f := range found {
		// The target is checked by the store too: the index is not the truth.
		written, err := store.LinkSimilar(q, l.m.agent, id, f.id, string(LinkSimilar), f.sim, now)
		if err != nil {
			return nil, err
		}
		if !written {
			continue
		}
		links = append(links, Link{SourceID: id, TargetID: f.id, Type: LinkSimilar, Strength: f.sim,
			SourceType: TypeSemantic, TargetType: TypeSemantic, CreatedAt: now})
	}
	return links, nil
}

// linkRows auto-links the entries of a batch inserted at once (see
// Semantic.storeRows), rows with rowids pks, in q's transaction: each to
// its most similar entries among those stored before it, as autoLink
// links one entry when it is stored. The links are written a few dozen
// per statement, in the order autoLink would write them.
func (l *Links) linkRows(q store.Tx, rows []semanticRow, pks []int64, now time.Time) error {
	zc := l.m.cfg.Zettelkasten
	if zc.MaxLinksPerEntry == 0 {
		return nil
	}
	wait, err := l.deferring(q, len(rows)-1)
	if err != nil {
		return err
	}
	if wait {
		return l.m.stems.deferLink(q, pks...)
	}
	at := make(map[int64]int, len(pks))
	for i, pk := range pks {
		at[pk] = i
	}
	var links []store.SimilarLink
	for i, r := range rows {
		later := func(pk int64) bool {
			j, ok := at[pk]
			return ok && j > i
		}
		found, err := l.similarBefore(q, pks[i], r.Content, zc.LinkingThreshold, zc.MaxLinksPerEntry, later, len(rows)-1-i)
		if err != nil {
			return err
		}
		for _, f := range found {
			links = append(links, store.SimilarLink{Source: r.ID, Target: f.id, Strength: f.sim})
		}
	}
	return l.insertLinks(q, links, now)
}

// deferring reports whether the links of the entries q's transaction
// stores wait for the stem index (see stemIndex.deferLink): when it is
// being built in the background, or starts to be when q commits (see
// stemIndex.readyFor, which later is passed to). A store then costs what
// it costs once the index is built, not the FTS5 queries of
// textSimilar, which cost milliseconds an entry in a memory of 100,000.
func (l *Links) deferring(q store.Tx, later int) (bool, error) {
	x := &l.m.stems
	if x.db == nil || x.link == nil {
		return false, nil // the index is always built at once
	}
	ok, err := x.readyFor(q, later)
	return !ok, err
}

// linkDeferred links the entries whose links waited for the stem index
// (see stemIndex.deferLink), in q's transaction, each to its most similar
// entries among those stored before it (a lower rowid: rows are numbered
// in the order they are stored), as autoLink would have when it was
// stored: through the index when useIndex is set (the install of a
// background build), else through FTS5 (Close, which stopped the build).
// An entry deleted meanwhile is skipped.
func (l *Links) linkDeferred(q store.Tx, useIndex bool) error {
	x := &l.m.stems
	if !useIndex && !l.m.fullText && len(x.deferred) > 0 {
		// Without FTS5 the index answers: built here if it must be,
		// which links them (see stemIndex.build).
		if err := x.sync(q); err != nil || len(x.deferred) == 0 {
			return err
		}
		useIndex = true
	}
	pks := x.deferred
	if len(pks) == 0 {
		return nil
	}
	zc := l.m.cfg.Zettelkasten
	var links []store.SimilarLink
	if zc.Enabled && zc.MaxLinksPerEntry > 0 {
		entries, err := store.SemanticDocsByPK(q, l.m.agent, pks)
		if err != nil {
			return err
		}
		for _, e := range entries {
			later := func(pk int64) bool { return pk > e.PK }
			var found []similarDoc
			if useIndex {
				found = x.similarSkip(e.PK, zc.LinkingThreshold, zc.MaxLinksPerEntry, later)
			} else if found, err = l.textSimilarSkip(q, e.PK, e.Content, zc.LinkingThreshold, zc.MaxLinksPerEntry, later); err != nil {
				return err
			}
			for _, f := range found {
				links = append(links, store.SimilarLink{Source: e.ID, Target: f.id, Strength: f.sim})
			}
		}
	}
	if err := l.insertLinks(q, links, l.m.now()); err != nil {
		return err
	}
	if err := x.dropDeferred(q, pks); err != nil {
		return err
	}
	x.deferred = nil
	q.OnRollback(func() { x.deferred = pks })
	return nil
}

// closeLinkFTSMax is how many deferred entries Close links through FTS5
// at most; past it, it builds the stem index in its transaction (about
// 30 µs an entry of the agent's) and links them through it.
const closeLinkFTSMax = 64

// linkDeferred links, when the Memory closes, the entries whose links
// still wait for the stem index (see stemIndex.deferLink): the
// background build was stopped before it was ready. When it cannot, it
// logs how many stay unlinked at warn level: bookkeeping never makes
// Close fail.
func (m *Memory) linkDeferred() {
	x := &m.stems
	if len(x.deferred) == 0 {
		return
	}
	n := len(x.deferred)
	err := m.db.Write(context.Background(), "links.auto_link", func(q store.Tx) error {
		if err := q.LockAgent(m.agent); err != nil {
			return err
		}
		useIndex := n > closeLinkFTSMax
		if useIndex {
			if err := x.sync(q); err != nil {
				return err
			}
		}
		return m.links.linkDeferred(q, useIndex)
	})
	if err != nil {
		m.log.Warn("engram: entries left without their similar links at close", "agent", m.agent, "entries", n, "err", err)
	}
}

// insertLinks writes the "similar" links of links, made at now, a few
// dozen per statement, in order. The targets are checked by the store
// too, as autoLink's are.
func (l *Links) insertLinks(q store.Tx, links []store.SimilarLink, now time.Time) error {
	return store.LinkSimilarBatch(q, l.m.agent, string(LinkSimilar), now, links)
}

// similarTexts returns up to n of the agent's other semantic entries
// whose term vectors' cosine with that of the entry with rowid pk (whose
// text is content) reaches threshold, best first (see bestSimilar). The
// stem index answers when it is ready, FTS5 otherwise (see textSimilar):
// both find every such entry and compute the same similarities to the
// last bit, so the links made do not depend on which one answered.
func (l *Links) similarTexts(q store.Tx, pk int64, content string, threshold float64, n int) ([]similarDoc, error) {
	return l.similarBefore(q, pk, content, threshold, n, nil, 0)
}

// similarBefore is similarTexts leaving out the entries skip reports
// (none when skip is nil): the later entries of a batch inserted at once
// (see Semantic.storeRows), which links each entry as if those were not
// stored yet. later is how many they are (see stemIndex.readyFor).
func (l *Links) similarBefore(q store.Tx, pk int64, content string, threshold float64, n int, skip func(pk int64) bool, later int) ([]similarDoc, error) {
	x := &l.m.stems
	ok, err := x.readyFor(q, later)
	if err != nil {
		return nil, err
	}
	if ok {
		return x.similarSkip(pk, threshold, n, skip), nil
	}
	return l.textSimilarSkip(q, pk, content, threshold, n, skip)
}

// The stem index.

// stemSyncMax is how many semantic entries an agent may hold for its
// stem index to be built when first needed, in the transaction that needs
// it (about 30 µs an entry); beyond, auto-linking builds it in the
// background.
const stemSyncMax = 1000

// stemIndex holds the term vectors of the agent's semantic entries in
// memory, with an inverted index from each Porter stem to the entries
// holding it, so that auto-linking and compaction's merging of
// near-duplicates find an entry's near-duplicates and their similarity
// without a query: through FTS5 (see Links.textSimilar), the term lookups
// cost a store several hundred microseconds, more than the rest of it.
//
// Building it reads and stems every entry of the agent, at about 30 µs
// and 250 bytes an entry. An agent with at most stemSyncMax entries has it
// built in the transaction that first needs it. For a larger one,
// auto-linking builds it in the background (see startBuild), so that no
// store waits for it, and uses FTS5 until it is ready; compaction, which
// reads every entry anyway, builds it at once (sync).
//
// Once built, it follows the change log (see store.Follower): every insert,
// delete and change of content of one of the agent's entries in this
// Memory's transactions, whatever statement made it. A counter in meta,
// moved on by triggers whenever one of the agent's entries is inserted,
// deleted or given new content, whichever connection does it, tells
// whether anything else changed them: then the index is built again. It
// is thrown away when a transaction (or savepoint) that changed it rolls
// back. A link is written only if its target still exists. It is used
// inside write transactions only, so the writer lock guards it, except
// ctl.
type stemIndex struct {
	agent string
	log   store.DB // its change log is told when the index is built or thrown away
	// db runs background builds; nil when the store has no reader
	// connections (in memory), where the index is always built at once.
	db store.DB
	stemState
	// undo is where the rollback callback that drops the index is
	// registered: one in the transaction, and one in each savepoint that
	// changed the index. recUndo is the same for the callback that takes
	// back what a transaction or savepoint added to recorded.
	undo, recUndo store.RollbackScope
	resetter      func() func() // what changedIn registers with undo
	ctl           stemControl
	// deferred are the rowids of the entries stored while a background
	// build ran (or was about to), in the order they were stored, whose
	// links wait for the index: the install links them (see
	// Links.linkDeferred), or Close. Unlike stemState, a reset keeps
	// them: the next build links them.
	deferred []int64
	// link links the deferred entries in q's transaction (see
	// Links.linkDeferred); the Memory sets it when it opens.
	link    func(q store.Tx, useIndex bool) error
	scratch struct { // similar's buffers, kept between calls
		order []termWeight
		ws    []uint32
		ends  []int
		cands []int64
	}
}

// stemState is what the stem index holds: thrown away whole by reset.
type stemState struct {
	built   bool
	version int64 // the agent's semantic.version when in step
	stemData
	// tx is the write transaction that last changed the index, whose
	// rollback drops it, and in which it is known to be in step with the
	// counter (no other connection writes while a write transaction is
	// open).
	tx any
	// bg is the background build under way, nil when none. From its
	// snapshot on, the agent's changes of this Memory's transactions are
	// kept in recorded, which its install applies.
	bg       *stemBuild
	recorded []store.Change
	// startIn is the transaction that starts a background build when it
	// commits.
	startIn any
}

// stemData is the index proper.
type stemData struct {
	terms    map[string]uint32 // stem → term number
	postings [][]posting       // term number → the entries holding it, by rowid
	docs     map[int64]stemDoc // rowid → its entry
}

// posting is an entry holding a term: its rowid and its terms' signature
// (see termBit), which similar reads without looking the entry up.
type posting struct {
	pk  int64
	sig uint64
}

// termBit is the bit of term number t in a signature: an entry's
// signature has the bits of all its terms, so a bit not set says the
// entry does not hold a term.
func termBit(t uint32) uint64 { return 1 << (uint64(t) * 0x9E3779B97F4A7C15 >> 58) }

// postingAt finds the entry with rowid pk in p.
func postingAt(p []posting, pk int64) (int, bool) {
	return slices.BinarySearchFunc(p, pk, func(e posting, pk int64) int { return cmp.Compare(e.pk, pk) })
}

// stemControl lets Close stop background builds without the writer lock
// (of auto-linking's stem index, and of search's text index).
type stemControl struct {
	mu      sync.Mutex // guards stopped and cancel
	stopped bool       // no build starts any more
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the builds running
}

// stemBuild is one background build.
type stemBuild struct {
	done chan struct{} // closed when its goroutine ends
}

// stemDoc is one entry's ID and term vector, sorted by term number, with
// its norm.
type stemDoc struct {
	id   string
	vec  []termWeight
	norm float64
	sig  uint64 // the bits of its terms (see termBit)
}

// termWeight is a term number and its weight (see termVector).
type termWeight struct {
	term, weight uint32
}

// metaSemanticVersion (+ agent) counts the changes to the agent's
// semantic entries (migration 0002's triggers).
const metaSemanticVersion = "semantic.version:"

// reset throws the index away, and any background build; the next use
// builds it again.
func (x *stemIndex) reset() {
	was := x.built || x.bg != nil
	if x.bg != nil {
		x.ctl.mu.Lock()
		x.ctl.cancel()
		x.ctl.mu.Unlock()
	}
	x.stemState = stemState{}
	if was && x.log != nil {
		x.refreshLog()
	}
}

// refreshLog tells the change log the index's needs changed. A failure
// (of the log's check in the tests, see checkChangeLog) leaves the index
// unbuilt, which needs nothing.
func (x *stemIndex) refreshLog() {
	if err := x.log.RefreshHeld(context.Background(), x.agent); err != nil {
		x.reset()
	}
}

// Watches asks for the agent's semantic entries' changes while the index
// is built or being built: a Memory that never auto-links pays nothing
// for them.
func (x *stemIndex) Watches(all bool) []store.Watch {
	if !all && !x.built && x.bg == nil {
		return nil
	}
	return []store.Watch{{Kind: string(TypeSemantic), Ops: "iud", Text: true}}
}

// Follow applies the agent's changes of cs to the index, if it is built
// and nothing else changed the entries: otherwise it is built again when
// next used. While a background build runs, it records them instead.
func (x *stemIndex) Follow(q store.Tx, cs []store.Change) error {
	if x.bg != nil {
		x.record(q, cs)
		return nil
	}
	if !x.built {
		return nil
	}
	own := store.OwnChanges(cs, x.agent, string(TypeSemantic))
	if own == 0 {
		return nil
	}
	if x.tx != q.Write() {
		v, err := store.Counter(q, metaSemanticVersion+x.agent)
		if err != nil {
			return err
		}
		if v != x.version+int64(own) {
			x.reset()
			return nil
		}
	}
	x.changedIn(q)
	x.version += int64(own)
	return x.apply(q, cs)
}

// apply applies the agent's changes of cs to the index.
func (x *stemIndex) apply(q store.Tx, cs []store.Change) error {
	var changed []int64 // rows whose content changed: read them again
	for i := range cs {
		c := &cs[i]
		if c.Agent != x.agent || c.Kind != string(TypeSemantic) {
			continue
		}
		switch c.Op {
		case store.ChangeInsert:
			x.put(c.PK, c.ID, changeTerms(c))
		case store.ChangeDelete:
			x.drop(c.PK)
		default:
			changed = append(changed, c.PK)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	for _, pk := range changed {
		x.drop(pk)
	}
	docs, err := store.SemanticDocsByPK(q, x.agent, changed)
	x.putDocs(docs)
	return err
}

// record keeps the agent's changes of cs for the background build's
// install; the rollback of the transaction or savepoint takes them back.
func (x *stemIndex) record(q store.Tx, cs []store.Change) {
	if store.OwnChanges(cs, x.agent, string(TypeSemantic)) == 0 {
		return
	}
	b := x.bg
	q.OnRollbackIn(&x.recUndo, func() func() {
		n := len(x.recorded)
		return func() {
			if x.bg == b {
				x.recorded = x.recorded[:n]
			}
		}
	})
	for _, c := range cs {
		if c.Agent == x.agent && c.Kind == string(TypeSemantic) {
			x.recorded = append(x.recorded, c)
		}
	}
}

// putDocs indexes the entries docs.
func (d *stemData) putDocs(docs []store.SemanticDoc) {
	for _, doc := range docs {
		d.put(doc.PK, doc.ID, termVector(doc.Content))
	}
}

// loadStems indexes all of agent's semantic entries.
func loadStems(q store.Tx, agent string) (stemData, error) {
	d := stemData{terms: make(map[string]uint32), docs: make(map[int64]stemDoc)}
	err := store.EachSemanticDoc(q, agent, func(doc store.SemanticDoc) error {
		d.put(doc.PK, doc.ID, termVector(doc.Content))
		return nil
	})
	return d, err
}

// changedIn notes that q's transaction changes the index: its rollback,
// or that of the savepoint open in it, drops it.
func (x *stemIndex) changedIn(q store.Tx) {
	x.tx = q.Write()
	if x.resetter == nil {
		// Made once: a closure handed to an interface's method escapes,
		// and one made per call would cost every write an allocation.
		x.resetter = func() func() { return x.reset }
	}
	q.OnRollbackIn(&x.undo, x.resetter)
}

// current reports whether the index is built and in step in q's write
// transaction, after taking the transaction's changes so far from the
// change log; an index that another connection's changes left behind is
// thrown away.
func (x *stemIndex) current(q store.Tx) (bool, error) {
	if err := q.Changes(); err != nil {
		return false, err
	}
	if !x.built {
		return false, nil
	}
	if x.tx == q.Write() {
		return true, nil
	}
	v, err := store.Counter(q, metaSemanticVersion+x.agent)
	if err != nil {
		return false, err
	}
	if v != x.version {
		x.reset()
		return false, nil
	}
	x.changedIn(q) // known to be in step for the rest of q
	return true, nil
}

// sync makes the index current in q's write transaction, building it
// there if it is not built (and dropping a background build).
func (x *stemIndex) sync(q store.Tx) error {
	ok, err := x.current(q)
	if err != nil || ok {
		return err
	}
	return x.build(q)
}

// ready makes the index current in q's write transaction, as sync does,
// when it is built or the agent holds at most stemSyncMax entries, and
// reports whether it did. For a larger agent it makes sure a background
// build is under way instead (one starts when q commits) and reports
// false: the caller uses FTS5.
func (x *stemIndex) ready(q store.Tx) (bool, error) { return x.readyFor(q, 0) }

// readyFor is ready for the link of an entry of a batch inserted at once
// (see Semantic.storeRows), later of whose entries come after it: they do
// not count among the agent's entries that decide whether the index is
// built at once, as they would not have been stored yet had the batch
// stored its entries one at a time.
func (x *stemIndex) readyFor(q store.Tx, later int) (bool, error) {
	ok, err := x.current(q)
	if err != nil || ok {
		return ok, err
	}
	if b := x.bg; b != nil {
		select {
		case <-b.done: // ended without installing the index: failed or cancelled
			x.reset()
		default:
			return false, nil
		}
	}
	if x.startIn == q.Write() {
		return false, nil
	}
	if x.db != nil {
		n, err := store.CountSemanticUpTo(q, x.agent, stemSyncMax+1+later)
		if err != nil {
			return false, err
		}
		if n-later > stemSyncMax {
			x.startIn = q.Write()
			q.OnCommit(x.startBuild)
			return false, nil
		}
	}
	return true, x.build(q)
}

// build builds the index in q's transaction.
func (x *stemIndex) build(q store.Tx) error {
	v, err := store.Counter(q, metaSemanticVersion+x.agent)
	if err != nil {
		return err
	}
	x.reset()
	d, err := loadStems(q, x.agent)
	if err != nil {
		return err
	}
	x.stemData, x.built, x.version = d, true, v
	x.changedIn(q) // built from q's view, which a rollback undoes
	if err := x.log.RefreshHeld(q.Context(), x.agent); err != nil {
		x.reset()
		return err
	}
	if len(x.deferred) > 0 && x.link != nil {
		return x.link(q, true) // a background build this one replaced left them
	}
	return nil
}

// startBuild starts a background build of the index. It runs when a
// transaction commits, with the writer lock held, and returns once the
// build has taken its snapshot of the database, so that every later
// change of this Memory's is recorded for the install; changes made
// through other connections meanwhile make the install fail, and a later
// store starts another build.
func (x *stemIndex) startBuild() {
	x.startIn = nil
	if x.built || x.bg != nil {
		return
	}
	x.ctl.mu.Lock()
	if x.ctl.stopped {
		x.ctl.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	x.ctl.cancel = cancel
	x.ctl.wg.Add(1)
	x.ctl.mu.Unlock()
	b := &stemBuild{done: make(chan struct{})}
	snap := make(chan bool, 1)
	go x.run(ctx, b, snap)
	if !<-snap {
		return
	}
	x.bg = b
	if err := x.log.RefreshHeld(ctx, x.agent); err != nil {
		x.reset()
	}
}

// run is a background build: it reads the agent's entries in one read
// transaction, telling snap whether it took its snapshot, then installs
// the index in a write transaction of its own.
func (x *stemIndex) run(ctx context.Context, b *stemBuild, snap chan<- bool) {
	defer x.ctl.wg.Done()
	defer close(b.done)
	var v0 int64
	var d stemData
	took := false
	err := x.db.Read(ctx, "links.index", func(q store.Tx) error {
		var err error
		if v0, err = store.Counter(q, metaSemanticVersion+x.agent); err != nil {
			return err
		}
		took = true
		snap <- true
		if stemSnapshotHook != nil {
			stemSnapshotHook(ctx)
		}
		d, err = loadStems(q, x.agent)
		return err
	})
	if !took {
		snap <- false
	}
	if err != nil {
		return
	}
	_ = x.db.Write(ctx, "links.index", func(q store.Tx) error {
		if err := q.LockAgent(x.agent); err != nil {
			return err
		}
		return x.install(q, b, d, v0)
	})
}

// textSimilarHook, set by tests only, runs whenever textSimilar looks
// for an entry's similar entries through FTS5.
var textSimilarHook func()

// stemSnapshotHook, set by tests only, runs in a background build right
// after it took its snapshot, with its context.
var stemSnapshotHook func(ctx context.Context)

// install makes d, built from the snapshot at which the agent's counter
// was v0, the index, with the changes recorded since applied, if nothing
// else changed the agent's entries meanwhile; else it drops the build.
func (x *stemIndex) install(q store.Tx, b *stemBuild, d stemData, v0 int64) error {
	if err := q.Changes(); err != nil {
		return err
	}
	if x.bg != b {
		return nil // dropped meanwhile
	}
	v, err := store.Counter(q, metaSemanticVersion+x.agent)
	if err != nil {
		return err
	}
	recorded := x.recorded
	if v != v0+int64(len(recorded)) {
		x.reset()
		return nil
	}
	x.stemState = stemState{built: true, version: v, stemData: d}
	x.changedIn(q)
	if err := x.apply(q, recorded); err != nil {
		return err
	}
	if x.link == nil {
		return nil
	}
	return x.link(q, true)
}

// deferLink notes that the entries with rowids pks, stored in q's
// transaction, are linked once the index is built; the rollback of the
// transaction, or of the savepoint open in it, forgets them again.
//
// The wait is written down too, in meta (a key per entry, see
// store.MarkLinksWaiting), in q's transaction: an entry stored and committed is
// linked even if the process ends before the index is ready, by the next
// Memory to open the agent (see loadDeferred).
func (x *stemIndex) deferLink(q store.Tx, pks ...int64) error {
	if err := store.MarkLinksWaiting(q, x.agent, pks); err != nil {
		return err
	}
	n := len(x.deferred)
	x.deferred = append(x.deferred, pks...)
	q.OnRollback(func() { x.deferred = x.deferred[:n] })
	return nil
}

// loadDeferred reads, when the Memory opens, the entries of its agent
// whose links an earlier Memory left waiting (it ended before its index
// was ready, and before Close): the next install or Close links them.
func (x *stemIndex) loadDeferred(q store.Tx) error {
	pks, err := store.LinksWaiting(q, x.agent)
	x.deferred = append(x.deferred, pks...)
	slices.Sort(x.deferred)
	return err
}

// dropDeferred removes the meta keys of the entries pks, which q's
// transaction linked (or found deleted).
func (x *stemIndex) dropDeferred(q store.Tx, pks []int64) error {
	return store.UnmarkLinksWaiting(q, x.agent, pks)
}

// stop stops the background build, if any, waits for it, and lets no
// other start. Close calls it.
func (x *stemIndex) stop() { x.ctl.stop() }

// stop cancels the background work under way, waits for it, and lets no
// other start.
func (c *stemControl) stop() {
	c.mu.Lock()
	c.stopped = true
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// put indexes the entry with rowid pk, replacing what was indexed there.
func (d *stemData) put(pk int64, id string, vec map[string]uint32) {
	d.drop(pk)
	doc := stemDoc{id: id, vec: make([]termWeight, 0, len(vec))}
	var norm exactSum
	for st, w := range vec {
		norm.add(w, w)
		t, ok := d.terms[st]
		if !ok {
			t = uint32(len(d.postings))
			d.terms[st] = t
			d.postings = append(d.postings, nil)
		}
		doc.vec = append(doc.vec, termWeight{t, w})
		doc.sig |= termBit(t)
	}
	slices.SortFunc(doc.vec, func(a, b termWeight) int { return cmp.Compare(a.term, b.term) })
	doc.norm = math.Sqrt(norm.value())
	d.docs[pk] = doc
	e := posting{pk, doc.sig}
	for _, tw := range doc.vec {
		p := d.postings[tw.term]
		if n := len(p); n == 0 || p[n-1].pk < pk {
			d.postings[tw.term] = append(p, e)
		} else if i, found := postingAt(p, pk); !found {
			d.postings[tw.term] = slices.Insert(p, i, e)
		}
	}
}

// drop removes the entry with rowid pk. Term numbers stay allocated.
func (d *stemData) drop(pk int64) {
	doc, ok := d.docs[pk]
	if !ok {
		return
	}
	for _, tw := range doc.vec {
		p := d.postings[tw.term]
		if i, found := postingAt(p, pk); found {
			d.postings[tw.term] = slices.Delete(p, i, i+1)
		}
	}
	delete(d.docs, pk)
}

// similar returns up to n other entries whose cosine similarity to the
// entry with rowid pk reaches threshold, best first (see bestSimilar), of
// all such entries. The candidates are the entries holding one of the
// entry's rarest terms that carry more than 1 − threshold² of its squared
// weight (see linkGroups). Their signatures, in the postings, tell which
// of the entry's terms each may hold: a candidate that cannot hold terms
// carrying threshold² of the entry's squared weight cannot reach
// threshold (Cauchy–Schwarz), and is not looked up.
func (x *stemIndex) similar(pk int64, threshold float64, n int) []similarDoc {
	return x.similarSkip(pk, threshold, n, nil)
}

// similarSkip is similar leaving out the entries skip reports (none when
// skip is nil).
func (x *stemIndex) similarSkip(pk int64, threshold float64, n int, skip func(pk int64) bool) []similarDoc {
	d, ok := x.docs[pk]
	if !ok || n < 1 || len(d.vec) == 0 {
		return nil
	}
	sc := &x.scratch
	sc.order = append(sc.order[:0], d.vec...)
	slices.SortFunc(sc.order, func(a, b termWeight) int {
		return cmp.Compare(len(x.postings[a.term]), len(x.postings[b.term]))
	})
	sc.ws = sc.ws[:0]
	var bitW [64]float64 // the squared weight of the entry's terms with each bit
	total := 0.0
	for _, tw := range sc.order {
		sc.ws = append(sc.ws, tw.weight)
		w := weightFloat(tw.weight) * weightFloat(tw.weight)
		bitW[bits.TrailingZeros64(termBit(tw.term))] += w
		total += w
	}
	limit := threshold * threshold * total * (1 - 1e-9)
	sc.ends = linkGroups(sc.ends[:0], sc.ws, threshold)
	sc.cands = sc.cands[:0]
	for _, tw := range sc.order[:sc.ends[0]] {
		for _, e := range x.postings[tw.term] {
			held := 0.0
			for s := e.sig & d.sig; s != 0; s &= s - 1 {
				held += bitW[bits.TrailingZeros64(s)]
			}
			if held >= limit && e.pk != pk {
				sc.cands = append(sc.cands, e.pk)
			}
		}
	}
	slices.Sort(sc.cands)
	var out []similarDoc
	for i, c := range sc.cands {
		if i > 0 && c == sc.cands[i-1] || skip != nil && skip(c) {
			continue
		}
		cd := x.docs[c]
		if sim := cosineSorted(d, cd); sim >= threshold && sim > 0 {
			out = append(out, similarDoc{c, cd.id, sim})
		}
	}
	return bestSimilar(out, n)
}

// cosineSorted is the cosine similarity of two entries' term vectors, in
// [0, 1].
func cosineSorted(a, b stemDoc) float64 {
	var dot exactSum
	for i, j := 0, 0; i < len(a.vec) && j < len(b.vec); {
		switch {
		case a.vec[i].term < b.vec[j].term:
			i++
		case a.vec[i].term > b.vec[j].term:
			j++
		default:
			dot.add(a.vec[i].weight, b.vec[j].weight)
			i, j = i+1, j+1
		}
	}
	return cosineOf(dot, a.norm, b.norm)
}

// Term vectors.
//
// A term's weight is 1 + ln(tf), rounded to a float32 (as the stem index
// keeps it), in fixed point: w × 2²³, an integer for every float32 w ≥ 1,
// below 2³² while w < 512 (tf below e⁵¹¹). Dot products and norms sum
// these exactly (see exactSum), so a cosine does not depend on the order
// in which two vectors' terms are visited.

// changeTerms returns the term vector of the change's text, made once
// for all the followers that want it (see store.Change Terms).
func changeTerms(c *store.Change) map[string]uint32 {
	if c.Terms == nil {
		c.Terms = termVector(c.Text)
	}
	return c.Terms
}

// termVector maps each stem of text (stopwords left out) to its weight.
func termVector(text string) map[string]uint32 {
	v := map[string]uint32{} // counts, then weights
	for _, tok := range query.Tokens(text) {
		if !query.IsStopword(tok) {
			v[query.Stem(tok)]++
		}
	}
	for st, tf := range v {
		v[st] = termWeight32(int(tf))
	}
	return v
}

// termWeight32 is the weight of a term occurring tf times, in fixed point.
func termWeight32(tf int) uint32 {
	return uint32(float64(float32(1+math.Log(float64(tf)))) * 0x1p23)
}

// exactSum adds products of fixed-point weights exactly, in 128 bits.
type exactSum struct{ hi, lo uint64 }

func (s *exactSum) add(a, b uint32) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(a)*uint64(b), 0)
	s.hi += carry
}

// value is the sum in weight² units.
func (s exactSum) value() float64 { return (float64(s.hi)*0x1p64 + float64(s.lo)) * 0x1p-46 }

// cosineOf is the cosine of two vectors of norms na and nb whose dot
// product is dot, in [0, 1].
func cosineOf(dot exactSum, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		return 0
	}
	return min(1, dot.value()/(na*nb))
}

// weightFloat is a fixed-point weight as a number.
func weightFloat(w uint32) float64 { return float64(w) * 0x1p-23 }

// linkGroups splits a vector's weights ws, taken in the order given, into
// consecutive groups such that a text must hold a term of every group for
// its cosine with the vector to reach threshold, and returns where each
// group ends. Each group's squares carry more than 1 − threshold² of the
// squared norm: by Cauchy–Schwarz, a text b holding none of a group's
// terms has a·b ≤ |a′|·|b|, where a′ is the rest of a, so cos(a, b) ≤
// |a′|/|a|, below threshold once |a′|² < threshold²·|a|². Terms left over
// after the last group belong to none; when no group forms (a threshold
// of 0), all the terms make one, since a text holding none of them has
// cosine 0 and is never linked. A small margin takes a term more rather
// than miss a text by rounding.
func linkGroups(ends []int, ws []uint32, threshold float64) []int {
	total := 0.0
	for _, w := range ws {
		total += weightFloat(w) * weightFloat(w)
	}
	limit := threshold * threshold * total * (1 - 1e-9)
	first := len(ends)
	sum := 0.0
	for i, w := range ws {
		sum += weightFloat(w) * weightFloat(w)
		if total-sum < limit {
			ends = append(ends, i+1)
			sum = 0
		}
	}
	if len(ends) == first {
		ends = append(ends, len(ws))
	}
	return ends
}

// similarDoc is an entry found similar enough to link to, with its
// similarity.
type similarDoc struct {
	pk  int64
	id  string
	sim float64
}

// bestSimilar sorts found most similar first, then newest first (by
// rowid: the agent's rows are numbered in the order they were stored),
// and keeps n.
func bestSimilar(found []similarDoc, n int) []similarDoc {
	slices.SortFunc(found, func(a, b similarDoc) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(b.pk, a.pk))
	})
	return found[:min(len(found), n)]
}

// Finding similar entries through FTS5.

// linkCountCap bounds how many of the agent's entries textSimilar counts
// holding a term, to order the terms: past it a term is common, and how
// common does not matter.
const linkCountCap = 256

// linkCountedTerms bounds how many of an entry's terms textSimilar
// counts; a long text's other terms count as common.
const linkCountedTerms = 64

// textSimilar is similarTexts through FTS5, for when the stem index is
// not ready: its cost is set by how many entries hold the entry's rarest
// terms, not by how many the agent has. The entry's terms are
// taken rarest first (the agent's entries holding each are counted in
// FTS5, up to linkCountCap) and split into groups (see linkGroups): an
// entry whose cosine reaches threshold holds a term of every group, so
// FTS5 finds the candidates as the agent's entries holding, in their
// content, a term of each group, and their term vectors are then compared
// with the entry's. In an index other agents share, every FTS5 query is
// restricted to the agent's entries (see ftsScope), so that their entries
// change neither what is found nor how many candidates are read.
func (l *Links) textSimilar(q store.Tx, pk int64, content string, threshold float64, n int) ([]similarDoc, error) {
	return l.textSimilarSkip(q, pk, content, threshold, n, nil)
}

// textSimilarSkip is textSimilar leaving out the entries skip reports
// (none when skip is nil).
func (l *Links) textSimilarSkip(q store.Tx, pk int64, content string, threshold float64, n int, skip func(pk int64) bool) ([]similarDoc, error) {
	if textSimilarHook != nil {
		textSimilarHook()
	}
	a := termVector(content)
	if len(a) == 0 || n < 1 {
		return nil, nil
	}
	sc, err := l.m.scopeOf(q, ftsSource{kind: semanticKind})
	if err != nil {
		return nil, err
	}
	terms := linkTerms(content, a)
	for i := range terms {
		terms[i].df = linkCountCap + 1
		if i >= linkCountedTerms {
			continue
		}
		var err error
		terms[i].df, err = store.CountSemanticMatches(q, sc.restrict("content : "+query.Or([]string{terms[i].tok})), linkCountCap+1)
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(terms, func(x, y linkTerm) int { return cmp.Compare(x.df, y.df) })
	ws := make([]uint32, len(terms))
	for i, t := range terms {
		ws[i] = t.w
	}
	ends := linkGroups(nil, ws, threshold)
	ends[len(ends)-1] = len(terms) // the terms left over join the last group
	var expr strings.Builder
	expr.WriteString("content : (")
	start := 0
	for i, end := range ends {
		if i > 0 {
			expr.WriteString(" AND ")
		}
		toks := make([]string, 0, end-start)
		for _, t := range terms[start:end] {
			toks = append(toks, t.tok)
		}
		expr.WriteString("(" + query.Or(toks) + ")")
		start = end
	}
	expr.WriteString(")")
	var total exactSum
	for i := range terms {
		total.add(terms[i].w, terms[i].w)
		terms[i].hash = bm25.Hash(terms[i].stem)
	}
	na := math.Sqrt(total.value())
	var found []similarDoc
	err = store.SemanticMatches(q, l.m.agent, sc.restrict(expr.String()), pk, func(dpk int64, id string, stored, text []byte) error {
		if skip != nil && skip(dpk) || stored != nil && !mayReach(terms, stored, total, threshold) {
			return nil
		}
		b := termVector(string(text))
		var dot, nb exactSum
		for st, w := range b {
			nb.add(w, w)
			if aw, ok := a[st]; ok {
				dot.add(aw, w)
			}
		}
		if sim := cosineOf(dot, na, math.Sqrt(nb.value())); sim >= threshold && sim > 0 {
			found = append(found, similarDoc{pk: dpk, id: strings.Clone(id), sim: sim})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bestSimilar(found, n), nil
}

// mayReach reports whether a text whose search vector is stored (see
// internal/bm25: a count for every stem of its content and tags,
// stopwords included) may have a cosine reaching threshold with the term
// vector of terms, of squared norm total. Its stems are a superset of the
// stems its term vector holds, and a text holding only the terms S of a
// vector a has cos ≤ |a_S|/|a| (Cauchy–Schwarz): a text without enough of
// the terms cannot reach threshold, and is not read.
func mayReach(terms []linkTerm, stored []byte, total exactSum, threshold float64) bool {
	var held exactSum
	for _, t := range terms {
		if bm25.Count(stored, t.hash) > 0 {
			held.add(t.w, t.w)
		}
	}
	return held.value() >= threshold*threshold*total.value()*(1-1e-9)
}

// linkTerm is one term of an entry's term vector, as textSimilar queries
// it: its stem, the first token of the text with that stem (which FTS5
// stems to it again), its weight and how many entries hold it.
type linkTerm struct {
	stem, tok string
	w         uint32
	df        int
	hash      uint32 // bm25.Hash(stem)
}

// linkTerms lists the terms of the term vector v of text, by stem.
func linkTerms(text string, v map[string]uint32) []linkTerm {
	terms := make([]linkTerm, 0, len(v))
	seen := make(map[string]bool, len(v))
	for _, tok := range query.Tokens(text) {
		if query.IsStopword(tok) {
			continue
		}
		if st := query.Stem(tok); !seen[st] {
			seen[st] = true
			terms = append(terms, linkTerm{stem: st, tok: tok, w: v[st]})
		}
	}
	slices.SortFunc(terms, func(x, y linkTerm) int { return cmp.Compare(x.stem, y.stem) })
	return terms
}
