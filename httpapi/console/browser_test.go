package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
)

// The browser the test drives, and axe-core, which it injects into pages.
const (
	chromium = "/usr/bin/chromium"
	axePath  = "testdata/axe/node_modules/axe-core/axe.min.js"
)

const (
	allToken = "console-all-agents-0123456789"
	bobToken = "console-bob-only-0123456789"
)

// site is the server under test and what the test stored in it.
type site struct {
	t   *testing.T
	srv *httptest.Server
	// IDs of alice's memories.
	note, fact, paris, episode, xssScript, xssImg, deploy string
}

// api calls the server as a client would, with the all-agents token.
func (s *site) api(method, path string, body any) map[string]any {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(s.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.srv.URL+path, rd)
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+allToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.srv.Client().Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(s.t, json.NewDecoder(resp.Body).Decode(&out))
	out["status"] = resp.StatusCode
	return out
}

// ids returns the IDs of an add's answer.
func ids(t *testing.T, r map[string]any) []string {
	t.Helper()
	require.Equal(t, http.StatusCreated, r["status"], "%v", r)
	var out []string
	for _, x := range r["ids"].([]any) {
		out = append(out, x.(string))
	}
	return out
}

// newSite starts the API over a new store and stores alice's, bob's and
// carol's memories: notes, an episode, a procedure, two text that try to
// run script, a fact superseded by another, a small graph, and a hub
// entity with 200 neighbours.
func newSite(t *testing.T) *site {
	api, err := httpapi.New(testutil.NewAgents(t), httpapi.Options{Tokens: []httpapi.Token{
		{Secret: allToken}, {Secret: bobToken, Agents: []string{"bob"}},
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	s := &site{t: t, srv: srv}

	got := ids(t, s.api("POST", "/v1/memories", map[string]any{"profile": "alice", "memories": []any{
		map[string]any{"type": "semantic", "content": "Ada prefers green tea in the morning", "tags": []string{"drinks"}, "user_id": "ada", "importance": 0.7},
		map[string]any{"type": "semantic", "content": `<script>window.__xss = 1</script> tea note`, "tags": []string{"xss"}},
		map[string]any{"type": "semantic", "content": `"><img src=x onerror="window.__xss = 2"> tea note`, "tags": []string{"xss"}},
		map[string]any{"type": "episodic", "content": "Ada asked about oolong tea", "event_type": "observation"},
		map[string]any{"type": "procedural", "name": "deploy", "description": "How the service ships", "pattern": "test, canary, ship"},
	}}))
	s.note, s.xssScript, s.xssImg, s.episode, s.deploy = got[0], got[1], got[2], got[3], got[4]
	r := s.api("POST", "/v1/facts", map[string]any{"profile": "alice", "facts": []any{
		map[string]any{"subject": "Ada", "predicate": "lives_in", "object": "Paris", "valid_from": "2020-01-01T00:00:00Z"},
		map[string]any{"subject": "Ada", "predicate": "knows", "object": "Grace"},
		map[string]any{"subject": "Grace", "predicate": "knows", "object": "Alan"},
	}})
	require.Equal(t, http.StatusCreated, r["status"], "%v", r)
	s.paris = r["facts"].([]any)[0].(map[string]any)["fact"].(map[string]any)["id"].(string)
	r = s.api("POST", "/v1/facts", map[string]any{"profile": "alice", "subject": "Ada", "predicate": "lives_in", "object": "Berlin",
		"valid_from": "2024-01-01T00:00:00Z", "memory_id": s.note})
	require.Equal(t, http.StatusCreated, r["status"], "%v", r)
	s.fact = r["facts"].([]any)[0].(map[string]any)["fact"].(map[string]any)["id"].(string)
	var hub []any
	for i := range 200 {
		hub = append(hub, map[string]any{"subject": "hub", "predicate": "connects", "object": fmt.Sprintf("node-%03d", i)})
	}
	require.Equal(t, http.StatusCreated, s.api("POST", "/v1/facts", map[string]any{"profile": "alice", "facts": hub})["status"])
	ids(t, s.api("POST", "/v1/memories", map[string]any{"profile": "bob", "type": "semantic", "content": "Bob keeps his bike in the shed"}))
	ids(t, s.api("POST", "/v1/memories", map[string]any{"profile": "carol", "type": "semantic", "content": "Carol is leaving"}))
	return s
}

// browser drives a headless Chromium on the site's pages.
type browser struct {
	t   *testing.T
	ctx context.Context
	s   *site
	axe string
	out string // where screenshots go

	mu      sync.Mutex
	console []string // errors, exceptions and CSP reports the page wrote
}

func newBrowser(t *testing.T, s *site) *browser {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no %s: install Debian's chromium package to run the console's browser tests", chromium)
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Skipf("no axe-core (%v): run npm ci in httpapi/console/testdata/axe", err)
	}
	out := os.Getenv("ENGRAM_ARTIFACTS")
	if out == "" {
		out = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(out, 0o755))
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancelTime := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTime)
	b := &browser{t: t, ctx: ctx, s: s, axe: string(axe), out: out}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			// The API's refusals (401, 403, 404) are the browser's log
			// of answers the test asks for; anything else is the page's.
			if strings.HasPrefix(m.Text, "Failed to load resource: the server responded with a status of 4") {
				continue
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || strings.Contains(m.Text, "Content Security Policy") {
				b.mu.Lock()
				b.console = append(b.console, string(m.Type)+": "+m.Text)
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// open loads the console afresh at hash.
func (b *browser) open(hash string) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.Navigate(b.s.srv.URL+"/ui/"+hash)))
	b.waitFor(`document.readyState === "complete" && !!document.querySelector("main h1")`)
	// Report what the page's policy refuses, which Chromium also logs.
	b.eval(`document.addEventListener("securitypolicyviolation", (e) => console.error("CSP refused " + e.violatedDirective + " " + e.blockedURI)), true`)
}

// eval evaluates JavaScript in the page (CSP does not apply to it) and
// decodes its value into T.
func evalAs[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(b.t, err, "evaluating %s", js)
	return v
}

func (b *browser) eval(js string) { b.t.Helper(); evalAs[any](b, js) }

func (b *browser) text(js string) string { b.t.Helper(); return evalAs[string](b, js) }

// waitFor waits until the expression is true in the page.
func (b *browser) waitFor(js string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(time.Minute)))
	require.NoError(b.t, err, "waiting for %s; the page shows:\n%s", js, b.bodyText())
}

func (b *browser) bodyText() string {
	v, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
	return v
}

// ready returns the console's count of pages drawn: a page is drawn when
// it changes.
func (b *browser) ready() string { b.t.Helper(); return b.text(`document.body.dataset.ready || ""`) }

// then runs act and waits until the console has drawn its next page.
func (b *browser) then(act func()) {
	b.t.Helper()
	before := b.ready()
	act()
	b.waitFor(fmt.Sprintf(`(document.body.dataset.ready || "") !== %q`, before))
}

// go_ moves the console to a hash route and waits for its page.
func (b *browser) go_(hash string) {
	b.t.Helper()
	b.then(func() { b.eval(fmt.Sprintf(`location.hash = %q`, hash)) })
}

// click clicks the element sel names with the mouse.
func (b *browser) click(sel string) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)), "clicking %s", sel)
}

// key presses keys on the focused element.
func (b *browser) key(keys string) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.KeyEvent(keys)))
}

// tabTo presses Tab until the focused element matches sel: the element is
// reachable from the keyboard.
func (b *browser) tabTo(sel string) {
	b.t.Helper()
	for range 80 {
		if evalAs[bool](b, fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel)) {
			return
		}
		b.key("\t")
	}
	b.t.Fatalf("Tab never reached %s; focus is on %s", sel, b.text(`document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : "nothing"`))
}

// check runs axe-core on the page, fails on a serious or critical
// violation, and saves a screenshot as name.png.
func (b *browser) check(name string) {
	b.t.Helper()
	b.eval(`window.axe ? true : (0, eval)(` + jsString(b.axe) + `) || true`)
	raw := b.text(`axe.run(document, {resultTypes: ["violations"]}).then((r) => JSON.stringify(r.violations.map((v) =>
		({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.html)}))))`)
	var violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	require.NoError(b.t, json.Unmarshal([]byte(raw), &violations))
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("axe on %s: %s (%s): %s %v", name, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			b.t.Logf("axe on %s, %s: %s: %s", name, v.Impact, v.ID, v.Help)
		}
	}
	b.t.Logf("axe on %s: %d violations, none serious or critical unless reported above", name, len(violations))
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	require.NoError(b.t, err)
	require.NoError(b.t, os.WriteFile(filepath.Join(b.out, name+".png"), png, 0o644))
}

// viewport saves what the window shows as name.png (the README's
// screenshot is one).
func (b *browser) viewport(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	require.NoError(b.t, os.WriteFile(filepath.Join(b.out, name+".png"), png, 0o644))
}

// noScriptRan checks that no memory's text ran as script or made an
// element: the XSS texts set window.__xss, and the console draws no img.
func (b *browser) noScriptRan() {
	b.t.Helper()
	require.Equal(b.t, "undefined", b.text(`typeof window.__xss`), "a memory's text ran as script")
	require.Zero(b.t, evalAs[int](b, `document.querySelectorAll("img, script:not([src])").length`), "a memory's text became an element")
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// signIn signs in with token from the keyboard.
func (b *browser) signIn(token string) {
	b.t.Helper()
	b.waitFor(`!!document.querySelector("#token")`)
	b.eval(`(() => { const t = document.querySelector("#token"); t.value = ""; t.focus(); return true })()`)
	b.key(token)
	b.key("\r")
}

// TestConsoleInTheBrowser drives the console in a headless Chromium: sign
// in (and a wrong token, and another agent's, that see nothing), search
// and open a result, edit a memory and see the change in its history and
// through the API, archive and restore it, move the date and see a
// superseded fact return, walk the graph, preview the context, page the
// changes, forget a memory and an agent; with the keyboard where a person
// would, axe-core on every page, and memories that try to run script
// shown as text.
func TestConsoleInTheBrowser(t *testing.T) {
	s := newSite(t)
	b := newBrowser(t, s)

	// Sign in: the wrong token sees nothing.
	b.open("")
	b.check("signin")
	b.signIn("not-the-token-0123456789")
	b.waitFor(`document.querySelector("#signin-error").innerText.includes("not valid")`)
	require.True(t, evalAs[bool](b, `document.getElementById("nav").hidden`))
	require.NotContains(t, b.bodyText(), "green tea")

	// Bob's token sees bob only, and none of alice's memory.
	b.then(func() { b.signIn(bobToken) })
	require.Equal(t, []string{"bob"}, evalAs[[]string](b, `[...document.querySelectorAll("#agents tbody tr[data-agent]")].map((r) => r.dataset.agent)`))
	b.go_("#/memory?agent=alice&id=" + s.note)
	require.Contains(t, b.bodyText(), `does not allow agent "alice"`)
	b.go_("#/search?agent=alice&q=tea")
	require.Contains(t, b.bodyText(), `does not allow agent "alice"`)
	require.NotContains(t, b.bodyText(), "green tea")
	b.click("#signout")

	// The all-agents token, from the keyboard.
	b.then(func() { b.signIn(allToken) })
	require.ElementsMatch(t, []string{"alice", "bob", "carol"}, evalAs[[]string](b, `[...document.querySelectorAll("#agents tbody tr[data-agent]")].map((r) => r.dataset.agent)`))
	require.Equal(t, "3", b.text(`document.querySelector('#agents tr[data-agent="alice"] td:nth-of-type(1)').textContent`), "alice has three semantic entries")
	b.check("agents")

	// Search from the keyboard, and open a result.
	b.then(func() { b.tabTo(`nav a[data-page="search"]`); b.key("\r") })
	b.then(func() {
		b.tabTo("#q")
		b.key("tea")
		b.key("\r")
	})
	results := evalAs[[]string](b, `[...document.querySelectorAll("#results > li")].map((li) => li.dataset.id)`)
	require.Contains(t, results, s.note)
	require.Contains(t, results, s.xssScript)
	require.Contains(t, b.bodyText(), `<script>window.__xss = 1</script> tea note`, "shown as text")
	require.Contains(t, b.bodyText(), `"><img src=x onerror="window.__xss = 2"> tea note`, "shown as text")
	require.Contains(t, b.text(`document.querySelector("#results .parts").innerText`), "importance")
	b.noScriptRan()
	b.check("search")
	b.then(func() { b.tabTo(fmt.Sprintf(`#results li[data-id=%q] a.title`, s.note)); b.key("\r") })

	// The memory: its fields, the fact it supports, its links.
	require.Contains(t, b.text(`document.querySelector("h1").innerText`), s.note)
	require.Contains(t, b.text(`document.querySelector("#supports").innerText`), "lives_in")
	require.Contains(t, b.text(`document.querySelector("#links").innerText`), s.fact)
	b.check("memory")

	// Edit it, from the keyboard: the change is in its history and in the API.
	b.eval(`document.querySelector("#edit textarea[name=content]").value = "Ada prefers jasmine tea in the morning", true`)
	b.eval(`document.querySelector("#edit input[name=reason]").value = "she said so", true`)
	b.then(func() { b.tabTo(`#edit button[type=submit]`); b.key("\r") })
	hist := b.text(`document.querySelector("#history").innerText`)
	require.Contains(t, hist, "she said so")
	require.Contains(t, hist, "alice", "the actor")
	require.Equal(t, "Ada prefers green tea in the morning", b.text(`document.querySelector("#history li del").textContent`))
	require.Equal(t, "Ada prefers jasmine tea in the morning", b.text(`document.querySelector("#history li ins").textContent`))
	got := s.api("GET", "/v1/memories/"+s.note+"?profile=alice", nil)
	require.Equal(t, "Ada prefers jasmine tea in the morning", got["memory"].(map[string]any)["content"])
	apiHist := s.api("GET", "/v1/memory/"+s.note+"/history?profile=alice", nil)["entries"].([]any)
	require.Equal(t, "she said so", apiHist[len(apiHist)-1].(map[string]any)["reason"])
	b.check("memory-edited")

	// Archive it, then restore it from the keyboard.
	b.then(func() { b.click("#archive") })
	require.Contains(t, b.text(`document.querySelector("#gone").innerText`), "archived")
	require.Equal(t, http.StatusNotFound, s.api("GET", "/v1/memories/"+s.note+"?profile=alice", nil)["status"])
	b.then(func() { b.tabTo("#restore"); b.key("\r") })
	require.Equal(t, http.StatusOK, s.api("GET", "/v1/memories/"+s.note+"?profile=alice", nil)["status"])

	// Follow the link to the fact it supports, and on to its subject.
	b.then(func() { b.click(fmt.Sprintf(`#links a[href*=%q]`, s.fact)) })
	require.Contains(t, b.bodyText(), "Berlin")
	b.then(func() { b.click(`dl.fields a[href*="entity=Ada"]`) })

	// Facts of Ada: Berlin now; moving the date back brings Paris back.
	require.Contains(t, b.text(`document.querySelector("#facts").innerText`), "Berlin")
	require.NotContains(t, b.text(`document.querySelector("#facts").innerText`), "Paris")
	require.Contains(t, b.text(`[...document.querySelectorAll(".timeline")].map((e) => e.innerText).join("\n")`), "superseded by Berlin")
	b.check("facts")
	b.then(func() {
		b.eval(`(() => { const d = document.querySelector("#as-of"); d.value = "2022-06-01"; d.dispatchEvent(new Event("change")); return true })()`)
	})
	require.Contains(t, b.text(`document.querySelector("#facts").innerText`), "Paris")
	require.NotContains(t, b.text(`document.querySelector("#facts").innerText`), "Berlin")
	b.check("facts-as-of")
	b.viewport("facts-as-of-window")

	// Walk the graph: Ada → Grace by click, Grace → Alan from the keyboard.
	b.go_("#/facts?agent=alice&entity=Ada")
	b.then(func() { b.click(`#graph a.node[aria-label^="Grace"]`) })
	require.Equal(t, "Facts of Grace", b.text(`document.querySelector("h1").innerText`))
	b.then(func() { b.tabTo(`#graph a.node[aria-label^="Alan"]`); b.key("\r") })
	require.Equal(t, "Facts of Alan", b.text(`document.querySelector("h1").innerText`))

	// The hub's 200 neighbours: how long the graph takes to draw is logged.
	b.go_("#/facts?agent=alice")
	start := time.Now()
	b.then(func() { b.eval(`location.hash = "#/facts?agent=alice&entity=hub", true`) })
	b.eval(`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`)
	took := time.Since(start)
	require.Equal(t, 200, evalAs[int](b, `document.querySelectorAll("#graph a.node").length`))
	t.Logf("the graph of an entity with 200 neighbours: page drawn %v after it was asked for (its SVG built in %s ms)",
		took.Round(time.Millisecond), b.text(`document.querySelector("#graph").dataset.drawMs`))
	b.check("graph-200")

	// The context block, its stable prefix marked.
	b.go_("#/context?agent=alice&q=tea&max_tokens=600")
	require.NotEmpty(t, b.text(`document.querySelector("#block").innerText`))
	require.Greater(t, evalAs[int](b, `document.querySelectorAll("#sections tbody tr").length`), 0)
	require.NotEmpty(t, b.text(`document.querySelector("#stable").textContent`))
	b.noScriptRan()
	b.check("context")

	// Changes: newest first, a page at a time, by actor.
	b.go_("#/changes?agent=alice")
	require.Contains(t, b.text(`document.querySelector("#changes tbody tr").innerText`), "restore")
	b.check("changes")
	b.then(func() { b.tabTo("#older"); b.key("\r") })
	require.Contains(t, b.text(`document.querySelector("#changes caption").innerText`), "before")
	b.go_("#/changes?agent=alice&actor=nobody")
	require.Contains(t, b.bodyText(), "No changes recorded.")

	// The texts that try to run script, on their own pages.
	for _, id := range []string{s.xssScript, s.xssImg} {
		b.go_("#/memory?agent=alice&id=" + id)
		require.Contains(t, b.text(`document.querySelector("dl.fields").innerText`), "window.__xss")
		b.noScriptRan()
	}
	b.check("memory-xss")

	// Forget a memory: gone from the page, the API and search.
	b.go_("#/memory?agent=alice&id=" + s.episode)
	b.click("#forget")
	b.then(func() { b.click("#forget-yes") })
	require.Contains(t, b.text(`document.querySelector("#gone").innerText`), "forgotten")
	require.Equal(t, http.StatusNotFound, s.api("GET", "/v1/memories/"+s.episode+"?profile=alice", nil)["status"])
	b.go_("#/search?agent=alice&q=oolong")
	require.Contains(t, b.bodyText(), "Nothing matches.")

	// Forget an agent: the name must be typed before the button works.
	b.go_("#/agents")
	b.click(`tr[data-agent="carol"] button.danger`)
	require.True(t, evalAs[bool](b, `document.querySelector("td.confirm button[type=submit]").disabled`))
	b.key("caro")
	require.True(t, evalAs[bool](b, `document.querySelector("td.confirm button[type=submit]").disabled`))
	b.then(func() { b.key("l"); b.key("\r") })
	require.NotContains(t, evalAs[[]string](b, `[...document.querySelectorAll("#agents tbody tr[data-agent]")].map((r) => r.dataset.agent)`), "carol")
	require.NotContains(t, s.api("GET", "/v1/profiles", nil)["profiles"], "carol")

	b.mu.Lock()
	defer b.mu.Unlock()
	require.Empty(t, b.console, "the pages wrote errors (a CSP refusal among them?)")
}

// TestConsoleHeaders: the console's files come with a strict CSP and
// nosniff, the root leads to them, and none holds inline script or style.
func TestConsoleHeaders(t *testing.T) {
	s := newSite(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(s.srv.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "/ui/", resp.Header.Get("Location"))

	for _, path := range []string{"/ui/", "/ui/app.css", "/ui/js/app.js", "/ui/js/memory.js", "/ui/no-such-file"} {
		resp, err := http.Get(s.srv.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
			require.Contains(t, csp, d, path)
		}
		require.NotContains(t, csp, "unsafe", path)
		require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), path)
		if path == "/ui/" {
			require.Equal(t, http.StatusOK, resp.StatusCode)
			html := string(body)
			require.NotRegexp(t, `<script(?:\s[^>]*)?>[^<]+</script>|<style|\sstyle=|\son[a-z]+=`, html, "inline script or style")
			require.Contains(t, html, `<script type="module" src="js/app.js"></script>`)
		}
	}
	js, err := http.Get(s.srv.URL + "/ui/js/app.js")
	require.NoError(t, err)
	js.Body.Close()
	require.Contains(t, js.Header.Get("Content-Type"), "javascript")
}
