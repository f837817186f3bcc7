package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/engram-go/engram"
)

// Exit codes, documented in the root command's help and the README.
const (
	exitOK       = 0
	exitFailure  = 1 // anything not below: the file system, a model's API, a busy database
	exitUsage    = 2 // an unknown command or flag, a bad argument, invalid input
	exitNotFound = 3 // no such memory, agent or database
	exitDamaged  = 4 // corrupt, not engram's, newer than this engram, or failing check
	exitConflict = 5 // exists already
)

// usageError is a mistake in the command line: a bad flag, argument or
// value. Errors cobra returns before a command runs are usage errors too.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// notFound is something the command line names that does not exist: a
// database, an agent's memory. Its message says what to do.
type notFound struct{ msg string }

func (e notFound) Error() string { return e.msg }

func notFoundf(format string, args ...any) error {
	return notFound{fmt.Sprintf(format, args...)}
}

// damaged is a database that fails engram check.
type damaged struct{ err error }

func (e damaged) Error() string { return e.err.Error() }
func (e damaged) Unwrap() error { return e.err }

// hinted is an error with what to do about it, said by the command that
// knows best.
type hinted struct {
	err  error
	hint string
}

func (e hinted) Error() string { return e.err.Error() }
func (e hinted) Unwrap() error { return e.err }

// hint adds what to do to err (nil stays nil).
func hint(err error, what string) error {
	if err == nil {
		return nil
	}
	return hinted{err, what}
}

// ranError marks an error returned by a command's own work, as opposed to
// cobra's parsing of the command line (which is a usage error).
type ranError struct{ err error }

func (e ranError) Error() string { return e.err.Error() }
func (e ranError) Unwrap() error { return e.err }

// exitCode classifies err.
func exitCode(err error) int {
	switch {
	case errors.As(err, new(usageError)), !errors.As(err, new(ranError)):
		return exitUsage
	case errors.As(err, new(notFound)), errors.Is(err, engram.ErrNotFound):
		return exitNotFound
	case errors.As(err, new(damaged)), errors.Is(err, engram.ErrCorrupt),
		errors.Is(err, engram.ErrNotEngram), errors.Is(err, engram.ErrSchemaTooNew):
		return exitDamaged
	case errors.Is(err, engram.ErrExists), errors.Is(err, fs.ErrExist):
		return exitConflict
	case errors.Is(err, engram.ErrInvalid), errors.Is(err, engram.ErrInvalidQuery),
		errors.Is(err, engram.ErrTierUnsupported):
		return exitUsage
	}
	return exitFailure
}

// describe returns err's exit code and its message for stderr:
// "engram: what went wrong: what to do". noVectors says the memory was
// opened at Tier 1 because it holds no vectors yet (see openMemory).
func describe(cmd *cobra.Command, err error, noVectors bool) (int, string) {
	code := exitCode(err)
	msg := "engram: " + strings.ReplaceAll(err.Error(), "engram: ", "")
	if h := hintFor(cmd, err, code, noVectors); h != "" {
		msg += ": " + h
	}
	return code, msg
}

// hintFor says what to do about err, unless its message says it already.
func hintFor(cmd *cobra.Command, err error, code int, noVectors bool) string {
	var h hinted
	if errors.As(err, &h) {
		return h.hint
	}
	help := `run "engram --help"`
	if cmd != nil {
		help = fmt.Sprintf("run %q", cmd.CommandPath()+" --help")
	}
	switch {
	case errors.As(err, new(notFound)):
		return ""
	case code == exitUsage && errors.Is(err, engram.ErrTierUnsupported) && noVectors:
		return `this memory has no vectors yet: run "engram reindex" with this --embedder to embed it`
	case code == exitUsage && errors.Is(err, engram.ErrTierUnsupported):
		return "pass --tier 2 (and --embedder) for vectors"
	case code == exitUsage:
		return help
	case errors.Is(err, engram.ErrNotFound):
		return `check the ID ("engram search" and "engram list" show IDs) and --agent`
	case errors.Is(err, engram.ErrSchemaTooNew):
		return "a newer engram wrote it: use that engram, or build this one again from an up-to-date clone (go install ./cmd/engram)"
	case errors.Is(err, engram.ErrNotEngram):
		return "another program's SQLite file, left untouched: pass another --path or --dir"
	case notADatabase(err):
		return "no SQLite database, so no engram memory (left untouched): pass another --path or --dir"
	case errors.Is(err, engram.ErrCorrupt), errors.As(err, new(damaged)):
		return "restore memory.db from a backup (made by engram backup), with no -wal or -shm beside it"
	case errors.Is(err, engram.ErrExists), errors.Is(err, fs.ErrExist):
		return "choose another ID, name or file"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, engram.ErrReadOnly):
		return "check the permissions of the directory, or pass another --dir or --path"
	case errors.Is(err, engram.ErrBusy):
		return "another process holds the database, or the database server is unavailable: retry"
	case errors.Is(err, engram.ErrEmbedding), errors.As(err, new(*engram.APIError)):
		return "check --embedder, --embedder-url, --embedder-model and OPENAI_API_KEY or GEMINI_API_KEY"
	}
	return ""
}

// notADatabase reports whether err is SQLite's "file is not a database"
// (SQLITE_NOTADB): a file with no SQLite header, rather than a database
// with a damaged page (SQLITE_CORRUPT, which a backup repairs).
func notADatabase(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB
}
