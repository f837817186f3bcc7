package engram

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The files of the facts, their graph and the links speak no SQL (issue
// 31): they import neither database/sql nor the driver, and none of
// their string literals holds a statement; internal/store holds those.
func TestGraphFactsLinksSpeakNoSQL(t *testing.T) {
	sqlWord := regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA)\b`)
	for _, name := range []string{"graph.go", "facts.go", "facts_match.go", "zettel.go"} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "database/sql") || strings.HasPrefix(path, "modernc.org/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && sqlWord.MatchString(lit.Value) {
				t.Errorf("%s: a statement: %s", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}
