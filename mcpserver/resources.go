package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/engram-go/engram"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources: each agent's memory.md and summary, at engram://{agent}/memory.md
// and engram://{agent}/summary. The server's agent's are listed (for a
// token of one other agent, that agent's instead: see resourcesOfToken);
// any agent's can be read by its URI (resource templates).

// addResources adds the resources and their templates.
func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{
		URI: "engram://" + s.agent + "/memory.md", Name: "memory.md", MIMEType: "text/markdown",
		Description: "What agent " + s.agent + " knows: its memory.md, the most important semantic memories and the facts that hold now.",
	}, s.readResource)
	s.mcp.AddResource(&mcp.Resource{
		URI: "engram://" + s.agent + "/summary", Name: "summary", MIMEType: "application/json",
		Description: "An overview of agent " + s.agent + "'s memory: counts of each kind, the newest of each, its common words.",
	}, s.readResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "engram://{agent}/memory.md", Name: "agent memory.md", MIMEType: "text/markdown",
		Description: "An agent's memory.md.",
	}, s.readResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "engram://{agent}/summary", Name: "agent summary", MIMEType: "application/json",
		Description: "An overview of an agent's memory.",
	}, s.readResource)
}

// readResource reads engram://{agent}/memory.md or engram://{agent}/summary.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "engram" || u.Host == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	agent, what := u.Host, strings.TrimPrefix(u.Path, "/")
	if what != "memory.md" && what != "summary" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err := allowed(req.Extra, agent); err != nil {
		return nil, err
	}
	var text, mime string
	err = s.reg.Read(ctx, agent, func(m *engram.Memory) error {
		if what == "memory.md" {
			// Bootstrap reads memory.md as the agent sees it: the file,
			// with a person's edits read back first, or, for a memory
			// that writes none, the text rendered from the database.
			boot, err := m.Bootstrap(ctx)
			if err != nil {
				return err
			}
			text, mime = boot.SemanticContext, "text/markdown"
			return nil
		}
		sum, err := m.Summary(ctx)
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(summaryOf(sum), "", "  ")
		text, mime = string(b), "application/json"
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", uri, s.toolError("resource", err))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

type kindOut struct {
	Type   engram.MemoryType `json:"type"`
	Count  int               `json:"count"`
	LastID string            `json:"last_id,omitempty"`
}

type summaryOut struct {
	Agent            string    `json:"agent"`
	Kinds            []kindOut `json:"kinds"`
	HighImportance   int       `json:"high_importance"`
	RecentlyAccessed int       `json:"recently_accessed"`
	Keywords         []string  `json:"keywords"`
}

func summaryOf(s engram.Summary) summaryOut {
	out := summaryOut{Agent: s.AgentID, Kinds: []kindOut{}, Keywords: []string{}, HighImportance: s.HighImportance, RecentlyAccessed: s.RecentlyAccessed}
	for _, k := range s.Kinds {
		out.Kinds = append(out.Kinds, kindOut{k.Type, k.Count, k.LastID})
	}
	for _, k := range s.Keywords {
		out.Keywords = append(out.Keywords, k.Stem)
	}
	return out
}

// resourcesOfToken lists, to a call whose token does not allow the
// server's agent, the resources of the one agent the token allows instead
// of the server's agent's (none, for a token of several agents): a client
// is not shown what it may not read.
func (s *Server) resourcesOfToken(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListResourcesResult)
		if err != nil || method != "resources/list" || !ok || allowed(req.GetExtra(), s.agent) == nil {
			return res, err
		}
		id, one := tokenAgent(req.GetExtra())
		out := *list
		out.Resources = nil
		for _, r := range list.Resources {
			rest, ours := strings.CutPrefix(r.URI, "engram://"+s.agent+"/")
			switch {
			case !ours:
				out.Resources = append(out.Resources, r)
			case one:
				c := *r
				c.URI = "engram://" + id + "/" + rest
				c.Description = strings.ReplaceAll(c.Description, "agent "+s.agent, "agent "+id)
				out.Resources = append(out.Resources, &c)
			}
		}
		return &out, nil
	}
}
