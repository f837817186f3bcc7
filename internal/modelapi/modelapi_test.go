package modelapi

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmbedBatches(t *testing.T) {
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	var batches [][]string
	lengths := func(batch []string) ([][]float32, error) {
		batches = append(batches, batch)
		out := make([][]float32, len(batch))
		for i, s := range batch {
			out[i] = []float32{float32(len(s)), 1}
		}
		return out, nil
	}
	vs, err := EmbedBatches(texts, 2, 2, "m", lengths)
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}}, vs)
	assert.Equal(t, [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}}, batches)

	batches = nil
	_, err = EmbedBatches(make([]string, 130), 0, 2, "m", lengths)
	require.NoError(t, err)
	assert.Len(t, batches, 3, "0 means 64 a batch")

	batches = nil
	vs, err = EmbedBatches(nil, 0, 2, "m", lengths)
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Empty(t, batches, "no texts, no call")

	failure := errors.New("down")
	_, err = EmbedBatches(texts, 2, 2, "m", func([]string) ([][]float32, error) { return nil, failure })
	assert.Same(t, failure, err, "the embedder's error as it is")

	for name, tc := range map[string]struct {
		answer [][]float32
		why    string
	}{
		"too few":        {[][]float32{{1, 1}}, "1 vectors for 2 texts"},
		"wrong length":   {[][]float32{{1, 1}, {1, 1, 1}}, "a vector of 3 dimensions from m, which should give 2"},
		"not a number":   {[][]float32{{1, 1}, {float32(math.NaN()), 1}}, "vector 1 holds NaN"},
		"infinite value": {[][]float32{{1, float32(math.Inf(-1))}, {1, 1}}, "vector 0 holds -Inf"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := EmbedBatches(texts[:2], 2, 2, "m", func([]string) ([][]float32, error) { return tc.answer, nil })
			require.ErrorIs(t, err, ErrBadAnswer)
			assert.Contains(t, err.Error(), tc.why)
		})
	}
}

func TestVersionedURL(t *testing.T) {
	for _, base := range []string{"http://h", "http://h/", "http://h/v1", "http://h/v1/"} {
		assert.Equal(t, "http://h/v1/embeddings", OpenAIURL(base, "embeddings"), base)
	}
	assert.Equal(t, "http://h/v2/v1/chat/completions", OpenAIURL("http://h/v2", "chat/completions"))
	assert.Equal(t, "https://g/v1beta/models/m:generateContent", VersionedURL("https://g/v1beta/", "v1beta", "models/m:generateContent"))
}

func TestCheck(t *testing.T) {
	const base = "https://api.example.com"
	for name, tc := range map[string]struct {
		got   *Invalid
		field string
	}{
		"no base URL":      {CheckEmbedder("", "m", 4, nil), "BaseURL"},
		"relative URL":     {CheckEmbedder("localhost:11434", "m", 4, nil), "BaseURL"},
		"no model":         {CheckEmbedder(base, " ", 4, nil), "ModelName"},
		"no dimensions":    {CheckEmbedder(base, "m", 0, nil), "Dims"},
		"negative dims":    {CheckEmbedder(base, "m", -3, nil), "Dims"},
		"empty text":       {CheckEmbedder(base, "m", 4, []string{"fine", "\t "}), "texts[1]"},
		"chat without URL": {CheckChat("/v1", "m", Prompt{}), "BaseURL"},
		"chat model":       {CheckChat(base, "", Prompt{}), "Model"},
		"schema not JSON":  {CheckChat(base, "m", Prompt{Schema: []byte(`{"type":`)}), "Prompt.Schema"},
		"schema array":     {CheckChat(base, "m", Prompt{Schema: []byte(`["object"]`)}), "Prompt.Schema"},
		"schema null":      {CheckChat(base, "m", Prompt{Schema: []byte(`null`)}), "Prompt.Schema"},
	} {
		t.Run(name, func(t *testing.T) {
			require.NotNil(t, tc.got)
			assert.Equal(t, tc.field, tc.got.Field)
			assert.NotEmpty(t, tc.got.Reason)
		})
	}
	assert.Nil(t, CheckEmbedder(base, "m", 4, []string{"a", "b"}))
	assert.Nil(t, CheckEmbedder("http://localhost:11434", "m", 4, nil))
	assert.Nil(t, CheckChat(base, "m", Prompt{Schema: []byte(`{"type": "object"}`)}))
	assert.Nil(t, CheckChat(base, "m", Prompt{JSON: true}))
}
