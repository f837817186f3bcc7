package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/gemini"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/mcpserver"
	"github.com/engram-go/engram/ollama"
	"github.com/engram-go/engram/openai"
)

// serverFlags are the flags of the commands that serve many agents.
type serverFlags struct {
	llm, llmURL, llmModel string
}

func (f *serverFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.llm, "llm", "", "an LLM that extracts memories and facts from ingested messages besides the agents' rules: openai, ollama or gemini (default none)")
	fs.StringVar(&f.llmURL, "llm-url", "", "the LLM's base URL (default https://api.openai.com, "+ollama.DefaultBaseURL+" or "+gemini.DefaultBaseURL+")")
	fs.StringVar(&f.llmModel, "llm-model", "", "the LLM's model (default gpt-4o-mini, llama3.2 or "+gemini.DefaultChatModel+")")
}

// newLLM makes the LLM --llm names, nil for none. The API keys come from
// the environment only (OPENAI_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY).
func (f *serverFlags) newLLM() (engram.LLM, error) {
	switch f.llm {
	case "":
		return nil, nil
	case "openai":
		return &openai.Chat{BaseURL: or(f.llmURL, "https://api.openai.com"), APIKey: os.Getenv("OPENAI_API_KEY"), Model: or(f.llmModel, "gpt-4o-mini")}, nil
	case "ollama":
		return &ollama.Chat{BaseURL: or(f.llmURL, ollama.DefaultBaseURL), Model: or(f.llmModel, "llama3.2")}, nil
	case "gemini":
		return &gemini.Chat{BaseURL: or(f.llmURL, gemini.DefaultBaseURL), APIKey: geminiKey(), Model: or(f.llmModel, gemini.DefaultChatModel)}, nil
	}
	return nil, usagef("--llm %q: use openai, ollama or gemini", f.llm)
}

// openStore opens the store of every agent where the global flags say,
// for the servers.
func (a *app) openStore(f *serverFlags) (*engram.Store, error) {
	opts, err := a.g.storeOptions()
	if err != nil {
		return nil, err
	}
	llm, err := f.newLLM()
	if err != nil {
		return nil, err
	}
	if llm != nil {
		opts = append(opts, engram.WithLLM(llm))
	}
	st, err := engram.Open(engram.Tier(a.g.tier), opts...)
	if err != nil {
		return nil, a.openError("opening "+a.g.place(), err)
	}
	return st, nil
}

// logger logs the servers' warnings to stderr.
func (a *app) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func (a *app) serveCmd() *cobra.Command {
	var (
		f           serverFlags
		addr        string
		token       string
		agentTokens []string
		origins     []string
		documents   string
		backups     string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve every agent's memory as an HTTP JSON API, MCP at /mcp and a web console at /ui/",
		Long: `serve answers seed 004's HTTP routes and engram's own (see /openapi.json,
and the README's curl examples) for every agent under --dir or in --path,
and MCP's streamable HTTP transport at /mcp, until it is interrupted
(Ctrl-C, SIGTERM): then it finishes the running requests and flushes every
agent it wrote to.

Without a token it listens on loopback only. --token (or ENGRAM_TOKEN)
gives a token for every agent; --agent-token AGENT=SECRET a token for one
agent (repeat it; several for one secret make a token of several agents).
Tokens are at least 16 bytes, without spaces; a flag's value shows in the
process list, so prefer ENGRAM_TOKEN. Document ingestion reads only under
--documents and backups go only into --backups (a backup holds the one
agent's memory, even of a shared --path); each route is off without its
directory. The address it listens on is printed to stderr.

It exits 2 for a bad flag or a non-loopback --addr without a token, and 1
when the address cannot be used.`,
		Example: `  engram serve --dir /var/lib/engram
  ENGRAM_TOKEN=$(openssl rand -hex 24) engram serve --addr 0.0.0.0:7077 --path agents.db
  engram serve --agent-token alice=$(cat alice.token) --agent-token bob=$(cat bob.token)`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			tokens, err := parseTokens(or(token, os.Getenv("ENGRAM_TOKEN")), agentTokens)
			if err != nil {
				return err
			}
			if len(tokens) == 0 {
				if err := loopbackOnly(ctx, addr); err != nil {
					return err
				}
			}
			st, err := a.openStore(&f)
			if err != nil {
				return err
			}
			defer st.Close()
			log := a.logger()
			mcpSrv, err := mcpserver.New(st, mcpserver.Options{Agent: a.g.agent, Logger: log})
			if err != nil {
				return err
			}
			api, err := httpapi.New(st, httpapi.Options{
				Tokens: tokens, AllowedOrigins: origins, DocumentRoot: documents, BackupDir: backups,
				MCP: mcpSrv.HTTPHandler(mcpserver.HTTPOptions{}), Logger: log,
			})
			if err != nil {
				return usageError{err}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "engram: serving http://%s (MCP at /mcp, the console at /ui/)\n", ln.Addr())
			if err := api.Serve(ctx, ln); err != nil {
				if errors.Is(err, httpapi.ErrNoToken) {
					return usagef("--addr %s is not loopback: give a token (--token or ENGRAM_TOKEN)", addr)
				}
				return err
			}
			return nil
		}),
	}
	f.add(cmd)
	fs := cmd.Flags()
	fs.StringVar(&addr, "addr", "127.0.0.1:7077", "the address to listen on (host:port; port 0 picks one)")
	fs.StringVar(&token, "token", "", "a bearer token for every agent (default $ENGRAM_TOKEN)")
	fs.StringArrayVar(&agentTokens, "agent-token", nil, "AGENT=SECRET: a bearer token for one agent (repeatable)")
	fs.StringArrayVar(&origins, "cors-origin", nil, "a web origin whose pages may call the API (repeatable; default none: CORS off)")
	fs.StringVar(&documents, "documents", "", "the directory POST /v1/ingest/documents reads under (default: the route is off)")
	fs.StringVar(&backups, "backups", "", "the directory POST /v1/backup writes into (default: the route is off)")
	return cmd
}

// loopbackOnly returns a usage error unless addr (host:port) listens on
// loopback only, which serving without a token needs: checked before
// anything is opened or printed. A host name counts when every address
// it resolves to is a loopback one.
func loopbackOnly(ctx context.Context, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: give host:port (127.0.0.1:7077, [::1]:0): %v", addr, err)
	}
	var ips []net.IP
	switch ip := net.ParseIP(strings.Trim(host, "[]")); {
	case ip != nil:
		ips = []net.IP{ip}
	case host != "":
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return usagef("--addr %q: %v", addr, err)
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			ips = nil
			break
		}
	}
	if len(ips) == 0 { // "" (every interface), or an address beyond loopback
		return usagef("--addr %s is not loopback: give a token (--token or ENGRAM_TOKEN), or listen on 127.0.0.1", addr)
	}
	return nil
}

// parseTokens makes the API's tokens: all for a token of every agent,
// and AGENT=SECRET pairs, the pairs of one secret making one token.
func parseTokens(all string, pairs []string) ([]httpapi.Token, error) {
	var tokens []httpapi.Token
	if all != "" {
		tokens = append(tokens, httpapi.Token{Secret: all})
	}
	at := map[string]int{} // secret → its token in tokens
	for _, p := range pairs {
		agent, secret, ok := strings.Cut(p, "=")
		if !ok || agent == "" || secret == "" {
			return nil, usagef("--agent-token %q: give AGENT=SECRET", redact(p))
		}
		if err := engram.ValidateAgentID(agent); err != nil {
			return nil, usageError{fmt.Errorf("--agent-token for %q: %w", agent, err)}
		}
		if secret == all {
			return nil, usagef("--agent-token for %q: the secret is the token of every agent", agent)
		}
		if i, ok := at[secret]; ok {
			tokens[i].Agents = append(tokens[i].Agents, agent)
			continue
		}
		at[secret] = len(tokens)
		tokens = append(tokens, httpapi.Token{Secret: secret, Agents: []string{agent}})
	}
	return tokens, nil
}

// nopWriteCloser is a Writer whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// redact keeps a flag's agent and hides its secret, for messages.
func redact(pair string) string {
	agent, _, _ := strings.Cut(pair, "=")
	return agent + "=…"
}

func (a *app) mcpCmd() *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve every agent's memory to an MCP client on stdin and stdout",
		Long: `mcp serves the Model Context Protocol on standard input and output, the way
desktop MCP clients start a server: the tools remember, search, recall,
context, forget, log_event, add_fact, query_graph and list_recent, and each
agent's memory.md and summary as resources. A tool call names its agent in
its agent argument, or uses --agent. When the client closes the session it
flushes every agent it wrote to. Logs go to stderr.`,
		Example: `  engram mcp --dir ~/.engram/memory
  {"mcpServers": {"engram": {"command": "engram", "args": ["mcp", "--dir", "/home/you/.engram/memory"]}}}`,
		Args: cobra.NoArgs,
		RunE: runE(func(ctx context.Context, _ []string) error {
			st, err := a.openStore(&f)
			if err != nil {
				return err
			}
			defer st.Close()
			srv, err := mcpserver.New(st, mcpserver.Options{Agent: a.g.agent, Logger: a.logger()})
			if err != nil {
				return err
			}
			// The command's own streams (os.Stdin and os.Stdout when run
			// as a program), left open for the caller to close.
			return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.in), Writer: nopWriteCloser{a.out}})
		}),
	}
	f.add(cmd)
	return cmd
}
