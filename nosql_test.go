package engram_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sqlWords are what makes a string literal a SQL statement or a piece of
// one (a condition, an order): its words in capitals, as engram writes
// its SQL, the agent's column and numbered or compared parameters.
var sqlWords = regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|SAVEPOINT|WHERE|VALUES|ORDER BY|LIMIT|DESC|agent_id)\b|\?[0-9]|= \?`)

// engineImports are the imports that tie a file to a database engine.
var engineImports = []string{"database/sql", "database/sql/driver", "modernc.org/sqlite", "modernc.org/sqlite/lib"}

// sqlStillIn lists the root package's files that still hold SQL while it
// moves to internal/store (issue 31): the SQLite engine's own (opening
// and migrating a database, transactions and savepoints, the change log's
// hook, backups by VACUUM INTO), which moves as one package once no other
// root file runs a statement through it. The list only shrinks:
// TestRootSpeaksNoSQL fails when a file not in it holds SQL, and when a
// file in it no longer does (take it off the list).
var sqlStillIn = []string{"backup.go", "changelog.go", "database.go", "tx.go"}

// TestRootSpeaksNoSQL holds the root package to its floor plan: its
// non-test files import no database package and hold no SQL in their
// string literals; the statements live in internal/store.
func TestRootSpeaksNoSQL(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var holding []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var why []string
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(engineImports, path) {
				why = append(why, "imports "+path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if w := sqlWords.FindString(lit.Value); w != "" && len(why) < 4 {
				why = append(why, fset.Position(lit.Pos()).String()+": "+w)
			}
			return true
		})
		listed := slices.Contains(sqlStillIn, name)
		switch {
		case len(why) > 0 && !listed:
			t.Errorf("%s speaks SQL (%s): its statements belong in internal/store", name, strings.Join(why, "; "))
		case len(why) == 0 && listed:
			t.Errorf("%s no longer holds SQL: take it off sqlStillIn", name)
		}
		if len(why) > 0 {
			holding = append(holding, name)
		}
	}
	t.Logf("%d root files still hold SQL", len(holding))
}
