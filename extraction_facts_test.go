package engram_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
)

// employer is a fact rule whose object comes from a group and whose
// subject is the user entity.
var employer = engram.ExtractionRule{Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[^,]+)`,
	Type: engram.TypeFact, Predicate: "works at", Active: true}

func triple(f engram.Fact) [3]string { return [3]string{f.Subject, f.Predicate, f.Object} }

func TestFactRulesAssertFacts(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	addRules(t, m, employer)
	res, err := m.Extract(ctx, []engram.Message{{Role: "user", Content: "Hi! I work at Acme, since May."}})
	require.NoError(t, err)
	assert.Empty(t, res.Items, "a fact rule stores no memory")
	require.Len(t, res.Facts, 1)
	f := res.Facts[0]
	assert.Equal(t, engram.FactInserted, f.Action)
	assert.Equal(t, "rule:employer", f.Source)
	assert.Equal(t, [3]string{"User", "works at", "Acme"}, triple(f.Fact))
	assert.Equal(t, []string{"rule:employer"}, f.Fact.Sources, "no memory came from the sentence: the rule is the source")

	current, err := m.Facts().Current(ctx, engram.FactQuery{Entity: "User"})
	require.NoError(t, err)
	require.Len(t, current, 1)
	assert.Equal(t, f.Fact.ID, current[0].ID)

	// The same fact again strengthens it; a new employer supersedes it.
	res, err = m.Extract(ctx, []engram.Message{{Role: "user", Content: "i work at ACME"}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, engram.FactMerged, res.Facts[0].Action)
	assert.Equal(t, f.Fact.ID, res.Facts[0].Fact.ID)
	assert.Equal(t, 2.0, res.Facts[0].Fact.Strength)

	res, err = m.Extract(ctx, []engram.Message{{Role: "user", Content: "Since Monday I work for Globex."}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, engram.FactSuperseded, res.Facts[0].Action)
	assert.Equal(t, [3]string{"User", "works at", "Globex"}, triple(res.Facts[0].Fact))
	require.Len(t, res.Facts[0].Superseded, 1)
	assert.Equal(t, "Acme", res.Facts[0].Superseded[0].Object)

	// Found twice in one conversation, a fact is asserted once.
	res, err = m.Extract(ctx, []engram.Message{{Role: "user", Content: "I work for Globex."}, {Role: "user", Content: "I work at globex"}})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, 1, res.Duplicates)

	rules, err := m.Rules().List(ctx)
	require.NoError(t, err)
	require.Len(t, rules, 1)
	employer.CreatedAt = rules[0].CreatedAt
	assert.Equal(t, employer, rules[0], "the fact parts are stored")
}

func TestFactRuleTemplatesAndPronouns(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		rule engram.ExtractionRule
		user string // the user entity; "" is the default
		msg  string
		want [][3]string
	}{
		"groups, and me as the object": {
			rule: engram.ExtractionRule{Pattern: `(?P<subject>[A-Z]\w+) (?P<predicate>is married to|knows) (?P<object>\w+)`},
			msg:  "Bob is married to me. Carol knows MYSELF; Dan knows Eve.",
			want: [][3]string{{"Bob", "is married to", "User"}, {"Carol", "knows", "User"}, {"Dan", "knows", "Eve"}},
		},
		"templates": {
			rule: engram.ExtractionRule{Pattern: `\bmy (sister|brother) is (?P<name>[A-Z]\w+)`, Subject: "${name}", Predicate: "is $1 of", Object: "me"},
			msg:  "My sister is Ann, and my brother is Tom.",
			want: [][3]string{{"Ann", "is sister of", "User"}, {"Tom", "is brother of", "User"}},
		},
		"the configured user entity": {
			rule: engram.ExtractionRule{Pattern: `\bI live in (?P<object>[A-Z]\w+)`, Predicate: "lives in"},
			user: "Ada",
			msg:  "These days I live in Lisbon.",
			want: [][3]string{{"Ada", "lives in", "Lisbon"}},
		},
		"I as the subject group, a dollar in a template": {
			rule: engram.ExtractionRule{Pattern: `(?P<subject>I|we) pay (?P<amount>\d+) for (?P<object>\w+)`, Predicate: "pays $$${amount} for"},
			msg:  "i pay 20 for parking",
			want: [][3]string{{"User", "pays $20 for", "parking"}},
		},
		"an optional subject group left empty": {
			rule: engram.ExtractionRule{Pattern: `(?:(?P<subject>[A-Z]\w+) )?likes (?P<object>\w+)`, Predicate: "likes"},
			msg:  "likes jazz. Zoe likes tea",
			want: [][3]string{{"User", "likes", "jazz"}, {"Zoe", "likes", "tea"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := engram.DefaultConfig()
			if tc.user != "" {
				cfg.Facts.UserEntity = tc.user
			}
			m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
			rule := tc.rule
			rule.Name, rule.Type, rule.Active = "r", engram.TypeFact, true
			addRules(t, m, rule)
			msgs := []engram.Message{{Role: "user", Content: tc.msg}, {Role: "assistant", Content: tc.msg}}
			matches, err := m.Rules().Match(ctx, msgs)
			require.NoError(t, err)
			res, err := m.Extract(ctx, msgs)
			require.NoError(t, err)
			assert.Empty(t, res.Rejected)
			var got, matched [][3]string
			for _, f := range res.Facts {
				got = append(got, triple(f.Fact))
			}
			for _, mt := range matches {
				matched = append(matched, triple(mt.Fact))
				assert.Equal(t, mt.Fact.String(), mt.Content)
				assert.Equal(t, engram.TypeFact, mt.Type)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want, matched, "Match finds what Extract asserts")
		})
	}
}

func TestBadFactRulesAreRejected(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		rule  engram.ExtractionRule
		field string
		why   string
	}{
		"no predicate":        {engram.ExtractionRule{Pattern: `I like (?P<object>\w+)`}, "Predicate", "no (?P<predicate>…) group"},
		"no object":           {engram.ExtractionRule{Pattern: `I like \w+`, Predicate: "likes"}, "Object", "no (?P<object>…) group"},
		"unknown group":       {engram.ExtractionRule{Pattern: `I like (?P<thing>\w+)`, Predicate: "likes", Object: "$object"}, "Object", "$object names no group"},
		"group number":        {engram.ExtractionRule{Pattern: `I like (\w+)`, Predicate: "likes", Object: "$2"}, "Object", "$2 names no group"},
		"glued name":          {engram.ExtractionRule{Pattern: `I like (\w+)`, Predicate: "likes", Object: "$1s"}, "Object", "$1s names no group"},
		"lone dollar":         {engram.ExtractionRule{Pattern: `I like (?P<object>\w+)`, Predicate: "likes $"}, "Predicate", "write $$"},
		"unclosed brace":      {engram.ExtractionRule{Pattern: `I like (?P<object>\w+)`, Predicate: "likes", Subject: "${object"}, "Subject", "starts no $name"},
		"two lines":           {engram.ExtractionRule{Pattern: `I like (?P<object>\w+)`, Predicate: "likes\nloves"}, "Predicate", "one line"},
		"no word":             {engram.ExtractionRule{Pattern: `I like (?P<object>\w+)`, Predicate: "!!!"}, "Predicate", "has no word"},
		"pattern":             {engram.ExtractionRule{Pattern: `I like (?P<object>\w+`, Predicate: "likes"}, "Pattern", "missing closing )"},
		"template, not fact":  {engram.ExtractionRule{Type: engram.TypeSemantic, Pattern: `I like (?P<object>\w+)`, Predicate: "likes"}, "Predicate", "only a fact rule"},
		"subject on episodic": {engram.ExtractionRule{Type: engram.TypeEpisodic, Pattern: `I like \w+`, Subject: "me"}, "Subject", "only a fact rule"},
		"working":             {engram.ExtractionRule{Type: engram.TypeWorking, Pattern: `I like \w+`}, "Type", "semantic, episodic, procedural or fact"},
	} {
		t.Run(name, func(t *testing.T) {
			rule := tc.rule
			rule.Name, rule.Active = "bad", true
			if rule.Type == "" {
				rule.Type = engram.TypeFact
			}
			err := m.Rules().Add(ctx, rule)
			require.ErrorIs(t, err, engram.ErrInvalid)
			var ie *engram.InvalidError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.field, ie.Field)
			assert.Contains(t, ie.Reason, tc.why)
		})
	}
	rules, err := m.Rules().List(ctx)
	require.NoError(t, err)
	assert.Empty(t, rules, "nothing is stored")
	res, err := m.Extract(ctx, []engram.Message{{Role: "user", Content: "I like tea"}})
	require.NoError(t, err)
	assert.Empty(t, res.Facts)
	st, err := m.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, engram.Stats{}, st)
}

// A fact found in a sentence another rule stored a memory from comes
// from that memory: the memory is among its sources and links to it.
func TestFactRulesLinkTheMemoryTheyCameFrom(t *testing.T) {
	m := newMemory(t, engram.Tier1)
	ctx := context.Background()
	addRules(t, m, seedRules...)
	addRules(t, m, engram.ExtractionRule{Name: "likes", Pattern: `\bI (?:like|prefer) (?P<object>[^,]+)`,
		Type: engram.TypeFact, Predicate: "likes", Active: true})
	msgs := []engram.Message{{Role: "user", Content: "I prefer green tea, thanks. Also I like jazz"}}
	res, err := m.Extract(ctx, msgs)
	require.NoError(t, err)
	require.Len(t, res.Items, 2)
	require.Len(t, res.Facts, 2)
	for i, want := range [][3]string{{"User", "likes", "green tea"}, {"User", "likes", "jazz"}} {
		f := res.Facts[i].Fact
		assert.Equal(t, want, triple(f))
		mem := res.Items[i]
		assert.Equal(t, engram.FactInserted, res.Facts[i].Action)
		assert.Equal(t, []string{"rule:likes", mem.ID}, f.Sources, "from the memory of its own sentence")
		links, err := m.Links().For(ctx, mem.ID)
		require.NoError(t, err)
		require.Len(t, links, 1)
		assert.Equal(t, engram.Link{SourceID: mem.ID, TargetID: f.ID, Type: engram.LinkSupports, Strength: 1,
			SourceType: engram.TypeSemantic, TargetType: engram.TypeFact, CreatedAt: links[0].CreatedAt}, links[0])
	}

	// Again: the memories are known, the facts merge.
	res, err = m.Extract(ctx, msgs)
	require.NoError(t, err)
	assert.Empty(t, res.Items)
	assert.Equal(t, 2, res.Duplicates)
	require.Len(t, res.Facts, 2)
	for _, f := range res.Facts {
		assert.Equal(t, engram.FactMerged, f.Action)
		assert.Equal(t, 2.0, f.Fact.Strength)
		assert.Len(t, f.Fact.Sources, 2)
	}
}

// A rule's fact whose part comes out empty or too long is reported, and
// the rest is stored.
func TestFactRulesRejectInvalidFacts(t *testing.T) {
	cfg := engram.DefaultConfig()
	cfg.Limits.MaxFactBytes = 16
	m := newMemory(t, engram.Tier1, engram.WithConfig(cfg))
	ctx := context.Background()
	addRules(t, m, engram.ExtractionRule{Name: "likes", Pattern: `\bI like(?P<object>.*)`, Type: engram.TypeFact, Predicate: "likes", Active: true})
	addRules(t, m, seedRules...)
	res, err := m.Extract(ctx, []engram.Message{
		{Role: "user", Content: "I like"},
		{Role: "user", Content: "I like a very long name of a thing"},
		{Role: "user", Content: "I like tea"},
	})
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, [3]string{"User", "likes", "tea"}, triple(res.Facts[0].Fact))
	require.Len(t, res.Rejected, 2)
	assert.Equal(t, engram.RejectedItem{Source: "rule:likes", List: "messages", Index: 0, Field: "object",
		Reason: "must not be empty", Item: "I like"}, res.Rejected[0])
	assert.Equal(t, "object", res.Rejected[1].Field)
	assert.Equal(t, 1, res.Rejected[1].Index)
	assert.Contains(t, res.Rejected[1].Reason, "over the limit of 16")
	assert.Len(t, res.Items, 2, "the other rule's memories are stored")
}

// llmFacts answers every extraction request with the next of answers
// (the last one over again), and counts the calls.
func llmFacts(t *testing.T, edit func(*engram.Config), answers ...string) (*engram.Memory, *atomic.Int32) {
	var n atomic.Int32
	srv := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		answering(answers[min(i, len(answers)-1)])(w, r)
	})
	return llmMemory(t, srv, edit), &n
}

func TestExtractLLMTriples(t *testing.T) {
	ctx := context.Background()
	fencedAnswer := "Here is what I found:\n```json\n" + `{"facts": [], "episodes": [], "procedures": [],
		"triples": [{"subject": "I", "predicate": "live in", "object": "Paris"}, {"subject": "Ada", "predicate": "works at", "object": "Acme"}]}` +
		"\n```\nAnything else?"
	m, _ := llmFacts(t, nil, fencedAnswer, fencedAnswer,
		`{"triples": [{"subject": "User", "predicate": "lives in", "object": "Berlin"}]}`)
	res, err := m.Extract(ctx, conversation)
	require.NoError(t, err)
	assert.Empty(t, res.Rejected)
	require.Len(t, res.Facts, 2)
	assert.Equal(t, [3]string{"User", "live in", "Paris"}, triple(res.Facts[0].Fact), "I is the user")
	assert.Equal(t, [3]string{"Ada", "works at", "Acme"}, triple(res.Facts[1].Fact))
	for _, f := range res.Facts {
		assert.Equal(t, engram.FactInserted, f.Action)
		assert.Equal(t, "llm-extraction", f.Source)
		assert.Equal(t, []string{"llm-extraction"}, f.Fact.Sources)
	}

	res, err = m.Extract(ctx, conversation)
	require.NoError(t, err)
	require.Len(t, res.Facts, 2)
	assert.Equal(t, engram.FactMerged, res.Facts[0].Action)
	assert.Equal(t, 2.0, res.Facts[0].Fact.Strength)

	res, err = m.Extract(ctx, conversation)
	require.NoError(t, err)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, engram.FactSuperseded, res.Facts[0].Action, "lives in holds one value")
	require.Len(t, res.Facts[0].Superseded, 1)
	assert.Equal(t, "Paris", res.Facts[0].Superseded[0].Object)
	hist, err := m.Facts().History(ctx, "user", "lives in")
	require.NoError(t, err)
	require.Len(t, hist, 2)
}

// One bad item no longer costs the answer: the good ones are stored, and
// the bad ones are reported with where they were and why.
func TestExtractKeepsTheValidItemsOfAnAnswer(t *testing.T) {
	ctx := context.Background()
	answer := `Sure. {"facts": [{"content": "x", "importance": 2, "tags": []}, {"content": "Deploys go out on Tuesdays", "importance": 0.7, "tags": []}],
		"triples": [{"subject": "User", "predicate": "likes"}, {"subject": "User", "predicate": "likes", "object": "tea"},
			{"subject": "User", "predicate": "...", "object": "x"}, "User likes coffee"],
		"episodes": [{"content": "x", "type": "party", "importance": 0.1}, {"content": "Deploy failed", "type": "error-encountered", "importance": "high"}],
		"procedures": [{"description": "no name", "steps": "", "tags": []}],
		"mood": "happy"} That is all.`
	m, _ := llmFacts(t, nil, answer)
	addRules(t, m, seedRules...)
	res, err := m.Extract(ctx, []engram.Message{{Role: "user", Content: "I prefer tea over coffee."}})
	require.NoError(t, err)
	var contents []string
	for _, it := range res.Items {
		contents = append(contents, it.Content)
	}
	assert.Equal(t, []string{"prefer tea over coffee", "Deploys go out on Tuesdays"}, contents)
	require.Len(t, res.Facts, 1)
	assert.Equal(t, [3]string{"User", "likes", "tea"}, triple(res.Facts[0].Fact))
	type why struct {
		list  string
		index int
		field string
	}
	var got []why
	for _, r := range res.Rejected {
		got = append(got, why{r.List, r.Index, r.Field})
		assert.Equal(t, "llm-extraction", r.Source)
		assert.NotEmpty(t, r.Reason)
		assert.NotEmpty(t, r.Item)
	}
	assert.Equal(t, []why{
		{"mood", -1, ""},
		{"facts", 0, "importance"},
		{"triples", 0, "object"},
		{"triples", 2, "predicate"},
		{"triples", 3, ""},
		{"episodes", 0, "type"},
		{"episodes", 1, "importance"},
		{"procedures", 0, "name"},
	}, got)
	assert.Equal(t, "is missing", res.Rejected[2].Reason)
	assert.Equal(t, `{"subject": "User", "predicate": "likes"}`, res.Rejected[2].Item)
	assert.Equal(t, "is a JSON string, not a number", res.Rejected[6].Reason)
}

// The prompt asks for triples about the configured user entity.
func TestExtractionPromptNamesTheUserEntity(t *testing.T) {
	var system atomic.Value
	srv := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		system.Store(req.Messages[0].Content)
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]string{"content": `{"triples": []}`}, "finish_reason": "stop"}}})
	})
	m := llmMemory(t, srv, func(c *engram.Config) { c.Facts.UserEntity = "Ada Lovelace" })
	_, err := m.Extract(context.Background(), conversation)
	require.NoError(t, err)
	prompt := system.Load().(string)
	assert.Contains(t, prompt, `"triples"`)
	assert.Contains(t, prompt, `subject is
"Ada Lovelace": write "Ada Lovelace" for "I"`)
}
