// Package ulid makes time-ordered identifiers: 48 bits of Unix milliseconds
// followed by 80 random bits, written as 26 characters of Crockford base32
// (https://github.com/ulid/spec). IDs made by one Generator sort in the
// order they were made, even within one millisecond.
package ulid

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"
)

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Generator makes monotonic ULIDs. It is safe for concurrent use.
type Generator struct {
	mu      sync.Mutex // guards the fields below
	rng     *rand.ChaCha8
	lastMs  uint64
	lastRnd [10]byte
}

// NewGenerator returns a Generator seeded from crypto/rand.
func NewGenerator() *Generator {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // crypto/rand.Read never fails on supported platforms
	return &Generator{rng: rand.NewChaCha8(seed)}
}

// New returns a ULID for time t. If t is not after the previous ID's
// millisecond, the previous random part is incremented instead, so IDs stay
// strictly increasing.
func (g *Generator) New(t time.Time) string {
	ms := uint64(max(t.UnixMilli(), 0)) & (1<<48 - 1)
	g.mu.Lock()
	if ms <= g.lastMs {
		ms = g.lastMs
		if !increment(&g.lastRnd) {
			ms++ // 80 random bits overflowed: borrow the next millisecond
		}
	} else {
		_, _ = g.rng.Read(g.lastRnd[:])
	}
	g.lastMs = ms
	rnd := g.lastRnd
	g.mu.Unlock()

	var b [16]byte
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	copy(b[6:], rnd[:])
	return encode(b)
}

func increment(r *[10]byte) bool {
	for i := len(r) - 1; i >= 0; i-- {
		r[i]++
		if r[i] != 0 {
			return true
		}
	}
	return false
}

// encode writes 128 bits as 26 base32 characters, most significant first.
func encode(b [16]byte) string {
	hi := binary.BigEndian.Uint64(b[0:8])
	lo := binary.BigEndian.Uint64(b[8:16])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
