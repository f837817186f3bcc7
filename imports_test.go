package engram_test

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Dependencies between engram's packages point one way:
//
//	cmd/… → public subpackages (openai, ollama, gemini, …) → the root package → internal/…
//
// layers says it package by package, and TestImportLayering holds the
// module to it. A row names a group of packages by directory under the
// module ("." is the root package, "x/..." is x and every package below
// it), the engram packages their code (not their tests) may import, and
// who may import them. The first row a package matches is its row, so
// narrower rows come first. A package that no row names fails the test:
// a new package gets a row when it is made (server/ and mcp/ will be
// public subpackages like the providers, whose row may then name the
// providers too; cmd/engram is there already).
//
// A violation reads:
//
//	internal/modelapi imports the root package: internal/... may import only internal/...
//	gemini imports openai: gemini may import only ., internal/...
//	openai (in its tests) imports internal/eval/locomo: internal/eval/... is imported by nothing
//	internal/query imports internal/testutil: internal/testutil is imported by tests only
//	server is in no row of layers: give it one
var layers = []layer{
	// Programs: they may import anything, and nothing imports them.
	{pkgs: "cmd/...", mayImport: anything, importedBy: nobody},
	{pkgs: "examples/...", mayImport: anything, importedBy: nobody},
	{pkgs: "internal/eval/...", mayImport: anything, importedBy: nobody},
	// The test helper opens memories, for the tests of any package.
	{pkgs: "internal/testutil", mayImport: []string{".", "internal/..."}, importedBy: tests},
	// The conformance suite of storage engines, over the public API:
	// each engine's test runs it.
	{pkgs: "internal/enginetest", mayImport: []string{"."}, importedBy: tests},
	// The JSON views of memories that every transport (the servers and
	// the command) shares: over the root package's types.
	{pkgs: "internal/memview", mayImport: provider, importedBy: anyone},
	// The recorder of the statements the SQLite engine runs, for the
	// tests of the packages that run them (see internal/stmtlist).
	{pkgs: "internal/stmtlist", mayImport: []string{"internal/store/sqlite"}, importedBy: tests},
	// The SQLite engine: opening, transactions, migrations, the change
	// log, backups. Only the root package opens it (and the evaluation
	// commands, as they may the store layer); it never imports the root.
	{pkgs: "internal/store/sqlite", mayImport: []string{"internal/..."}, importedBy: anyone, onlyBy: []string{".", "internal/stmtlist", "internal/eval/..."}},
	// The PostgreSQL engine, likewise.
	{pkgs: "internal/store/postgres", mayImport: []string{"internal/..."}, importedBy: anyone, onlyBy: []string{".", "internal/eval/..."}},
	// The store layer: every SQL statement, and the transaction an engine
	// implements. Only the root package and the engines speak to it; the
	// transports and the providers go through the root.
	{pkgs: "internal/store", mayImport: []string{"internal/..."}, importedBy: anyone, onlyBy: []string{".", "internal/store/sqlite", "internal/store/postgres", "internal/eval/..."}},
	// The matcher of extraction rules: plain values in and out, no SQL,
	// nothing of engram.
	{pkgs: "internal/rules", mayImport: []string{}, importedBy: anyone},
	// The ranking maths and snippets: numbers and text in, numbers and
	// text out. They read no rows, so they import neither the store
	// layer nor the root, only the query tokenizer and stemmer.
	{pkgs: "internal/rank", mayImport: []string{"internal/query"}, importedBy: anyone},
	{pkgs: "internal/...", mayImport: []string{"internal/..."}, importedBy: anyone},
	{pkgs: ".", mayImport: []string{"internal/..."}, importedBy: anyone},
	// Model providers: the root's interfaces and internal plumbing only.
	{pkgs: "openai", mayImport: provider, importedBy: anyone},
	{pkgs: "ollama", mayImport: provider, importedBy: anyone},
	{pkgs: "gemini", mayImport: provider, importedBy: anyone},
	// Servers: the MCP server over the root package, and the HTTP API,
	// which mounts it at /mcp and speaks its token scopes.
	{pkgs: "mcpserver", mayImport: provider, importedBy: anyone},
	// The web console: static files the HTTP API serves, importing
	// nothing of engram (it calls the API from the browser).
	{pkgs: "httpapi/console", mayImport: []string{}, importedBy: anyone},
	{pkgs: "httpapi", mayImport: []string{".", "internal/...", "mcpserver", "httpapi/console"}, importedBy: anyone},
}

var (
	anything = []string{"..."}
	provider = []string{".", "internal/..."}
)

// layer is a row of layers.
type layer struct {
	pkgs       string   // the packages of the row
	mayImport  []string // what of engram's their code may import
	importedBy importers
	// onlyBy, when set, are the packages whose code alone may import the
	// row's (any package's tests may).
	onlyBy []string
}

// importers says who may import a package.
type importers int

const (
	anyone importers = iota
	tests            // only _test.go files
	nobody
)

// pkg is one of engram's packages and the engram packages it imports, each
// as a directory under the module ("." for the root).
type pkg struct {
	dir         string
	imports     []string // by its code
	testImports []string // by its tests alone
}

// matches reports whether dir is in the group pattern names.
func matches(pattern, dir string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	return dir == pattern
}

func rowOf(dir string) (layer, bool) {
	for _, l := range layers {
		if matches(l.pkgs, dir) {
			return l, true
		}
	}
	return layer{}, false
}

func display(dir string) string {
	if dir == "." {
		return "the root package"
	}
	return dir
}

// violations returns every edge of pkgs that layers forbids, and every
// package no row names. A package's tests may import what they like, short
// of a package imported by nothing.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		row, ok := rowOf(p.dir)
		if !ok {
			out = append(out, fmt.Sprintf("%s is in no row of layers: give it one", display(p.dir)))
			continue
		}
		for _, imp := range p.imports {
			if !slices.ContainsFunc(row.mayImport, func(pattern string) bool { return matches(pattern, imp) }) {
				out = append(out, fmt.Sprintf("%s imports %s: %s may import only %s",
					display(p.dir), display(imp), row.pkgs, strings.Join(row.mayImport, ", ")))
			}
			if target, ok := rowOf(imp); ok && target.importedBy == tests {
				out = append(out, fmt.Sprintf("%s imports %s: %s is imported by tests only", display(p.dir), display(imp), target.pkgs))
			} else if ok && target.onlyBy != nil && !slices.ContainsFunc(target.onlyBy, func(pattern string) bool { return matches(pattern, p.dir) }) {
				out = append(out, fmt.Sprintf("%s imports %s: %s is imported only by %s", display(p.dir), display(imp), target.pkgs, strings.Join(target.onlyBy, ", ")))
			}
		}
		for i, imports := range [][]string{p.imports, p.testImports} {
			for _, imp := range imports {
				if target, ok := rowOf(imp); ok && target.importedBy == nobody {
					out = append(out, fmt.Sprintf("%s%s imports %s: %s is imported by nothing",
						display(p.dir), []string{"", " (in its tests)"}[i], display(imp), target.pkgs))
				}
			}
		}
	}
	return out
}

// modulePackages reads the engram packages of the module at root, and
// what each imports of the module, from their source files (go/build, as
// the go command would for this platform).
func modulePackages(t *testing.T, root string) []pkg {
	t.Helper()
	module := modulePath(t, filepath.Join(root, "go.mod"))
	inModule := func(paths []string) []string {
		var out []string
		for _, path := range paths {
			if path == module {
				out = append(out, ".")
			} else if rest, ok := strings.CutPrefix(path, module+"/"); ok {
				out = append(out, rest)
			}
		}
		return out
	}
	var pkgs []pkg
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		dir, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, pkg{
			dir:         filepath.ToSlash(dir),
			imports:     inModule(bp.Imports),
			testImports: inModule(append(bp.TestImports, bp.XTestImports...)),
		})
		return nil
	})
	require.NoError(t, err)
	return pkgs
}

// modulePath reads the module's path from its go.mod.
func modulePath(t *testing.T, gomod string) string {
	t.Helper()
	f, err := os.Open(gomod)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatalf("%s names no module", gomod)
	return ""
}

func TestImportLayering(t *testing.T) {
	pkgs := modulePackages(t, ".")
	dirs := map[string]pkg{}
	for _, p := range pkgs {
		dirs[p.dir] = p
	}
	// The graph was read: the packages are there, and so is an edge.
	for _, dir := range []string{".", "openai", "ollama", "gemini", "internal/modelapi", "internal/testutil"} {
		require.Contains(t, dirs, dir)
	}
	require.Contains(t, dirs["gemini"].imports, ".")
	require.Contains(t, dirs["."].imports, "internal/modelapi")

	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// The rules catch each kind of violation.
func TestImportLayeringRules(t *testing.T) {
	graph := []pkg{
		{dir: ".", imports: []string{"internal/query", "openai"}},
		{dir: "internal/modelapi", imports: []string{"."}},
		{dir: "internal/query", imports: []string{"internal/testutil"}, testImports: []string{"internal/testutil", "."}},
		{dir: "internal/testutil", imports: []string{".", "internal/ulid"}},
		{dir: "gemini", imports: []string{".", "internal/modelapi", "openai"}},
		{dir: "openai", imports: []string{"."}, testImports: []string{"internal/testutil", "internal/eval/locomo"}},
		{dir: "examples/quickstart", imports: []string{".", "gemini", "internal/query"}},
		{dir: "internal/eval/locomo", imports: []string{"examples/quickstart"}},
		{dir: "cmd/engram", imports: []string{".", "openai", "internal/eval/locomo"}},
		{dir: "server", imports: []string{"."}},
		{dir: "mcpserver", imports: []string{".", "internal/store"}},
		{dir: "internal/store/sqlite", imports: []string{".", "internal/store"}},
		{dir: "httpapi", imports: []string{".", "internal/store/sqlite"}},
	}
	assert.Equal(t, []string{
		"the root package imports openai: . may import only internal/...",
		"internal/modelapi imports the root package: internal/... may import only internal/...",
		"internal/query imports internal/testutil: internal/testutil is imported by tests only",
		"gemini imports openai: gemini may import only ., internal/...",
		"openai (in its tests) imports internal/eval/locomo: internal/eval/... is imported by nothing",
		"internal/eval/locomo imports examples/quickstart: examples/... is imported by nothing",
		"cmd/engram imports internal/eval/locomo: internal/eval/... is imported by nothing",
		"server is in no row of layers: give it one",
		"mcpserver imports internal/store: internal/store is imported only by ., internal/store/sqlite, internal/store/postgres, internal/eval/...",
		"internal/store/sqlite imports the root package: internal/store/sqlite may import only internal/...",
		"httpapi imports internal/store/sqlite: internal/store/sqlite is imported only by ., internal/stmtlist, internal/eval/...",
	}, violations(graph))
}
