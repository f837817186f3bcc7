package engram

import "fmt"

// Tier selects what a Memory can do.
//
// Tier 1 stores everything in one SQLite file and searches it by full
// text (FTS5): no services, no API keys. Tier 2 adds vector search over
// embeddings in the same file; this version of engram does not provide it
// yet, and [New] returns [ErrTierUnsupported] for it.
type Tier int

// Tiers.
const (
	Tier1 Tier = 1 // full-text search, zero dependencies
	Tier2 Tier = 2 // adds vector search (not yet available)
)

// String returns "tier1" or "tier2".
func (t Tier) String() string {
	switch t {
	case Tier1, Tier2:
		return fmt.Sprintf("tier%d", int(t))
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// Validate returns an error matching [ErrInvalid] for an unknown tier, and
// one matching [ErrTierUnsupported] for a tier this build cannot open.
func (t Tier) Validate() error {
	switch t {
	case Tier1:
		return nil
	case Tier2:
		return fmt.Errorf("engram: %s (vector search) is not available in this version: %w", t, ErrTierUnsupported)
	}
	return invalid("tier", "unknown tier %d", int(t))
}
