package rank

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/engram-go/engram/internal/query"
)

// BenchmarkSnippet cuts the snippets of 25 LoCoMo turns (of its first
// conversation) for a question, as a search of limit 25 does; skipped
// where ../shared is not there.
func BenchmarkSnippet(b *testing.B) {
	raw, err := os.ReadFile("../../../shared/data/locomo/locomo10.json")
	if err != nil {
		b.Skip(err)
	}
	var convs []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &convs); err != nil {
		b.Fatal(err)
	}
	var texts []string
	for key, v := range convs[0].Conversation {
		var turns []struct{ Text string }
		if strings.HasPrefix(key, "session_") && json.Unmarshal(v, &turns) == nil {
			for _, t := range turns {
				texts = append(texts, t.Text)
			}
		}
	}
	var stems []string
	for _, t := range query.Terms("When did Caroline go to the LGBTQ support group?") {
		stems = append(stems, Stem(t))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := NewKeys(stems)
		for range 25 {
			k.Snippet(texts[i%len(texts)])
			i++
		}
	}
}
