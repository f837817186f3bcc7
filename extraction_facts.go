package engram

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// factRulePart is one part of the fact a rule makes: its field of
// ExtractionRule, the group it defaults to and its template.
type factRulePart struct{ field, group, template string }

func factRuleParts(rule *ExtractionRule) [3]factRulePart {
	return [3]factRulePart{
		{"Subject", "subject", rule.Subject},
		{"Predicate", "predicate", rule.Predicate},
		{"Object", "object", rule.Object},
	}
}

// validateFactRule checks that a fact rule has a way to each part of its
// facts: a template whose references all name groups of the pattern, or
// the group of the part's name (the subject may have neither: it is then
// the user entity).
func (r *Rules) validateFactRule(rule *ExtractionRule) error {
	re, err := compilePattern(rule.Pattern)
	if err != nil {
		return invalid("Pattern", "%v", err)
	}
	for _, part := range factRuleParts(rule) {
		if part.template == "" {
			if part.group != "subject" && re.SubexpIndex(part.group) < 0 {
				return invalid(part.field, "is empty and Pattern has no (?P<%s>…) group to take the %s from", part.group, part.group)
			}
			continue
		}
		if err := validateFactPart(part.field, part.template, r.m.cfg.Limits.MaxFactBytes); err != nil {
			return err
		}
		refs, err := templateRefs(part.template)
		if err != nil {
			return invalid(part.field, "%v", err)
		}
		for _, ref := range refs {
			if !hasGroup(re, ref) {
				return invalid(part.field, "$%s names no group of Pattern (it has %d groups, named %s)", ref, re.NumSubexp(), groupNames(re))
			}
		}
		if len(refs) == 0 && part.group == "predicate" && r.m.preds.Key(part.template) == "" {
			return invalid(part.field, "%q has no word", part.template)
		}
	}
	return nil
}

// templateRefs returns the groups a template refers to, as
// [regexp.Regexp.Expand] reads it: $name, ${name} or $$ for a dollar
// sign. A $ that starts none of them, which Expand would keep as it is,
// is an error: it is most likely a typing slip.
func templateRefs(template string) ([]string, error) {
	var refs []string
	for rest := template; ; {
		i := strings.IndexByte(rest, '$')
		if i < 0 {
			return refs, nil
		}
		rest = rest[i+1:]
		if strings.HasPrefix(rest, "$") {
			rest = rest[1:]
			continue
		}
		name, after, ok := templateName(rest)
		if !ok {
			return nil, fmt.Errorf("a $ at byte %d starts no $name or ${name} (write $$ for a dollar sign)", len(template)-len(rest)-1)
		}
		refs, rest = append(refs, name), after
	}
}

// templateName reads the name after a $, as Expand does: letters, digits
// and underscores, as many as there are, or the same between braces.
func templateName(s string) (name, rest string, ok bool) {
	brace := strings.HasPrefix(s, "{")
	if brace {
		s = s[1:]
	}
	i := 0
	for i < len(s) {
		c, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' {
			break
		}
		i += size
	}
	if i == 0 {
		return "", "", false
	}
	name = s[:i]
	if brace {
		if i >= len(s) || s[i] != '}' {
			return "", "", false
		}
		i++
	}
	return name, s[i:], true
}

// hasGroup reports whether re has the group a template names: a number
// (no leading zero; 0 is the whole match) or a name.
func hasGroup(re *regexp.Regexp, ref string) bool {
	num := 0
	for i := 0; i < len(ref); i++ {
		if ref[i] < '0' || ref[i] > '9' || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(ref[i]-'0')
	}
	if num >= 0 && (ref[0] != '0' || len(ref) == 1) {
		return num <= re.NumSubexp()
	}
	return re.SubexpIndex(ref) >= 0
}

func groupNames(re *regexp.Regexp) string {
	var names []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// factParts returns the subject, predicate and object the fact rule
// makes of the match loc (as FindStringSubmatchIndex gives it) in
// sentence; user is the user entity.
func factParts(rule *ExtractionRule, re *regexp.Regexp, sentence string, loc []int, user string) (subject, predicate, object string) {
	var out [3]string
	for i, part := range factRuleParts(rule) {
		var s string
		if part.template != "" {
			s = string(re.ExpandString(nil, part.template, sentence, loc))
		} else if g := re.SubexpIndex(part.group); g > 0 && loc[2*g] >= 0 {
			s = sentence[loc[2*g]:loc[2*g+1]]
		}
		out[i] = strings.TrimSpace(strings.TrimRight(s, " \t,;:"))
	}
	if out[0] == "" {
		out[0] = user
	}
	return userEntity(out[0], user), out[1], userEntity(out[2], user)
}

// userEntity returns user for a part that is a first-person pronoun
// (I, me, my, myself, mine, in any case), and part otherwise.
func userEntity(part, user string) string {
	switch strings.ToLower(strings.TrimSpace(part)) {
	case "i", "me", "my", "myself", "mine":
		return user
	}
	return part
}

// checkTriple returns what is wrong with the parts of a fact extraction
// found, or nil: as [Facts.Assert] would judge them, with the field
// named in lower case ("subject", "predicate", "object").
func (m *Memory) checkTriple(subject, predicate, object string) *InvalidError {
	lim := m.cfg.Limits.MaxFactBytes
	for _, part := range [...]struct{ name, s string }{{"subject", subject}, {"predicate", predicate}, {"object", object}} {
		if err := validateFactPart(part.name, part.s, lim); err != nil {
			var ie *InvalidError
			if errors.As(err, &ie) {
				return ie
			}
			return &InvalidError{Field: part.name, Reason: err.Error()}
		}
	}
	if m.preds.Key(predicate) == "" {
		return &InvalidError{Field: "predicate", Reason: fmt.Sprintf("%q has no word", predicate)}
	}
	return nil
}

// RejectedItem is something [Memory.Extract] found but could not use,
// and why.
type RejectedItem struct {
	Source string // "rule:<name>" or "llm-extraction"
	// List and Index say where the item was. In a model's answer, List is
	// its list ("facts", "triples", "episodes", "procedures"; or the
	// unknown key, with Index -1) and Index the item's place in it,
	// counted in that call's answer when the conversation took several.
	// For a rule, List is "messages" and Index the message's.
	List  string
	Index int
	// Field is the item's field at fault ("object", "importance"), or ""
	// for the item as a whole.
	Field  string
	Reason string
	// Item is the item as the model wrote it, or the match of the rule,
	// cut at 256 bytes.
	Item string
}

// maxRejectedItemBytes bounds RejectedItem.Item.
const maxRejectedItemBytes = 256

// ExtractedFact is one fact [Memory.Extract] asserted, with what the
// assertion did: a new fact, a merge into one the agent knew, or a
// supersede (see [Facts.Assert]).
type ExtractedFact struct {
	Assertion
	Source string // "rule:<name>" or "llm-extraction"
}
