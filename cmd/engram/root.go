package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/gemini"
	"github.com/engram-go/engram/ollama"
	"github.com/engram-go/engram/openai"
)

// app is one run of the command: its standard streams and global flags.
type app struct {
	in     io.Reader
	out    io.Writer
	stderr io.Writer
	g      globals
	// noVectors says the memory was opened at Tier 1 for a Tier 2
	// command because its database holds no vectors yet.
	noVectors bool
}

// globals are the flags every command takes.
type globals struct {
	dir, path, agent string
	postgres         string // --postgres's DSN
	tier             int
	embedder         string
	embedderURL      string
	embedderModel    string
	dims             int
	json             bool
	// dimensionChange lets reindex open vectors of another dimension.
	dimensionChange bool
	// setsUpVectors says the command may record the embedder in the
	// database, make its vector tables and drop another model's vectors:
	// the commands that add memories (which open with create) and
	// reindex. Every other command uses the vectors as they are (see
	// openMemory).
	setsUpVectors bool
}

// run runs the command line args until ctx is done and returns the
// process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{in: stdin, out: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code, msg := describe(cmd, err, a.noVectors)
	fmt.Fprintln(stderr, msg)
	return code
}

const rootLong = `engram reads and writes an AI agent's memory: semantic facts, episodes,
procedures, subject–predicate–object triples and documents, in one SQLite
file per agent (.engram/memory/{agent}/memory.db by default), searchable by
full text (Tier 1) and by vector too (Tier 2, with an embedder).

Commands that only read (agents, stats, summary, get, list, facts, search,
recall, context, history, export, check, graph) never create a database: for an
agent without one they say so and exit 3. Commands that write (add, ingest,
import) create it. In Tier 2 only add, ingest, import and reindex set the
vectors up, which fixes their dimension and model; the other commands use
the vectors a database has, and read one that has none by text.

Output is a table or short sentences for people; --json prints one JSON
document on stdout for scripts. Errors go to stderr as
"engram: what went wrong: what to do". Long work (reindex, ingest, import,
export) draws a progress bar on stderr when stderr is a terminal, and none
otherwise.

Environment:
  ENGRAM_DIR       default of --dir
  ENGRAM_PATH      default of --path
  ENGRAM_POSTGRES  default of --postgres (a DSN: it may hold a password)
  ENGRAM_AGENT     default of --agent
  ENGRAM_TIER      default of --tier
  ENGRAM_EMBEDDER  default of --embedder
  OPENAI_API_KEY   the API key of --embedder openai and --llm openai (never printed)
  GEMINI_API_KEY   the API key of --embedder gemini and --llm gemini (or GOOGLE_API_KEY)
  ENGRAM_TOKEN     the bearer token of every agent for "engram serve"

Exit codes:
  0  success
  1  failure: the file system, a model's API, a busy database, anything else
  2  usage: an unknown command or flag, a bad argument or value
  3  not found: no such memory, agent or database
  4  damaged: the file is corrupt, not engram's, written by a newer engram,
     or fails "engram check"
  5  conflict: it exists already (an ID, a procedure name, a backup file,
     an imported record under --conflict fail)`

const rootExample = `  engram add semantic "Ada prefers short answers" --importance 0.9 --tags user
  engram add fact Ada "lives in" London
  engram facts Ada
  engram search "what does Ada prefer?"
  engram --agent support-bot --json stats
  engram export -o ada.jsonl && engram --agent copy import ada.jsonl`

// rootCmd builds the command tree.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:               "engram",
		Short:             "Read and write an AI agent's engram memory",
		Long:              rootLong,
		Example:           rootExample,
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.checkGlobals(cmd) },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	a.globalFlags(root)
	root.AddCommand(
		a.agentsCmd(), a.statsCmd(), a.summaryCmd(),
		a.addCmd(), a.getCmd(), a.listCmd(), a.updateCmd(), a.factsCmd(),
		a.searchCmd(), a.recallCmd(), a.contextCmd(),
		a.deleteCmd(), a.restoreCmd(), a.compactCmd(), a.decayCmd(), a.reindexCmd(), a.checkCmd(),
		a.historyCmd(), a.exportCmd(), a.importCmd(), a.backupCmd(), a.forgetCmd(), a.ingestCmd(),
		a.graphCmd(), a.markdownCmd(), a.serveCmd(), a.mcpCmd(),
	)
	root.CompletionOptions.HiddenDefaultCmd = true
	return root
}

func (a *app) globalFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&a.g.dir, "dir", os.Getenv("ENGRAM_DIR"), "base directory: the database is DIR/{agent}/memory.db (default "+engram.DefaultDir+")")
	f.StringVar(&a.g.path, "path", os.Getenv("ENGRAM_PATH"), "one database file, which several agents may share (instead of --dir)")
	f.StringVar(&a.g.postgres, "postgres", os.Getenv("ENGRAM_POSTGRES"), "a PostgreSQL database (a URL or key=value DSN) that holds every agent's memory (instead of --dir or --path)")
	f.StringVar(&a.g.agent, "agent", envOr("ENGRAM_AGENT", engram.DefaultAgent), "the agent whose memory to use")
	f.IntVar(&a.g.tier, "tier", envInt("ENGRAM_TIER"), "1 (full text) or 2 (vectors too); default 2 with --embedder, else 1")
	f.StringVar(&a.g.embedder, "embedder", os.Getenv("ENGRAM_EMBEDDER"), "Tier 2 embedder: hashing (offline), openai, ollama or gemini (default hashing)")
	f.StringVar(&a.g.embedderURL, "embedder-url", "", "the embedder's base URL (default https://api.openai.com, "+ollama.DefaultBaseURL+" or "+gemini.DefaultBaseURL+")")
	f.StringVar(&a.g.embedderModel, "embedder-model", "", "the embedder's model (default text-embedding-3-small, nomic-embed-text or "+gemini.DefaultEmbeddingModel+")")
	f.IntVar(&a.g.dims, "dims", 0, "the embedder's dimensions (default 384 for hashing, 1536 for openai, 768 for ollama and gemini)")
	f.BoolVar(&a.g.json, "json", false, "print one JSON document on stdout instead of a table")
}

// checkGlobals refuses global flags that cannot work together, before any
// command touches a file.
func (a *app) checkGlobals(cmd *cobra.Command) error {
	g := &a.g
	flags := cmd.Flags()
	switch {
	case flags.Changed("dir") && !flags.Changed("path"):
		g.path = "" // an explicit --dir wins over ENGRAM_PATH
	case flags.Changed("path") && !flags.Changed("dir"):
		g.dir = ""
	}
	if g.dir != "" && g.path != "" {
		return usagef("--dir and --path exclude each other (check ENGRAM_DIR and ENGRAM_PATH)")
	}
	switch {
	case flags.Changed("postgres"):
		if flags.Changed("dir") || flags.Changed("path") {
			return usagef("--postgres excludes --dir and --path")
		}
		g.dir, g.path = "", "" // an explicit --postgres wins over ENGRAM_DIR and ENGRAM_PATH
	case g.postgres != "" && (flags.Changed("dir") || flags.Changed("path")):
		g.postgres = "" // an explicit --dir or --path wins over ENGRAM_POSTGRES
	case g.postgres != "" && (g.dir != "" || g.path != ""):
		return usagef("ENGRAM_POSTGRES excludes ENGRAM_DIR and ENGRAM_PATH: unset one, or pass --postgres, --dir or --path")
	}
	if err := engram.ValidateAgentID(g.agent); err != nil {
		return usageError{fmt.Errorf("--agent %q: %w", g.agent, err)}
	}
	if g.tier == 0 {
		g.tier = 1
		if g.embedder != "" {
			g.tier = 2
		}
	}
	if g.tier != 1 && g.tier != 2 {
		if !flags.Changed("tier") {
			return usagef("ENGRAM_TIER=%q: the tier is 1 or 2", os.Getenv("ENGRAM_TIER"))
		}
		return usagef("--tier %d: the tier is 1 or 2", g.tier)
	}
	if g.tier == 1 && g.embedder != "" {
		return usagef("--embedder needs --tier 2")
	}
	if !slices.Contains([]string{"", "hashing", "openai", "ollama", "gemini"}, g.embedder) {
		return usagef("--embedder %q: use hashing, openai, ollama or gemini", g.embedder)
	}
	if g.dims < 0 {
		return usagef("--dims %d: the dimensions are positive", g.dims)
	}
	return nil
}

// where returns the option that says where the database is.
func (g *globals) where() engram.Option {
	if g.postgres != "" {
		return engram.WithPostgres(g.postgres)
	}
	if g.path != "" {
		return engram.WithPath(g.path)
	}
	return engram.WithDir(g.base())
}

// base is the base directory of the directory layout.
func (g *globals) base() string {
	if g.dir != "" {
		return g.dir
	}
	return engram.DefaultDir
}

// place names where the agent's memory is, for messages.
func (g *globals) place() string {
	if g.postgres != "" {
		return "the PostgreSQL database of --postgres" // the DSN may hold a password
	}
	if g.path != "" {
		return g.path
	}
	return g.base()
}

// storeOptions builds engram's options for a store of every agent from
// the global flags.
func (g *globals) storeOptions() ([]engram.Option, error) {
	return g.optionsAt(engram.Tier(g.tier))
}

// optionsAt builds engram's options for a store of every agent at tier,
// from the global flags: the embedder's only at Tier 2.
func (g *globals) optionsAt(tier engram.Tier) ([]engram.Option, error) {
	opts := []engram.Option{g.where()}
	if tier == engram.Tier2 {
		e, err := g.newEmbedder()
		if err != nil {
			return nil, err
		}
		opts = append(opts, engram.WithEmbedder(e))
		if g.dimensionChange {
			opts = append(opts, engram.WithDimensionChange())
		}
	}
	return opts, nil
}

// newEmbedder makes the embedder --embedder names. The API key comes from
// the environment only, so that it is never in a command line or a message.
func (g *globals) newEmbedder() (engram.Embedder, error) {
	switch g.embedder {
	case "openai":
		return openai.NewEmbedder(or(g.embedderURL, "https://api.openai.com"), os.Getenv("OPENAI_API_KEY"),
			or(g.embedderModel, "text-embedding-3-small"), orInt(g.dims, 1536)), nil
	case "ollama":
		return ollama.NewEmbedder(or(g.embedderURL, ollama.DefaultBaseURL),
			or(g.embedderModel, "nomic-embed-text"), orInt(g.dims, 768)), nil
	case "gemini":
		e := gemini.NewEmbedder(geminiKey(), g.embedderModel, orInt(g.dims, 768))
		e.BaseURL = or(g.embedderURL, gemini.DefaultBaseURL)
		return e, nil
	}
	e, err := engram.NewHashingEmbedder(orInt(g.dims, 384))
	if err != nil {
		return nil, usageError{fmt.Errorf("--dims: %w", err)}
	}
	return e, nil
}

// geminiKey is the Gemini API key, from the environment only:
// GEMINI_API_KEY, or else GOOGLE_API_KEY.
func geminiKey() string { return or(os.Getenv("GEMINI_API_KEY"), os.Getenv("GOOGLE_API_KEY")) }

// openMemory opens the agent's memory. With create false (commands that
// do not add memories) it first makes sure the agent has a database, so
// that reading never creates a file or a directory. Unless the command
// sets vectors up (create, or reindex), Tier 2 uses the vectors the
// database holds as they are (engram.WithExistingVectors): it records no
// embedder, and a database without vectors yet is opened at Tier 1, so
// that a read never fixes the dimension of the vectors to come.
func (a *app) openMemory(ctx context.Context, create bool) (*engram.Memory, error) {
	if _, err := a.g.storeOptions(); err != nil {
		return nil, err // the flags' mistakes first, before any file is looked at
	}
	if !create {
		if err := a.mustExist(ctx); err != nil {
			return nil, err
		}
	}
	tier := engram.Tier(a.g.tier)
	existing := tier == engram.Tier2 && !create && !a.g.setsUpVectors
	m, err := a.newMemory(tier, existing)
	if existing && errors.Is(err, engram.ErrNoVectors) {
		a.noVectors = true
		m, err = a.newMemory(engram.Tier1, false)
	}
	if err != nil {
		return nil, a.openError(fmt.Sprintf("agent %q in %s", a.g.agent, a.g.place()), err)
	}
	return m, nil
}

// newMemory opens the agent's memory at tier, with
// engram.WithExistingVectors when existing.
func (a *app) newMemory(tier engram.Tier, existing bool) (*engram.Memory, error) {
	opts, err := a.g.optionsAt(tier)
	if err != nil {
		return nil, err
	}
	opts = append(opts, engram.WithAgent(a.g.agent))
	if existing {
		opts = append(opts, engram.WithExistingVectors())
	}
	return engram.New(tier, opts...)
}

// openError says where (what was opened) opening failed, and what to do
// about vectors that are not the embedder's in the command's own terms
// (engram's message names its Go options).
func (a *app) openError(where string, err error) error {
	var vm *engram.VectorMismatchError
	if !errors.As(err, &vm) {
		return fmt.Errorf("%s: %w", where, err)
	}
	if vm.Dims != vm.EmbedderDims {
		return hint(usagef("%s: the database holds %d-dimension vectors (model %q) and --embedder %s makes %d-dimension ones (model %q)",
			where, vm.Dims, vm.Model, or(a.g.embedder, "hashing"), vm.EmbedderDims, vm.EmbedderModel),
			fmt.Sprintf(`use the embedder that made them (model %q, --dims %d), or run "engram reindex --dimension-change" with this --embedder to drop them and embed everything again`, vm.Model, vm.Dims))
	}
	return hint(usagef("%s: the database holds vectors of model %q and --embedder %s is model %q",
		where, vm.Model, or(a.g.embedder, "hashing"), vm.EmbedderModel),
		fmt.Sprintf(`use the embedder that made them (model %q), or run "engram reindex" with this --embedder to embed everything again`, vm.Model))
}

// mustExist returns a notFound error unless the agent has memory where the
// flags say.
func (a *app) mustExist(ctx context.Context) error {
	g := &a.g
	if g.path != "" {
		if err := a.mustExistFile(); err != nil {
			return err
		}
	}
	agents, err := engram.ListAgents(ctx, g.where())
	if err != nil {
		return fmt.Errorf("%s: %w", g.place(), err)
	}
	if !slices.Contains(agents, g.agent) {
		return notFoundf(`no memory for agent %q in %s: run "engram add ..." first, or pass --dir, --path or --agent (engram agents lists them)`, g.agent, g.place())
	}
	return nil
}

// mustExistFile returns a notFound error unless the --path file exists.
func (a *app) mustExistFile() error {
	if _, err := os.Stat(a.g.path); errors.Is(err, fs.ErrNotExist) {
		return notFoundf(`no database at %s: run "engram add ..." or "engram import ..." to make one, or pass another --path`, a.g.path)
	}
	return nil
}

// withMemory opens the memory, runs f with it and closes it, returning
// the first error. When f fails on a database that this call created, the
// database's files and the directories made for it are removed: a command
// that fails leaves no trace.
func (a *app) withMemory(ctx context.Context, create bool, f func(m *engram.Memory) error) error {
	var anchor string // the deepest directory that existed before, when the database did not
	if create && a.g.postgres == "" && a.isNew(ctx) {
		anchor = existingAncestor(a.g.place())
	}
	m, err := a.openMemory(ctx, create)
	if err != nil {
		return err
	}
	err = f(m)
	if cerr := m.Close(); err == nil && cerr != nil && !errors.Is(cerr, engram.ErrClosed) {
		err = cerr
	}
	if err != nil && anchor != "" && m.Path() != "" {
		removeCreated(m.Path(), anchor)
	}
	return err
}

// isNew reports whether the database file opening would create is not
// there yet.
func (a *app) isNew(ctx context.Context) bool {
	if a.g.path != "" {
		_, err := os.Stat(a.g.path)
		return errors.Is(err, fs.ErrNotExist)
	}
	return errors.As(a.mustExist(ctx), new(notFound))
}

// existingAncestor returns the deepest of path and its parents that exists.
func existingAncestor(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		p = parent
	}
}

// removeCreated removes the database file db, made by a command that then
// failed, with SQLite's files beside it, and the directories between it
// and anchor that are left empty.
func removeCreated(db, anchor string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(db + suffix)
	}
	dir, err := filepath.Abs(filepath.Dir(db))
	for err == nil && dir != anchor && strings.HasPrefix(dir, anchor+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envInt reads an integer from the environment: 0 when unset, -1 when it
// is not a number (which the flag's check refuses).
func envInt(key string) int {
	v := os.Getenv(key)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return n
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

func orInt(n, def int) int {
	if n != 0 {
		return n
	}
	return def
}
