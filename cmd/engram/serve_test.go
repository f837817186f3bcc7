package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// runCommand runs the command line and returns its exit code and output.
func runCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestServe starts "engram serve" on a free loopback port, writes through
// the API (an extraction rule, then an ingest), reads an agent that has no
// memory, and stops it as an interrupt would: it exits 0, and what it
// wrote is there, flushed to the agent's memory.md, with no trace of the
// agent it only read.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	ctx, stop := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--dir", dir, "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	addr := ""
	re := regexp.MustCompile(`serving (http://\S+) `)
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		stop()
		t.Fatalf("serve printed no address: %q (exit %d)", stderr.String(), <-done)
	}
	post := func(path, body string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/v1/rules", `{"profile": "alice", "name": "employer", "type": "fact",
		"pattern": "\\bI work (?:at|for) (?P<object>[A-Z]\\w+)", "predicate": "works at"}`); code/100 != 2 {
		t.Fatalf("adding a rule: %d %s", code, body)
	}
	if code, body := post("/v1/ingest", `{"profile": "alice", "messages": [{"role": "user", "content": "I work at Initech."}]}`); code != http.StatusOK {
		t.Fatalf("ingest: %d %s", code, body)
	}
	if code, body := post("/v1/search", `{"profile": "ghost", "query": "anything"}`); code != http.StatusOK {
		t.Fatalf("a search of an agent with no memory: %d %s", code, body)
	}
	if code, body := post("/v1/search", `{"profile": "alice", "query": "where does the user work", "recall": false}`); code != http.StatusOK || !strings.Contains(body, "Initech") {
		t.Fatalf("search: %d %s", code, body)
	}
	stop()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d after an interrupt: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "alice", "memory.md")); err != nil {
		t.Errorf("the shutdown did not flush alice: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ghost")); !os.IsNotExist(err) {
		t.Errorf("a read made the agent ghost: %v", err)
	}
	code, out, errOut := runCommand(t, "--dir", dir, "--agent", "alice", "--json", "stats")
	if code != exitOK || !strings.Contains(out, `"facts": 1`) {
		t.Errorf("stats after serving: exit %d, %s%s", code, out, errOut)
	}
}

func TestServeRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"beyond loopback without a token": {"--addr", "0.0.0.0:0"},
		"every interface without a token": {"--addr", ":0"},
		"IPv6 beyond loopback":            {"--addr", "[::]:0"},
		"an address without a port":       {"--addr", "127.0.0.1"},
		"an unknown Gemini-like LLM":      {"--llm", "gemini-pro"},
		"a short token":                   {"--token", "short"},
		"an agent token without agent":    {"--agent-token", "=0123456789abcdef0123"},
		"an agent token of a bad agent":   {"--agent-token", "a/b=0123456789abcdef0123"},
		"an unknown LLM":                  {"--llm", "magic"},
		"an argument":                     {"extra"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runCommand(t, append([]string{"--dir", filepath.Join(dir, "mem"), "serve"}, args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, errOut)
			}
			if strings.Contains(errOut, "0123456789abcdef") {
				t.Errorf("the message shows a secret: %s", errOut)
			}
			if strings.Contains(errOut, "serving") {
				t.Errorf("a refused serve said it was serving: %s", errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "mem")); !os.IsNotExist(err) {
		t.Errorf("a refused serve made the base directory: %v", err)
	}
}

// TestMCP speaks MCP to "engram mcp" on its standard streams, as a desktop
// client does: it lists the tools, remembers, searches, makes a bad call
// (a tool error, and the session goes on), then closes its end; the
// command exits 0 having flushed the agent it wrote to.
func TestMCP(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int)
	go func() {
		code := run(context.Background(), []string{"--dir", dir, "--agent", "ada", "mcp"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	id := 0
	call := func(method string, params any) map[string]any {
		t.Helper()
		id++
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := fmt.Fprintf(inW, "%s\n", req); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			var resp map[string]any
			if err := json.Unmarshal(lines.Bytes(), &resp); err != nil {
				t.Fatalf("not JSON: %s", lines.Text())
			}
			if resp["id"] == float64(id) {
				if resp["error"] != nil {
					t.Fatalf("%s: %v", method, resp["error"])
				}
				return resp["result"].(map[string]any)
			}
		}
		t.Fatalf("no answer to %s: %v; stderr %s", method, lines.Err(), stderr.String())
		return nil
	}
	call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var names []string
	for _, tool := range call("tools/list", map[string]any{})["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	for _, name := range []string{"remember", "search", "recall", "context", "forget", "log_event", "add_fact", "query_graph", "list_recent"} {
		if !slices.Contains(names, name) {
			t.Errorf("tools/list lacks %s: %v", name, names)
		}
	}
	res := call("tools/call", map[string]any{"name": "remember", "arguments": map[string]any{"content": "Ada deploys on Fridays"}})
	if res["isError"] == true {
		t.Fatalf("remember: %v", res)
	}
	res = call("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "deploys Fridays"}})
	if !strings.Contains(fmt.Sprint(res["content"]), "Ada deploys on Fridays") {
		t.Errorf("search did not find what remember stored: %v", res)
	}
	res = call("tools/call", map[string]any{"name": "remember", "arguments": map[string]any{"content": "x", "importance": 7}})
	if res["isError"] != true {
		t.Errorf("an importance of 7 is not a tool error: %v", res)
	}
	call("tools/list", map[string]any{}) // the session goes on
	inW.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("mcp exited %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ada", "memory.md")); err != nil {
		t.Errorf("the end of the session did not flush ada: %v", err)
	}
}
