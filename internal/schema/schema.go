// Package schema holds engram's SQL migrations. Each file NNNN_name.sql
// takes the database from user_version NNNN-1 to NNNN; files are
// append-only: a released migration is never edited.
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed *.sql
var files embed.FS

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns every migration in version order. It panics if the
// embedded files are misnumbered, which a test catches at build time.
func Migrations() []Migration {
	entries, err := fs.Glob(files, "*.sql")
	if err != nil {
		panic(err)
	}
	sort.Strings(entries)
	out := make([]Migration, 0, len(entries))
	for i, name := range entries {
		num, _, ok := strings.Cut(name, "_")
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

// Latest returns the newest schema version.
func Latest() int { return len(Migrations()) }
