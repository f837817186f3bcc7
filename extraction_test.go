package engram_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// seedRules are the example rules of seed 003.
var seedRules = []engram.ExtractionRule{
	{Name: "user-preferences", Pattern: `(prefer|like|want|need) (.+)`, Type: engram.TypeSemantic,
		Importance: 0.8, Tags: []string{"preference"}, Active: true},
	{Name: "explicit-memory", Pattern: `(remember|don't forget|note|keep in mind) (.+)`, Type: engram.TypeSemantic,
		Importance: 1.0, Tags: []string{"important", "remember"}, Active: true},
}

func addRules(t *testing.T, m *engram.Memory, rules ...engram.ExtractionRule) {
	t.Helper()
	for _, r := range rules {
		require.NoError(t, m.Rules().Add(context.Background(), r))
	}
}

func TestExtractRulesOnTheSeedExamples(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	addRules(t, m, seedRules...)
	msgs := []engram.Message{
		{Role: "user", Content: "Hi, I'm John and I prefer email notifications over SMS. Please remember that my account number is ACC-12345."},
		{Role: "assistant", Content: "I prefer to answer politely."},
	}
	res, err := m.Extract(ctx, msgs)
	require.NoError(t, err)
	require.Len(t, res.Items, 2)
	want := map[string]struct {
		rule       string
		importance float64
		tags       []string
	}{
		"prefer email notifications over SMS":          {"user-preferences", 0.8, []string{"preference"}},
		"remember that my account number is ACC-12345": {"explicit-memory", 1.0, []string{"important", "remember"}},
	}
	for _, it := range res.Items {
		w, ok := want[it.Content]
		require.True(t, ok, "unexpected %q", it.Content)
		assert.Equal(t, engram.TypeSemantic, it.Type)
		assert.Equal(t, "rule:"+w.rule, it.Source)
		e, err := m.Semantic().Get(ctx, it.ID)
		require.NoError(t, err)
		assert.Equal(t, it.Content, e.Content)
		assert.Equal(t, w.importance, e.Importance)
		assert.Equal(t, w.tags, e.Tags)
		assert.Equal(t, "rule:"+w.rule, e.Source)
	}

	found, err := m.Rules().Match(ctx, msgs)
	require.NoError(t, err)
	assert.ElementsMatch(t, []engram.RuleMatch{
		{Rule: "user-preferences", Type: engram.TypeSemantic, Content: "prefer email notifications over SMS"},
		{Rule: "explicit-memory", Type: engram.TypeSemantic, Content: "remember that my account number is ACC-12345"},
	}, found, "Match finds what Extract stored, and stores nothing")

	again, err := m.Extract(ctx, msgs)
	require.NoError(t, err)
	assert.Empty(t, again.Items, "already known")
	assert.Equal(t, 2, again.Duplicates)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Semantic)
}

func TestExtractionRulesAreValidatedAndManaged(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	err := m.Rules().Add(ctx, engram.ExtractionRule{Name: "broken", Pattern: `(unclosed`, Type: engram.TypeSemantic, Importance: 0.5, Active: true})
	require.ErrorIs(t, err, engram.ErrInvalid)
	var ie *engram.InvalidError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "Pattern", ie.Field)
	for _, bad := range []engram.ExtractionRule{
		{Name: "", Pattern: "x", Type: engram.TypeSemantic},
		{Name: "w", Pattern: "x", Type: engram.TypeWorking},
		{Name: "i", Pattern: "x", Type: engram.TypeSemantic, Importance: 1.5},
		{Name: "e", Pattern: " ", Type: engram.TypeSemantic},
	} {
		assert.ErrorIs(t, m.Rules().Add(ctx, bad), engram.ErrInvalid, "%+v", bad)
	}
	rules, err := m.Rules().List(ctx)
	require.NoError(t, err)
	assert.Empty(t, rules, "a rejected rule is not stored")

	addRules(t, m, engram.ExtractionRule{Name: "deadline", Pattern: `deadline is [^,]+`, Type: engram.TypeEpisodic, Importance: 0.5})
	assert.ErrorIs(t, m.Rules().Add(ctx, engram.ExtractionRule{Name: "deadline", Pattern: "x", Type: engram.TypeSemantic}), engram.ErrExists)
	msgs := []engram.Message{{Role: "user", Content: "The deadline is Friday, sadly"}}
	res, err := m.Extract(ctx, msgs)
	require.NoError(t, err)
	assert.Empty(t, res.Items, "inactive")
	require.NoError(t, m.Rules().SetActive(ctx, "deadline", true))
	res, err = m.Extract(ctx, msgs)
	require.NoError(t, err)
	require.Len(t, res.Items, 1)
	ep, err := m.Episodic().Get(ctx, res.Items[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "deadline is Friday", ep.Content, "the match, not the sentence")
	assert.Equal(t, "rule:deadline", ep.Metadata["source"])
	require.NoError(t, m.Rules().Remove(ctx, "deadline"))
	assert.ErrorIs(t, m.Rules().Remove(ctx, "deadline"), engram.ErrNotFound)
	assert.ErrorIs(t, m.Rules().SetActive(ctx, "deadline", true), engram.ErrNotFound)
}

// chatServer answers chat completions with content, or runs handle.
func chatServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(handle))
	t.Cleanup(srv.Close)
	return srv
}

// answering answers with content a chat request that asks for
// extraction's answer by its JSON Schema, in strict mode.
func answering(content string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model          string `json:"model"`
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string `json:"name"`
					Strict bool   `json:"strict"`
					Schema struct {
						Properties map[string]json.RawMessage `json:"properties"`
						Required   []string                   `json:"required"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" ||
			r.Header.Get("Authorization") != "Bearer k" || req.ResponseFormat.Type != "json_schema" ||
			!req.ResponseFormat.JSONSchema.Strict || req.ResponseFormat.JSONSchema.Schema.Properties["triples"] == nil ||
			len(req.ResponseFormat.JSONSchema.Schema.Required) != 4 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		})
	}
}

const goodAnswer = `{"facts": [{"content": "The user's name is John", "importance": 0.9, "tags": ["profile"]}],
	"episodes": [{"content": "John asked to switch notifications to email", "type": "user-feedback", "importance": 0.6}],
	"procedures": [{"name": "switch-notifications", "description": "Change a user's notification channel", "steps": "1. open settings 2. pick email", "tags": []}]}`

func llmMemory(t *testing.T, srv *httptest.Server, edit func(*engram.Config)) *engram.Memory {
	cfg := engram.DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	llm := engram.NewOpenAIChat(srv.URL, "k", "test-model")
	llm.Backoff = time.Millisecond
	return newMemory(t, engram.Tier1, engram.WithConfig(cfg), engram.WithLLM(llm))
}

var conversation = []engram.Message{
	{Role: "user", Content: "I'm John. Please send my notifications by email from now on."},
	{Role: "assistant", Content: "Done: notifications now go to your email."},
}

func TestExtractWithLLM(t *testing.T) {
	m := llmMemory(t, chatServer(t, answering(goodAnswer)), nil)
	ctx := context.Background()
	res, err := m.Extract(ctx, conversation)
	require.NoError(t, err)
	require.Len(t, res.Items, 3)
	for _, it := range res.Items {
		assert.Equal(t, "llm-extraction", it.Source)
	}
	fact, err := m.Semantic().Get(ctx, res.Items[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "The user's name is John", fact.Content)
	assert.Equal(t, 0.9, fact.Importance)
	assert.Equal(t, "llm-extraction", fact.Source)
	ep, err := m.Episodic().Get(ctx, res.Items[1].ID)
	require.NoError(t, err)
	assert.Equal(t, engram.EventUserFeedback, ep.Type)
	pr, err := m.Procedural().Get(ctx, res.Items[2].ID)
	require.NoError(t, err)
	assert.Equal(t, "switch-notifications", pr.Name)
	assert.Equal(t, "1. open settings 2. pick email", pr.Pattern)

	again, err := m.Extract(ctx, conversation)
	require.NoError(t, err)
	assert.Empty(t, again.Items)
	assert.Equal(t, 3, again.Duplicates, "deduplicated against memory")
}

// An answer that cannot be used at all is an error, and then nothing is
// stored, not even what the rules found.
func TestExtractRejectsUnusableAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		answer string
		why    string
	}{
		"malformed":   {`Sure! Here are the memories: facts...`, "no JSON object"},
		"partial":     {goodAnswer[:60], "no JSON object"},
		"no list":     {`{"mood": "happy"}`, "holds none of"},
		"a list only": {`[{"content": "x", "importance": 0.5}]`, "holds none of"},
		"oversized":   {`{"facts": [{"content": "` + strings.Repeat("a", 2000) + `", "importance": 0.5, "tags": []}], "episodes": [], "procedures": []}`, "more than the limit"},
		"empty":       {"", "no JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			m := llmMemory(t, chatServer(t, answering(tc.answer)), func(c *engram.Config) { c.Extraction.MaxResponseBytes = 1024 })
			addRules(t, m, seedRules...)
			_, err := m.Extract(context.Background(), []engram.Message{{Role: "user", Content: "I prefer tea over coffee."}})
			require.ErrorIs(t, err, engram.ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
			st, err := m.Stats(context.Background())
			require.NoError(t, err)
			assert.Equal(t, engram.Stats{}, st, "nothing is stored, not even the rule's match")
		})
	}
}

func TestExtractLLMFailures(t *testing.T) {
	ctx := context.Background()
	calls := 0
	m := llmMemory(t, chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		http.Error(w, "rate limited", http.StatusTooManyRequests)
	}), nil)
	_, err := m.Extract(ctx, conversation)
	var le *engram.APIError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, http.StatusTooManyRequests, le.Status)
	assert.Equal(t, 3, calls, "a rate limit is tried twice more")

	started := make(chan struct{})
	slow := llmMemory(t, chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection only after the body
		close(started)
		<-r.Context().Done()
	}), nil)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		<-started
		cancel()
	}()
	_, err = slow.Extract(cctx, conversation)
	require.ErrorIs(t, err, context.Canceled)
	st, err := slow.Stats(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Semantic+st.Episodes+st.Procedures)

	done, cancel2 := context.WithTimeout(ctx, time.Millisecond)
	defer cancel2()
	<-done.Done()
	_, err = m.Extract(done, conversation)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

	small := llmMemory(t, chatServer(t, answering(goodAnswer)), func(c *engram.Config) { c.Extraction.MaxPromptBytes = 256 })
	_, err = small.Extract(ctx, []engram.Message{{Role: "user", Content: strings.Repeat("word ", 100)}})
	assert.ErrorIs(t, err, engram.ErrInvalid, "a message over the prompt budget")
}

// TestExtractWithScopesWhatItStores: ExtractWith stores what it finds as
// the user's and the session's; the same words from another user are
// stored again, as that user's (what one user's memories hold is not
// another's), and again from the same user are a duplicate. An invalid
// scope stores nothing.
func TestExtractWithScopesWhatItStores(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	addRules(t, m, seedRules...)
	msgs := []engram.Message{{Role: "user", Content: "I prefer tea in the morning."}}
	_, err := m.ExtractWith(ctx, msgs, engram.ExtractOptions{UserID: "not a user"})
	require.ErrorIs(t, err, engram.ErrInvalid)
	page, err := m.List(ctx, engram.MemoryQuery{})
	require.NoError(t, err)
	require.Empty(t, page.Records, "nothing stored on bad input")

	for _, c := range []struct {
		user, session string
		stored, dups  int
	}{{"ada", "s1", 1, 0}, {"bob", "s2", 1, 0}, {"ada", "s3", 0, 1}} {
		res, err := m.ExtractWith(ctx, msgs, engram.ExtractOptions{UserID: c.user, SessionID: c.session})
		require.NoError(t, err)
		require.Len(t, res.Items, c.stored, c.user)
		assert.Equal(t, c.dups, res.Duplicates, c.user)
		for _, it := range res.Items {
			e, err := m.Semantic().Get(ctx, it.ID)
			require.NoError(t, err)
			assert.Equal(t, c.user, e.UserID)
			assert.Equal(t, c.session, e.SessionID)
		}
	}
	for _, user := range []string{"ada", "bob"} {
		page, err := m.List(ctx, engram.MemoryQuery{Filter: &engram.Filter{UserID: user}})
		require.NoError(t, err)
		require.Len(t, page.Records, 1, user)
	}
}
