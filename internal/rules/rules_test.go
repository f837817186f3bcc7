package rules_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram/internal/rules"
)

func scan(t *testing.T, rs []rules.Rule, texts ...string) []rules.Hit {
	t.Helper()
	var c rules.Cache
	sc, err := c.Scanner(rs, "User")
	require.NoError(t, err)
	for i, text := range texts {
		sc.Scan(i, text)
	}
	return sc.Hits()
}

func TestScan(t *testing.T) {
	t.Parallel()
	rs := []rules.Rule{
		{Name: "prefer", Pattern: `\bprefers? ([a-z]+ ){0,3}[a-z]+`, Type: "semantic"},
		{Name: "remember", Pattern: `remember (.+)`, Type: "episodic"},
		{Name: "short", Pattern: `\bok\b.?`, Type: "semantic"},
		{Name: "note", Pattern: `note \w+`, Type: "semantic"},
	}
	got := scan(t, rs,
		"I PREFER dark mode, always. Remember the milk;  ok!\nShe prefers tea and prefers green tea",
		"note apples, note pears and NOTE figs. ok",
		"Remember the café. She prefers über cold",
	)
	assert.Equal(t, []rules.Hit{
		{Rule: 0, Message: 0, Sentence: 0, Content: "PREFER dark mode", Text: "I PREFER dark mode, always"},
		{Rule: 1, Message: 0, Sentence: 1, Content: "Remember the milk;  ok", Text: "Remember the milk;  ok"},
		{Rule: 0, Message: 0, Sentence: 2, Content: "prefers tea and prefers green", Text: "She prefers tea and prefers green tea"},
		{Rule: 3, Message: 1, Sentence: 0, Content: "note apples", Text: "note apples, note pears and NOTE figs"},
		{Rule: 3, Message: 1, Sentence: 0, Content: "note pears", Text: "note apples, note pears and NOTE figs"},
		{Rule: 3, Message: 1, Sentence: 0, Content: "NOTE figs", Text: "note apples, note pears and NOTE figs"},
		// Outside ASCII the expressions run on every sentence; "ok" (in
		// message 1) is too short to keep.
		{Rule: 1, Message: 2, Sentence: 0, Content: "Remember the café", Text: "Remember the café"},
	}, got)
}

func TestScanFacts(t *testing.T) {
	t.Parallel()
	rs := []rules.Rule{
		{Name: "employer", Pattern: `\bI work (?:at|for) (?P<object>[^,]+)`, Type: rules.Fact, Predicate: "works at"},
		{Name: "likes", Pattern: `(?P<subject>\w+) likes? (\w+)`, Type: rules.Fact, Predicate: "likes", Object: "${2} $$"},
		{Name: "note", Pattern: `note (\w+)`, Type: "semantic"},
	}
	got := scan(t, rs, "", "I work at Acme, since May. Ada likes tea; me like it. note that")
	assert.Equal(t, []rules.Hit{
		{Rule: 0, Message: 1, Sentence: 0, Content: "I work at Acme", Text: "I work at Acme, since May",
			Subject: "User", Predicate: "works at", Object: "Acme"},
		{Rule: 1, Message: 1, Sentence: 1, Content: "Ada likes tea", Text: "Ada likes tea; me like it",
			Subject: "Ada", Predicate: "likes", Object: "tea $"},
		{Rule: 1, Message: 1, Sentence: 1, Content: "me like it", Text: "Ada likes tea; me like it",
			Subject: "User", Predicate: "likes", Object: "it $"},
		{Rule: 2, Message: 1, Sentence: 2, Content: "note that", Text: "note that"},
	}, got)
}

func TestScannerBadPattern(t *testing.T) {
	t.Parallel()
	var c rules.Cache
	_, err := c.Scanner([]rules.Rule{{Name: "ok", Pattern: `a`}, {Name: "bad", Pattern: `(a`}}, "User")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing closing )")
}

func TestSentences(t *testing.T) {
	t.Parallel()
	text := " One. Two!Three? Four...\tfive\n\nsix 3.5 ."
	var got []string
	for _, sp := range rules.Sentences(text) {
		got = append(got, text[sp[0]:sp[1]])
	}
	assert.Equal(t, []string{"One", "Two!Three", "Four..", "five", "six 3.5"}, got)
	assert.Nil(t, rules.Sentences(" \n. "))
}

func TestUserEntity(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"I", " me ", "MY", "Myself", "mine"} {
		assert.Equal(t, "Ada", rules.UserEntity(p, "Ada"), p)
	}
	for _, p := range []string{"Iris", "we", ""} {
		assert.Equal(t, p, rules.UserEntity(p, "Ada"), p)
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	refs, err := rules.TemplateRefs("$1 ${name}x $$ $obj_2.")
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "name", "obj_2"}, refs)
	for template, msg := range map[string]string{
		"cost $":     "a $ at byte 5 starts no $name or ${name} (write $$ for a dollar sign)",
		"${name":     "a $ at byte 0 starts no $name or ${name} (write $$ for a dollar sign)",
		"a $$ b $ c": "a $ at byte 7 starts no $name or ${name} (write $$ for a dollar sign)",
	} {
		_, err := rules.TemplateRefs(template)
		assert.EqualError(t, err, msg, template)
	}
	re, err := rules.Compile(`(?P<who>\w+) (\w+)`)
	require.NoError(t, err)
	for ref, want := range map[string]bool{"0": true, "1": true, "2": true, "3": false, "01": false, "who": true, "what": false, "99999999999": false} {
		assert.Equal(t, want, rules.HasGroup(re, ref), ref)
	}
	assert.Equal(t, "who", rules.GroupNames(re))
	re, err = rules.Compile(`a(b)`)
	require.NoError(t, err)
	assert.Equal(t, "none", rules.GroupNames(re))
	assert.True(t, re.MatchString("xAB"), "case-insensitive")
}
