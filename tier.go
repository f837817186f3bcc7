package engram

import "fmt"

// Tier selects what a Memory can do.
//
// Tier 1 stores everything in one SQLite file and searches it by full
// text (FTS5): no services, no API keys. Tier 2 adds vector search over
// embeddings in the same file (sqlite-vec's vec0 tables, written in the
// same transactions as the rows), with an [Embedder] given by
// [WithEmbedder], and searches by both at once (see [SearchMode]).
type Tier int

// Tiers.
const (
	Tier1 Tier = 1 // full-text search, zero dependencies
	Tier2 Tier = 2 // adds vector search; needs an Embedder
)

// String returns "tier1" or "tier2".
func (t Tier) String() string {
	switch t {
	case Tier1, Tier2:
		return fmt.Sprintf("tier%d", int(t))
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// Validate returns an error matching [ErrInvalid] for an unknown tier.
func (t Tier) Validate() error {
	switch t {
	case Tier1, Tier2:
		return nil
	}
	return invalid("tier", "unknown tier %d", int(t))
}
