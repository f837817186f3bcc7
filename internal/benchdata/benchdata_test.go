package benchdata

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestCorpusUnchanged pins the corpus: benchmark results are compared
// across runs and branches only if they measure the same text. The hashes
// are those of the generator as it was in search_bench_test.go.
func TestCorpusUnchanged(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{1000, "7b4b8ec738818d40"}, {65539, "a25eb871a31b80a7"}} {
		c := NewCorpus(tc.n)
		h := sha256.Sum256([]byte(strings.Join(c.Docs, "\n") + "\x00" + strings.Join(c.Questions(512), "\n") + "\x00" + strings.Join(c.Vocab, " ")))
		if got := fmt.Sprintf("%x", h[:8]); got != tc.want {
			t.Errorf("NewCorpus(%d): hash %s, want %s", tc.n, got, tc.want)
		}
	}
}
