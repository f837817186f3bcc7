package engram

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestVectorFilesSpeakNoSQL checks that Tier 2's root files leave their
// statements to internal/store (issue 31): none imports database/sql or
// the driver, and no string literal in them holds a SQL statement.
func TestVectorFilesSpeakNoSQL(t *testing.T) {
	files, err := filepath.Glob("vector*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "search_vector.go")
	sqlWord := regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|PRAGMA)\b`)
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "database/sql") || strings.HasPrefix(path, "modernc.org/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if w := sqlWord.FindString(lit.Value); w != "" {
					t.Errorf("%s: a string holds SQL (%s): %.60s", name, w, lit.Value)
				}
			}
			return true
		})
	}
	if checked < 2 {
		t.Fatalf("checked %d files: the glob found none of Tier 2's", checked)
	}
}
