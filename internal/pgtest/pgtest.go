// Package pgtest starts a throwaway PostgreSQL 15 cluster for a test
// binary and gives each test a fresh database in it.
//
// The cluster is made on first use (initdb and pg_ctl from BinDir, as the
// postgres user through runuser when the test runs as root) in a
// temporary directory under os.TempDir, listens on a Unix socket in that
// directory only (no TCP), and runs with fsync off: it holds test data,
// never anything to keep. A test binary that uses it calls Stop from its
// TestMain after m.Run. Where the binaries are absent the tests that ask
// for a database are skipped, with ErrNoPostgres's text as the reason.
package pgtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// BinDir is where the PostgreSQL 15 server binaries are looked for.
const BinDir = "/usr/lib/postgresql/15/bin"

// User is the cluster's superuser, the user of every DSN pgtest gives.
const User = "engram"

// ErrNoPostgres is returned (and is the skip reason) when the
// PostgreSQL 15 binaries are not in BinDir.
var ErrNoPostgres = errors.New("pgtest: PostgreSQL 15 binaries not found in " + BinDir)

// cluster is the test binary's one cluster.
var cluster struct {
	once    sync.Once
	mu      sync.Mutex // guards dir and stopped
	dir     string     // the temporary directory: data/, log, socket
	err     error      // why the cluster did not start
	stopped bool
}

// binDir is BinDir; the tests of the skip change it.
var binDir = BinDir

// dbSeq numbers the databases NewDatabase makes.
var dbSeq atomic.Int64

// Database is a database made for one test.
type Database struct {
	Name string // its name in the cluster
	DSN  string // a pgx DSN for it
}

// Start starts the cluster if it is not running yet and returns
// ErrNoPostgres when the binaries are absent, or the error of initdb or
// pg_ctl (with the server's log) when it could not start. Only the first
// call starts anything; later calls return its result.
func Start() error {
	cluster.once.Do(func() { cluster.err = start() })
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if cluster.err == nil && cluster.stopped {
		return errors.New("pgtest: the cluster was stopped")
	}
	return cluster.err
}

// DSN returns the DSN of the cluster's postgres database, starting the
// cluster if needed; it skips the test when the binaries are absent and
// fails it when the cluster cannot start.
func DSN(t testing.TB) string {
	t.Helper()
	require(t)
	return dsn("postgres")
}

// NewDatabase makes an empty database for the test, dropped (with any
// connection still open to it) when the test ends, and returns it. It
// skips the test when the binaries are absent and fails it when the
// cluster cannot start or the database cannot be made.
func NewDatabase(t testing.TB) Database {
	t.Helper()
	return newDatabase(t, "")
}

// NewDatabaseFrom is NewDatabase with a copy of the database template
// (CREATE DATABASE … TEMPLATE): a schema applied once to a template is
// cloned per test. The template must have no open connection.
func NewDatabaseFrom(t testing.TB, template string) Database {
	t.Helper()
	return newDatabase(t, template)
}

// Stop stops the cluster and removes its directory; a TestMain calls it
// after m.Run. It does nothing when the cluster never started, and
// returns pg_ctl's error (with its output) when the server does not stop.
func Stop() error {
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if cluster.dir == "" || cluster.stopped {
		return nil
	}
	cluster.stopped = true
	err := run(cluster.dir, filepath.Join(binDir, "pg_ctl"), "-D", filepath.Join(cluster.dir, "data"), "-m", "fast", "-w", "stop")
	if rerr := os.RemoveAll(cluster.dir); err == nil && rerr != nil {
		err = fmt.Errorf("pgtest: removing the cluster: %w", rerr)
	}
	return err
}

// require starts the cluster or ends the test.
func require(t testing.TB) {
	t.Helper()
	requireErr(t, Start())
}

// requireErr skips the test when err is ErrNoPostgres and fails it on any
// other error.
func requireErr(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoPostgres) {
		t.Skip(err.Error())
	} else if err != nil {
		t.Fatal(err)
	}
}

func newDatabase(t testing.TB, template string) Database {
	t.Helper()
	require(t)
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), dbSeq.Add(1))
	stmt := "CREATE DATABASE " + quoteIdent(name)
	if template != "" {
		stmt += " TEMPLATE " + quoteIdent(template)
	}
	admin, err := sql.Open("pgx", dsn("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(stmt); err != nil {
		t.Fatalf("pgtest: %s: %v", stmt, err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", dsn("postgres"))
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE " + quoteIdent(name) + " WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping %s: %v", name, err)
		}
	})
	return Database{Name: name, DSN: dsn(name)}
}

// dsn is the DSN of database name in the cluster.
func dsn(name string) string {
	return dsnIn(cluster.dir, name)
}

// dsnIn is the DSN of database name in the cluster in dir.
func dsnIn(dir, name string) string { return dsnWith(dir, "", name) }

// dsnWith is the DSN of database name in the cluster in dir, with User's
// password when it is not "".
func dsnWith(dir, password, name string) string {
	dsn := fmt.Sprintf("host=%s user=%s dbname=%s sslmode=disable", dir, User, name)
	if password != "" {
		dsn += " password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password) + "'"
	}
	return dsn
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// start makes and starts the cluster.
func start() error {
	dir, err := startCluster(Options{})
	if err != nil {
		return err
	}
	cluster.mu.Lock()
	cluster.dir = dir
	cluster.mu.Unlock()
	return nil
}

// startCluster makes a cluster in a new temporary directory and starts
// it, as o says; it returns the directory, or ErrNoPostgres, or the error
// of initdb or pg_ctl (with the server's log), having removed the
// directory.
func startCluster(o Options) (string, error) {
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			return "", ErrNoPostgres
		}
	}
	dir, err := os.MkdirTemp(os.TempDir(), "engram-pgtest-")
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the postgres user owns the
		// directory and runs the server.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("pgtest: running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("pgtest: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := []string{"-D", data, "-U", User, "--auth=trust", "-E", "UTF8", "--locale=C"}
	if o.Password != "" {
		pw := filepath.Join(dir, "pwfile") // initdb reads it as the postgres user
		if err := os.WriteFile(pw, []byte(o.Password+"\n"), 0o644); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("pgtest: %w", err)
		}
		initdb = append(initdb, "--auth=scram-sha-256", "--pwfile="+pw) // the last --auth wins
	}
	if !o.Durable {
		initdb = append(initdb, "--no-sync")
	}
	if err := run(dir, filepath.Join(binDir, "initdb"), initdb...); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	opts := "-k " + dir + " -c listen_addresses="
	if !o.Durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if err := pgCtl(dir, "-o", opts, "start"); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	db, err := sql.Open("pgx", dsnWith(dir, o.Password, "postgres"))
	if err == nil {
		err = db.PingContext(context.Background())
		db.Close()
	}
	if err != nil {
		pgCtl(dir, "-m", "immediate", "stop")
		os.RemoveAll(dir)
		return "", fmt.Errorf("pgtest: the cluster started but does not answer: %w", err)
	}
	return dir, nil
}

// pgCtl runs pg_ctl on the cluster in dir, waiting for it to finish, and
// returns its error with the server's log when it fails.
func pgCtl(dir string, args ...string) error {
	args = append([]string{"-D", filepath.Join(dir, "data"), "-l", filepath.Join(dir, "log"), "-w"}, args...)
	if err := run(dir, filepath.Join(binDir, "pg_ctl"), args...); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return fmt.Errorf("%w\nserver log:\n%s", err, log)
	}
	return nil
}

// run runs a PostgreSQL binary in dir, as the postgres user when the
// test runs as root, and returns its output in the error when it fails.
func run(dir, bin string, args ...string) error {
	if os.Geteuid() == 0 {
		args = append([]string{"-u", "postgres", "--", bin}, args...)
		bin = "runuser"
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pgtest: %s %s: %w\n%s", bin, strings.Join(args, " "), err, out.Bytes())
	}
	return nil
}

// Template makes, once per test binary, the database name filled by fill
// (given its DSN), for NewDatabaseFrom to copy: a schema applied once is
// cloned per test. Later calls return the first call's result. It
// returns ErrNoPostgres when the binaries are absent, and the error of
// the cluster, of CREATE DATABASE or of fill. The database lives until
// Stop.
func Template(name string, fill func(dsn string) error) error {
	templates.mu.Lock()
	defer templates.mu.Unlock()
	if err, ok := templates.made[name]; ok {
		return err
	}
	err := makeTemplate(name, fill)
	templates.made[name] = err
	return err
}

// templates are the templates made (see Template), with their errors.
var templates = struct {
	mu   sync.Mutex
	made map[string]error
}{made: map[string]error{}}

func makeTemplate(name string, fill func(dsn string) error) error {
	if err := Start(); err != nil {
		return err
	}
	admin, err := sql.Open("pgx", dsn("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + quoteIdent(name)); err != nil {
		return fmt.Errorf("pgtest: making the template %s: %w", name, err)
	}
	if err := fill(dsn(name)); err != nil {
		return fmt.Errorf("pgtest: filling the template %s: %w", name, err)
	}
	return nil
}
