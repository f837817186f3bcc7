package pgtest

import (
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Options configure a cluster of NewCluster.
type Options struct {
	// Durable keeps PostgreSQL's defaults of fsync, synchronous_commit
	// and full_page_writes (on), for durability tests; otherwise they are
	// off, as in the shared cluster.
	Durable bool
	// Password, when it is not "", is User's password, which the
	// cluster asks for (scram-sha-256) and its DSNs give.
	Password string
}

// Cluster is a cluster of one test's own (NewCluster), which the test may
// stop and start again without disturbing the binary's shared cluster.
type Cluster struct {
	dir      string // the temporary directory: data/, log, socket
	password string // Options.Password

	mu   sync.Mutex // serialises Down, Up and Restart
	down bool       // Down stopped the server and Up has not started it
}

// NewCluster makes and starts a cluster for the test, stopped and removed
// when the test ends. It skips the test when the binaries are absent and
// fails it when the cluster cannot start.
func NewCluster(t testing.TB, o Options) *Cluster {
	t.Helper()
	dir, err := startCluster(o)
	requireErr(t, err)
	c := &Cluster{dir: dir, password: o.Password}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.down {
			if err := pgCtl(c.dir, "-m", "fast", "stop"); err != nil {
				t.Errorf("pgtest: stopping the cluster: %v", err)
			}
		}
		if err := os.RemoveAll(c.dir); err != nil {
			t.Errorf("pgtest: removing the cluster: %v", err)
		}
	})
	return c
}

// DSN returns a pgx DSN of database name in the cluster (with User's
// password, for a cluster of Options.Password).
func (c *Cluster) DSN(name string) string { return dsnWith(c.dir, c.password, name) }

// NewDatabase makes an empty database in the cluster and returns it; it
// lives as long as the cluster. It fails the test when the database
// cannot be made.
func (c *Cluster) NewDatabase(t testing.TB) Database {
	t.Helper()
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), dbSeq.Add(1))
	admin, err := sql.Open("pgx", c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + quoteIdent(name)); err != nil {
		t.Fatalf("pgtest: CREATE DATABASE %s: %v", name, err)
	}
	return Database{Name: name, DSN: c.DSN(name)}
}

// Down stops the server in fast mode (open sessions are ended, their
// transactions rolled back) and waits until it is gone; Up starts it
// again. Down returns pg_ctl's error with the server's log.
func (c *Cluster) Down() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return nil
	}
	if err := pgCtl(c.dir, "-m", "fast", "stop"); err != nil {
		return err
	}
	c.down = true
	return nil
}

// Up starts the server Down stopped, with the options it had, and waits
// until it accepts connections; it returns pg_ctl's error with the
// server's log. It does nothing when the server runs.
func (c *Cluster) Up() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.down {
		return nil
	}
	// pg_ctl start without -o would drop the options of the first start:
	// postmaster.opts holds them, and restart reads it, so a stopped
	// cluster is started by restart too.
	if err := pgCtl(c.dir, "restart"); err != nil {
		return err
	}
	c.down = false
	return nil
}

// Restart is Down then Up: pg_ctl restart in fast mode.
func (c *Cluster) Restart() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := pgCtl(c.dir, "-m", "fast", "restart"); err != nil {
		return err
	}
	c.down = false
	return nil
}
