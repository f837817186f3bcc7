package engram_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/engram-go/engram"
)

// The crash test runs a writer in another process (this test binary again,
// running TestCrashWriter) and SIGKILLs it at random moments. The writer
// appends every operation to a log before it starts ("try") and after it
// returned nil ("ok"), fsyncing both, so the parent knows which writes were
// acknowledged; after each kill it checks them all, the all-or-nothing of
// the batch in flight, and CheckIntegrity.
var (
	crashKills  = flag.Int("crash.kills", 8, "how many writers TestCrashDurability kills at Tier 1")
	crashKills2 = flag.Int("crash.kills2", 3, "how many writers TestCrashDurability kills at Tier 2")
	crashSeed   = flag.Uint64("crash.seed", 1, "the seed of TestCrashDurability's random kills and operations")
)

const (
	crashEnvWriter = "ENGRAM_CRASH_WRITER" // set to the writer's settings as JSON
	crashDims      = 64
)

// crashSettings tell a writer process what to do.
type crashSettings struct {
	DB   string
	Log  string
	Tier int
	Seed uint64
}

// crashOp is one line of the writer's log: an operation tried ("try"), or
// the acknowledgement of the one before it ("ok").
type crashOp struct {
	Kind     string   `json:"k"` // "try" or "ok"
	Op       string   `json:"op,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	Contents []string `json:"c,omitempty"`
}

var crashWords = strings.Fields(`amber basalt cobalt delta ember fjord glacier harbor indigo juniper kelp lagoon
meadow nectar orchid pebble quartz raven saffron tundra umber velvet willow xenon yarrow zephyr anchor beacon
cinder dune estuary falcon granite heron iris jasper kestrel lichen marble nimbus onyx prairie quiver ridge
sierra thistle upland vortex walnut yew zinc alder birch cedar dahlia elm fern gorse hazel ivy`)

// crashText returns content no other call returns: random words plus a
// unique token, so that compaction finds no near-duplicates to merge.
func crashText(rng *rand.Rand, tag string) string {
	var b strings.Builder
	b.WriteString(tag)
	for range 8 {
		b.WriteByte(' ')
		b.WriteString(crashWords[rng.IntN(len(crashWords))])
	}
	return b.String()
}

func crashConfig() engram.Config {
	cfg := engram.DefaultConfig()
	cfg.Compaction.MaxEntries = 1 << 20 // the count strategy must not archive acknowledged writes
	return cfg
}

func crashOpen(tier int, db string) (*engram.Memory, error) {
	opts := []engram.Option{engram.WithPath(db), engram.WithConfig(crashConfig())}
	if tier == 2 {
		e, err := engram.NewHashingEmbedder(crashDims)
		if err != nil {
			return nil, err
		}
		return engram.New(engram.Tier2, append(opts, engram.WithEmbedder(e))...)
	}
	return engram.New(engram.Tier1, opts...)
}

// TestCrashWriter is the writer process of TestCrashDurability; run
// directly it does nothing.
func TestCrashWriter(t *testing.T) {
	sqliteOnly(t, "crash injection")
	env := os.Getenv(crashEnvWriter)
	if env == "" {
		t.Skip("the writer process of TestCrashDurability")
	}
	var s crashSettings
	if err := json.Unmarshal([]byte(env), &s); err != nil {
		crashDie("settings: %v", err)
	}
	logf, err := os.OpenFile(s.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		crashDie("log: %v", err)
	}
	ctx := context.Background()
	m, err := crashOpen(s.Tier, s.DB)
	if err != nil {
		crashDie("New: %v", err)
	}
	alive := crashAlive(ctx, m)
	fmt.Println("ready")
	rng := rand.New(rand.NewPCG(s.Seed, 7))
	for n := 0; ; n++ {
		op, call := crashNextOp(ctx, m, rng, fmt.Sprintf("w%d-%d", s.Seed, n), alive)
		op.Kind = "try"
		crashLogWrite(logf, op)
		if err := call(); err != nil {
			crashDie("%s %v: %v", op.Op, op.IDs, err)
		}
		crashLogWrite(logf, crashOp{Kind: "ok"})
		alive = crashTrack(alive, op)
	}
}

// crashLogWrite appends op to the writer's log as one line and fsyncs it.
func crashLogWrite(logf *os.File, op crashOp) {
	line, _ := json.Marshal(op)
	if _, err := logf.Write(append(line, '\n')); err != nil {
		crashDie("log: %v", err)
	}
	if err := logf.Sync(); err != nil {
		crashDie("log: %v", err)
	}
}

// crashAlive returns what the writer may update or delete: the IDs of the
// semantic entries alive now.
func crashAlive(ctx context.Context, m *engram.Memory) []string {
	var alive []string
	for off := 0; ; off += 1000 {
		page, err := m.Semantic().List(ctx, engram.ListOptions{Limit: 1000, Offset: off})
		if err != nil {
			crashDie("List: %v", err)
		}
		for _, e := range page {
			alive = append(alive, e.ID)
		}
		if len(page) < 1000 {
			return alive
		}
	}
}

// crashNextOp draws the writer's next operation, tagged tag, from rng: the
// line its log records and the call that performs it. Updates and deletes
// pick among alive.
func crashNextOp(ctx context.Context, m *engram.Memory, rng *rand.Rand, tag string, alive []string) (crashOp, func() error) {
	switch r := rng.IntN(100); {
	case r < 35 || len(alive) < 5:
		id := "s-" + tag
		c := crashText(rng, tag)
		return crashOp{Op: "store", IDs: []string{id}, Contents: []string{c}}, func() error {
			_, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: c, Importance: 0.5, Tags: []string{"crash"}})
			return err
		}
	case r < 50:
		op, entries := crashBatch(rng, tag)
		return op, func() error {
			_, err := m.Semantic().StoreBatch(ctx, entries)
			return err
		}
	case r < 65:
		id := alive[rng.IntN(len(alive))]
		c := crashText(rng, "u-"+tag)
		return crashOp{Op: "update", IDs: []string{id}, Contents: []string{c}}, func() error {
			_, err := m.Semantic().Update(ctx, id, engram.SemanticPatch{Content: &c})
			return err
		}
	case r < 75:
		i := rng.IntN(len(alive))
		id := alive[i]
		return crashOp{Op: "delete", IDs: []string{id}}, func() error { return m.Semantic().Delete(ctx, id) }
	case r < 90:
		id := "e-" + tag
		c := crashText(rng, "episode "+tag)
		return crashOp{Op: "episode", IDs: []string{id}, Contents: []string{c}}, func() error {
			_, err := m.Episodic().Log(ctx, engram.Episode{ID: id, Content: c, SessionID: "crash"})
			return err
		}
	case r < 95:
		return crashOp{Op: "flush"}, func() error { return m.Flush(ctx) }
	default:
		return crashOp{Op: "compact"}, func() error { _, err := m.Compact(ctx); return err }
	}
}

// crashBatch draws a batch of 2 to 31 new entries, tagged tag, from rng:
// its log line and the entries.
func crashBatch(rng *rand.Rand, tag string) (crashOp, []engram.SemanticEntry) {
	k := 2 + rng.IntN(30)
	entries := make([]engram.SemanticEntry, k)
	op := crashOp{Op: "batch"}
	for i := range entries {
		id := fmt.Sprintf("b-%s-%d", tag, i)
		c := crashText(rng, fmt.Sprintf("%s-%d", tag, i))
		entries[i] = engram.SemanticEntry{ID: id, Content: c, Importance: 0.4}
		op.IDs, op.Contents = append(op.IDs, id), append(op.Contents, c)
	}
	return op, entries
}

// crashTrack returns alive after the acknowledged op: with the entries it
// stored, without the one it deleted.
func crashTrack(alive []string, op crashOp) []string {
	switch op.Op {
	case "store":
		alive = append(alive, op.IDs[0])
	case "batch":
		alive = append(alive, op.IDs...)
	case "delete":
		for i, id := range alive {
			if id == op.IDs[0] {
				return append(alive[:i], alive[i+1:]...)
			}
		}
	}
	return alive
}

// crashDie ends the writer with exit status 3, which the parent reports:
// a write that fails is a finding, not a crash.
func crashDie(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crash writer: "+format+"\n", args...)
	os.Exit(3)
}

// crashModel is what the acknowledged writes say the database holds.
type crashModel struct {
	semantic map[string]string // ID → content; "" once deleted
	episodes map[string]string
	acked    int // acknowledged writes
	batches  int // acknowledged batches
	pending  int // operations in flight at a kill, resolved by looking
}

func TestCrashDurability(t *testing.T) {
	t.Parallel() // parallel: see helpers_test.go
	sqliteOnly(t, "crash injection")
	if os.Getenv(crashEnvWriter) != "" {
		t.Skip("in the writer process")
	}
	for _, tc := range []struct {
		tier  int
		kills int
	}{{1, *crashKills}, {2, *crashKills2}} {
		t.Run(fmt.Sprintf("Tier%d", tc.tier), func(t *testing.T) {
			crashRun(t, tc.tier, tc.kills, *crashSeed*10+uint64(tc.tier))
		})
	}
}

func crashRun(t *testing.T, tier, kills int, seed uint64) {
	dir := t.TempDir()
	db := filepath.Join(dir, "memory.db")
	logPath := filepath.Join(dir, "ops.log")
	rng := rand.New(rand.NewPCG(seed, 99))
	model := &crashModel{semantic: map[string]string{}, episodes: map[string]string{}}
	var offset int64
	for kill := 0; kill < kills; kill++ {
		settings, _ := json.Marshal(crashSettings{DB: db, Log: logPath, Tier: tier, Seed: seed*1000 + uint64(kill)})
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnvWriter+"="+string(settings))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			ok := false
			for sc.Scan() {
				if sc.Text() == "ready" && !ok {
					ok = true
					ready <- true
				}
			}
			if !ok {
				ready <- false
			}
		}()
		if !<-ready {
			cmd.Wait()
			t.Fatalf("kill %d: the writer ended before it was ready: %s", kill, stderr.String())
		}
		delay := time.Duration(rng.IntN(400)) * time.Millisecond
		time.Sleep(delay)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: the writer ended on its own (%v) before the kill: %s", kill, err, stderr.String())
		}
		before := model.acked
		var last string
		offset, last = crashCheck(t, tier, db, logPath, offset, model)
		t.Logf("kill %d after %v: %d writes acknowledged by this writer (%d in all, %d batches); killed during %s",
			kill, delay, model.acked-before, model.acked, model.batches, last)
		if t.Failed() {
			return
		}
	}
	live := 0
	for _, c := range model.semantic {
		if c != "" {
			live++
		}
	}
	t.Logf("Tier %d: %d kills, %d acknowledged writes (%d batches), %d operations in flight resolved, %d semantic entries alive, %d episodes; none lost, integrity clean",
		tier, kills, model.acked, model.batches, model.pending, live, len(model.episodes))
}

// crashCheck reads the writer's log from offset, applies the acknowledged
// operations to model, resolves the one in flight at the kill by looking
// at the database, then checks every acknowledged write and the database's
// integrity. It returns the new offset and what was in flight.
func crashCheck(t *testing.T, tier int, db, logPath string, offset int64, model *crashModel) (int64, string) {
	t.Helper()
	ops, end := crashReadLog(t, logPath, offset)
	ctx := context.Background()
	m, err := crashOpen(tier, db)
	if err != nil {
		t.Fatalf("New after the kill: %v", err)
	}
	defer m.Close()
	if err := m.CheckIntegrity(ctx); err != nil {
		t.Errorf("CheckIntegrity after the kill: %v", err)
	}
	c := &crashChecker{t: t, ctx: ctx, m: m, model: model}
	last := c.replay(ops)
	c.checkSemantic()
	c.checkEpisodes()
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	return end, last + " (" + strconv.Itoa(len(ops)) + " log lines)"
}

// crashReadLog returns the operations in the writer's log from offset and
// the offset after the last whole line. A line cut short by the kill is
// dropped, and the log truncated to its last whole line so the next writer
// appends after it; a line that does not parse fails t.
func crashReadLog(t *testing.T, logPath string, offset int64) ([]crashOp, int64) {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	end := int64(bytes.LastIndexByte(data, '\n') + 1)
	if end < int64(len(data)) {
		if err := os.Truncate(logPath, end); err != nil {
			t.Fatal(err)
		}
	}
	var ops []crashOp
	for _, line := range bytes.Split(data[offset:end], []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var op crashOp
		if err := json.Unmarshal(line, &op); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		ops = append(ops, op)
	}
	return ops, end
}

// apply records the acknowledged op in the model.
func (model *crashModel) apply(op crashOp) {
	switch op.Op {
	case "store", "batch", "update":
		for i, id := range op.IDs {
			model.semantic[id] = op.Contents[i]
		}
		if op.Op == "batch" {
			model.batches++
		}
	case "delete":
		model.semantic[op.IDs[0]] = ""
	case "episode":
		model.episodes[op.IDs[0]] = op.Contents[0]
	}
	if op.Op != "flush" && op.Op != "compact" {
		model.acked++
	}
}

// crashChecker checks the database reopened after a kill against the
// model.
type crashChecker struct {
	t     *testing.T
	ctx   context.Context
	m     *engram.Memory
	model *crashModel
}

// get returns the content of semantic entry id and whether it exists; an
// error other than ErrNotFound fails the test.
func (c *crashChecker) get(id string) (string, bool) {
	c.t.Helper()
	e, err := c.m.Semantic().Get(c.ctx, id)
	if errors.Is(err, engram.ErrNotFound) {
		return "", false
	}
	if err != nil {
		c.t.Fatalf("Get(%s): %v", id, err)
	}
	return e.Content, true
}

// replay checks that the log is a run of tried and acknowledged operations
// ending in at most one in flight, applies the acknowledged ones to the
// model and resolves the one in flight. It returns what was in flight.
func (c *crashChecker) replay(ops []crashOp) string {
	c.t.Helper()
	last := "nothing (between operations)"
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		if op.Kind != "try" {
			c.t.Fatalf("log: %q where an operation should start", op.Kind)
		}
		if i+1 < len(ops) && ops[i+1].Kind == "ok" {
			c.model.apply(op)
			i++
			continue
		}
		if i+1 != len(ops) {
			c.t.Fatalf("log: operation %s %v neither acknowledged nor last", op.Op, op.IDs)
		}
		// In flight at the kill: it happened entirely or not at all.
		last = op.Op
		c.model.pending++
		if c.happened(op) {
			c.model.apply(op)
			c.model.acked-- // applied, but never acknowledged
		}
	}
	return last
}

// happened reports whether op, in flight at the kill, took effect, and
// checks that it took effect entirely or not at all.
func (c *crashChecker) happened(op crashOp) bool {
	c.t.Helper()
	switch op.Op {
	case "store", "batch":
		return c.storeHappened(op)
	case "update":
		got, ok := c.get(op.IDs[0])
		if !ok {
			c.t.Errorf("update in flight: %s is gone", op.IDs[0])
		}
		if got != op.Contents[0] && got != c.model.semantic[op.IDs[0]] {
			c.t.Errorf("update in flight: %s holds %q, neither the acknowledged %q nor the new %q", op.IDs[0], got, c.model.semantic[op.IDs[0]], op.Contents[0])
		}
		return got == op.Contents[0]
	case "delete":
		_, ok := c.get(op.IDs[0])
		return !ok
	case "episode":
		_, err := c.m.Episodic().Get(c.ctx, op.IDs[0])
		return err == nil
	}
	return false
}

// storeHappened reports whether the store or batch op, in flight at the
// kill, took effect, and checks that every entry it stored holds its
// content and that it stored all of its entries or none.
func (c *crashChecker) storeHappened(op crashOp) bool {
	c.t.Helper()
	present := 0
	for i, id := range op.IDs {
		if got, ok := c.get(id); ok {
			present++
			if got != op.Contents[i] {
				c.t.Errorf("%s in flight: %s holds %q, not %q", op.Op, id, got, op.Contents[i])
			}
		}
	}
	if present != 0 && present != len(op.IDs) {
		c.t.Errorf("%s of %d entries in flight at the kill: %d of them are stored; a batch is all or nothing", op.Op, len(op.IDs), present)
	}
	return present == len(op.IDs)
}

// checkSemantic checks that every acknowledged semantic write reads back:
// the content of a stored or updated entry, no entry once deleted.
func (c *crashChecker) checkSemantic() {
	c.t.Helper()
	for id, want := range c.model.semantic {
		got, ok := c.get(id)
		switch {
		case want == "" && ok:
			c.t.Errorf("%s was acknowledged as deleted but reads back %q", id, got)
		case want != "" && !ok:
			c.t.Errorf("acknowledged write lost: semantic %s (%q) is not found", id, want)
		case got != want:
			c.t.Errorf("acknowledged write lost: semantic %s holds %q, want %q", id, got, want)
		}
	}
}

// checkEpisodes checks that every acknowledged episode reads back with its
// content.
func (c *crashChecker) checkEpisodes() {
	c.t.Helper()
	for id, want := range c.model.episodes {
		ep, err := c.m.Episodic().Get(c.ctx, id)
		if err != nil {
			c.t.Errorf("acknowledged write lost: episode %s: %v", id, err)
		} else if ep.Content != want {
			c.t.Errorf("episode %s holds %q, want %q", id, ep.Content, want)
		}
	}
}
