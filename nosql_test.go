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

// TestRootSpeaksNoSQL holds the root package to its floor plan: its
// non-test files import no database package and hold no SQL in their
// string literals; the statements live in internal/store, the SQLite
// engine in internal/store/sqlite.
func TestRootSpeaksNoSQL(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
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
		if len(why) > 0 {
			t.Errorf("%s speaks SQL (%s): its statements belong in internal/store, the engine's in internal/store/sqlite", name, strings.Join(why, "; "))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no root file was checked")
	}
}
