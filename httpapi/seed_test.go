package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/httpapi"
	"github.com/engram-go/engram/internal/testutil"
)

// seedLLM answers extraction as a model would for the seed walkthrough's
// message: a note, two triples about the user and an episode.
type seedLLM struct{}

func (seedLLM) Complete(context.Context, engram.Prompt) (string, error) {
	return `{"facts": [{"content": "The user is a senior engineer who loves working on AI safety", "importance": 0.8, "tags": ["work"]}],
		"triples": [{"subject": "User", "predicate": "works at", "object": "Anthropic"},
			{"subject": "Anthropic", "predicate": "works on", "object": "AI safety"}],
		"episodes": [{"content": "The user told us about their job at Anthropic", "type": "observation", "importance": 0.5}],
		"procedures": []}`, nil
}

// curl is one curl command of the walkthrough: its method, its URL's path
// and query, and its body.
type curl struct {
	line                string
	method, path, query string
	body                string
}

// curls reads the curl commands of a shell script, as the shell splits
// them into words: a command ends at a newline outside quotes, a
// backslash before a newline continues it, quotes (single or double, which
// may span lines) hold a word together; comments and other commands (npm,
// sqlite3) are left out.
func curls(t *testing.T, script string) []curl {
	t.Helper()
	var out []curl
	for _, words := range shellCommands(t, script) {
		if words[0] != "curl" {
			continue
		}
		c := curl{line: strings.Join(words, " "), method: "GET"}
		for i := 1; i < len(words); i++ {
			switch words[i] {
			case "-X":
				i++
				c.method = words[i]
			case "-H":
				i++
				require.Equal(t, "Content-Type: application/json", words[i], "%s", c.line)
			case "-d":
				i++
				c.body = words[i]
			default:
				u, err := url.Parse(words[i])
				require.NoError(t, err, "%s", c.line)
				require.Equal(t, "localhost:4005", u.Host, "%s", c.line)
				c.path, c.query = u.Path, u.RawQuery
			}
		}
		out = append(out, c)
	}
	return out
}

// shellCommands splits a script into commands of words.
func shellCommands(t *testing.T, script string) [][]string {
	var cmds [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words, inWord = append(words, w.String()), false
			w.Reset()
		}
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds, words = append(cmds, words), nil
		}
	}
	for i := 0; i < len(script); i++ {
		switch c := script[i]; {
		case c == '\\' && i+1 < len(script) && script[i+1] == '\n':
			i++
		case c == '\n':
			endCommand()
		case c == '#' && !inWord:
			for i < len(script) && script[i] != '\n' {
				i++
			}
			endCommand()
		case c == ' ' || c == '\t':
			endWord()
		case c == '\'' || c == '"':
			end := strings.IndexByte(script[i+1:], c)
			require.GreaterOrEqual(t, end, 0, "unclosed quote at %q", script[i:])
			w.WriteString(script[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return cmds
}

// TestSeedWalkthrough runs seed 004's local-testing walkthrough
// (testdata/seed004_local_testing.sh, copied verbatim from the seed) as
// it is written: each curl becomes a request of the same method, path,
// query and body, to the API over a store whose agents have a model for
// extraction (as the seed's service has), with the markdown folder the
// seed names under the document root. Only the host changes, and
// MEMORY_ID becomes the ID of the note step 3 stored. Each step answers
// 2xx with what the seed says it shows; step 15 (sqlite3) is checked
// through the API.
func TestSeedWalkthrough(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("testdata", "seed004_local_testing.sh"))
	require.NoError(t, err)
	steps := curls(t, string(script))
	require.Len(t, steps, 13, "the walkthrough's curl commands")

	root := t.TempDir()
	folder := filepath.Join(root, "path", "to", "markdown", "folder")
	require.NoError(t, os.MkdirAll(folder, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "safety.md"), []byte("# AI safety\n\nAnthropic works on AI safety.\n\n## Evals\n\nRun the evals before a release.\n"), 0o600))
	e := newEnvOver(t, testutil.NewAgents(t, engram.WithLLM(seedLLM{})), httpapi.Options{DocumentRoot: root})

	memoryID := ""
	for i, c := range steps {
		path := strings.ReplaceAll(c.path, "MEMORY_ID", memoryID)
		if c.query != "" {
			path += "?" + c.query
		}
		var body any
		if c.body != "" {
			body = c.body
		}
		r := e.do(c.method, path, body)
		require.True(t, r.Status >= 200 && r.Status < 300, "step %d, %s: %d %s", i+2, c.line, r.Status, r.Body)
		got := r.JSON(t)
		switch i + 2 { // the seed numbers its steps from 1, the start
		case 2:
			require.Equal(t, "ok", got["status"])
		case 3:
			require.EqualValues(t, 4, got["stored"], "%s", r.Body)
			for _, it := range got["items"].([]any) {
				if it.(map[string]any)["type"] == "semantic" {
					memoryID = it.(map[string]any)["id"].(string)
				}
			}
			require.NotEmpty(t, memoryID)
		case 4:
			require.NotEmpty(t, got["working_memory"], "%s", r.Body)
			require.Contains(t, string(r.Body), "Anthropic")
		case 5:
			require.NotEmpty(t, got["recent"])
		case 6:
			require.Equal(t, []any{"default"}, got["profiles"])
		case 7:
			require.EqualValues(t, 1, got["count"], "%s", r.Body)
			require.Equal(t, "Anthropic", got["triples"].([]any)[0].(map[string]any)["object"])
		case 8:
			require.Len(t, got["nodes"], 3, "maxDepth=2 reaches AI safety: %s", r.Body)
		case 9:
			require.EqualValues(t, 1, got["count"], "%s", r.Body)
		case 10:
			require.Equal(t, "semantic", got["type"])
			m, err := e.agents.Agent("default")
			require.NoError(t, err)
			note, err := m.Semantic().Get(context.Background(), memoryID)
			require.NoError(t, err)
			require.Equal(t, "Updated content", note.Content)
		case 11:
			require.EqualValues(t, 1, got["deleted"])
		case 12:
			require.EqualValues(t, 3, got["deleted"], "the episode and the two facts left")
		case 13:
			require.EqualValues(t, 2, got["stored"], "%s", r.Body)
		case 14:
			require.EqualValues(t, 2, got["skipped"], "%s", r.Body)
			require.Zero(t, got["stored"])
		}
	}
	// 15. Source attribution: the chunks name the file they came from.
	r := e.do("GET", "/v1/memories?profile=docs&kind=document", nil)
	require.Equal(t, http.StatusOK, r.Status)
	var sources []string
	for _, m := range r.JSON(t)["memories"].([]any) {
		sources = append(sources, m.(map[string]any)["source"].(string))
	}
	require.ElementsMatch(t, []string{"folder/safety.md > AI safety", "folder/safety.md > AI safety > Evals"}, sources)
}
