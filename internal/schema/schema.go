// Package schema holds engram's SQL migrations. Each file NNNN_name.sql
// takes the database from user_version NNNN-1 to NNNN; files are
// append-only: a released migration is never edited.
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed *.sql tier2/*.sql
var files embed.FS

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns every migration in version order. It panics if the
// embedded files are misnumbered, which a test catches at build time.
func Migrations() []Migration { return load(".") }

// Latest returns the newest schema version.
func Latest() int { return len(Migrations()) }

// Tier2Migrations returns the steps of the Tier 2 schema (the vector
// tables and their triggers), in version order, for vectors of dims
// dimensions stored chunk to a vec0 chunk. They are versioned apart from
// the main schema, in meta, because they can only run once the embedder's
// dimension is known.
func Tier2Migrations(dims, chunk int) []Migration {
	ms := load("tier2")
	r := strings.NewReplacer("{{DIMS}}", strconv.Itoa(dims), "{{CHUNK}}", strconv.Itoa(chunk))
	for i := range ms {
		ms[i].SQL = r.Replace(ms[i].SQL)
	}
	return ms
}

// load reads the migrations of dir.
func load(dir string) []Migration {
	entries, err := fs.Glob(files, path.Join(dir, "*.sql"))
	if err != nil {
		panic(err)
	}
	sort.Strings(entries)
	out := make([]Migration, 0, len(entries))
	for i, name := range entries {
		num, _, ok := strings.Cut(path.Base(name), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			panic(fmt.Sprintf("schema: migration %q is out of sequence (want version %d)", name, i+1))
		}
		b, err := files.ReadFile(name)
		if err != nil {
			panic(err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	return out
}
