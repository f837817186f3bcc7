package engram

import (
	"strings"
	"testing"
)

// An ID may hold what would end an HTML comment; in memory.md it is
// written so that it cannot, and reads back exactly.
func TestCommentIDRoundTrips(t *testing.T) {
	for _, id := range []string{
		"01J9Z3", "user-name", "a-->b", "-->", "<!--x", "50%", "a--b---c-", "x>y<z", "%2D", "é-->ü",
	} {
		w := commentID(id)
		if strings.Contains(w, "--") || strings.ContainsAny(w, "<>") {
			t.Errorf("commentID(%q) = %q can end or open a comment", id, w)
		}
		got, ok := parseCommentID(w)
		if !ok || got != id {
			t.Errorf("parseCommentID(commentID(%q) = %q) = %q, %v", id, w, got, ok)
		}
	}
	if commentID("user-name") != "user-name" {
		t.Errorf("a plain ID is written as it is")
	}
	for _, bad := range []string{"a--b", "%zz", "%41"} {
		if _, ok := parseCommentID(bad); ok {
			t.Errorf("parseCommentID(%q) accepted text commentID never writes", bad)
		}
	}
}

func TestMarkdownLineWithHostileID(t *testing.T) {
	m, err := New(Tier1, InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := t.Context()
	if _, err := m.Semantic().Store(ctx, SemanticEntry{ID: "evil-->id<!--", Content: "a fact with a hostile ID", Importance: 0.9}); err != nil {
		t.Fatal(err)
	}
	text, _, err := m.renderMarkdown(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "- ") && strings.Count(line, "-->") != 1 {
			t.Errorf("line %q has %d comment ends", line, strings.Count(line, "-->"))
		}
		if i := strings.Index(line, "<!-- id:"); strings.HasPrefix(line, "- ") && i >= 0 {
			raw := strings.TrimSuffix(line[i+len("<!-- id:"):], " -->")
			if id, ok := parseCommentID(raw); !ok || id != "evil-->id<!--" {
				t.Errorf("the ID reads back as %q, %v", id, ok)
			}
		}
	}
}
