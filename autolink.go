package engram

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/engram-go/engram/internal/query"
)

// AutoLink links the semantic entry with the given ID to the agent's most
// similar other semantic entries, as [Semantic.Store] does when
// [ZettelkastenConfig.Enabled] is set: every entry whose similarity reaches
// LinkingThreshold gets a "similar" link, at most MaxLinksPerEntry of them,
// with the similarity as strength. Earlier links are kept; a link found
// again gets the new strength. It returns the links it made.
//
// Similarity is the cosine of the two texts' term vectors (Porter stems,
// stopwords left out, sublinear term frequency), in [0, 1]: 1 for the same
// words in the same proportions, 0 for no word in common. Every entry
// that reaches the threshold is found, none missed. By Cauchy–Schwarz, an
// entry reaches it only if it holds one of the entry's rarest terms that
// together carry more than 1 − threshold² of its squared weight, so only
// the entries holding one of those are compared. They are looked up in an
// in-memory index of the agent's stems, built on first use, so storing an
// entry costs no query for linking.
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
	undo    rollbackScope
	scratch struct { // similar's buffers, kept between calls
		order []termWeight
		ws    []uint32
		ends  []int
		cands []int64
	}
}

// stemDoc is one entry's ID and term vector, sorted by term number, with
// its norm.
type stemDoc struct {
	id   string
	vec  []termWeight
	norm float64
}

// termWeight is a term number and its weight (see termVector).
type termWeight struct {
	term, weight uint32
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
func (x *stemIndex) put(pk int64, id string, vec map[string]uint32) {
	x.drop(pk)
	doc := stemDoc{id: id, vec: make([]termWeight, 0, len(vec))}
	var norm exactSum
	for st, w := range vec {
		norm.add(w, w)
		t, ok := x.terms[st]
		if !ok {
			t = uint32(len(x.postings))
			x.terms[st] = t
			x.postings = append(x.postings, nil)
		}
		doc.vec = append(doc.vec, termWeight{t, w})
		p := x.postings[t]
		if n := len(p); n == 0 || p[n-1] < pk {
			x.postings[t] = append(p, pk)
		} else if i, found := slices.BinarySearch(p, pk); !found {
			x.postings[t] = slices.Insert(p, i, pk)
		}
	}
	slices.SortFunc(doc.vec, func(a, b termWeight) int { return cmp.Compare(a.term, b.term) })
	doc.norm = math.Sqrt(norm.value())
	x.docs[pk] = doc
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

// similar returns up to n other entries whose cosine similarity to the
// entry with rowid pk reaches threshold, most similar first, then by ID:
// every such entry. The candidates are the entries holding one of the
// entry's rarest terms that carry more than 1 − threshold² of its squared
// weight (see linkGroups).
func (x *stemIndex) similar(pk int64, threshold float64, n int) []similarDoc {
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
	for _, tw := range sc.order {
		sc.ws = append(sc.ws, tw.weight)
	}
	sc.ends = linkGroups(sc.ends[:0], sc.ws, threshold)
	sc.cands = sc.cands[:0]
	for _, tw := range sc.order[:sc.ends[0]] {
		sc.cands = append(sc.cands, x.postings[tw.term]...)
	}
	slices.Sort(sc.cands)
	var out []similarDoc
	for i, c := range sc.cands {
		if c == pk || i > 0 && c == sc.cands[i-1] {
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

// termVector maps each stem of text (stopwords left out) to its weight.
func termVector(text string) map[string]uint32 {
	tf := map[string]int{}
	for _, tok := range query.Tokens(text) {
		if !query.IsStopword(tok) {
			tf[query.Stem(tok)]++
		}
	}
	v := make(map[string]uint32, len(tf))
	for st, n := range tf {
		v[st] = termWeight32(n)
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

// bestSimilar sorts found most similar first, then by ID, and keeps n.
func bestSimilar(found []similarDoc, n int) []similarDoc {
	slices.SortFunc(found, func(a, b similarDoc) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id))
	})
	return found[:min(len(found), n)]
}
