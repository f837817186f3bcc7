package engram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/engram-go/engram/internal/mdchunk"
	"github.com/engram-go/engram/internal/store"
)

// Document ingestion (seed 004): markdown files become chunks, a kind of
// stored memory (TypeDocument) searched like the others, each carrying
// where it was found.

// IngestOptions configures [Memory.Ingest]. The zero value ingests the
// .md and .markdown files of a tree.
type IngestOptions struct {
	// Name is what sources are named under: a chunk of dir/guide/a.md,
	// when dir is ingested, has source Name + "/guide/a.md", and of a
	// file ingested alone, source Name. The default is the base name of
	// the path ingested ("dir", "a.md"). It may not hold "\" or ".."
	// elements.
	Name string
	// Extensions are the file name endings ingested from a directory,
	// compared without regard to case; default ".md" and ".markdown". A
	// file given by its own path is ingested whatever its name.
	Extensions []string
	// MaxChunkChars is the length over which a section is split between
	// its paragraphs; default 12,000 characters (see internal/mdchunk).
	MaxChunkChars int
	// Extract runs each stored or updated chunk through [Memory.Extract]
	// (the agent's extraction rules, and the LLM when the Memory has
	// one), as a user message, to make facts, episodes and procedures.
	Extract bool
	// Progress, when set, is called after each file with the report so
	// far and the file's source.
	Progress func(source string, report IngestReport)
}

// IngestReport says what [Memory.Ingest] did.
type IngestReport struct {
	Files  int // markdown files read
	Chunks int // chunks they hold
	// Stored counts new chunks; Updated chunks whose text changed in
	// place; Linked chunks found already in another place (the same text,
	// or a near-duplicate: see Ingest), which got this place added to
	// their sources; Skipped chunks unchanged since the last ingestion;
	// Archived chunks that left their files (see [Memory.Restore]).
	Stored, Updated, Linked, Skipped, Archived int
	// Extracted counts the memories and facts extraction stored (with
	// IngestOptions.Extract).
	Extracted int
	// Errors are what was not read or stored, as "file[chunk]: reason"
	// or "file: reason": binary files, invalid UTF-8, files over
	// [MarkdownConfig].MaxFileBytes, chunks over [Limits].MaxContentBytes,
	// unreadable frontmatter, symbolic links leaving the tree.
	Errors []string
}

// DocumentSource is a place a chunk was found.
type DocumentSource struct {
	Source  string // the file (see IngestOptions.Name)
	Heading string // its heading path: "Deploy > Rollback"
	Index   int    // the chunk's index in the file, from 0
}

// place is a place a chunk was found, with the hash of the text found
// there (a near-duplicate's differs from the chunk's), by which ingesting
// the file again knows it unchanged.
type place = store.ChunkPlace

// decodePlaces decodes a chunk's other places as the store holds them (see
// store.DecodeChunkPlaces).
func decodePlaces(s string) ([]place, error) { return store.DecodeChunkPlaces(s) }

// docSource is the place p without its hash.
func docSource(p place) DocumentSource { return DocumentSource{p.Source, p.Heading, p.Index} }

// String cites the place: "guide/deploy.md > Deploy > Rollback".
func (s DocumentSource) String() string {
	if s.Heading == "" {
		return s.Source
	}
	return s.Source + " > " + s.Heading
}

// DocumentChunk is a chunk of a markdown document (see [Memory.Ingest]).
type DocumentChunk struct {
	ID string
	DocumentSource
	// Also are the other places the same or nearly the same text was
	// found.
	Also       []DocumentSource
	Title      string   // the document's frontmatter title
	Tags       []string // the document's frontmatter tags
	Content    string   // the chunk's markdown, its heading line included
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Retrievals int
}

// maxDocumentSourceBytes bounds a chunk's source (a file's path under
// IngestOptions.Name); a longer path is reported, not stored.
const maxDocumentSourceBytes = 4096

// documentNearDuplicate is the term cosine at or over which a new chunk is
// the same text as a stored one, found in another place.
const documentNearDuplicate = 0.9

// Ingest reads the markdown file or the tree of markdown files at path
// and stores their chunks as document memory ([TypeDocument]): each
// file's YAML or TOML frontmatter is left out (its title and tags kept on
// the chunks), the body is split at its h1–h3 headings into chunks that
// carry their heading path ("Deploy > Rollback"), sections over
// IngestOptions.MaxChunkChars are split between paragraphs, and code
// blocks are never split. A directory is walked in lexical order; its
// hidden entries (".git") are passed over, and symbolic links are
// followed only to files inside the tree.
//
// A chunk already stored from the same place with the same text is
// skipped, so ingesting an unchanged tree again stores nothing. A chunk
// whose text is stored already from another place, or nearly (term
// cosine at least 0.9), gets this place added to that chunk's sources
// instead of a new memory. A changed file updates its changed chunks in
// place and archives the chunks that left it ([Memory.Restore] brings
// them back); the chunks of a file that left the tree are archived too,
// unless another place still holds them. Search finds chunks like other
// memories, and a result cites its place (see [Result].Source).
//
// Each file is one transaction. Files and chunks that cannot be stored
// are in the report's Errors, and the rest is stored. It returns an error
// matching [ErrInvalid] for a bad path or options, an [*fs.PathError]
// when path cannot be read, the context's error when it is cancelled
// (the files done so far stay stored), [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) Ingest(ctx context.Context, path string, opts IngestOptions) (IngestReport, error) {
	var rep IngestReport
	info, name, exts, err := m.checkIngest(path, opts)
	if err != nil {
		return rep, err
	}
	files, walkErrs, err := ingestFiles(path, info, name, exts)
	if err != nil {
		return rep, fmt.Errorf("engram: ingest: %w", err)
	}
	rep.Errors = append(rep.Errors, walkErrs...)

	m.ingestMu.Lock()
	defer m.ingestMu.Unlock()
	ix, err := m.loadDocIndex(ctx)
	if err != nil {
		return rep, err
	}
	seen, err := m.ingestAll(ctx, ix, files, opts, &rep)
	if err != nil {
		return rep, err
	}
	if info.IsDir() {
		err = m.ingestGone(ctx, ix, name, seen, opts, &rep)
	}
	return rep, err
}

// checkIngest checks Ingest's path and options, and returns what path
// is, the name its files' sources start with and the extensions of the
// files to ingest.
func (m *Memory) checkIngest(path string, opts IngestOptions) (info fs.FileInfo, name string, exts []string, err error) {
	if strings.TrimSpace(path) == "" {
		return nil, "", nil, invalid("path", "must not be empty")
	}
	if opts.MaxChunkChars < 0 || opts.MaxChunkChars > m.cfg.Limits.MaxContentBytes {
		return nil, "", nil, invalid("IngestOptions.MaxChunkChars", "must be in [0, Limits.MaxContentBytes]")
	}
	exts = opts.Extensions
	if len(exts) == 0 {
		exts = []string{".md", ".markdown"}
	}
	info, err = os.Stat(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("engram: ingest: %w", err)
	}
	name = opts.Name
	if name == "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, "", nil, fmt.Errorf("engram: ingest: %w", err)
		}
		name = filepath.Base(abs)
	}
	if err := validateText("IngestOptions.Name", name, true, maxDocumentSourceBytes/4); err != nil {
		return nil, "", nil, err
	}
	if strings.Contains(name, `\`) || slices.Contains(strings.Split(name, "/"), "..") {
		return nil, "", nil, invalid("IngestOptions.Name", "%q may not hold \\ or .. elements", name)
	}
	return info, name, exts, nil
}

// ingestAll ingests files in order, each in its transaction, and returns
// their sources.
func (m *Memory) ingestAll(ctx context.Context, ix *docIndex, files []ingestFile, opts IngestOptions, rep *IngestReport) (map[string]bool, error) {
	seen := map[string]bool{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seen[f.source] = true
		if len(f.source) > maxDocumentSourceBytes || !utf8.ValidString(f.source) {
			rep.Errors = append(rep.Errors, fmt.Sprintf("%.200q: the path is over %d bytes or not UTF-8", f.source, maxDocumentSourceBytes))
			continue
		}
		if err := m.ingestFile(ctx, ix, f, opts, rep); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(f.source, rep.clone())
		}
	}
	return seen, nil
}

// ingestGone removes the chunks of the files under the directory name
// that left the tree (those not seen), in the order of their sources.
func (m *Memory) ingestGone(ctx context.Context, ix *docIndex, name string, seen map[string]bool, opts IngestOptions, rep *IngestReport) error {
	var gone []string
	for src := range ix.bySource {
		if strings.HasPrefix(src, name+"/") && !seen[src] && len(ix.bySource[src]) > 0 {
			gone = append(gone, src)
		}
	}
	slices.Sort(gone)
	for _, src := range gone {
		if err := m.ingestFile(ctx, ix, ingestFile{source: src, gone: true}, opts, rep); err != nil {
			return err
		}
	}
	return nil
}

func (r IngestReport) clone() IngestReport {
	r.Errors = slices.Clone(r.Errors)
	return r
}

// ingestFile is a file to ingest: where it is and its source.
type ingestFile struct {
	path, source string
	gone         bool // left the tree: its chunks leave
}

// ingestFiles lists the files to ingest under path, in lexical order,
// with what it passed over and why.
func ingestFiles(path string, info fs.FileInfo, name string, exts []string) ([]ingestFile, []string, error) {
	if !info.IsDir() {
		return []ingestFile{{path: path, source: name}}, nil, nil
	}
	root, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil, err
	}
	var files []ingestFile
	var skipped []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		rel, rerr := filepath.Rel(path, p)
		if rerr != nil {
			return rerr
		}
		source := name + "/" + filepath.ToSlash(rel)
		if err != nil {
			skipped = append(skipped, source+": "+err.Error())
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == path {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !hasExt(d.Name(), exts) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				skipped = append(skipped, source+": "+err.Error())
				return nil
			}
			if r, err := filepath.Rel(root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				skipped = append(skipped, source+": a symbolic link leaving the tree, not followed")
				return nil
			}
			if st, err := os.Stat(target); err != nil || !st.Mode().IsRegular() {
				skipped = append(skipped, source+": a symbolic link to no regular file, not followed")
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		files = append(files, ingestFile{path: p, source: source})
		return nil
	})
	return files, skipped, err
}

func hasExt(name string, exts []string) bool {
	for _, e := range exts {
		if len(name) >= len(e) && strings.EqualFold(name[len(name)-len(e):], e) {
			return true
		}
	}
	return false
}

// docRow is a stored chunk, as ingestion knows it.
type docRow struct {
	pk      int64
	id      string
	hash    string
	primary place // its hash is the row's
	also    []place
	vec     map[string]uint32 // its term vector, once the near-duplicate index holds it
	gone    bool              // archived in this run
	n       int               // its place in docIndex.rows
}

// docRef is a place a row was found: its primary source (at -1) or one
// of its others.
type docRef struct {
	row *docRow
	at  int
}

func (r docRef) place() place {
	if r.at < 0 {
		return r.row.primary
	}
	return r.row.also[r.at]
}

// docIndex is what ingestion knows of the agent's chunks, read once per
// Ingest (which the writer lock and ingestMu keep current).
type docIndex struct {
	byHash   map[string][]*docRow
	byPK     map[int64]*docRow
	bySource map[string][]*docRow // the rows found in a file, once each
	// The near-duplicate index, built when a chunk first needs it.
	built    bool
	postings map[string][]*docRow
	norms    map[*docRow]float64
	rows     []*docRow
	// held is nearDuplicate's scratch, by row (docRow.n): the weight of
	// the terms a row holds, valid where stamp is gen.
	held  []float64
	stamp []uint32
	gen   uint32
}

// loadDocIndex reads the agent's chunks, without their text.
func (m *Memory) loadDocIndex(ctx context.Context) (*docIndex, error) {
	ix := &docIndex{byHash: map[string][]*docRow{}, byPK: map[int64]*docRow{}, bySource: map[string][]*docRow{}}
	err := m.read(ctx, "ingest.index", func(q store.Tx) error {
		return store.EachChunkKey(q, m.agent, func(k store.ChunkKey) error {
			ix.add(&docRow{pk: k.PK, id: k.ID, hash: string(k.Hash), primary: k.Primary, also: k.Also})
			return nil
		})
	})
	return ix, err
}

// add indexes a row by hash and by the files it was found in.
func (ix *docIndex) add(d *docRow) {
	ix.byHash[d.hash] = append(ix.byHash[d.hash], d)
	for _, s := range d.sources() {
		if !slices.Contains(ix.bySource[s.Source], d) {
			ix.bySource[s.Source] = append(ix.bySource[s.Source], d)
		}
	}
	d.n = len(ix.rows)
	ix.rows = append(ix.rows, d)
	ix.byPK[d.pk] = d
}

func (d *docRow) sources() []place { return append([]place{d.primary}, d.also...) }

// reindexSources recomputes bySource for the files of before and of d now.
func (ix *docIndex) reindexSources(d *docRow, before []place) {
	for _, s := range before {
		ix.bySource[s.Source] = slices.DeleteFunc(ix.bySource[s.Source], func(x *docRow) bool { return x == d })
	}
	if d.gone {
		return
	}
	for _, s := range d.sources() {
		if !slices.Contains(ix.bySource[s.Source], d) {
			ix.bySource[s.Source] = append(ix.bySource[s.Source], d)
		}
	}
}

// nearDuplicate returns the live row whose term cosine with vec is the
// highest at or over documentNearDuplicate, or nil. vec's terms, rarest
// first, fall into groups that each carry more than 1 − 0.9² of its
// squared weight (see linkGroups): only a row holding a term of every
// group can reach 0.9, so only those are compared.
func (m *Memory) nearDuplicate(q store.Tx, ix *docIndex, vec map[string]uint32) (*docRow, error) {
	if !ix.built {
		if err := m.buildNearIndex(q, ix); err != nil {
			return nil, err
		}
	}
	if len(vec) == 0 {
		return nil, nil
	}
	terms, ws := ix.rarestFirst(vec)
	ends := linkGroups(nil, ws, documentNearDuplicate)
	// A row reaching the threshold lacks at most 1 − 0.9² of vec's
	// squared weight (its cosine is at most the norm of the terms it
	// holds over vec's norm): so it holds a term of the first group, and
	// of the rarest terms, whose postings are walked while they are
	// short, it lacks at most that much.
	normSq := 0.0
	for _, w := range ws {
		normSq += weightFloat(w) * weightFloat(w)
	}
	limit := (1 - documentNearDuplicate*documentNearDuplicate) * normSq * (1 + 1e-9)
	return ix.closest(ix.nearCandidates(terms, ends[0], limit), terms), nil
}

// nearTerm is a term of nearDuplicate's vector: its weight and the
// number of its postings.
type nearTerm struct {
	term string
	w    uint32
	n    int
}

// rarestFirst returns vec's terms, rarest first (then by term), and their
// weights in that order.
func (ix *docIndex) rarestFirst(vec map[string]uint32) ([]nearTerm, []uint32) {
	terms := make([]nearTerm, 0, len(vec))
	for t, w := range vec {
		terms = append(terms, nearTerm{t, w, len(ix.postings[t])})
	}
	slices.SortFunc(terms, func(a, b nearTerm) int {
		if a.n != b.n {
			return a.n - b.n
		}
		return strings.Compare(a.term, b.term)
	})
	ws := make([]uint32, len(terms))
	for i, t := range terms {
		ws[i] = t.w
	}
	return terms, ws
}

// nearCandidates returns the live rows holding a term of the first group
// (terms[:first]) that lack at most limit of the squared weight of the
// rarest terms, those whose postings are walked while they are short.
func (ix *docIndex) nearCandidates(terms []nearTerm, first int, limit float64) []*docRow {
	ix.gen++
	if len(ix.held) < len(ix.rows) {
		ix.held = slices.Grow(ix.held[:0], len(ix.rows))[:len(ix.rows)]
		ix.stamp = slices.Grow(ix.stamp[:0], len(ix.rows))[:len(ix.rows)]
		clear(ix.stamp)
		ix.gen = 1
	}
	var cands []*docRow
	prefix := 0.0
	for i, t := range terms {
		post := ix.postings[t.term]
		if i >= first && len(post) > 4*len(cands)+64 {
			break // common terms from here on: the rows are compared instead
		}
		w2 := weightFloat(t.w) * weightFloat(t.w)
		prefix += w2
		for _, d := range post {
			if d.gone {
				continue
			}
			if ix.stamp[d.n] != ix.gen {
				if i >= first {
					continue
				}
				ix.stamp[d.n], ix.held[d.n] = ix.gen, 0
				cands = append(cands, d)
			}
			ix.held[d.n] += w2
		}
	}
	return slices.DeleteFunc(cands, func(d *docRow) bool { return prefix-ix.held[d.n] > limit })
}

// closest returns the candidate whose term cosine with terms is the
// highest at or over documentNearDuplicate, or nil.
func (ix *docIndex) closest(cands []*docRow, terms []nearTerm) *docRow {
	// Compare in the terms' order, rarest first, giving up on a row once
	// what is left of vec cannot bring it to the threshold: a row that
	// lacks vec's rare terms is passed over after a few of them.
	rest := make([]float64, len(terms)+1) // the norm of terms[i:]
	for i := len(terms) - 1; i >= 0; i-- {
		w := weightFloat(terms[i].w)
		rest[i] = math.Sqrt(rest[i+1]*rest[i+1] + w*w)
	}
	norm := rest[0]
	var best *docRow
	bestSim := 0.0
	for _, d := range cands {
		nb := ix.norms[d]
		need := documentNearDuplicate * norm * nb * (1 - 1e-9)
		dot := 0.0
		for i, t := range terms {
			if x, ok := d.vec[t.term]; ok {
				dot += weightFloat(t.w) * weightFloat(x)
			}
			if i%8 == 7 && dot+rest[i+1]*nb < need {
				dot = -1
				break
			}
		}
		if dot < 0 || nb == 0 {
			continue
		}
		if sim := min(1, dot/(norm*nb)); sim >= documentNearDuplicate && sim > bestSim {
			best, bestSim = d, sim
		}
	}
	return best
}

// buildNearIndex reads the text of the agent's chunks in q's transaction
// and indexes their term vectors.
func (m *Memory) buildNearIndex(q store.Tx, ix *docIndex) error {
	byPK := make(map[int64]*docRow, len(ix.rows))
	for _, d := range ix.rows {
		byPK[d.pk] = d
	}
	ix.postings, ix.norms, ix.built = map[string][]*docRow{}, map[*docRow]float64{}, true
	return store.EachChunkText(q, m.agent, func(pk int64, content string) error {
		if d := byPK[pk]; d != nil && !d.gone {
			ix.addVec(d, termVector(content))
		}
		return nil
	})
}

func (ix *docIndex) addVec(d *docRow, vec map[string]uint32) {
	if !ix.built {
		return
	}
	d.vec = vec
	ix.norms[d] = vecNorm(vec)
	for t := range vec {
		ix.postings[t] = append(ix.postings[t], d)
	}
}

func vecNorm(v map[string]uint32) float64 {
	s := 0.0
	for _, w := range v {
		s += weightFloat(w) * weightFloat(w)
	}
	return math.Sqrt(s)
}

// newChunk is a chunk of a file being ingested.
type newChunk struct {
	mdchunk.Chunk
	at      int // its place among the file's chunks kept (and their vectors)
	index   int
	hash    string
	matched bool
}

// ingestFile ingests one file, in one transaction (none when nothing of
// it changed).
func (m *Memory) ingestFile(ctx context.Context, ix *docIndex, f ingestFile, opts IngestOptions, rep *IngestReport) error {
	var doc mdchunk.Doc
	if !f.gone {
		data, problem, err := m.readDocument(f.path)
		if err != nil {
			return err
		}
		if problem != "" {
			rep.Errors = append(rep.Errors, f.source+": "+problem)
			return nil // its chunks stay as they were
		}
		rep.Files++
		doc = mdchunk.Split(data, opts.MaxChunkChars)
		if doc.FrontmatterErr != nil {
			rep.Errors = append(rep.Errors, f.source+": frontmatter not read (its title and tags are left out): "+doc.FrontmatterErr.Error())
		}
	}
	var chunks []*newChunk
	for i, c := range doc.Chunks {
		rep.Chunks++
		if len(c.Text) > m.cfg.Limits.MaxContentBytes {
			rep.Errors = append(rep.Errors, fmt.Sprintf("%s[%d]: %d bytes, over Limits.MaxContentBytes (%d)", f.source, i, len(c.Text), m.cfg.Limits.MaxContentBytes))
			continue
		}
		chunks = append(chunks, &newChunk{Chunk: c, index: i, hash: string(textHash(c.Text))})
	}
	tags := doc.Tags
	if err := validateTags("tags", tags, m.cfg.Limits); err != nil {
		rep.Errors = append(rep.Errors, f.source+": frontmatter tags left out: "+err.Error())
		tags = nil
	}
	title := doc.Title
	if err := validateText("title", title, false, m.cfg.Limits.MaxContentBytes); err != nil {
		rep.Errors = append(rep.Errors, f.source+": frontmatter title left out: "+err.Error())
		title = ""
	}
	if ix.unchanged(f.source, chunks) {
		rep.Skipped += len(chunks)
		return nil // no transaction for a file engram holds as it is
	}
	// Tier 2: the chunks' vectors, before the transaction (the embedding
	// cache answers for the texts embedded before).
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		c.at = i
		texts[i] = c.Text
	}
	es, err := m.embedNew(ctx, texts)
	if err != nil {
		return err
	}
	now := m.now()
	var counts IngestReport
	var extract []string
	// The index follows the transaction's changes as they are made; on
	// error Ingest returns and drops it.
	err = m.write(ctx, "ingest", func(q store.Tx) error {
		// History records the chunks' creations and changes with reason
		// "ingest" (an archive is recorded as archive).
		return recordAs(q, "", "ingest", func() error {
			return m.ingestChunks(q, ix, f.source, title, tags, chunks, es, now, &counts, &extract)
		})
	})
	if err != nil {
		return err
	}
	rep.Stored += counts.Stored
	rep.Updated += counts.Updated
	rep.Linked += counts.Linked
	rep.Skipped += counts.Skipped
	rep.Archived += counts.Archived
	if counts.Stored+counts.Updated > 0 {
		m.embedSoon(ctx)
	}
	if opts.Extract {
		for i, text := range extract {
			res, err := m.Extract(ctx, []Message{{Role: "user", Content: text}})
			if err != nil {
				var inv *InvalidError
				if errors.As(err, &inv) || errors.Is(err, ErrBadAnswer) {
					rep.Errors = append(rep.Errors, fmt.Sprintf("%s[%d]: extraction: %v", f.source, i, err))
					continue
				}
				return err
			}
			rep.Extracted += len(res.Items) + len(res.Facts)
		}
	}
	return nil
}

// unchanged reports whether the file source holds exactly chunks, each
// with the text and at the place engram has for it, and nothing else.
func (ix *docIndex) unchanged(source string, chunks []*newChunk) bool {
	type key struct {
		hash, heading string
		index         int
	}
	held := map[key]int{}
	n := 0
	for _, d := range ix.bySource[source] {
		for _, p := range d.sources() {
			if p.Source == source {
				held[key{string(p.Hash), p.Heading, p.Index}]++
				n++
			}
		}
	}
	if n != len(chunks) {
		return false
	}
	for _, c := range chunks {
		k := key{c.hash, c.HeadingPath(), c.index}
		if held[k] == 0 {
			return false
		}
		held[k]--
	}
	return true
}

// ingestChunks stores a file's chunks in q's transaction, and keeps ix in
// step.
func (m *Memory) ingestChunks(q store.Tx, ix *docIndex, source, title string, tags []string,
	chunks []*newChunk, es []embedded, now time.Time, rep *IngestReport, extract *[]string) error {
	refs := heldPlaces(ix, source)
	p := chunkPlacer{m: m, q: q, ix: ix, source: source, title: title, tags: tags, es: es, now: now,
		rep: rep, extract: extract, refs: refs, used: make([]bool, len(refs))}
	if err := p.keepUnchanged(chunks); err != nil {
		return err
	}
	if err := p.updateChanged(chunks); err != nil {
		return err
	}
	if err := p.storeNew(chunks); err != nil {
		return err
	}
	return p.leave()
}

// chunkPlacer places one file's chunks for ingestChunks: what it writes
// with, the places the file held before (refs) and which of them a chunk
// kept (used).
type chunkPlacer struct {
	m             *Memory
	q             store.Tx
	ix            *docIndex
	source, title string
	tags          []string
	es            []embedded
	now           time.Time
	rep           *IngestReport
	extract       *[]string
	refs          []docRef
	used          []bool
}

// heldPlaces returns the places the file source held before, as ix knows
// them.
func heldPlaces(ix *docIndex, source string) []docRef {
	var refs []docRef
	for _, d := range ix.bySource[source] {
		if d.primary.Source == source {
			refs = append(refs, docRef{d, -1})
		}
		for i, s := range d.also {
			if s.Source == source {
				refs = append(refs, docRef{d, i})
			}
		}
	}
	return refs
}

// at is the place of c in the file.
func (p *chunkPlacer) at(c *newChunk) place {
	return place{Source: p.source, Heading: c.HeadingPath(), Index: c.index, Hash: []byte(c.hash)}
}

// keepUnchanged is step 1: the same text in the same file is skipped
// (moved, perhaps).
func (p *chunkPlacer) keepUnchanged(chunks []*newChunk) error {
	for _, c := range chunks {
		for i, r := range p.refs {
			if p.used[i] || string(r.place().Hash) != c.hash {
				continue
			}
			p.used[i], c.matched = true, true
			p.rep.Skipped++
			if err := p.move(r, p.at(c)); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// move puts the place r at to, when it is elsewhere.
func (p *chunkPlacer) move(r docRef, to place) error {
	if docSource(r.place()) == docSource(to) {
		return nil
	}
	before := r.row.sources()
	if r.at < 0 {
		r.row.primary = to
	} else {
		r.row.also[r.at] = to
	}
	p.ix.reindexSources(r.row, before)
	return p.m.saveSources(p.q, r.row, p.now)
}

// updateChanged is step 2: a changed chunk of a place this file alone
// held is updated in place, the place found by heading path, then by
// index; unless its new text is stored already (step 3 adds the place to
// that chunk).
func (p *chunkPlacer) updateChanged(chunks []*newChunk) error {
	for _, c := range chunks {
		if c.matched || slices.ContainsFunc(p.ix.byHash[c.hash], func(d *docRow) bool { return !d.gone }) {
			continue
		}
		k := p.soleFor(c)
		if k < 0 {
			continue
		}
		p.used[k], c.matched = true, true
		if err := p.m.updateChunk(p.q, p.ix, p.refs[k].row, p.at(c), p.title, p.tags, c, p.now); err != nil {
			return err
		}
		p.rep.Updated++
		*p.extract = append(*p.extract, c.Text)
	}
	return nil
}

// soleFor returns the index in refs of the place step 2 updates with c:
// the first free sole place with c's heading path, else the first with
// its index; or -1.
func (p *chunkPlacer) soleFor(c *newChunk) int {
	for i, r := range p.refs {
		if p.sole(i) && r.row.primary.Heading == c.HeadingPath() {
			return i
		}
	}
	for i, r := range p.refs {
		if p.sole(i) && r.row.primary.Index == c.index {
			return i
		}
	}
	return -1
}

// sole reports whether refs[i] is not used yet and is its row's only
// place.
func (p *chunkPlacer) sole(i int) bool {
	r := p.refs[i]
	return !p.used[i] && r.at < 0 && len(r.row.also) == 0
}

// storeNew is step 3, new text: the same or nearly the same text stored
// from another place gets this place; anything else is a new chunk.
func (p *chunkPlacer) storeNew(chunks []*newChunk) error {
	for _, c := range chunks {
		if c.matched {
			continue
		}
		vec := termVector(c.Text)
		dup, err := p.duplicateOf(c, vec)
		if err != nil {
			return err
		}
		if dup != nil {
			err = p.link(dup, c)
		} else {
			err = p.insert(c, vec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// duplicateOf returns the live row holding c's text, or nearly (by its
// term vector vec, then by its embedding), or nil.
func (p *chunkPlacer) duplicateOf(c *newChunk, vec map[string]uint32) (*docRow, error) {
	for _, d := range p.ix.byHash[c.hash] {
		if !d.gone {
			return d, nil
		}
	}
	dup, err := p.m.nearDuplicate(p.q, p.ix, vec)
	if dup != nil || err != nil {
		return dup, err
	}
	emb := vectorOf(p.es, c.at)
	if emb == nil {
		return nil, nil
	}
	// Tier 2: an embedding cosine over 0.9 is a near-duplicate too.
	found, err := p.m.vectors.similar(p.q, documentKind, 0, emb, math.Nextafter(documentNearDuplicate, 1), 1)
	if err != nil {
		return nil, err
	}
	if len(found) > 0 && p.ix.byPK[found[0].pk] != nil && !p.ix.byPK[found[0].pk].gone {
		return p.ix.byPK[found[0].pk], nil
	}
	return nil, nil
}

// link adds c's place to dup, which holds its text.
func (p *chunkPlacer) link(dup *docRow, c *newChunk) error {
	before := dup.sources()
	dup.also = append(dup.also, p.at(c))
	p.ix.reindexSources(dup, before)
	if err := p.m.saveSources(p.q, dup, p.now); err != nil {
		return err
	}
	p.rep.Linked++
	return nil
}

// insert stores c as a new chunk, its term vector vec.
func (p *chunkPlacer) insert(c *newChunk, vec map[string]uint32) error {
	d, err := p.m.insertChunk(p.q, p.at(c), p.title, p.tags, c, p.now)
	if err != nil {
		return err
	}
	if err := p.m.putNew(p.q, TypeDocument, d.pk, p.es, c.at); err != nil {
		return err
	}
	p.ix.add(d)
	p.ix.addVec(d, vec)
	p.rep.Stored++
	*p.extract = append(*p.extract, c.Text)
	return nil
}

// leave is step 4: the places this file no longer holds leave their
// rows, and a row left with none is archived.
func (p *chunkPlacer) leave() error {
	var out []leaving
	for i, r := range p.refs {
		if p.used[i] {
			continue
		}
		d := r.row
		before := d.sources()
		if r.at < 0 && len(d.also) == 0 {
			d.gone = true
			p.ix.reindexSources(d, before)
			out = append(out, leaving{PK: d.pk})
			p.rep.Archived++
			continue
		}
		p.drop(i)
		p.ix.reindexSources(d, before)
		if err := p.m.saveSources(p.q, d, p.now); err != nil {
			return err
		}
	}
	return p.m.archive(p.q, documentKind, out, "ingest", p.now)
}

// drop removes the place refs[i] from its row, which holds another; the
// row's later refs shift down.
func (p *chunkPlacer) drop(i int) {
	r := p.refs[i]
	d := r.row
	if r.at < 0 {
		d.primary, d.also = d.also[0], d.also[1:]
		for j := i + 1; j < len(p.refs); j++ {
			if p.refs[j].row == d {
				p.refs[j].at--
			}
		}
		return
	}
	d.also = slices.Delete(d.also, r.at, r.at+1)
	for j := i + 1; j < len(p.refs); j++ {
		if p.refs[j].row == d && p.refs[j].at > r.at {
			p.refs[j].at--
		}
	}
}

// insertChunk stores a new chunk.
func (m *Memory) insertChunk(q store.Tx, p place, title string, tags []string, c *newChunk, now time.Time) (*docRow, error) {
	d := &docRow{id: m.newID(now), hash: c.hash, primary: p}
	var err error
	d.pk, err = store.InsertChunk(q, m.agent, d.id, store.ChunkText{Place: p, Title: title, Tags: tags, Content: c.Text,
		Hash: []byte(c.hash), At: now})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// updateChunk changes a chunk's text in place.
func (m *Memory) updateChunk(q store.Tx, ix *docIndex, d *docRow, p place, title string, tags []string, c *newChunk, now time.Time) error {
	before := d.sources()
	ix.byHash[d.hash] = slices.DeleteFunc(ix.byHash[d.hash], func(x *docRow) bool { return x == d })
	d.hash, d.primary = c.hash, p
	ix.byHash[d.hash] = append(ix.byHash[d.hash], d)
	ix.reindexSources(d, before)
	if ix.built {
		vec := termVector(c.Text)
		d.vec, ix.norms[d] = vec, vecNorm(vec)
		for t := range vec {
			ix.postings[t] = append(ix.postings[t], d) // stale postings are checked again
		}
	}
	return store.UpdateChunk(q, m.agent, d.pk, store.ChunkText{Place: p, Title: title, Tags: tags, Content: c.Text,
		Hash: []byte(c.hash), At: now})
}

// saveSources writes a row's places.
func (m *Memory) saveSources(q store.Tx, d *docRow, now time.Time) error {
	// A place promoted to primary brings its text's hash: the row's text
	// is unchanged, so its own hash stays in content_hash.
	d.primary.Hash = []byte(d.hash)
	return store.SetChunkPlaces(q, m.agent, d.pk, d.primary, d.also, now)
}

// readDocument reads a file to ingest, or says why it will not be.
func (m *Memory) readDocument(path string) (data []byte, problem string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err.Error(), nil
	}
	if st.Size() > int64(m.cfg.Markdown.MaxFileBytes) {
		return nil, fmt.Sprintf("%d bytes, over Markdown.MaxFileBytes (%d)", st.Size(), m.cfg.Markdown.MaxFileBytes), nil
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, err.Error(), nil
	}
	switch {
	case len(data) > m.cfg.Markdown.MaxFileBytes:
		return nil, fmt.Sprintf("%d bytes, over Markdown.MaxFileBytes (%d)", len(data), m.cfg.Markdown.MaxFileBytes), nil
	case bytes.IndexByte(data, 0) >= 0:
		return nil, "a binary file (it holds a NUL byte)", nil
	case !utf8.Valid(data):
		return nil, "not valid UTF-8", nil
	}
	return data, "", nil
}

// GetChunk returns the document chunk with the given ID. It returns
// [ErrNotFound] if the agent has none, an error matching [ErrInvalid] for
// a malformed ID, [ErrClosed] after Close and a [*DatabaseError] when
// SQLite fails.
func (m *Memory) GetChunk(ctx context.Context, id string) (DocumentChunk, error) {
	if err := validateID("id", id); err != nil {
		return DocumentChunk{}, err
	}
	var row store.ChunkRow
	var found bool
	err := m.read(ctx, "document.get", func(q store.Tx) (err error) {
		row, found, err = store.ChunkByID(q, m.agent, id)
		return err
	})
	if err == nil && !found {
		err = notFound("document chunk", id)
	}
	if err != nil {
		return DocumentChunk{}, err
	}
	return chunkOf(row), nil
}

// ChunksOf returns the chunks found in the file source (as
// IngestOptions.Name names it), where it is their primary source or one
// of their others, in the file's order. It returns an error matching
// [ErrInvalid] for an empty source, [ErrClosed] after Close and a
// [*DatabaseError] when SQLite fails.
func (m *Memory) ChunksOf(ctx context.Context, source string) ([]DocumentChunk, error) {
	if err := validateText("source", source, true, 4096); err != nil {
		return nil, err
	}
	var out []DocumentChunk
	err := m.read(ctx, "document.list", func(q store.Tx) error {
		rows, err := store.ChunksIn(q, m.agent, source)
		out = chunksOf(rows)
		return err
	})
	slices.SortStableFunc(out, func(a, b DocumentChunk) int { return chunkIndexIn(a, source) - chunkIndexIn(b, source) })
	return out, err
}

func chunkIndexIn(c DocumentChunk, source string) int {
	if c.Source == source {
		return c.Index
	}
	for _, s := range c.Also {
		if s.Source == source {
			return s.Index
		}
	}
	return 0
}

// chunksOf converts the store's rows.
func chunksOf(rows []store.ChunkRow) []DocumentChunk {
	if rows == nil {
		return nil
	}
	out := make([]DocumentChunk, len(rows))
	for i, r := range rows {
		out[i] = chunkOf(r)
	}
	return out
}

// chunkOf converts a row of the store's.
func chunkOf(r store.ChunkRow) DocumentChunk {
	c := DocumentChunk{ID: r.ID, DocumentSource: docSource(r.Primary), Title: r.Title, Tags: r.Tags, Content: r.Content,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Retrievals: r.Retrievals}
	for _, p := range r.Also {
		c.Also = append(c.Also, docSource(p))
	}
	return c
}
