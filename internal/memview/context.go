package memview

import "github.com/engram-go/engram"

// Context is a token-budgeted block of markdown for a system prompt
// (engram.ContextBlock), as POST /v1/context and engram context --json
// show it: its text, its tokens, how many bytes of its text do not depend
// on the query (stable) and the sections it is made of.
type Context struct {
	Text     string    `json:"text"`
	Tokens   int       `json:"tokens"`
	Stable   int       `json:"stable"`
	Sections []Section `json:"sections"`
}

// Section is a section of a context block: its title, the kind of its
// memories (none for the recalled ones, of any kind), the IDs of the
// memories shown, how many next in line did not fit, and its tokens.
type Section struct {
	Title   string            `json:"title"`
	Type    engram.MemoryType `json:"type,omitempty"`
	IDs     []string          `json:"ids"`
	Omitted int               `json:"omitted"`
	Tokens  int               `json:"tokens"`
}

// ContextOf returns the view of b.
func ContextOf(b engram.ContextBlock) Context {
	out := Context{Text: b.Text, Tokens: b.Tokens, Stable: b.Stable, Sections: make([]Section, 0, len(b.Sections))}
	for _, s := range b.Sections {
		out.Sections = append(out.Sections, Section{s.Title, s.Type, NonNil(s.IDs), s.Omitted, s.Tokens})
	}
	return out
}
