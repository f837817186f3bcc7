package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
	_ "modernc.org/sqlite"

	"github.com/engram-go/engram/internal/pgtest"
)

// TestMain makes the test binary the engram command when the scripts run
// it, so that every script tests the command as built (it is "engram" in
// the PATH of the tests too), and stops the PostgreSQL cluster the tests
// may have started.
func TestMain(m *testing.M) {
	testscript.Main(stopPostgres{m}, map[string]func(){
		"engram": main,
	})
}

// stopPostgres runs the tests, then stops pgtest's shared cluster.
type stopPostgres struct{ m *testing.M }

func (s stopPostgres) Run() int {
	code := s.m.Run()
	if err := pgtest.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	return code
}

// TestScript runs the scripts of testdata/script, one per family of
// commands, each in a directory of its own.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Condition: func(cond string) (bool, error) {
			if cond == "root" { // root ignores file permissions
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"sqlite":  cmdSQLite,
			"capture": cmdCapture,
		},
	})
}

// cmdExits runs a program and checks its exit code:
//
//	exits 3 engram stats
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdSQLite runs SQL on a database file, to make files engram must
// refuse (another program's database, a newer schema):
//
//	sqlite other.db 'CREATE TABLE t (x)'
func cmdSQLite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlite FILE SQL")
	}
	db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(args[1])
	ts.Check(err)
}

// cmdCapture sets an environment variable to the first group of a
// regular expression's first match in the last command's stdout, to use
// an ID the command made:
//
//	capture ID '"id": "([0-9A-Z]+)"'
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	m := regexp.MustCompile(args[1]).FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("no match for %s in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// TestHelp checks that engram --help lists every command, and that every
// command has a complete help that exits 0.
func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("engram --help exited %d: %s", code, errOut.String())
	}
	root := (&app{}).rootCmd()
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && !strings.Contains(out.String(), "\n  "+c.Name()+" ") {
			t.Errorf("engram --help does not list %s", c.Name())
		}
	}
	for _, want := range []string{"Exit codes:", "ENGRAM_DIR", "OPENAI_API_KEY"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("engram --help does not say %q", want)
		}
	}
	for _, c := range allCommands(root) {
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(strings.Join(path, "_"), func(t *testing.T) {
			if c.Short == "" || c.Long == "" || c.Example == "" {
				t.Errorf("%s lacks a Short, Long or Example", c.CommandPath())
			}
			var out, errOut bytes.Buffer
			if code := run(context.Background(), append(path, "--help"), nil, &out, &errOut); code != exitOK {
				t.Errorf("%s --help exited %d: %s", c.CommandPath(), code, errOut.String())
			}
			if !strings.Contains(out.String(), c.Long) {
				t.Errorf("%s --help does not show its Long", c.CommandPath())
			}
		})
	}
}

// allCommands returns the commands under c that help lists, depth first.
func allCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, sub)
			out = append(out, allCommands(sub)...)
		}
	}
	return out
}
