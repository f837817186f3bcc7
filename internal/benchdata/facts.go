package benchdata

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Triple is one assertion of a synthetic knowledge graph.
type Triple struct {
	Subject, Predicate, Object string
	// ValidFrom is when the assertion says the fact starts.
	ValidFrom time.Time
}

// FactPredicates are the graph's predicates: the first five hold one
// value at a time in engram's built-in list, the rest many.
var FactPredicates = []string{"lives in", "works at", "timezone", "is married to", "reports to",
	"knows", "likes", "worked on", "visited", "mentions", "uses", "member of"}

// FactEntities is how many entities a graph of n facts names: about one
// for every five facts.
func FactEntities(n int) int { return max(10, n/5) }

// FactGraph returns n assertions over FactEntities(n) entities, from a
// fixed seed, shaped like a knowledge graph an agent gathers: entities
// are drawn from a Zipf distribution (exponent 1.1), so degrees follow a
// power law (a few hubs, such as the user, with thousands of facts, most
// entities with a handful), and one fact in five changes a value of a
// one-value predicate, so that slots have histories. Assertions are a
// minute apart from start, in order.
func FactGraph(n int, seed uint64, start time.Time) []Triple {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	e := FactEntities(n)
	z := rand.NewZipf(r, 1.1, 1, uint64(e-1))
	out := make([]Triple, n)
	for i := range out {
		s, o := int(z.Uint64()), int(z.Uint64())
		if o == s {
			o = (o + 1 + r.IntN(e-1)) % e
		}
		p := FactPredicates[5+r.IntN(len(FactPredicates)-5)]
		if r.IntN(5) == 0 {
			p = FactPredicates[r.IntN(5)]
		}
		out[i] = Triple{Subject: Entity(s), Predicate: p, Object: Entity(o), ValidFrom: start.Add(time.Duration(i) * time.Minute)}
	}
	return out
}

// Entity is the name of the graph's i-th entity, by Zipf rank.
func Entity(i int) string { return fmt.Sprintf("Entity %d", i) }
