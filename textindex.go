package engram

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"

	"github.com/engram-go/engram/internal/bm25"
	"github.com/engram-go/engram/internal/query"
	"github.com/engram-go/engram/internal/rank"
	"github.com/engram-go/engram/internal/store"
)

// The in-memory text index: a text search's matches, scored without FTS5.
//
// FTS5 finds a query's matches from its segments, and every match costs
// a row lookup and a call of the search's scorer inside SQLite: most of a
// search's time at ten thousand memories, where a search engine holding
// its postings in memory answers several times faster. So each Memory
// keeps, once it has searched, the postings of its agent's searchable
// rows (which rows hold each stem hash, how often: the rows' own term
// vectors, see internal/bm25) with each row's length, ID and session, and
// scores a text search's matches from them exactly as FTS5's plan would
// (the same terms, windows and scores, to the last bit), reading only the
// rows it ranks (see Memory.readRanked).
//
// The index is as of a version of the agent's texts (text_stats.version,
// which every insert, delete and change of a searchable row moves on, from
// any connection: migrations 0005 and 0010). A search uses it only when
// the version in its own snapshot is the index's: its results are those
// of that snapshot, whatever else happened since. When the snapshot is
// ahead by rows added and nothing else (each insert moves the version by
// one, and the rows after the index's last are exactly that many), the
// search adds them first; otherwise the index is built again in the
// background, and searches ask FTS5 meanwhile. A Memory that searches
// without FTS5 (see Memory.fullText) builds it in the search's own read
// instead, as of the search's snapshot.
type textIndex struct {
	mu       sync.RWMutex
	data     *textData // nil until built
	ctl      stemControl
	building bool // a build is under way; ctl.mu guards it
}

// textData is the index proper, as of one version of the agent's texts,
// with bounds on its rows' importance as of one version of their ranks
// (see migration 0010).
type textData struct {
	version, ranks int64
	kinds          []textKind // one per ftsSources entry, in its order
}

// textKind is one kind's part of the index.
type textKind struct {
	docs []textDoc         // by pk
	post map[uint32]*posts // stem hash → the docs holding it
	// sessions are the docs of each session (store.Kind.Session) in
	// (created_at, pk) order, sessionAt where each session is in it.
	sessions   [][]int32
	sessionAt  map[string]int32
	sessionIDs []string // each session's ID, in the order of sessions
	// asks has bit d set when doc d asks a question (store.Asks).
	asks []uint64
	// last is a pk up to which every row of the agent is indexed: the
	// largest pk of the kind's table, any agent's row, in the snapshot
	// the index was built or last caught up in, so that catching up
	// reads the rows inserted since and no other.
	last int64
	// scopeAt numbers the users and sessions (store.Kind.UserCol and
	// sessionCol) of the docs, from 1, for a search's Filter; 0 is none.
	scopeAt map[string]int32
}

// textDoc is one indexed row.
type textDoc struct {
	pk, created int64
	importance  float64 // at least store.Kind.Importance's value (see migration 0010)
	id          string
	ntok        int32
	session     int32 // in textKind.sessions; -1 for none
	// user and sess are the row's user and session in
	// textKind.scopeAt, 0 for none.
	user, sess int32
}

// posts are the docs holding a stem hash, ascending, and how often.
type posts struct {
	docs []int32
	tfs  []uint16
}

// textCatchUpMax bounds the rows a search adds to the index before it
// scores: a larger gap is closed by building it again in the background.
const textCatchUpMax = 4096

// view returns the index as of version, the agent's texts' version in
// q's snapshot, with its read lock held (the caller releases it), after
// adding the rows inserted since it was built if that is all that
// changed; or nil, when the search must ask FTS5. docs is how many
// searchable memories the snapshot holds: an agent with more than the
// configured IndexMax gets no index. Without FTS5 (see Memory.fullText)
// it never returns nil without an error: what the index lacks it builds
// in q, as of q's snapshot (see buildIn).
func (x *textIndex) view(q store.Tx, m *Memory, version int64, docs int) (*textData, error) {
	if max := m.indexMax(); max == 0 || docs > max {
		x.mu.Lock()
		x.data = nil // grown past the bound: its memory goes back
		x.mu.Unlock()
		return nil, nil
	}
	x.mu.RLock()
	d := x.data
	if d != nil && d.version == version {
		return d, nil
	}
	var from int64
	var last []int64
	if d != nil {
		from, last = d.version, d.lasts()
	}
	x.mu.RUnlock()
	if d != nil && version < from {
		if !m.fullText {
			return x.buildIn(q, m) // an older snapshot than the index's
		}
		return nil, nil // an older snapshot than the index's
	}
	if d == nil || version-from > textCatchUpMax {
		if !m.fullText {
			return x.buildIn(q, m)
		}
		x.build(m)
		return nil, nil
	}
	// Ahead: the rows added since, if nothing else changed.
	up, err := readCatchUp(q, m, last, version-from)
	if err != nil {
		return nil, err
	}
	if up == nil {
		if !m.fullText {
			return x.buildIn(q, m)
		}
		x.build(m)
		return nil, nil
	}
	x.install(d, from, version, up)
	x.mu.RLock()
	if x.data != nil && x.data.version == version {
		return x.data, nil
	}
	x.mu.RUnlock()
	if !m.fullText {
		return x.buildIn(q, m) // another search or a build put another in
	}
	return nil, nil
}

// indexMax is the most searchable memories the agent may hold for its
// text index to be kept: SearchConfig.IndexMax, or no bound without
// FTS5 (see Memory.fullText), where the index is the only way to search.
func (m *Memory) indexMax() int {
	if !m.fullText {
		return math.MaxInt
	}
	return m.cfg.Search.IndexMax
}

// buildIn builds the index in q, as of q's snapshot, for a search that
// cannot ask FTS5 (see Memory.fullText), and returns it with the read
// lock held, as view does. It becomes the Memory's index unless the one
// there is as new or newer; the change log is then told to follow it
// (see followText), from a goroutine of its own, since q may hold the
// one connection of an in-memory database.
func (x *textIndex) buildIn(q store.Tx, m *Memory) (*textData, error) {
	d, err := loadTextIn(q, m)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	installed := x.data == nil || x.data.version < d.version
	if installed {
		x.data = d
	}
	x.mu.Unlock()
	if installed {
		x.follow(m)
	}
	x.mu.RLock()
	return d, nil
}

// follow tells the change log, from a goroutine of its own, that the
// index is built (see followText), unless the Memory is closing.
func (x *textIndex) follow(m *Memory) {
	x.ctl.mu.Lock()
	defer x.ctl.mu.Unlock()
	if x.ctl.stopped {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if prev := x.ctl.cancel; prev != nil { // a build's, still to be cancelled by stop
		x.ctl.cancel = func() { cancel(); prev() }
	} else {
		x.ctl.cancel = cancel
	}
	x.ctl.wg.Add(1)
	go func() {
		defer x.ctl.wg.Done()
		defer cancel()
		m.followText(ctx)
	}()
}

// lasts returns each kind's last pk (see textKind.last), in ftsSources'
// order.
func (d *textData) lasts() []int64 {
	last := make([]int64, len(d.kinds))
	for i := range d.kinds {
		last[i] = d.kinds[i].last
	}
	return last
}

// catchUp is what the index lacks of a later snapshot: the rows inserted
// since, per kind (in ftsSources' order), and, where the tables may hold
// other agents' rows, each table's last pk.
type catchUp struct {
	added [][]textRow
	seen  []int64
}

// readCatchUp reads in q's snapshot the rows of m's agent after the pks
// last of an index that is want versions behind the snapshot: nil when
// those rows are not exactly the difference (something other than
// inserts changed the texts), and the index must be built again.
func readCatchUp(q store.Tx, m *Memory, last []int64, want int64) (*catchUp, error) {
	added, err := readTextAfter(q, m.agent, last)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, rows := range added {
		n += len(rows)
	}
	if int64(n) != want {
		return nil, nil
	}
	// Where the table may hold other agents' rows, the index looks past
	// them to the table's last row, so that the next catch-up does not
	// read them again; in an agent's own file, its last row read is the
	// table's (k.add keeps it), and that statement is saved.
	up := &catchUp{added: added}
	if m.mayShare() {
		if up.seen, err = store.TextLast(q); err != nil {
			return nil, err
		}
	}
	return up, nil
}

// install adds up to the index d, as of version from, making it as of
// version; unless the index is no longer d at from (another search caught
// up, or a build installed another), when up is dropped.
func (x *textIndex) install(d *textData, from, version int64, up *catchUp) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.data != d || d.version != from {
		return
	}
	for i, rows := range up.added {
		k := &d.kinds[i]
		for _, r := range rows {
			k.add(r)
		}
		if up.seen != nil {
			k.last = max(k.last, up.seen[i])
		}
	}
	d.version = version
}

// build builds the index again in the background, unless a build is
// under way or the Memory is closing, from a snapshot of its own.
func (x *textIndex) build(m *Memory) {
	x.ctl.mu.Lock()
	defer x.ctl.mu.Unlock()
	if x.building || x.ctl.stopped {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	x.building, x.ctl.cancel = true, cancel
	x.ctl.wg.Add(1)
	go func() {
		defer x.ctl.wg.Done()
		defer cancel()
		d, err := loadText(ctx, m)
		if err == nil && d != nil {
			x.mu.Lock()
			x.data = d
			x.mu.Unlock()
			m.followText(ctx)
		}
		x.ctl.mu.Lock()
		x.building = false
		x.ctl.mu.Unlock()
	}()
}

// stop stops a build under way and lets no other start; Close calls it.
func (x *textIndex) stop() {
	x.ctl.stop()
	x.mu.Lock()
	x.data = nil
	x.mu.Unlock()
}

// loadText reads every searchable row of m's agent in one read
// transaction and indexes them (see loadTextIn).
func loadText(ctx context.Context, m *Memory) (*textData, error) {
	var d *textData
	err := m.read(ctx, "search.index", func(q store.Tx) (err error) {
		d, err = loadTextIn(q, m)
		return err
	})
	return d, err
}

// loadTextIn reads every searchable row of m's agent in q's snapshot and
// indexes them; nil when the agent holds more than IndexMax (see
// Memory.indexMax). The rows are indexed as they are read, never all
// held at once, and the reader's page cache is kept small while it reads
// them (see textBuildCacheKiB).
func loadTextIn(q store.Tx, m *Memory) (d *textData, err error) {
	docs, version, ranks, err := store.TextStats(q, m.agent)
	if err != nil || docs > m.indexMax() {
		return nil, err
	}
	if !m.db.InMemory() && m.db.Engine() == "sqlite" { // a reader's page cache is SQLite's
		var restore func() error
		restore, err = smallCache(q, m.cfg.Storage.CacheMiB)
		if err != nil {
			return nil, err
		}
		defer func() {
			if rerr := restore(); err == nil {
				err = rerr
			}
		}()
	}
	d = &textData{version: version, ranks: ranks, kinds: make([]textKind, len(ftsSources))}
	seen, err := store.TextLast(q)
	if err != nil {
		return nil, err
	}
	for i, src := range ftsSources {
		k := &d.kinds[i]
		k.post = make(map[uint32]*posts)
		err := store.EachTextRow(q, src.Kind, m.agent, func(r *store.TextRow) { k.add(textRowOf(r)) })
		if err != nil {
			return nil, err
		}
		if seen != nil {
			k.last = max(k.last, seen[i])
		}
		k.trim()
	}
	return d, nil
}

// textBuildCacheKiB is the page cache of the reader that builds the text
// index, while it builds. A build reads each page of the agent's tables
// once. SQLite's page caches are one pool for all of the process's
// connections (modernc's SQLite is built with
// SQLITE_ENABLE_MEMORY_MANAGEMENT), as large as their sizes added up: a
// reader of Storage.CacheMiB would fill it with as much of those pages,
// tens of megabytes that no search needs, beside the index.
const textBuildCacheKiB = 2048

// smallCache sets the page cache of q's reader to textBuildCacheKiB,
// which gives back the pages the pool holds beyond its new size, and
// returns what sets it back to mib MiB.
func smallCache(q store.Tx, mib int) (restore func() error, err error) {
	if err := store.SetCacheKiB(q, textBuildCacheKiB); err != nil {
		return nil, err
	}
	return func() error { return store.SetCacheKiB(q.Background(), mib*1024) }, nil
}

// textRow is a row read for the index, with its term vector.
type textRow struct {
	textDoc
	terms             []byte
	session           string
	userID, sessionID string // store.Kind.UserCol's and sessionCol's
	asks              bool   // it asks a question (store.Asks)
}

// textRowOf is the row s of the store, with its term vector (see
// textRow.vector).
func textRowOf(s *store.TextRow) textRow {
	r := textRow{
		textDoc: textDoc{pk: s.PK, created: s.Created, importance: s.Importance, id: s.ID},
		terms:   s.Terms, session: s.Session, userID: s.UserID, sessionID: s.SessionID, asks: s.Asks,
	}
	return r.vector(s.Texts, s.NTok)
}

// vector returns r with its term vector: the one read, or, for a row
// without one, made of its texts.
func (r textRow) vector(texts []string, ntok int) textRow {
	r.ntok = int32(ntok)
	if r.terms == nil {
		var n int
		r.terms, n = bm25.Vector(texts...)
		r.ntok = int32(n)
	}
	return r
}

// readTextAfter reads the rows of agent of each kind (in ftsSources'
// order) after the pk last[i], each kind's in pk order, in one statement.
func readTextAfter(q store.Tx, agent string, last []int64) ([][]textRow, error) {
	out := make([][]textRow, len(ftsSources))
	err := store.TextAfter(q, agent, last, func(at int, r *store.TextRow) error {
		out[at] = append(out[at], textRowOf(r))
		return nil
	})
	if err != nil {
		return nil, err
	}
	// In pk order, which the range gives, though SQL does not promise it.
	for _, rs := range out {
		if !slices.IsSortedFunc(rs, func(a, b textRow) int { return cmp.Compare(a.pk, b.pk) }) {
			slices.SortFunc(rs, func(a, b textRow) int { return cmp.Compare(a.pk, b.pk) })
		}
	}
	return out, nil
}

// add indexes a row whose pk is larger than any indexed.
func (k *textKind) add(r textRow) {
	at := int32(len(k.docs))
	r.user, r.sess = k.scopeID(r.userID), k.scopeID("\x00"+r.sessionID)
	k.docs = append(k.docs, r.textDoc)
	k.last = r.pk
	var prev uint32
	first := true
	bm25.Each(r.terms, func(h uint32, n int) {
		if !first && h == prev {
			return // a second stem of the same hash: Count sees the first
		}
		first, prev = false, h
		p := k.post[h]
		if p == nil {
			p = &posts{}
			k.post[h] = p
		}
		p.docs = append(p.docs, at)
		p.tfs = append(p.tfs, uint16(n))
	})
	if r.asks {
		for int(at>>6) >= len(k.asks) {
			k.asks = append(k.asks, 0)
		}
		k.asks[at>>6] |= 1 << (uint(at) & 63)
	}
	if r.session == "" {
		k.docs[at].session = -1
		return
	}
	sn, ok := k.sessionAt[r.session]
	if !ok {
		if k.sessionAt == nil {
			k.sessionAt = make(map[string]int32)
		}
		sn = int32(len(k.sessions))
		k.sessionAt[r.session] = sn
		k.sessions = append(k.sessions, nil)
		k.sessionIDs = append(k.sessionIDs, r.session)
	}
	k.docs[at].session = sn
	s := k.sessions[sn]
	i, _ := slices.BinarySearchFunc(s, at, func(e, t int32) int { return k.sessionOrder(e, t) })
	k.sessions[sn] = slices.Insert(s, i, at)
}

// sessionOf returns the session of doc, "" for none.
func (k *textKind) sessionOf(doc int32) string {
	if sn := k.docs[doc].session; sn >= 0 {
		return k.sessionIDs[sn]
	}
	return ""
}

// asked reports whether doc asks a question.
func (k *textKind) asked(doc int32) bool {
	w := int(doc >> 6)
	return w < len(k.asks) && k.asks[w]&(1<<(uint(doc)&63)) != 0
}

// scopeID returns the number of a user (or, after a NUL, a session) in
// the kind's docs, numbering it if new; 0 for none.
func (k *textKind) scopeID(s string) int32 {
	if s == "" || s == "\x00" {
		return 0
	}
	if n, ok := k.scopeAt[s]; ok {
		return n
	}
	if k.scopeAt == nil {
		k.scopeAt = make(map[string]int32)
	}
	n := int32(len(k.scopeAt) + 1)
	k.scopeAt[s] = n
	return n
}

// inScope returns a filter of the kind's docs by the search's user and
// session (see Filter), or nil when the search has neither; possible is
// false when no doc can pass.
func (k *textKind) inScope(s *search) (keep func(doc int32) bool, possible bool) {
	sc := &s.filter.sc
	if sc.user == "" && sc.session == "" {
		return nil, true
	}
	var user, sess int32
	if sc.user != "" {
		if user = k.scopeAt[sc.user]; user == 0 {
			return nil, false
		}
	}
	if sc.session != "" {
		if sess = k.scopeAt["\x00"+sc.session]; sess == 0 {
			return nil, false
		}
	}
	return func(doc int32) bool {
		d := &k.docs[doc]
		return (user == 0 || d.user == user) && (sess == 0 || d.sess == sess)
	}, true
}

// trim gives back the room appends left in the docs and the postings,
// once a build has added every row.
func (k *textKind) trim() {
	if cap(k.docs) > len(k.docs)+len(k.docs)/16 {
		k.docs = slices.Clone(k.docs)
	}
	for _, p := range k.post {
		if cap(p.docs) > len(p.docs) {
			p.docs, p.tfs = slices.Clone(p.docs), slices.Clone(p.tfs)
		}
	}
}

// sessionOrder orders two docs of a session: by created_at, then pk.
func (k *textKind) sessionOrder(a, b int32) int {
	da, db := &k.docs[a], &k.docs[b]
	return cmp.Or(cmp.Compare(da.created, db.created), cmp.Compare(da.pk, db.pk))
}

// at returns the doc of the indexed row pk.
func (k *textKind) at(pk int64) int32 {
	lo, hi := 0, len(k.docs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if k.docs[mid].pk < pk {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int32(lo)
}

// neighbours returns the docs logged just before and just after doc in
// its session, -1 for none.
func (k *textKind) neighbours(doc int32) (before, after int32) {
	before, after = -1, -1
	sn := k.docs[doc].session
	if sn < 0 {
		return
	}
	s := k.sessions[sn]
	i, found := slices.BinarySearchFunc(s, doc, func(e, t int32) int { return k.sessionOrder(e, t) })
	if !found {
		return
	}
	if i > 0 {
		before = s[i-1]
	}
	if i+1 < len(s) {
		after = s[i+1]
	}
	return
}

// best appends to dst the kind's k best matches of the search, as FTS5
// would find and score them with the plan p (see planTerms,
// Memory.ftsBest and Memory.plan): candidates whose rank columns are not
// read yet. pass, when not nil, says which matches the search's filters
// keep and which are live (see docFilter).
func (k *textKind) best(dst []candidate, s *search, typ MemoryType, p termPlan, pass *docFilter) []candidate {
	hashes := func(at []int) []uint32 {
		out := make([]uint32, len(at))
		for j, i := range at {
			out[j] = bm25.Hash(s.stems[i])
		}
		return out
	}
	type plan struct {
		hashes []uint32
		and    bool
	}
	plans := []plan{{hashes: hashes(p.keep)}}
	if p.over {
		plans = plans[:0]
		if len(p.rare) > 1 {
			plans = append(plans, plan{hashes: hashes(p.rare), and: true})
		}
		plans = append(plans, plan{hashes: hashes(p.keep)})
	}
	var seen map[int32]bool // when a second plan may find them again
	if len(plans) > 1 {
		seen = map[int32]bool{}
	}
	keep, possible := k.inScope(s)
	if !possible {
		return dst
	}
	if pass != nil && pass.kept != nil {
		if keep == nil {
			keep = pass.keeps
		} else {
			scoped := keep
			keep = func(d int32) bool { return scoped(d) && pass.keeps(d) }
		}
	}
	base := len(dst)
	found := slices.Grow(dst, s.k)
	for _, pl := range plans {
		docs := k.match(pl.hashes, pl.and)
		if keep != nil {
			// As FTS5's plan with the filters in SQL: the matches
			// that pass, then the newest budget of them.
			docs = filterDocs(docs, keep)
		}
		if p.over && len(docs) > p.budget {
			docs = docs[len(docs)-p.budget:] // the newest budget matches
		}
		if pass != nil && pass.live != nil {
			docs = filterDocs(docs, pass.lives) // found while they hold
		}
		found = k.top(s, typ, docs, found, seen)
		if len(found)-base >= s.k {
			break
		}
	}
	if len(plans) > 1 {
		slices.SortFunc(found[base:], func(a, b candidate) int {
			if c := cmp.Compare(b.text, a.text); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return found[:base+min(s.k, len(found)-base)]
}

// top appends to found the search's k best of the docs by score, then
// ID, as FTS5's query orders them, leaving out those in seen (and adding
// the others to it, when not nil).
func (k *textKind) top(s *search, typ MemoryType, docs []int32, found []candidate, seen map[int32]bool) []candidate {
	return k.topScored(s, typ, k.score(s, docs), found, seen)
}

// topScored is top of docs already scored.
func (k *textKind) topScored(s *search, typ MemoryType, all []scored, found []candidate, seen map[int32]bool) []candidate {
	top := firsts(all, s.k)
	slices.SortFunc(top, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(k.docs[a.doc].id, k.docs[b.doc].id)
	})
	for _, t := range top[:min(s.k, len(top))] {
		if seen[t.doc] {
			continue
		}
		if seen != nil {
			seen[t.doc] = true
		}
		d := &k.docs[t.doc]
		found = append(found, candidate{Result: Result{Type: typ, ID: d.id, CreatedAt: store.FromMS(d.created)}, pk: d.pk,
			text: t.score, held: t.held, importance: d.importance, partial: true, session: k.sessionOf(t.doc), asks: k.asked(t.doc)})
	}
	return found
}

// filterDocs returns the docs keep keeps, in their order.
func filterDocs(docs []int32, keep func(int32) bool) []int32 {
	kept := make([]int32, 0, len(docs)/8)
	for _, d := range docs {
		if keep(d) {
			kept = append(kept, d)
		}
	}
	return kept
}

// match returns the docs holding any of the hashes (all, with and), in
// ascending order.
func (k *textKind) match(hashes []uint32, and bool) []int32 {
	var lists []*posts
	for _, h := range hashes {
		if p := k.post[h]; p != nil {
			lists = append(lists, p)
		} else if and {
			return nil
		}
	}
	switch {
	case len(lists) == 0:
		return nil
	case len(lists) == 1:
		return lists[0].docs
	case and:
		out := lists[0].docs
		for _, l := range lists[1:] {
			out = query.IntersectRows(out, l.docs)
		}
		return out
	}
	n := 0
	for _, l := range lists {
		n += len(l.docs)
	}
	out := make([]int32, 0, n)
	for _, l := range lists {
		out = append(out, l.docs...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// scored is a doc with its BM25 score and the query terms it holds.
type scored struct {
	doc   int32
	score float64
	held  uint64
}

// score scores the ascending docs by the search's scorer: each doc's
// count of every query term, found by galloping through the term's
// postings, then bm25.Query.ScoreCounts.
func (k *textKind) score(s *search, docs []int32) []scored {
	hs := s.scorer.Hashes()
	counts := make([]uint16, len(docs)*len(hs))
	for t, h := range hs {
		p := k.post[h]
		if p == nil {
			continue
		}
		at := 0
		for i, d := range docs {
			at = gallop(p.docs, at, d)
			if at == len(p.docs) {
				break
			}
			if p.docs[at] == d {
				counts[i*len(hs)+t] = p.tfs[at]
			}
		}
	}
	out := make([]scored, len(docs))
	for i, d := range docs {
		sc, held := s.scorer.ScoreCounts(counts[i*len(hs):(i+1)*len(hs)], int(k.docs[d].ntok))
		out[i] = scored{doc: d, score: sc, held: held}
	}
	return out
}

// firsts returns the docs of xs whose score is among the k best, and
// those with the same score as the k-th: all that the k first by score
// and ID can be, in no order.
func firsts(xs []scored, k int) []scored {
	if len(xs) <= 2*k {
		return xs
	}
	scores := make([]float64, len(xs))
	for i, x := range xs {
		scores[i] = x.score
	}
	kth := rank.Nth(scores, len(scores)-k)
	out := xs[:0]
	for _, x := range xs {
		if x.score >= kth {
			out = append(out, x)
		}
	}
	return out
}

// gallop returns the first index i ≥ from of the ascending list with
// list[i] ≥ d, or len(list).
func gallop(list []int32, from int, d int32) int {
	step := 1
	hi := from
	for hi < len(list) && list[hi] < d {
		from = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(list))
	i, _ := slices.BinarySearch(list[from:hi], d)
	return from + i
}

// indexCandidates finds, per kind the search wants, the agent's memories
// that best match its terms in the index d (as of the search's snapshot),
// with the statistics docs and tokens, as textCandidates does through
// FTS5: the same terms chosen, the same plans, the same scores. Facts,
// which are found only while they hold, are still found through FTS5
// (ftsBest), with the index's document frequencies, unless the Memory
// searches without FTS5 (see Memory.fullText): then the index finds
// them too, and their rows say which hold. The session neighbours of the
// episodic matches go to s.near.
func (m *Memory) indexCandidates(q store.Tx, s *search, d *textData, docs, tokens int) ([]candidate, error) {
	s.fromIndex = true
	if s.importanceBound = s.ranks == d.ranks; !s.importanceBound {
		m.text.build(m) // some importance rose: read it again
	}
	kindDF, df := d.docFreqs(s)
	s.limitTerms(df)
	s.scorer = newScorer(slices.Clone(s.stems), df, docs, tokens, m.cfg.Search)
	// Room for each kind's k best, the working set's and the session
	// context that withContext adds.
	room, near := 0, 0
	if s.wantsType(TypeWorking) {
		room = m.working.Capacity()
	}
	for i, src := range ftsSources {
		if s.wants(src.kind) && len(d.kinds[i].docs) > 0 {
			room += s.k
			if src.Session != "" && m.cfg.Search.ContextWeight > 0 {
				room += 2 * s.k
				near += 2 * s.k
			}
		}
	}
	cands := newCandidates(room)
	if near > 0 {
		s.near = newCandidates(near)
	}
	for i, src := range ftsSources {
		k := &d.kinds[i]
		if !s.wants(src.kind) || len(k.docs) == 0 {
			continue
		}
		p := planTerms(s.stems, kindDF[i], m.cfg.Search.PostingBudget)
		var pass *docFilter
		if src.Live != "" {
			if m.fullText {
				sc, err := m.scopeOf(q, src)
				if err != nil {
					return nil, err
				}
				top, err := m.ftsBest(q, s, scopedSource{ftsSource: src, scope: sc, searched: true, df: kindDF[i]})
				if err != nil {
					return nil, err
				}
				cands = append(cands, top...)
				continue
			}
			var err error
			if pass, err = m.passOf(q, s, src, k, k.planned(s, p)); err != nil {
				return nil, err
			}
		}
		from := len(cands)
		cands = k.best(cands, s, src.typ, p, pass)
		top := cands[from:]
		if src.Session != "" && m.cfg.Search.ContextWeight > 0 {
			keep, _ := k.inScope(s)
			for i := range top {
				c := &top[i]
				before, after := k.neighbours(k.at(c.pk))
				for _, n := range []int32{before, after} {
					// A neighbour outside the search's scope is left
					// out, as store.SessionNeighbours leaves it out.
					if n >= 0 && (keep == nil || keep(n)) {
						nd := &k.docs[n]
						s.near = append(s.near, candidate{Result: Result{Type: src.typ, ID: nd.id, ContextOf: c.ID, CreatedAt: store.FromMS(nd.created)},
							pk: nd.pk, importance: nd.importance, partial: true, asks: k.asked(n)})
					}
				}
			}
		}
	}
	return cands, nil
}

// docFreqs returns how many of the agent's documents of each kind (in
// ftsSources' order; nil for a kind the agent has none of) hold each of
// the search's stems, and how many of every kind: what chooseTerms reads
// of FTS5 (see docFreqs).
func (d *textData) docFreqs(s *search) (kindDF []map[string]int, df map[string]int) {
	df = map[string]int{}
	kindDF = make([]map[string]int, len(ftsSources))
	hashes := make([]uint32, len(s.stems))
	for j, st := range s.stems {
		hashes[j] = bm25.Hash(st)
	}
	for i := range ftsSources {
		k := &d.kinds[i]
		if len(k.docs) == 0 {
			continue
		}
		kindDF[i] = map[string]int{}
		for j, st := range s.stems {
			if _, done := kindDF[i][st]; done {
				continue
			}
			if p := k.post[hashes[j]]; p != nil {
				kindDF[i][st] = len(p.docs)
				df[st] += len(p.docs)
			}
		}
	}
	return kindDF, df
}
