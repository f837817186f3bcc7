package pgtest_test

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pgtest.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestNewDatabase starts the cluster, makes a database, queries it, and
// checks that the database is gone once its test has ended.
func TestNewDatabase(t *testing.T) {
	var name string
	t.Run("use", func(t *testing.T) {
		d := pgtest.NewDatabase(t)
		name = d.Name
		db, err := sql.Open("pgx", d.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var one int
		var current string
		if err := db.QueryRow("SELECT 1, current_database()").Scan(&one, &current); err != nil {
			t.Fatal(err)
		}
		if one != 1 || current != d.Name {
			t.Fatalf("SELECT 1, current_database() = %d, %q; want 1, %q", one, current, d.Name)
		}
		// The connection stays open: the drop must end it.
	})
	admin, err := sql.Open("pgx", pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRow("SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %q still exists after its test ended", name)
	}
}

// TestNewDatabaseFrom clones a template: what the template holds, the
// copy holds.
func TestNewDatabaseFrom(t *testing.T) {
	tmpl := pgtest.NewDatabase(t)
	db, err := sql.Open("pgx", tmpl.DSN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x int); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	d := pgtest.NewDatabaseFrom(t, tmpl.Name)
	cp, err := sql.Open("pgx", d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var x int
	if err := cp.QueryRow("SELECT x FROM t").Scan(&x); err != nil {
		t.Fatal(err)
	}
	if x != 42 {
		t.Fatalf("the copy holds %d, want 42", x)
	}
}

// TestClusterDownUp: a durable cluster of the test's own runs with fsync
// on; while it is down a query fails, and once up again (by Up, then by
// Restart) it answers with the same settings and what was committed.
func TestClusterDownUp(t *testing.T) {
	c := pgtest.NewCluster(t, pgtest.Options{Durable: true})
	d := c.NewDatabase(t)
	db, err := sql.Open("pgx", d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check := func(when string) {
		t.Helper()
		var fsync string
		var x int
		if err := db.QueryRow("SELECT current_setting('fsync'), (SELECT x FROM t)").Scan(&fsync, &x); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if fsync != "on" || x != 42 {
			t.Fatalf("%s: fsync %s, x %d; want on, 42", when, fsync, x)
		}
	}
	if _, err := db.Exec("CREATE TABLE t (x int); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	check("before")
	if err := c.Down(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err == nil {
		t.Fatal("a cluster that is down answers")
	}
	if err := c.Up(); err != nil {
		t.Fatal(err)
	}
	check("after Up")
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	check("after Restart")
}

// TestClusterPassword: a cluster of Options.Password lets in its DSNs,
// which give the password, and refuses a wrong one.
func TestClusterPassword(t *testing.T) {
	c := pgtest.NewCluster(t, pgtest.Options{Password: `it's a \secret`})
	d := c.NewDatabase(t)
	db, err := sql.Open("pgx", d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatalf("the cluster's DSN: %v", err)
	}
	wrong, err := sql.Open("pgx", strings.Replace(d.DSN, "password='", "password='x", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if err := wrong.Ping(); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Fatalf("a wrong password: %v, want password authentication failed", err)
	}
}
