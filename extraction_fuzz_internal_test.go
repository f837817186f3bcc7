package engram

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/rules"
)

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
				if rules.UserEntity(it.subject, "User") != it.subject || rules.UserEntity(it.object, "User") != it.object {
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
