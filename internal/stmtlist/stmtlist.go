// Package stmtlist keeps the list of the statements engram's store runs
// on SQLite: the test binaries of the packages that run them record every
// distinct statement (through sqlite.RecordStatements), and the
// PostgreSQL engine's tests translate and prepare each statement of the
// list committed in Golden.
//
// A test binary's TestMain calls Start before m.Run and the function it
// returns after. With the environment variable Env set to a file's path,
// the binary adds the statements it ran to that file (several binaries
// may write to one file at once); otherwise, when asked to check, it
// fails the run if a statement ran that the committed list lacks, so that
// the list cannot go stale unnoticed. To make the list again, from the
// module's root:
//
//	rm -f internal/store/postgres/testdata/statements.sql
//	for i in 1 2 3; do ENGRAM_RECORD_STATEMENTS=$PWD/internal/store/postgres/testdata/statements.sql go test -count=1 . ./httpapi ./mcpserver; done
//
// and then the list of those that do not translate or prepare yet:
//
//	ENGRAM_UPDATE_UNPORTED=1 go test -count=1 -run TestStatementsPrepare ./internal/store/postgres
package stmtlist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-go/engram/internal/store/sqlite"
)

// Env is the environment variable naming the file the recorded
// statements go to.
const Env = "ENGRAM_RECORD_STATEMENTS"

// Golden is the committed list's path from the module's root.
const Golden = "internal/store/postgres/testdata/statements.sql"

// separator ends each statement in a list file.
const separator = "\n;\n\n"

// ErrFormat is returned by Parse for a list that does not end with a
// statement's end, and by Format for a statement holding the separator.
var ErrFormat = errors.New("stmtlist: malformed statement list")

// Parse returns the statements of a list file, in its order. It returns
// an error matching ErrFormat when data does not end with a statement's
// end (the file was cut).
func Parse(data []byte) ([]string, error) {
	if len(data) == 0 {
		return nil, nil
	}
	s := string(data)
	if !strings.HasSuffix(s, separator) {
		return nil, fmt.Errorf("%w: it does not end with %q", ErrFormat, separator)
	}
	return strings.Split(strings.TrimSuffix(s, separator), separator), nil
}

// Format returns the list file of stmts: each statement once, sorted, each
// followed by a line holding ";" and an empty line. It returns an error
// matching ErrFormat for a statement that holds that separator.
func Format(stmts []string) ([]byte, error) {
	stmts = slices.Clone(stmts)
	slices.Sort(stmts)
	stmts = slices.Compact(stmts)
	var b bytes.Buffer
	for _, s := range stmts {
		if strings.Contains(s, separator) || strings.HasSuffix(s, "\n;") {
			return nil, fmt.Errorf("%w: a statement holds the separator: %q", ErrFormat, s)
		}
		b.WriteString(s)
		b.WriteString(separator)
	}
	return b.Bytes(), nil
}

// Canonical returns query with every run of one parenthesized group of
// parameters repeated ("(?, ?), (?, ?), (?, ?)", the rows of a batch
// insert) cut to its first: a batch's statement has a form per size,
// and which sizes a run meets depends on timing, while the form of one
// row stands for them all when it comes to translating and preparing.
func Canonical(query string) string {
	var b strings.Builder
	for i := 0; i < len(query); {
		switch query[i] {
		case '\'':
			j := literalEnd(query, i)
			b.WriteString(query[i:j])
			i = j
			continue
		case '(':
		default:
			b.WriteByte(query[i])
			i++
			continue
		}
		end := closing(query, i)
		if end < 0 {
			b.WriteString(query[i:])
			break
		}
		group := query[i : end+1]
		b.WriteString("(" + Canonical(query[i+1:end]) + ")")
		i = end + 1
		if strings.Contains(group, "?") {
			for strings.HasPrefix(query[i:], ", "+group) {
				i += 2 + len(group)
			}
		}
	}
	return b.String()
}

// literalEnd returns the index just past the string literal that starts
// at s[i] (doubled quotes and all), or len(s).
func literalEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\'' {
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// closing returns the index of the parenthesis that closes the one at
// open in s, or -1.
func closing(s string, open int) int {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		case '\'':
			j = literalEnd(s, j) - 1
		}
	}
	return -1
}

// Recorder collects the distinct statements the SQLite engine runs for
// engram's code, in their Canonical form: a statement a test runs itself (its caller is in a
// _test.go file: a check of SQLite's internals, a plan test's EXPLAIN)
// is left out.
type Recorder struct {
	seen sync.Map // query → true for engram's statements, false for a test's
}

// Record installs a new Recorder as the SQLite engine's (see
// sqlite.RecordStatements) and returns it.
func Record() *Recorder {
	r := &Recorder{}
	sqlite.RecordStatements(func(query string) {
		query = Canonical(query)
		if ours, ok := r.seen.Load(query); ok && ours.(bool) {
			return
		}
		// The recorder is called by the engine's note, called by the Tx
		// method the statement's runner called: that runner is 3 frames
		// up. Only a statement not yet seen, or seen from a test, pays
		// for the look.
		if _, file, _, ok := runtime.Caller(3); ok && !strings.HasSuffix(file, "_test.go") {
			r.seen.Store(query, true)
		} else {
			r.seen.LoadOrStore(query, false) // never over engram's own use
		}
	})
	return r
}

// Stop uninstalls the recorder and returns the statements it saw, sorted.
func (r *Recorder) Stop() []string {
	sqlite.RecordStatements(nil)
	var out []string
	r.seen.Range(func(k, ours any) bool {
		if ours.(bool) {
			out = append(out, k.(string))
		}
		return true
	})
	slices.Sort(out)
	return out
}

// Start begins recording for a test binary and returns what its TestMain
// calls with m.Run's code, which returns the code to exit with. With Env
// set, it adds the statements to that file; otherwise, with check true
// (the default engine's run), it compares them with the list at golden,
// the committed list's path from the package's directory: a statement
// missing from it is reported on stderr, and fails the run only with
// StrictEnv set. The set of statements a run takes varies a little from
// run to run (how far a background index build got decides whether a
// search catches the index up, and with which statement: three runs of
// mcpserver's tests ran 213, 215 and 215), so a missing statement is a
// reason to make the list again, not a failure of the tests; the list is
// the union of several runs. A run that ran no statement checks nothing.
func Start(golden string, check bool) func(code int) int {
	out := os.Getenv(Env)
	if out == "" && !check {
		return func(code int) int { return code }
	}
	r := Record()
	return func(code int) int {
		stmts := r.Stop()
		if len(stmts) == 0 {
			return code
		}
		var err error
		if out != "" {
			err = Add(out, stmts)
		} else {
			err = Missing(golden, stmts)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			if out != "" || !errors.Is(err, ErrMissing) || os.Getenv(StrictEnv) != "" {
				return max(code, 1)
			}
		}
		return code
	}
}

// StrictEnv is the environment variable that makes a statement missing
// from the committed list fail the run (see Start).
const StrictEnv = "ENGRAM_STATEMENTS_STRICT"

// ErrMissing is Missing's error when a statement is not in the list.
var ErrMissing = errors.New("stmtlist: statements ran that the committed list lacks")

// Missing returns an error matching ErrMissing, listing them, when some of
// stmts are not in the list file at path, and the error of reading or
// parsing it.
func Missing(path string, stmts []string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("stmtlist: %w", err)
	}
	list, err := Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	known := make(map[string]bool, len(list))
	for _, s := range list {
		known[s] = true
	}
	var missing []string
	for _, s := range stmts {
		if !known[s] {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w (%s; make it again as the doc of internal/stmtlist says):\n%s", ErrMissing, path, strings.Join(missing, separator))
}

// Add merges stmts into the list file at path (made when absent), under a
// lock directory beside it so that test binaries running at once do not
// lose each other's statements. It returns the file system's errors and
// Parse's.
func Add(path string, stmts []string) error {
	lock := path + ".lock"
	for deadline := time.Now().Add(time.Minute); ; {
		err := os.Mkdir(lock, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || time.Now().After(deadline) {
			return fmt.Errorf("stmtlist: locking %s: %w", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer os.Remove(lock)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stmtlist: %w", err)
	}
	old, err := Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	out, err := Format(append(old, stmts...))
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return fmt.Errorf("stmtlist: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("stmtlist: %w", err)
	}
	return nil
}
