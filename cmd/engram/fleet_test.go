package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/engram-go/engram/internal/pgtest"
)

// fleetDuration bounds TestFleet's load; the run is
// -fleet.duration=30s.
var fleetDuration = flag.Duration("fleet.duration", 10*time.Second, "how long TestFleet's clients write and read (the issue's run: 30s)")

// fleetAgents are the agents the fleet tests write to, each with a token
// of its own: fleetToken(agent).
var fleetAgents = []string{"ada", "bob", "cy", "dee", "slot", "a", "b"}

// fleetToken is the bearer token of one agent in the fleet tests.
func fleetToken(agent string) string { return "fleet-token-" + agent + "-0123456789abcdef" }

// fleetServer is one "engram serve --postgres" process of a fleet test.
type fleetServer struct {
	url    string // http://127.0.0.1:PORT, the same after a restart
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed when the process has exited
}

var servingRE = regexp.MustCompile(`serving http://(\S+) `)

// startFleetServer starts "engram serve --postgres dsn" (the engram on
// the tests' PATH: this test binary, as TestMain makes it) on addr
// (127.0.0.1:0 for a free port), with a token for each of fleetAgents,
// and waits until it says where it serves. It returns an error with the
// server's output when it exits first or says nothing in time.
func startFleetServer(exe, dsn, addr string) (*fleetServer, error) {
	args := []string{"serve", "--postgres", dsn, "--addr", addr}
	for _, a := range fleetAgents {
		args = append(args, "--agent-token", a+"="+fleetToken(a))
	}
	cmd := exec.Command(exe, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ENGRAM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	s := &fleetServer{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = io.Discard, s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(s.exited) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if m := servingRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr, s.url = m[1], "http://"+m[1]
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("engram serve exited (%v): %s", cmd.ProcessState, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.stop()
	return nil, fmt.Errorf("engram serve said nothing in 30 s: %s", s.stderr.String())
}

// kill ends the server with SIGKILL and waits until it has exited.
func (s *fleetServer) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// stop ends the server as an interrupt would, or with SIGKILL when it has
// not exited after 10 s, and returns whether it exited by itself.
func (s *fleetServer) stop() bool {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return s.cmd.ProcessState.Success()
	case <-time.After(10 * time.Second):
		s.kill()
		return false
	}
}

// fleetClient calls the servers' HTTP API with an agent's token.
type fleetClient struct{ hc *http.Client }

// newFleetClient makes a client whose idle connections are closed when
// the test ends, before the servers stop: a server's graceful shutdown
// waits up to 5 s for a connection its client opened and never used.
func newFleetClient(t *testing.T) *fleetClient {
	// A transport of the client's own: a killed server's idle connections
	// are not another client's.
	c := &fleetClient{hc: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	t.Cleanup(c.hc.CloseIdleConnections)
	return c
}

// do sends a request as agent (its token) and returns the status and the
// body; the error is the transport's: no answer came.
func (c *fleetClient) do(method, u, agent string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+fleetToken(agent))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}

// search runs a plain search of agent's memory for query through the
// server at base.
func (c *fleetClient) search(base, agent, query string, advanced bool) (int, []byte, error) {
	return c.do("POST", base+"/v1/search", agent, map[string]any{
		"profile": agent, "query": query, "recall": false, "advanced": advanced, "limit": 200})
}

// resultsHold reports whether the results of a search's answer b (its
// memories' contents, not the terms it echoes) hold word.
func resultsHold(b []byte, word string) bool {
	var resp struct{ Results []struct{ Content string } }
	if json.Unmarshal(b, &resp) != nil {
		return false
	}
	for _, r := range resp.Results {
		if strings.Contains(r.Content, word) {
			return true
		}
	}
	return false
}

// markerWord makes the n-th marker: a word of consonants only, which
// engram's Porter stemmer leaves as it is, unique to n.
func markerWord(n int64) string {
	const letters = "bcdfghjklmnpqrtvwxz"
	b := []byte("zq")
	for {
		b = append(b, letters[n%int64(len(letters))])
		n /= int64(len(letters))
		if n == 0 {
			return string(b)
		}
	}
}

// ackedWrite is a write the server acknowledged.
type ackedWrite struct {
	agent, marker, id string
	server            int
	at                time.Time
}

// percentile returns the p-th percentile of sorted ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

// requireEngram returns the engram on the tests' PATH (this test binary,
// as TestMain makes it).
func requireEngram(t *testing.T) string {
	t.Helper()
	exe, err := exec.LookPath("engram")
	if err != nil {
		t.Fatalf("no engram on the tests' PATH (TestMain puts it there): %v", err)
	}
	return exe
}

// startFleet starts n servers on dsn at once (their migrations race) and
// stops them when the test ends, failing it when one did not exit by
// itself on SIGTERM.
func startFleet(t *testing.T, exe, dsn string, n int) []*fleetServer {
	t.Helper()
	servers := make([]*fleetServer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = startFleetServer(exe, dsn, "127.0.0.1:0")
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for i, s := range servers {
			if s != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if !s.stop() {
						t.Errorf("server %d did not exit cleanly on SIGTERM: %s", i, s.stderr.String())
					}
				}()
			}
		}
		wg.Wait()
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return servers
}

// TestFleet runs three "engram serve --postgres" processes on one
// database (fsync on) and 16 clients that write through a random server
// and read through another for -fleet.duration; midway one server is
// killed with SIGKILL and started again on its port. Every acknowledged
// write is then found by a search of its marker through every server, two
// servers asserting into one slot of a one-value predicate at once never
// leave two current values, and an agent's token reads no other agent's
// memory through any server, over HTTP or MCP. It reports the lag from a
// write's acknowledgement to its first appearance in a search through
// another server.
func TestFleet(t *testing.T) {
	exe := requireEngram(t)
	setup := time.Now()
	cluster := pgtest.NewCluster(t, pgtest.Options{Durable: true})
	dsn := cluster.NewDatabase(t).DSN
	clusterUp := time.Since(setup)
	servers := startFleet(t, exe, dsn, 3)
	t.Logf("the cluster (fsync on) started in %s, the three servers in %s", clusterUp.Round(time.Millisecond), (time.Since(setup) - clusterUp).Round(time.Millisecond))
	urls := make([]string, len(servers))
	for i, s := range servers {
		urls[i] = s.url
	}

	var (
		mu       sync.Mutex
		acked    []ackedWrite
		lags     []time.Duration // to the answer of the first search that finds the write
		sentLags []time.Duration // to the sending of that search
		searches []time.Duration // every answered search's own time
		firstTry int             // writes visible at the first search through another server
		unseen   int             // writes not visible through another server within 10 s
		failures []string
		seq      atomic.Int64
		unacked  atomic.Int64 // attempts whose answer never came
		searchEr atomic.Int64 // searches whose answer never came
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	start := time.Now()
	end := start.Add(*fleetDuration)
	// Writes started before the end may finish after it; a server down
	// then (none is after the restart) would keep them retrying.
	grace := end.Add(30 * time.Second)
	writers := []string{"ada", "bob", "cy", "dee"}

	var wg sync.WaitGroup
	for ci := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newFleetClient(t)
			rng := rand.New(rand.NewPCG(uint64(ci), 32))
			for time.Now().Before(end) {
				n := seq.Add(1)
				agent, marker := writers[(ci+int(n))%len(writers)], markerWord(n)
				body := map[string]any{"type": "semantic", "profile": agent,
					"content": fmt.Sprintf("fleet note %s from client %d", marker, ci)}
				w := ackedWrite{agent: agent, marker: marker, server: -1}
				for time.Now().Before(grace) {
					srv := rng.IntN(len(urls))
					code, b, err := c.do("POST", urls[srv]+"/v1/memories", agent, body)
					if err != nil { // unacknowledged: try another server
						unacked.Add(1)
						time.Sleep(20 * time.Millisecond)
						continue
					}
					if code != http.StatusCreated {
						fail("write %s through server %d: %d %s", marker, srv, code, b)
						break
					}
					var resp struct{ IDs []string }
					if err := json.Unmarshal(b, &resp); err != nil || len(resp.IDs) != 1 {
						fail("write %s: answer %s", marker, b)
						break
					}
					w.server, w.id, w.at = srv, resp.IDs[0], time.Now()
					break
				}
				if w.server < 0 {
					continue
				}
				mu.Lock()
				acked = append(acked, w)
				mu.Unlock()
				// The first search through another server that finds it.
				for try := 0; ; try++ {
					if time.Since(w.at) > 10*time.Second {
						mu.Lock()
						unseen++
						mu.Unlock()
						break
					}
					other := (w.server + 1 + rng.IntN(len(urls)-1)) % len(urls)
					sent := time.Now()
					code, b, err := c.search(urls[other], agent, marker, false)
					if err != nil {
						searchEr.Add(1)
						time.Sleep(20 * time.Millisecond)
						continue
					}
					took := time.Since(sent)
					mu.Lock()
					searches = append(searches, took)
					mu.Unlock()
					if code != http.StatusOK {
						fail("search %s through server %d: %d %s", marker, other, code, b)
						break
					}
					if resultsHold(b, marker) {
						lag := time.Since(w.at)
						mu.Lock()
						lags = append(lags, lag)
						sentLags = append(sentLags, sent.Sub(w.at))
						if try == 0 {
							firstTry++
						}
						mu.Unlock()
						break
					}
					time.Sleep(2 * time.Millisecond)
				}
			}
		}()
	}

	// Two servers assert into the slot of a one-value predicate (lives
	// in) at once, then a third says how many values hold now.
	var slotRounds, slotBad atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := newFleetClient(t)
		retry := func(first int, f func(u string) (int, []byte, error)) (int, []byte) {
			for i := first; time.Now().Before(grace); i++ {
				code, b, err := f(urls[i%len(urls)])
				if err == nil {
					return code, b
				}
				time.Sleep(20 * time.Millisecond)
			}
			return 0, nil
		}
		for r := 0; time.Now().Before(end); r++ {
			var two sync.WaitGroup
			for k := range 2 {
				two.Add(1)
				go func() {
					defer two.Done()
					fact := map[string]any{"subject": "User", "predicate": "lives in", "object": fmt.Sprintf("Town%d%c", r, 'a'+k)}
					code, b := retry(r+k, func(u string) (int, []byte, error) {
						return c.do("POST", u+"/v1/facts", "slot", map[string]any{"profile": "slot", "facts": []any{fact}})
					})
					if code != http.StatusCreated {
						fail("slot round %d: asserting %v: %d %s", r, fact["object"], code, b)
					}
				}()
			}
			two.Wait()
			code, b := retry(r+2, func(u string) (int, []byte, error) {
				return c.do("GET", u+"/v1/facts?profile=slot&entity=User&predicate=lives+in", "slot", nil)
			})
			var resp struct {
				Facts []struct{ Object string }
				Count int
			}
			if code != http.StatusOK || json.Unmarshal(b, &resp) != nil {
				fail("slot round %d: reading the slot: %d %s", r, code, b)
			} else if resp.Count != 1 {
				slotBad.Add(1)
				fail("slot round %d: %d current values of (User, lives in): %s", r, resp.Count, b)
			}
			slotRounds.Add(1)
		}
	}()

	// Midway, SIGKILL one server and start it again on its port.
	victim := 1
	var killedAt, upAt time.Time
	time.Sleep(time.Until(start.Add(*fleetDuration / 2)))
	servers[victim].kill()
	killedAt = time.Now()
	var err error
	for try := 0; ; try++ {
		var s *fleetServer
		if s, err = startFleetServer(exe, dsn, servers[victim].addr); err == nil {
			servers[victim] = s
			break
		}
		if try == 5 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	upAt = time.Now()
	if err != nil {
		servers[victim] = nil
		t.Errorf("restarting server %d on %s: %v", victim, urls[victim], err)
	}
	wg.Wait()
	loadEnd := time.Now()
	for _, f := range failures {
		t.Error(f)
	}

	// The slot, through every server: one current value.
	c := newFleetClient(t)
	for si, u := range urls {
		code, b, err := c.do("GET", u+"/v1/facts?profile=slot&entity=User&predicate=lives+in", "slot", nil)
		var resp struct{ Count int }
		if err != nil || code != http.StatusOK || json.Unmarshal(b, &resp) != nil || resp.Count != 1 {
			t.Errorf("the slot through server %d at the end: %d %s %v; want one current value", si, code, b, err)
		}
	}

	// Every acknowledged write, through every server: a search of its
	// marker, 30 markers a search (an FTS5 OR expression: an Advanced
	// expression holds up to 64 words).
	byAgent := map[string][]ackedWrite{}
	for _, w := range acked {
		byAgent[w.agent] = append(byAgent[w.agent], w)
	}
	lost := map[string]bool{}
	for si, u := range urls {
		for agent, ws := range byAgent {
			for batch := range slices.Chunk(ws, 30) {
				var q []string
				for _, w := range batch {
					q = append(q, w.marker)
				}
				code, b, err := c.search(u, agent, strings.Join(q, " OR "), true)
				if err != nil || code != http.StatusOK {
					t.Fatalf("the final search through server %d: %d %s %v", si, code, b, err)
				}
				for _, w := range batch {
					if !resultsHold(b, w.marker) {
						// Alone, to be sure.
						code, b, err := c.search(u, agent, w.marker, false)
						if err != nil || code != http.StatusOK || !resultsHold(b, w.marker) {
							lost[w.marker] = true
							t.Errorf("acknowledged write %s (agent %s, id %s, through server %d at %s) not found through server %d: %d %s %v",
								w.marker, agent, w.id, w.server, w.at.Sub(start).Round(time.Millisecond), si, code, b, err)
						}
					}
				}
			}
		}
	}
	slices.Sort(lags)
	slices.Sort(sentLags)
	slices.Sort(searches)
	written := 0
	for _, w := range acked {
		if w.at.After(killedAt) && w.at.Before(upAt) {
			written++
		}
	}
	report := fmt.Sprintf("fleet: %s of load, 3 servers, 16 clients, 4 agents: %d writes acknowledged (%.0f/s), %d lost, %d attempts unanswered (retried), %d searches unanswered (retried)\n"+
		"fleet: server %d SIGKILLed at %s, serving again %s later; writes acknowledged by the other two meanwhile: %d\n"+
		"fleet: visibility lag through another server, acknowledgement to the answer of the first search that finds it: p50 %s, p90 %s, p99 %s, max %s (%d measured, %d found by the first search, %d not within 10 s)\n"+
		"fleet: the same to the sending of that search (the search's own time left out): p50 %s, p99 %s, max %s\n"+
		"fleet: a search's own time under this load (request to answer, %d searches): p50 %s, p90 %s, p99 %s\n"+
		"fleet: one-value slot: %d rounds of two servers asserting at once, %d rounds with other than one current value\n"+
		"fleet: final check of %d writes through each server took %s",
		fleetDuration.String(), len(acked), float64(len(acked))/loadEnd.Sub(start).Seconds(), len(lost), unacked.Load(), searchEr.Load(),
		victim, killedAt.Sub(start).Round(time.Millisecond), upAt.Sub(killedAt).Round(time.Millisecond), written,
		percentile(lags, 50).Round(100*time.Microsecond), percentile(lags, 90).Round(100*time.Microsecond),
		percentile(lags, 99).Round(100*time.Microsecond), percentile(lags, 100).Round(100*time.Microsecond), len(lags), firstTry, unseen,
		percentile(sentLags, 50).Round(10*time.Microsecond), percentile(sentLags, 99).Round(10*time.Microsecond), percentile(sentLags, 100).Round(10*time.Microsecond),
		len(searches), percentile(searches, 50).Round(100*time.Microsecond), percentile(searches, 90).Round(100*time.Microsecond), percentile(searches, 99).Round(100*time.Microsecond),
		slotRounds.Load(), slotBad.Load(), len(acked), time.Since(loadEnd).Round(time.Millisecond))
	t.Log("\n" + report)
	fmt.Println(report)
	if len(acked) == 0 || slotRounds.Load() == 0 {
		t.Errorf("the load did nothing: %d writes acknowledged, %d slot rounds", len(acked), slotRounds.Load())
	}
	if unseen > 0 {
		t.Errorf("%d acknowledged writes were not found through another server within 10 s", unseen)
	}

	t.Run("isolation", func(t *testing.T) { testFleetIsolation(t, urls) })
	for i, s := range servers {
		if s != nil {
			conn, err := net.DialTimeout("tcp", s.addr, time.Second)
			if err != nil {
				t.Errorf("server %d stopped serving: %v: %s", i, err, s.stderr.String())
				continue
			}
			conn.Close() // a connection never used holds a graceful shutdown up to 5 s

		}
	}
}

// fleetURL joins a path and query parameters.
func fleetURL(base, path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return base + path + "?" + v.Encode()
}

// ctxTimeout is a context for one check of a fleet test.
func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testFleetIsolation seeds agents a and b through one server, then, with
// b's token, asks every server over HTTP and MCP for b's memory and for
// a's (by name and by the ID of a's entry, to read, forget and delete
// it): no answer holds a's mark, those about b hold b's data, and a's
// entry is still there through every server.
func testFleetIsolation(t *testing.T, urls []string) {
	const mark = "alphamark"
	c := newFleetClient(t)
	seed := func(agent, word string) string {
		code, b, err := c.do("POST", urls[0]+"/v1/memories", agent, map[string]any{"profile": agent, "memories": []any{
			map[string]any{"type": "semantic", "content": word + " runs the deploy pipeline on Fridays"},
			map[string]any{"type": "fact", "subject": "User", "predicate": "works at", "object": word + "corp"},
		}})
		if err != nil || code != http.StatusCreated {
			t.Fatalf("seeding %s: %d %s %v", agent, code, b, err)
		}
		var resp struct{ IDs []string }
		if err := json.Unmarshal(b, &resp); err != nil || len(resp.IDs) != 2 {
			t.Fatalf("seeding %s: %s", agent, b)
		}
		return resp.IDs[0]
	}
	aSem := seed("a", mark)
	seed("b", "bravo")
	for si, u := range urls {
		// b's entry reaches this server (found by a search), then the table.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			code, b, err := c.search(u, "b", "bravo", false)
			if err == nil && code == http.StatusOK && resultsHold(b, "bravo") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("server %d: b's seed not found in 10 s: %d %s %v", si, code, b, err)
			}
		}
		for _, r := range []struct {
			method, path string
			body         any
			want         int  // the status
			own          bool // the answer holds b's data
		}{
			{"POST", "/v1/search", map[string]any{"profile": "b", "query": "deploy pipeline", "recall": false}, 200, true},
			{"POST", "/v1/search", map[string]any{"profile": "b", "query": "deploy pipeline"}, 200, true},
			{"POST", "/v1/context", map[string]any{"profile": "b", "query": "deploy"}, 200, true},
			{"GET", fleetURL("", "/v1/memories", "profile", "b"), nil, 200, true},
			{"GET", fleetURL("", "/v1/facts", "profile", "b", "entity", "User"), nil, 200, true},
			{"GET", fleetURL("", "/v1/export", "profile", "b"), nil, 200, true},
			{"GET", fleetURL("", "/v1/memories/"+aSem, "profile", "b"), nil, 404, false},
			{"DELETE", fleetURL("", "/v1/memories/"+aSem, "profile", "b"), nil, 404, false},
			{"POST", "/v1/search", map[string]any{"profile": "a", "query": mark, "recall": false}, 403, false},
			{"GET", fleetURL("", "/v1/memories", "profile", "a"), nil, 403, false},
			{"GET", fleetURL("", "/v1/memories/"+aSem, "profile", "a"), nil, 403, false},
			{"DELETE", fleetURL("", "/v1/memories/"+aSem, "profile", "a"), nil, 403, false},
			{"GET", fleetURL("", "/v1/facts", "profile", "a", "entity", "User"), nil, 403, false},
			{"GET", fleetURL("", "/v1/export", "profile", "a"), nil, 403, false},
			{"POST", "/v1/memories", map[string]any{"profile": "a", "type": "semantic", "content": "b writes into a"}, 403, false},
		} {
			code, b, err := c.do(r.method, u+r.path, "b", r.body)
			if err != nil {
				t.Fatalf("server %d: %s %s: %v", si, r.method, r.path, err)
			}
			if code != r.want || bytes.Contains(bytes.ToLower(b), []byte(mark)) || r.own && !bytes.Contains(b, []byte("bravo")) {
				t.Errorf("server %d: %s %s as b: %d %s; want %d, b's data only", si, r.method, r.path, code, b, r.want)
			}
		}
		testFleetIsolationMCP(t, si, u, aSem, mark)
	}
	for si, u := range urls {
		code, b, err := c.do("GET", fleetURL(u, "/v1/memories/"+aSem, "profile", "a"), "a", nil)
		if err != nil || code != http.StatusOK || !bytes.Contains(b, []byte(mark)) {
			t.Errorf("server %d: a's entry after b's requests: %d %s %v", si, code, b, err)
		}
	}
}

// fleetBearer adds an agent's token to every request.
type fleetBearer struct{ token string }

func (b fleetBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// testFleetIsolationMCP calls the MCP tools of the server at u with b's
// token: b's own reads hold b's data, and nothing, a's entry read or
// forgotten by its ID, a named in the arguments, answers with a's mark.
func testFleetIsolationMCP(t *testing.T, si int, u, aSem, mark string) {
	ctx := ctxTimeout(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "fleet", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u + "/mcp",
		HTTPClient: &http.Client{Transport: fleetBearer{fleetToken("b")}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("server %d: connecting to MCP: %v", si, err)
	}
	defer cs.Close()
	for _, c := range []struct {
		tool    string
		args    map[string]any
		own     bool // the answer holds b's data
		refused bool // a tool error
	}{
		{"search", map[string]any{"query": "deploy pipeline"}, true, false},
		{"recall", map[string]any{"query": "deploy pipeline"}, true, false},
		{"list_memories", map[string]any{"limit": 100}, true, false},
		{"get_facts", map[string]any{"entity": "User"}, true, false},
		{"get_memory", map[string]any{"id": aSem}, false, true},
		{"forget", map[string]any{"id": aSem}, false, false},
		{"search", map[string]any{"query": mark, "agent": "a"}, false, true},
		{"list_memories", map[string]any{"agent": "a"}, false, true},
		{"get_memory", map[string]any{"id": aSem, "agent": "a"}, false, true},
		{"get_facts", map[string]any{"entity": "User", "agent": "a"}, false, true},
		{"add_memories", map[string]any{"agent": "a", "memories": []any{map[string]any{"type": "semantic", "content": "b writes into a"}}}, false, true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("server %d: MCP %s %v: %v", si, c.tool, c.args, err)
		}
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		s := text.String()
		if strings.Contains(strings.ToLower(s), mark) || c.own && !strings.Contains(s, "bravo") || c.refused && !res.IsError {
			t.Errorf("server %d: MCP %s %v as b: error %v, %s; want b's data only (refused: %v)", si, c.tool, c.args, res.IsError, s, c.refused)
		}
	}
}
