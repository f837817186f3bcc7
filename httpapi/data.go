package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/agentreg"
	"github.com/engram-go/engram/internal/memview"
)

// Routes that move data in and out: document ingestion, export, import,
// backup.

type documentsRequest struct {
	// Path is a markdown file or a directory, relative to the server's
	// DocumentRoot.
	Path string `json:"path"`
	profileFields
	// Name is what the chunks' sources are named under (default: the
	// path's base name).
	Name string `json:"name"`
	// Extract runs each stored chunk through the agent's extraction.
	Extract bool `json:"extract"`
}

type documentsResponse struct {
	Ingested  int      `json:"ingested"`
	Chunks    int      `json:"chunks"`
	Stored    int      `json:"stored"`
	Updated   int      `json:"updated"`
	Linked    int      `json:"linked"`
	Skipped   int      `json:"skipped"`
	Archived  int      `json:"archived"`
	Extracted int      `json:"extracted"`
	Errors    []string `json:"errors"`
	Profile   string   `json:"profile"`
}

// ingestDocuments answers POST /v1/ingest/documents: the markdown file or
// tree at path, under Options.DocumentRoot, is stored as document chunks
// (engram.Memory.Ingest). Clients name paths under the root: relative to
// it, or absolute with the root as "/" (seed 004's clients send absolute
// paths); a path that leaves it, by ".." or by a symbolic link, is
// refused.
func (s *Server) ingestDocuments(w http.ResponseWriter, r *http.Request) error {
	var req documentsRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	if s.opts.DocumentRoot == "" {
		return forbiddenf("document ingestion is off: the server has no document root")
	}
	path, err := underRoot(s.opts.DocumentRoot, req.Path)
	if err != nil {
		return err
	}
	name := req.Name
	if name == "" {
		name = filepath.Base(filepath.Clean(req.Path))
	}
	rep, err := agentreg.Value(r.Context(), id, s.reg.Write, func(m *engram.Memory) (engram.IngestReport, error) {
		return m.Ingest(r.Context(), path, engram.IngestOptions{Name: name, Extract: req.Extract})
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, documentsResponse{rep.Files, rep.Chunks, rep.Stored, rep.Updated, rep.Linked,
		rep.Skipped, rep.Archived, rep.Extracted, memview.NonNil(rep.Errors), id})
	return nil
}

// underRoot returns the path of rel under root, refusing one that is
// empty, leaves root by ".." or by a symbolic link, or does not exist. An
// absolute rel is read with root as the file system's root, as a chroot
// does: "/notes" is root/notes.
func underRoot(root, rel string) (string, error) {
	if rel == "" {
		return "", invalidf("path is required")
	}
	if filepath.IsAbs(rel) {
		// The root stands for the file system's: "/notes" is root/notes.
		rel = strings.TrimLeft(filepath.ToSlash(filepath.Clean(rel)), "/")
		if rel == "" {
			rel = "."
		}
		rel = filepath.FromSlash(rel)
	}
	if !filepath.IsLocal(rel) {
		return "", invalidf("path %q must be relative to the document root and stay under it", rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("document root: %w", err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "", invalidf("path %q not found under the document root", rel)
	}
	if err != nil {
		return "", err
	}
	if inside, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(inside) && inside != "." {
		return "", invalidf("path %q leaves the document root", rel)
	}
	return real, nil
}

// export answers GET /v1/export: the agent's memory in engram's export
// format, JSON Lines, streamed (engram.Memory.Export); with filter
// parameters (see queryFilter), only the memories they keep. An agent
// with no memory exports as an empty one.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	q := params(r, append([]string{"profile", "vectors", "history"}, filterParams...)...)
	opts := engram.ExportOptions{Vectors: q.boolean("vectors"), History: q.boolean("history")}
	f := q.filter()
	if q.err != nil {
		return q.err
	}
	var err error
	if opts.Filter, err = filterOf(f, ""); err != nil {
		return err
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	cw := &committedWriter{w: w, id: id}
	err = s.reg.Read(r.Context(), id, func(m *engram.Memory) error {
		return m.Export(r.Context(), cw, opts)
	})
	if err != nil && cw.started {
		// The status is sent: the client sees a file cut short, which
		// an import refuses. Log, and end the connection.
		s.log.Error("export failed midway", "agent", id, "err", err)
		panic(http.ErrAbortHandler)
	}
	return renamedFilter(err, "")
}

// committedWriter sends the export's headers before its first byte, so
// that an error before any output is still answered as JSON.
type committedWriter struct {
	w       http.ResponseWriter
	id      string
	started bool
}

func (c *committedWriter) Write(p []byte) (int, error) {
	if !c.started {
		c.started = true
		h := c.w.Header()
		h.Set("Content-Type", "application/x-ndjson")
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.jsonl"`, c.id))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		c.w.WriteHeader(http.StatusOK)
	}
	return c.w.Write(p)
}

type importResponse struct {
	From     string         `json:"from"`
	Added    map[string]int `json:"added"`
	Replaced map[string]int `json:"replaced"`
	Skipped  map[string]int `json:"skipped"`
	Profile  string         `json:"profile"`
}

// importMemory answers POST /v1/import: the body, a file in engram's
// export format (JSON Lines, Content-Type application/x-ndjson), is
// imported into the agent in one transaction (engram.Memory.Import), with
// the conflict policy of the conflict parameter (fail, skip or replace).
func (s *Server) importMemory(w http.ResponseWriter, r *http.Request) error {
	q := params(r, "profile", "conflict")
	var conflict engram.Conflict
	switch q.oneOf("conflict", "fail", "skip", "replace") {
	case "skip":
		conflict = engram.ConflictSkip
	case "replace":
		conflict = engram.ConflictReplace
	}
	if q.err != nil {
		return q.err
	}
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "application/x-ndjson") && !strings.HasPrefix(ct, "application/jsonl") {
		return &apiError{http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "the body must be an export file, with Content-Type: application/x-ndjson"}
	}
	id, err := s.agentOf(r, profileFields{})
	if err != nil {
		return err
	}
	// The body is read whole into a temporary file first: an import holds
	// the agent's write lock while it reads, which a slow client would
	// otherwise stretch to the server's read timeout.
	spool, err := os.CreateTemp("", "engram-import-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	if _, err := io.Copy(spool, http.MaxBytesReader(w, r.Body, s.opts.MaxImportBytes)); err != nil {
		return err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rep, err := agentreg.Value(r.Context(), id, s.reg.Write, func(m *engram.Memory) (engram.ImportReport, error) {
		return m.Import(r.Context(), bufio.NewReader(spool), engram.ImportOptions{Conflict: conflict})
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, importResponse{rep.Agent, counts(rep.Added), counts(rep.Replaced), counts(rep.Skipped), id})
	return nil
}

func counts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

type backupRequest struct {
	profileFields
}

type backupResponse struct {
	File    string `json:"file"`
	Bytes   int64  `json:"bytes"`
	Profile string `json:"profile"`
}

// backup answers POST /v1/backup: a consistent copy of the agent's memory
// is written to Options.BackupDir, named by the agent and the time, and
// its name returned. The copy holds the agent's memory alone
// (engram.Memory.BackupAgent): of a file or memory shared by several
// agents, it is built from the agent's rows, never a copy of the others'.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) error {
	var req backupRequest
	id, err := s.bodyAgent(w, r, &req)
	if err != nil {
		return err
	}
	if s.opts.BackupDir == "" {
		return forbiddenf("backups are off: the server has no backup directory")
	}
	name := fmt.Sprintf("%s-%s.db", id, time.Now().UTC().Format("20060102T150405.000000000Z"))
	dst := filepath.Join(s.opts.BackupDir, name)
	err = s.reg.Read(r.Context(), id, func(m *engram.Memory) error {
		return m.BackupAgent(r.Context(), dst)
	})
	if err != nil {
		return err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, backupResponse{name, fi.Size(), id})
	return nil
}
