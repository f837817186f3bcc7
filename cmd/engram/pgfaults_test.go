package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/engram-go/engram/internal/pgtest"
)

// TestServeBadPostgres: "engram serve" with a DSN it cannot use (a server
// that refuses, a wrong password or user, a database that does not
// exist, a DSN pgx cannot read) exits 1 at once with a message that names
// the flag and the cause, shows no password, and serves nothing.
func TestServeBadPostgres(t *testing.T) {
	const password = "right-password-0123"
	c := pgtest.NewCluster(t, pgtest.Options{Password: password})
	dsn := c.NewDatabase(t).DSN
	if code, out, errOut := runCommand(t, "--postgres", dsn, "--agent", "ada", "add", "semantic", "the database works"); code != exitOK {
		t.Fatalf("the right DSN: exit %d: %s%s", code, out, errOut)
	}
	const wrong = "wrong-password-0123"
	for name, c := range map[string]struct{ dsn, want string }{
		"a server that refuses": {"host=127.0.0.1 port=1 user=engram dbname=engram sslmode=disable password=" + wrong, "connection refused"},
		"a wrong password":      {strings.Replace(dsn, password, wrong, 1), `password authentication failed for user "engram"`},
		"an unknown user":       {strings.Replace(dsn, "user=engram", "user=nobody", 1), `password authentication failed for user "nobody"`},
		"an unknown database":   {strings.Replace(dsn, "dbname=", "dbname=nosuch", 1), "does not exist"},
		"a malformed key=value": {"host=/tmp port=abc password=" + wrong, "invalid port"},
		"a malformed URL":       {"postgres://engram:" + wrong + "@%zz/db", "cannot parse"},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			code, _, errOut := runCommand(t, "--postgres", c.dsn, "serve", "--addr", "127.0.0.1:0")
			if code != exitFailure || !strings.HasPrefix(errOut, "engram: opening the PostgreSQL database of --postgres: ") || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, %q; want %d, the flag and %q", code, errOut, exitFailure, c.want)
			}
			if strings.Contains(errOut, wrong) || strings.Contains(errOut, password) {
				t.Errorf("the message shows a password: %s", errOut)
			}
			if strings.Contains(errOut, "serving") {
				t.Errorf("a refused serve said it was serving: %s", errOut)
			}
			t.Logf("after %s: exit %d: %s", time.Since(start).Round(time.Millisecond), code, strings.TrimSpace(errOut))
		})
	}
}

// TestServeSchemaTooNew: a database whose engram_schema records a version
// newer than this engram's makes "engram serve --postgres" exit 4 (a
// database newer than this engram) saying so, and changes nothing.
func TestServeSchemaTooNew(t *testing.T) {
	d := pgtest.NewDatabase(t)
	if code, out, errOut := runCommand(t, "--postgres", d.DSN, "--agent", "ada", "add", "semantic", "made by this engram"); code != exitOK {
		t.Fatalf("add: exit %d: %s%s", code, out, errOut)
	}
	db, err := sql.Open("pgx", d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var latest int
	if err := db.QueryRow(`SELECT max(version) FROM engram_schema`).Scan(&latest); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO engram_schema (version, name) VALUES ($1, 'from a newer engram')`, latest+1); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCommand(t, "--postgres", d.DSN, "serve", "--addr", "127.0.0.1:0")
	want := fmt.Sprintf("schema version %d, this engram knows %d", latest+1, latest)
	if code != exitDamaged || !strings.Contains(errOut, want) || strings.Contains(errOut, "serving") {
		t.Errorf("serve on a newer schema: exit %d, %q; want %d and %q", code, errOut, exitDamaged, want)
	}
	t.Logf("exit %d: %s", code, strings.TrimSpace(errOut))
	var rows, n int
	if err := db.QueryRow(`SELECT count(*), max(version) FROM engram_schema`).Scan(&rows, &n); err != nil {
		t.Fatal(err)
	}
	if n != latest+1 || rows != latest+1 {
		t.Errorf("engram_schema after the refused serve: %d rows, version %d; want %d, %d", rows, n, latest+1, latest+1)
	}
}

// pgAttempt is one write of TestFleetPostgresRestart and what came of it.
type pgAttempt struct {
	agent, marker, id string
	server            int
	at                time.Time
	status            int    // 0: no answer came
	body              string // the answer of a failed write
}

// TestFleetPostgresRestart writes through two servers while PostgreSQL is
// stopped (fast: sessions ended, transactions rolled back) and started
// again: during the outage writes and searches fail with 503 unavailable
// (not 404 for the server's socket that is not there, nor 500), after it
// both servers write again, and nothing is half-written: every
// acknowledged write is whole (its memory read by its ID, its text found
// by a search) through both servers, and every write, failed or not, is
// either in the agent's list of memories and found by a search of its
// marker, or in neither.
func TestFleetPostgresRestart(t *testing.T) {
	exe := requireEngram(t)
	cluster := pgtest.NewCluster(t, pgtest.Options{Durable: true})
	dsn := cluster.NewDatabase(t).DSN
	servers := startFleet(t, exe, dsn, 2)
	urls := []string{servers[0].url, servers[1].url}
	agents := []string{"ada", "bob"}

	var (
		mu       sync.Mutex
		attempts []pgAttempt
		stop     = make(chan struct{})
		seq      int64
	)
	var wg sync.WaitGroup
	for ci := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newFleetClient(t)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				seq++
				a := pgAttempt{agent: agents[ci%2], marker: markerWord(seq), server: (ci + i) % 2}
				mu.Unlock()
				code, b, err := c.do("POST", urls[a.server]+"/v1/memories", a.agent, map[string]any{
					"type": "semantic", "profile": a.agent, "content": fmt.Sprintf("restart note %s from client %d", a.marker, ci)})
				a.at, a.status, a.body = time.Now(), code, string(b)
				if err == nil && code == http.StatusCreated {
					var resp struct{ IDs []string }
					if json.Unmarshal(b, &resp) == nil && len(resp.IDs) == 1 {
						a.id = resp.IDs[0]
					}
				}
				mu.Lock()
				attempts = append(attempts, a)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	// ackedAfter counts, per server, the writes acknowledged after t0.
	ackedAfter := func(t0 time.Time) [2]int {
		mu.Lock()
		defer mu.Unlock()
		var n [2]int
		for _, a := range attempts {
			if a.id != "" && a.at.After(t0) {
				n[a.server]++
			}
		}
		return n
	}
	time.Sleep(time.Second)
	downAt := time.Now()
	if err := cluster.Down(); err != nil {
		close(stop)
		wg.Wait()
		t.Fatal(err)
	}
	stoppedAt := time.Now()
	// A search through each server while it is down.
	c := newFleetClient(t)
	var searchErrs []string
	for _, u := range urls {
		code, b, err := c.search(u, "ada", "restart", false)
		searchErrs = append(searchErrs, fmt.Sprintf("%d %s %v", code, bytes.TrimSpace(b), err))
		if err != nil || code != http.StatusServiceUnavailable || !bytes.Contains(b, []byte(`"code":"unavailable"`)) {
			t.Errorf("a search through %s while PostgreSQL is down: %d %s %v; want 503 unavailable", u, code, b, err)
		}
	}
	time.Sleep(time.Second)
	if err := cluster.Up(); err != nil {
		close(stop)
		wg.Wait()
		t.Fatal(err)
	}
	upAt := time.Now()
	// Until both servers have acknowledged writes again (bounded).
	for deadline := upAt.Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if n := ackedAfter(upAt); n[0] >= 5 && n[1] >= 5 || time.Now().After(deadline) {
			break
		}
	}
	recovered := time.Now()
	close(stop)
	wg.Wait()
	if n := ackedAfter(upAt); n[0] == 0 || n[1] == 0 {
		t.Errorf("after PostgreSQL came back the servers acknowledged %v writes in 20 s", n)
	}

	// What each outcome looked like.
	outcomes := map[string]int{}
	var firstAck time.Time
	for _, a := range attempts {
		switch {
		case a.id != "":
			if a.at.After(upAt) && (firstAck.IsZero() || a.at.Before(firstAck)) {
				firstAck = a.at
			}
			continue
		case a.status == 0:
			outcomes["no answer"]++
		default:
			var e struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal([]byte(a.body), &e) != nil || e.Error.Code != "unavailable" || e.Error.Message == "" || a.status != http.StatusServiceUnavailable {
				t.Errorf("a write during the outage: %d %s; want 503 unavailable", a.status, a.body)
			}
			outcomes[fmt.Sprintf("%d %s: %s", a.status, e.Error.Code, e.Error.Message)]++
		}
	}
	if len(outcomes) == 0 {
		t.Errorf("no write failed while PostgreSQL was down for %s", upAt.Sub(downAt).Round(time.Millisecond))
	}

	// Nothing half-written.
	failedStored := 0 // writes answered with an error (or not at all) that are stored
	for _, agent := range agents {
		for si, u := range urls {
			var all strings.Builder
			cursor := ""
			for {
				kv := []string{"profile", agent, "limit", "1000", "type", "semantic"}
				if cursor != "" {
					kv = append(kv, "cursor", cursor)
				}
				code, b, err := c.do("GET", fleetURL(u, "/v1/memories", kv...), agent, nil)
				if err != nil || code != http.StatusOK {
					t.Fatalf("listing %s through server %d: %d %s %v", agent, si, code, b, err)
				}
				all.Write(b)
				var page struct {
					NextCursor string `json:"next_cursor"`
				}
				if err := json.Unmarshal(b, &page); err != nil || page.NextCursor == "" {
					break
				}
				cursor = page.NextCursor
			}
			for _, a := range attempts {
				if a.agent != agent {
					continue
				}
				inList := strings.Contains(all.String(), a.marker)
				code, b, err := c.search(u, agent, a.marker, false)
				if err != nil || code != http.StatusOK {
					t.Fatalf("searching %s through server %d: %d %s %v", a.marker, si, code, b, err)
				}
				found := resultsHold(b, a.marker)
				if si == 0 && a.id == "" && found {
					failedStored++
				}
				if inList != found || a.id != "" && !found {
					t.Errorf("write %s (status %d, id %q) through server %d: listed %v, found by a search %v", a.marker, a.status, a.id, si, inList, found)
				}
				if a.id != "" {
					code, b, err := c.do("GET", fleetURL(u, "/v1/memories/"+a.id, "profile", agent), agent, nil)
					if err != nil || code != http.StatusOK || !bytes.Contains(b, []byte(a.marker)) {
						t.Errorf("acknowledged write %s (%s) through server %d: %d %s %v", a.marker, a.id, si, code, b, err)
					}
				}
			}
		}
	}
	acked := 0
	for _, a := range attempts {
		if a.id != "" {
			acked++
		}
	}
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "\n  %4d × %s", outcomes[k], k)
	}
	report := fmt.Sprintf("restart: %d writes, %d acknowledged; PostgreSQL stopped in %s, down %s, the first write acknowledged %s after it was up, both servers writing again after %s; searches while down: %s; %d writes not acknowledged but stored; failed writes:%s",
		len(attempts), acked, stoppedAt.Sub(downAt).Round(time.Millisecond), upAt.Sub(downAt).Round(time.Millisecond),
		firstAck.Sub(upAt).Round(time.Millisecond), recovered.Sub(upAt).Round(time.Millisecond), strings.Join(searchErrs, " | "), failedStored, sb.String())
	t.Log(report)
	fmt.Println(report)
}
