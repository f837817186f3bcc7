package engram

import (
	"errors"
	"fmt"

	"github.com/engram-go/engram/internal/rules"
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
	re, err := rules.Compile(rule.Pattern)
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
		refs, err := rules.TemplateRefs(part.template)
		if err != nil {
			return invalid(part.field, "%v", err)
		}
		for _, ref := range refs {
			if !rules.HasGroup(re, ref) {
				return invalid(part.field, "$%s names no group of Pattern (it has %d groups, named %s)", ref, re.NumSubexp(), rules.GroupNames(re))
			}
		}
		if len(refs) == 0 && part.group == "predicate" && r.m.preds.Key(part.template) == "" {
			return invalid(part.field, "%q has no word", part.template)
		}
	}
	return nil
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
