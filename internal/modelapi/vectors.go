package modelapi

import (
	"fmt"
	"math"
)

// EmbedBatches embeds texts batchSize at a time (0 means 64) with embed
// and checks every answer: one vector per text, each of dims finite
// numbers (model names the model in the error). It returns embed's error
// as it is, and one matching [ErrBadAnswer] for an answer it cannot use.
// No texts make no call and no vectors.
func EmbedBatches(texts []string, batchSize, dims int, model string, embed func(batch []string) ([][]float32, error)) ([][]float32, error) {
	if batchSize <= 0 {
		batchSize = 64
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batchSize {
		batch := texts[start:min(len(texts), start+batchSize)]
		got, err := embed(batch)
		if err != nil {
			return nil, err
		}
		if len(got) != len(batch) {
			return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadAnswer, len(got), len(batch))
		}
		for i, v := range got {
			if len(v) != dims {
				return nil, fmt.Errorf("%w: a vector of %d dimensions from %s, which should give %d",
					ErrBadAnswer, len(v), model, dims)
			}
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return nil, fmt.Errorf("%w: vector %d holds %v", ErrBadAnswer, start+i, x)
				}
			}
		}
		out = append(out, got...)
	}
	return out, nil
}
