package engram

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzExtractPrefilter checks the extraction prefilter against running
// every rule's expression on every sentence: skipping sentences, and
// starting late, by the literals a pattern requires must never lose or
// change a match, whatever the pattern and the text.
func FuzzExtractPrefilter(f *testing.F) {
	f.Add(`(prefer|like|want|need) (.+)`, "I prefer dark mode. We need tests!")
	f.Add(`\bprefers? ([a-z]+ ){1,4}[a-z]+`, "she Prefers green tea with milk; unprefer nothing")
	f.Add(`my (account|order) number is [A-Z]+-\d+`, "My ACCOUNT number is ACC-12345.\nmy order number is x-1")
	f.Add(`\Bfer\w*`, "offering fer prefer ſ K café")
	f.Add(`(?:keep|kee)p? \w+`, "keep in mind. kee pin KEEP it")
	f.Add(`\b(?:need|-x|my)`, "re-need -x x-x NEED. Keep,call my")
	f.Add(`(?s)remember.`, "remember\nthis REMEMBER. that")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 2000 {
			return
		}
		if _, err := compilePattern(pattern); err != nil {
			return
		}
		rules := []ExtractionRule{
			{Name: "fuzzed", Pattern: pattern},
			{Name: "fuzzed-fact", Pattern: pattern, Type: TypeFact, Predicate: "p"},
			{Name: "prefer", Pattern: `(prefer|like|want|need) (.+)`},
			{Name: "word", Pattern: `\bnote\b \w+`},
		}
		// The text is two user messages and an assistant's, split at '\x1e'.
		parts := strings.SplitN(text, "\x1e", 3)
		var msgs []Message
		for i, p := range parts {
			role := "user"
			if i == 2 {
				role = "assistant"
			}
			msgs = append(msgs, Message{Role: role, Content: p})
		}
		var r Rules
		found, err := r.apply(rules, msgs)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(found))
		for i, f := range found {
			got[i] = strings.TrimPrefix(f.source, "rule:") + "|" + f.content
		}
		if want := naiveApply(t, rules, msgs); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q:\ngot  %q\nwant %q", pattern, msgs, got, want)
		}
	})
}

// FuzzParseAnswer checks the reading of a model's extraction answer: it
// never panics; what it keeps is valid, each for its kind; what it
// rejects says why; and a JSON object in a ```json fence or between two
// lines of prose reads as the object alone does.
func FuzzParseAnswer(f *testing.F) {
	f.Add(`{"facts": [{"content": "The user's name is John", "importance": 0.9, "tags": ["profile"]}],
		"triples": [{"subject": "I", "predicate": "work at", "object": "Acme"}],
		"episodes": [{"content": "John asked for email", "type": "user-feedback", "importance": 0.6}],
		"procedures": [{"name": "switch", "description": "Change a channel", "steps": "1. open 2. pick", "tags": []}]}`)
	f.Add("Here you go:\n```json\n{\"triples\": [{\"subject\": \"User\", \"predicate\": \"likes\"}]}\n```")
	f.Add(`{"facts": [{"content": "x", "importance": 2}, 7, null, {"content": ""}], "mood": {}}`)
	f.Add(`{"triples": [{"subject": "me", "predicate": "!!", "object": "tea"}], "episodes": [{"content": "x", "type": "digest", "importance": "1"}]}`)
	f.Add(`Sure {not json} then {"procedures": [{"name": "` + strings.Repeat("n", 210) + `"}]} and {"facts": []}`)
	f.Add("```\n{\"facts\": {}}")
	f.Add(`[{"facts": []}]`)
	cfg := DefaultConfig()
	cfg.Extraction.MaxResponseBytes = 1 << 20
	preds, err := cfg.Facts.predicates()
	if err != nil {
		f.Fatal(err)
	}
	m := &Memory{cfg: cfg, preds: preds}
	f.Fuzz(func(t *testing.T, answer string) {
		if len(answer) > 8<<10 {
			return
		}
		items, rejected, err := m.parseAnswer(answer)
		if err != nil {
			if !errors.Is(err, ErrBadAnswer) {
				t.Fatalf("%q: %v does not match ErrBadAnswer", answer, err)
			}
			if items != nil || rejected != nil {
				t.Fatalf("%q: an error, and items too", answer)
			}
		}
		for _, it := range items {
			if it.source != llmSource {
				t.Fatalf("%q: source %q", answer, it.source)
			}
			switch it.typ {
			case TypeSemantic, TypeEpisodic:
				if strings.TrimSpace(it.content) == "" || validateImportance("", it.importance) != nil {
					t.Fatalf("%q: kept %+v", answer, it)
				}
				if it.typ == TypeEpisodic && (it.event.Validate() != nil || it.event == EventDigest) {
					t.Fatalf("%q: kept the event type %q", answer, it.event)
				}
			case TypeProcedural:
				if strings.TrimSpace(it.name) == "" || len(it.name) > 200 {
					t.Fatalf("%q: kept the procedure %q", answer, it.name)
				}
			case TypeFact:
				if bad := m.checkTriple(it.subject, it.predicate, it.object); bad != nil {
					t.Fatalf("%q: kept %+v: %v", answer, it, bad)
				}
				if userEntity(it.subject, "User") != it.subject || userEntity(it.object, "User") != it.object {
					t.Fatalf("%q: a pronoun kept: %+v", answer, it)
				}
			default:
				t.Fatalf("%q: kept a %s", answer, it.typ)
			}
		}
		for _, r := range rejected {
			if r.Reason == "" || r.Source != llmSource || r.List == "" && r.Index != -1 || len(r.Item) > maxRejectedItemBytes {
				t.Fatalf("%q: rejected %+v", answer, r)
			}
		}
		if strings.Contains(answer, "```") {
			return
		}
		for _, wrapped := range []string{"```json\n" + answer + "\n```", "Here is the JSON:\n" + answer + "\nHope this helps."} {
			items2, rejected2, err2 := m.parseAnswer(wrapped)
			if (err == nil) != (err2 == nil) || !reflect.DeepEqual(items, items2) || !reflect.DeepEqual(rejected, rejected2) {
				t.Fatalf("%q read as %+v %+v %v\nwrapped, %+v %+v %v", answer, items, rejected, err, items2, rejected2, err2)
			}
		}
	})
}
