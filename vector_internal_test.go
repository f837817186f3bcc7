package engram

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestChunkLayoutMatchesVec0 checks that reading vec0's chunks directly
// finds exactly what vec0's own scan finds, after deletes have left holes
// in the chunks.
func TestChunkLayoutMatchesVec0(t *testing.T) {
	ctx := context.Background()
	h, err := NewHashingEmbedder(32)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Tier2, WithDir(t.TempDir()), WithEmbedder(h))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	entries := make([]SemanticEntry, 300) // about five chunks
	for i := range entries {
		entries[i] = SemanticEntry{Content: fmt.Sprintf("entry %d of the chunk test", i), Importance: 0.5}
	}
	ids, err := m.Semantic().StoreBatch(ctx, entries)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 40 {
		if err := m.Semantic().Delete(ctx, ids[rng.IntN(len(ids))]); err != nil && !isNotFound(err) {
			t.Fatal(err)
		}
	}
	vt, _ := vectorTableOf(TypeSemantic)
	err = m.db.read(ctx, "test", func(q *dbtx) error {
		fast := map[int64][]float32{}
		if err := m.vectors.loadChunks(q, vt, func(pk int64, v []float32) { fast[pk] = v }); err != nil {
			return err
		}
		rows, err := q.query(`SELECT rowid, embedding FROM vec_semantic`)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var pk int64
			var b []byte
			if err := rows.Scan(&pk, &b); err != nil {
				return err
			}
			want, err := decodeVector(b, 32)
			if err != nil {
				return err
			}
			got, ok := fast[pk]
			if !ok {
				return fmt.Errorf("rowid %d: vec0 has it, the chunks do not", pk)
			}
			for i := range want {
				if got[i] != want[i] {
					return fmt.Errorf("rowid %d: element %d is %v, vec0 says %v", pk, i, got[i], want[i])
				}
			}
			n++
		}
		if n != len(fast) || n == 0 {
			return fmt.Errorf("vec0 scan found %d vectors, the chunks %d", n, len(fast))
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
