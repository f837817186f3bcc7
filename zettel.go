package engram

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/engram-go/engram/internal/query"
)

// Links is the Zettelkasten graph: typed, weighted links between the
// agent's semantic, episodic and procedural memories. Links belong to the
// agent and disappear with either end. Get it from [Memory.Links]; it is
// safe for concurrent use.
type Links struct{ m *Memory }

// MaxTraverseDepth bounds [Links.Traverse].
const MaxTraverseDepth = 8

const linkCols = `source_type, source_id, target_type, target_id, link_type, strength, created_at`

// Add links two memories of the agent. The ends are found by ID among the
// agent's semantic, episodic and procedural memories; set SourceType or
// TargetType when an ID is used by more than one of them. A zero Strength
// means 1 and a zero CreatedAt the clock's now. Adding a link that exists
// (same ends, same type) updates its strength.
//
// It returns an error matching [ErrInvalid] for bad input (an unknown link
// type, a strength outside [0, 1], a link from a memory to itself, an
// ambiguous ID), [ErrNotFound] if either end is not one of the agent's
// memories, [ErrClosed] after Close and a [*DatabaseError] when SQLite
// fails.
func (l *Links) Add(ctx context.Context, link Link) error {
	if err := validateID("SourceID", link.SourceID); err != nil {
		return err
	}
	if err := validateID("TargetID", link.TargetID); err != nil {
		return err
	}
	if err := link.Type.Validate(); err != nil {
		return invalid("Type", "unknown link type %q", string(link.Type))
	}
	if math.IsNaN(link.Strength) || link.Strength < 0 || link.Strength > 1 {
		return invalid("Strength", "%v is outside [0, 1]", link.Strength)
	}
	if err := validateEndType("SourceType", link.SourceType); err != nil {
		return err
	}
	if err := validateEndType("TargetType", link.TargetType); err != nil {
		return err
	}
	if link.Strength == 0 {
		link.Strength = 1
	}
	if err := validateTime("CreatedAt", link.CreatedAt); err != nil {
		return err
	}
	now := l.m.now()
	if link.CreatedAt.IsZero() {
		link.CreatedAt = now
	}
	return l.m.write(ctx, "links.add", func(q *dbtx) error {
		var err error
		if link.SourceType, err = resolveType(q, l.m.agent, link.SourceID, link.SourceType, "SourceID"); err != nil {
			return err
		}
		if link.TargetType, err = resolveType(q, l.m.agent, link.TargetID, link.TargetType, "TargetID"); err != nil {
			return err
		}
		if link.SourceType == link.TargetType && link.SourceID == link.TargetID {
			return invalid("TargetID", "a memory cannot link to itself")
		}
		_, err = q.exec(`INSERT INTO zettel_links (agent_id, `+linkCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET strength = excluded.strength`,
			l.m.agent, string(link.SourceType), link.SourceID, string(link.TargetType), link.TargetID,
			string(link.Type), link.Strength, ms(link.CreatedAt))
		return err
	})
}

// validateEndType accepts an unset type or a kind links may join.
func validateEndType(field string, t MemoryType) error {
	if k := kindOf(t); t == "" || k != nil && k.linkable {
		return nil
	}
	return invalid(field, "%q is not a stored memory type", string(t))
}

// linkable are the kinds links may join.
var linkable = kindsWith(func(k *kind) bool { return k.linkable })

// linkTypes is the SQL list of the kinds links may join: "('semantic',
// 'episodic', 'procedural')".
var linkTypes = func() string {
	var names []string
	for _, k := range linkable {
		names = append(names, "'"+string(k.typ)+"'")
	}
	return "(" + strings.Join(names, ", ") + ")"
}()

// kindsByID is the SQL that lists the kinds of the agent's (?1) memories
// with ID ?2, as (kind) rows, among the kinds links may join.
var kindsByID = func() string {
	var parts []string
	for _, k := range linkable {
		parts = append(parts, `SELECT '`+string(k.typ)+`' AS kind, id FROM `+k.table+` WHERE agent_id = ?1 AND id = ?2`)
	}
	return strings.Join(parts, " UNION ALL ")
}()

// resolveType finds which of the agent's stores holds id. When want is set
// it only checks that store.
func resolveType(q *dbtx, agent, id string, want MemoryType, field string) (MemoryType, error) {
	rows, err := q.query(`SELECT kind FROM (`+kindsByID+`)`, agent, id)
	if err != nil {
		return "", err
	}
	found, err := scanAll(rows, func(r scanner) (MemoryType, error) {
		var t string
		err := r.Scan(&t)
		return MemoryType(t), err
	})
	if err != nil {
		return "", err
	}
	for _, t := range found {
		if t == want {
			return t, nil
		}
	}
	switch {
	case len(found) == 0 || want != "":
		return "", notFound("memory", id)
	case len(found) > 1:
		return "", invalid(field, "%q names memories of several types; set the link's %sType", id, field[:len(field)-2])
	}
	return found[0], nil
}

// Remove deletes the link of the given type between two memories. It
// returns [ErrNotFound] if there is no such link; other errors are as for
// [Links.Add].
func (l *Links) Remove(ctx context.Context, sourceID, targetID string, typ LinkType) error {
	if err := validateID("sourceID", sourceID); err != nil {
		return err
	}
	if err := validateID("targetID", targetID); err != nil {
		return err
	}
	if err := typ.Validate(); err != nil {
		return err
	}
	return l.m.write(ctx, "links.remove", func(q *dbtx) error {
		res, err := q.exec(`DELETE FROM zettel_links WHERE agent_id = ? AND source_id = ? AND target_id = ?
			AND link_type = ? AND source_type IN `+linkTypes,
			l.m.agent, sourceID, targetID, string(typ))
		return notFoundUnless(res, err, "link", fmt.Sprintf("%s -%s-> %s", sourceID, typ, targetID))
	})
}

// For returns the links that start or end at the memory with the given
// ID, strongest first. It returns an empty list for a memory without links
// (or one the agent does not have); other errors are as for [Links.Add].
func (l *Links) For(ctx context.Context, id string) ([]Link, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	var out []Link
	err := l.m.db.read(ctx, "links.for", func(q *dbtx) error {
		rows, err := q.query(`
			SELECT `+linkCols+` FROM zettel_links WHERE agent_id = ?1
				AND source_type IN `+linkTypes+` AND source_id = ?2
			UNION
			SELECT `+linkCols+` FROM zettel_links WHERE agent_id = ?1
				AND target_type IN `+linkTypes+` AND target_id = ?2
			ORDER BY strength DESC, created_at, source_id, target_id, link_type`, l.m.agent, id)
		if err != nil {
			return err
		}
		out, err = scanAll(rows, scanLink)
		return err
	})
	return out, err
}

// Traverse returns the memories reachable from the memory with the given ID
// by following up to depth links in either direction, nearest first, each
// once with its shortest distance. The start is not included. It runs as
// one recursive query and is safe on cycles.
//
// It returns [ErrNotFound] if the agent has no memory with that ID and an
// error matching [ErrInvalid] for a depth outside [1, MaxTraverseDepth];
// other errors are as for [Links.Add].
func (l *Links) Traverse(ctx context.Context, startID string, depth int) ([]LinkedMemory, error) {
	if err := validateID("startID", startID); err != nil {
		return nil, err
	}
	if depth < 1 || depth > MaxTraverseDepth {
		return nil, invalid("depth", "%d is outside [1, %d]", depth, MaxTraverseDepth)
	}
	var out []LinkedMemory
	err := l.m.db.read(ctx, "links.traverse", func(q *dbtx) error {
		// UNION (not UNION ALL) drops a (node, depth) pair already seen, so
		// a cycle adds nothing new once its nodes are in the frontier; the
		// depth bound ends the recursion.
		rows, err := q.query(`
			WITH RECURSIVE
			start(kind, id) AS (`+kindsByID+`),
			walk(kind, id, depth) AS (
				SELECT kind, id, 0 FROM start
				UNION
				SELECT l.target_type, l.target_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.source_type = w.kind AND l.source_id = w.id
					WHERE w.depth < ?3
				UNION
				SELECT l.source_type, l.source_id, w.depth + 1 FROM walk w
					JOIN zettel_links l ON l.agent_id = ?1 AND l.target_type = w.kind AND l.target_id = w.id
					WHERE w.depth < ?3)
			SELECT (SELECT count(*) FROM start), kind, id, min(depth) AS d FROM walk
			GROUP BY kind, id
			ORDER BY d, kind, id`, l.m.agent, startID, depth)
		if err != nil {
			return err
		}
		starts := 0
		out, err = scanAll(rows, func(r scanner) (LinkedMemory, error) {
			var lm LinkedMemory
			var kind string
			err := r.Scan(&starts, &kind, &lm.ID, &lm.Depth)
			lm.Type = MemoryType(kind)
			return lm, err
		})
		if err != nil {
			return err
		}
		if starts == 0 {
			return notFound("memory", startID)
		}
		// Drop the start itself (depth 0).
		kept := out[:0]
		for _, lm := range out {
			if lm.Depth > 0 {
				kept = append(kept, lm)
			}
		}
		out = kept
		return nil
	})
	return out, err
}

func scanLink(r scanner) (Link, error) {
	var lk Link
	var st, tt, typ string
	var created int64
	err := r.Scan(&st, &lk.SourceID, &tt, &lk.TargetID, &typ, &lk.Strength, &created)
	lk.SourceType, lk.TargetType, lk.Type, lk.CreatedAt = MemoryType(st), MemoryType(tt), LinkType(typ), fromMS(created)
	return lk, err
}

// Auto-linking.

// AutoLink links the semantic entry with the given ID to the agent's most
// similar other semantic entries, as [Semantic.Store] does when
// [ZettelkastenConfig.Enabled] is set: every entry whose similarity reaches
// LinkingThreshold gets a "similar" link, at most MaxLinksPerEntry of them,
// with the similarity as strength. Earlier links are kept; a link found
// again gets the new strength. It returns the links it made.
//
// Similarity is the cosine of the two texts' term vectors (Porter stems,
// stopwords left out, sublinear term frequency), in [0, 1]: 1 for the same
// words in the same proportions, 0 for no word in common. Candidates are
// the newest entries holding both of the two rarest terms the entry shares
// with any other entry (the rarest, if it shares only one): an entry
// similar enough to link shares most of its words. They are found in an
// in-memory index of the agent's stems, built on first use, so storing an
// entry with no near-duplicate costs no query for linking.
//
// It returns [ErrNotFound] if the agent has no such semantic entry;
// other errors are as for [Links.Add].
func (l *Links) AutoLink(ctx context.Context, id string) ([]Link, error) {
	if err := validateID("id", id); err != nil {
		return nil, err
	}
	now := l.m.now()
	var out []Link
	err := l.m.write(ctx, "links.auto_link", func(q *dbtx) error {
		var pk int64
		var content string
		if err := q.queryRow(`SELECT pk, content FROM semantic_memory WHERE agent_id = ? AND id = ?`,
			[]any{l.m.agent, id}, &pk, &content); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return notFound("semantic entry", id)
			}
			return err
		}
		var vec []float32
		if l.m.vectors != nil {
			var err error
			if vec, err = l.m.vectors.stored(q, TypeSemantic, pk); err != nil {
				return err
			}
		}
		var err error
		out, err = l.autoLink(q, pk, id, vec, now)
		return err
	})
	return out, err
}

// autoLink links the semantic entry with rowid pk to its most similar
// neighbours, inside the caller's transaction: by the cosine of its
// vector, when it has one (Tier 2), and else of its term vector, found in
// the stem index.
func (l *Links) autoLink(q *dbtx, pk int64, id string, emb []float32, now time.Time) ([]Link, error) {
	zc := l.m.cfg.Zettelkasten
	if zc.MaxLinksPerEntry == 0 {
		return nil, nil
	}
	var found []similarDoc
	if emb != nil {
		var err error
		if found, err = l.m.vectors.similar(q, pk, emb, zc.LinkingThreshold, zc.MaxLinksPerEntry); err != nil {
			return nil, err
		}
	} else {
		x := &l.m.stems
		if err := x.sync(q); err != nil {
			return nil, err
		}
		found = x.similar(pk, zc.LinkingThreshold, zc.MaxLinksPerEntry)
	}
	links := make([]Link, 0, len(found))
	for _, f := range found {
		// The target is checked in SQL too: the index is not the truth.
		res, err := q.exec(`INSERT INTO zettel_links (agent_id, `+linkCols+`)
			SELECT ?1, 'semantic', ?2, 'semantic', ?3, ?4, ?5, ?6
			WHERE EXISTS (SELECT 1 FROM semantic_memory WHERE agent_id = ?1 AND id = ?3)
			ON CONFLICT DO UPDATE SET strength = excluded.strength`,
			l.m.agent, id, f.id, string(LinkSimilar), f.sim, ms(now))
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			continue
		}
		links = append(links, Link{SourceID: id, TargetID: f.id, Type: LinkSimilar, Strength: f.sim,
			SourceType: TypeSemantic, TargetType: TypeSemantic, CreatedAt: now})
	}
	return links, nil
}

// stemIndex holds the term vectors of the agent's semantic entries in
// memory, with an inverted index from each Porter stem to the entries
// holding it, so that auto-linking finds an entry's near-duplicates and
// their similarity without a query: with FTS5, the term lookups and the
// intersection cost several hundred microseconds per stored entry, and
// most new entries have no near-duplicate at all.
//
// It is built on first use from the table (at about 150 bytes per entry)
// and follows the change log (see changelog.go): every insert, delete and
// change of content of one of the agent's entries in this Memory's
// transactions, whatever statement made it. A counter in meta, moved on
// by triggers whenever one of the agent's entries is inserted, deleted or
// given new content, whichever connection does it, tells whether anything
// else changed them: then the index is built again. It is thrown away
// when a transaction (or savepoint) that changed it rolls back. A link is
// written only if its target still exists. It is used inside write
// transactions only, so the writer lock guards it.
type stemIndex struct {
	agent    string
	log      *changeLog // told when the index is built or thrown away
	built    bool
	version  int64             // the agent's semantic.version when in step
	terms    map[string]uint32 // stem → term number
	postings [][]int64         // term number → rowids holding it, ascending
	docs     map[int64]stemDoc // rowid → its entry
	// tx is the write transaction that last changed the index, whose
	// rollback drops it, and in which it is known to be in step with the
	// counter (no other connection writes while a write transaction is
	// open).
	tx *writeTx
	// undo is where the rollback callback that drops the index is
	// registered: one in the transaction, and one in each savepoint that
	// changed the index.
	undo rollbackScope
}

// stemDoc is one entry's ID and term vector, sorted by term number.
type stemDoc struct {
	id   string
	vec  []termWeight
	norm float64
}

type termWeight struct {
	term   uint32
	weight float32
}

// metaSemanticVersion (+ agent) counts the changes to the agent's
// semantic entries (migration 0002's triggers).
const metaSemanticVersion = "semantic.version:"

// reset throws the index away; the next sync builds it again.
func (x *stemIndex) reset() {
	was := x.built
	*x = stemIndex{agent: x.agent, log: x.log, undo: x.undo}
	if was && x.log != nil {
		x.refreshLog()
	}
}

// refreshLog tells the change log the index's needs changed. A failure
// to register the hook leaves the index unbuilt, which needs nothing.
func (x *stemIndex) refreshLog() {
	if err := x.log.refresh(context.Background()); err != nil {
		*x = stemIndex{agent: x.agent, log: x.log, undo: x.undo}
	}
}

// watches asks for the agent's semantic entries' changes while the index
// is built: a Memory that never auto-links pays nothing for them.
func (x *stemIndex) watches(all bool) []watch {
	if !all && !x.built {
		return nil
	}
	return []watch{{kind: TypeSemantic, ops: "iud", text: true}}
}

// follow applies the agent's changes of cs to the index, if it is built
// and nothing else changed the entries: otherwise it is built again when
// next used.
func (x *stemIndex) follow(q *dbtx, cs []change) error {
	if !x.built {
		return nil
	}
	own := ownChanges(cs, x.agent, TypeSemantic)
	if own == 0 {
		return nil
	}
	if x.tx != q.tx {
		v, err := counter(q, metaSemanticVersion+x.agent)
		if err != nil {
			return err
		}
		if v != x.version+int64(own) {
			x.reset()
			return nil
		}
	}
	x.changedIn(q)
	var changed []int64 // rows whose content changed: read them again
	for i := range cs {
		c := &cs[i]
		if c.agent != x.agent || c.kind != TypeSemantic {
			continue
		}
		switch c.op {
		case changeInsert:
			x.put(c.pk, c.id, c.termVector())
		case changeDelete:
			x.drop(c.pk)
		default:
			changed = append(changed, c.pk)
		}
	}
	x.version += int64(own)
	if len(changed) == 0 {
		return nil
	}
	for _, pk := range changed {
		x.drop(pk)
	}
	list, _ := json.Marshal(changed)
	return x.putRows(q, `SELECT s.pk, s.id, s.content FROM json_each(?1) j CROSS JOIN semantic_memory s ON s.pk = j.value
		WHERE s.agent_id = ?2`, string(list), x.agent)
}

// putRows indexes the entries query returns as (pk, id, content).
func (x *stemIndex) putRows(q *dbtx, query string, args ...any) error {
	rows, err := q.query(query, args...)
	if err != nil {
		return err
	}
	_, err = scanAll(rows, func(r scanner) (struct{}, error) {
		var pk int64
		var id, content string
		if err := r.Scan(&pk, &id, &content); err != nil {
			return struct{}{}, err
		}
		x.put(pk, id, termVector(content))
		return struct{}{}, nil
	})
	return err
}

// changedIn notes that q's transaction changes the index: its rollback,
// or that of the savepoint open in it, drops it.
func (x *stemIndex) changedIn(q *dbtx) {
	x.tx = q.tx
	q.onRollbackIn(&x.undo, func() func() { return x.reset })
}

// sync makes the index current in q's write transaction: it takes the
// transaction's changes so far from the change log, then builds the
// index if it is not built, or if the agent's entries changed in ways it
// did not follow.
func (x *stemIndex) sync(q *dbtx) error {
	if err := q.changes(); err != nil {
		return err
	}
	if x.built && x.tx == q.tx {
		return nil
	}
	v, err := counter(q, metaSemanticVersion+x.agent)
	if err != nil {
		return err
	}
	if x.built && v == x.version {
		x.changedIn(q) // known to be in step for the rest of q
		return nil
	}
	x.reset()
	x.terms, x.docs = make(map[string]uint32), make(map[int64]stemDoc)
	err = x.putRows(q, `SELECT pk, id, content FROM semantic_memory WHERE agent_id = ? ORDER BY pk`, x.agent)
	if err != nil {
		x.reset()
		return err
	}
	x.built, x.version = true, v
	x.changedIn(q) // built from q's view, which a rollback undoes
	if err := x.log.refresh(q.ctx); err != nil {
		x.reset()
		return err
	}
	return nil
}

// put indexes the entry with rowid pk, replacing what was indexed there.
func (x *stemIndex) put(pk int64, id string, vec map[string]float64) {
	x.drop(pk)
	d := stemDoc{id: id, vec: make([]termWeight, 0, len(vec))}
	for st, w := range vec {
		t, ok := x.terms[st]
		if !ok {
			t = uint32(len(x.postings))
			x.terms[st] = t
			x.postings = append(x.postings, nil)
		}
		d.vec = append(d.vec, termWeight{t, float32(w)})
		d.norm += float64(float32(w)) * float64(float32(w))
		p := x.postings[t]
		if n := len(p); n == 0 || p[n-1] < pk {
			x.postings[t] = append(p, pk)
		} else if i, found := slices.BinarySearch(p, pk); !found {
			x.postings[t] = slices.Insert(p, i, pk)
		}
	}
	slices.SortFunc(d.vec, func(a, b termWeight) int { return cmp.Compare(a.term, b.term) })
	d.norm = math.Sqrt(d.norm)
	x.docs[pk] = d
}

// drop removes the entry with rowid pk. Term numbers stay allocated.
func (x *stemIndex) drop(pk int64) {
	d, ok := x.docs[pk]
	if !ok {
		return
	}
	for _, tw := range d.vec {
		p := x.postings[tw.term]
		if i, found := slices.BinarySearch(p, pk); found {
			x.postings[tw.term] = slices.Delete(p, i, i+1)
		}
	}
	delete(x.docs, pk)
}

type similarDoc struct {
	pk  int64
	id  string
	sim float64
}

// similar returns up to n other entries whose cosine similarity to the
// entry with rowid pk reaches threshold, most similar first. Candidates
// are the newest 4n entries holding both of the two rarest terms that any
// other entry holds (the rarest alone, if only one is shared): an entry
// similar enough to link shares most of its words, the rarest ones
// included.
func (x *stemIndex) similar(pk int64, threshold float64, n int) []similarDoc {
	d := x.docs[pk]
	var rare []uint32
	for _, tw := range d.vec {
		if len(x.postings[tw.term]) >= 2 { // someone besides the entry
			rare = append(rare, tw.term)
		}
	}
	if len(rare) == 0 {
		return nil
	}
	slices.SortFunc(rare, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(len(x.postings[a]), len(x.postings[b])), cmp.Compare(a, b))
	})
	first := x.postings[rare[0]]
	var second []int64
	if len(rare) > 1 {
		second = x.postings[rare[1]]
	}
	var out []similarDoc
	seen := 0
	for i := len(first) - 1; i >= 0 && seen < 4*n; i-- {
		c := first[i]
		if c == pk {
			continue
		}
		if second != nil {
			if _, ok := slices.BinarySearch(second, c); !ok {
				continue
			}
		}
		seen++
		cd := x.docs[c]
		if sim := cosineSorted(d, cd); sim >= threshold && sim > 0 {
			out = append(out, similarDoc{c, cd.id, sim})
		}
	}
	slices.SortStableFunc(out, func(a, b similarDoc) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id))
	})
	return out[:min(len(out), n)]
}

// cosineSorted is the cosine similarity of two entries' term vectors, in
// [0, 1].
func cosineSorted(a, b stemDoc) float64 {
	if a.norm == 0 || b.norm == 0 {
		return 0
	}
	var dot float64
	for i, j := 0, 0; i < len(a.vec) && j < len(b.vec); {
		switch {
		case a.vec[i].term < b.vec[j].term:
			i++
		case a.vec[i].term > b.vec[j].term:
			j++
		default:
			dot += float64(a.vec[i].weight) * float64(b.vec[j].weight)
			i, j = i+1, j+1
		}
	}
	return min(1, dot/(a.norm*b.norm))
}

// termVector maps each stem of text (stopwords left out) to its sublinear
// term frequency, 1 + ln(tf).
func termVector(text string) map[string]float64 {
	v := map[string]float64{}
	for _, tok := range query.Tokens(text) {
		if !query.IsStopword(tok) {
			v[query.Stem(tok)]++
		}
	}
	for k, tf := range v {
		v[k] = 1 + math.Log(tf)
	}
	return v
}
