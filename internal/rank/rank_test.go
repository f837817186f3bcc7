package rank

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestWeightsScore(t *testing.T) {
	tests := []struct {
		w             Weights
		rel, imp, rec float64
		want          float64
	}{
		{Weights{1, 1, 1}, 1, 1, 1, 1},
		{Weights{1, 1, 1}, 0, 0, 0, 0},
		{Weights{2, 1, 1}, 1, 0, 0, 0.5},
		{Weights{0.6, 0.2, 0.2}, 0.5, 1, 0, 0.5},
		{Weights{3, 0, 1}, 1, 1, 0, 0.75},
		{Weights{1, 2, 1}, 0.25, 0.5, 1, 0.5625},
	}
	for _, tt := range tests {
		if got := tt.w.Score(tt.rel, tt.imp, tt.rec); got != tt.want {
			t.Errorf("%+v.Score(%v, %v, %v) = %v, want %v", tt.w, tt.rel, tt.imp, tt.rec, got, tt.want)
		}
	}
}

// Bound and ContextBound apply the text weight before dividing by the
// best text score, as the bounds always have: with weights and scores
// where the order shows, they differ from Score in the last bit.
func TestWeightsBound(t *testing.T) {
	w := Weights{0.7, 0.2, 0.1}
	tests := []struct {
		text, best, imp, rec float64
		want                 float64
	}{
		{2, 4, 1, 1, 0.6500000000000001},
		{3, 3, 0, 0, 0.7 / (0.7 + 0.2 + 0.1)},
		{1, 2, 0.5, 0.25, 0.47500000000000003},
	}
	for _, tt := range tests {
		if got := w.Bound(tt.text, tt.best, tt.imp, tt.rec); got != tt.want {
			t.Errorf("Bound(%v, %v, %v, %v) = %v, want %v", tt.text, tt.best, tt.imp, tt.rec, got, tt.want)
		}
	}
	// (0.1*3)/0.3 rounds otherwise than 0.1*(3/0.3).
	w = Weights{Text: 0.1}
	if got, want := w.Bound(3, 0.3, 0, 0), 10.000000000000002; got != want {
		t.Errorf("Bound(3, 0.3, 0, 0) = %v, want %v", got, want)
	}
	if w.Bound(3, 0.3, 0, 0) == w.Score(3/0.3, 0, 0) {
		t.Errorf("Bound and Score agree where the order of their operations shows")
	}
	w = Weights{1, 1, 2}
	tests2 := []struct {
		share, t, best, want float64
	}{
		{1, 4, 4, 1},
		{0.5, 4, 4, 0.875},
		{0.5, 0, 4, 0.75},
	}
	// (0.1*0.9)*3.7 rounds otherwise than 0.1*(0.9*3.7).
	if got, want := (Weights{0.1, 0.2, 0.1}).ContextBound(0.9, 3.7, 1), 1.5825000000000002; got != want {
		t.Errorf("ContextBound(0.9, 3.7, 1) = %v, want %v", got, want)
	}
	for _, tt := range tests2 {
		if got := w.ContextBound(tt.share, tt.t, tt.best); got != tt.want {
			t.Errorf("ContextBound(%v, %v, %v) = %v, want %v", tt.share, tt.t, tt.best, got, tt.want)
		}
	}
}

func TestRecency(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		t    time.Time
		half time.Duration
		want float64
	}{
		{time.Time{}, day, 0},
		{now, day, 1},
		{now.Add(time.Hour), day, 1},
		{now.Add(-day), day, 0.5},
		{now.Add(-3 * day), day, 0.125},
		{now.Add(-12 * time.Hour), day, 0.7071067811865475},
		{now.Add(-10 * day), 5 * day, 0.25},
	}
	for _, tt := range tests {
		if got := Recency(now, tt.t, tt.half); got != tt.want {
			t.Errorf("Recency(now, %v, %v) = %v, want %v", tt.t, tt.half, got, tt.want)
		}
	}
}

func TestRelative(t *testing.T) {
	tests := []struct{ in, want []float64 }{
		{nil, nil},
		{[]float64{0, 0}, []float64{0, 0}},
		{[]float64{-1, 0}, []float64{-1, 0}},
		{[]float64{1, 2, 4}, []float64{0.25, 0.5, 1}},
		{[]float64{3, 0, 1.5}, []float64{1, 0, 0.5}},
	}
	for _, tt := range tests {
		got := Relative(slices.Clone(tt.in))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Relative(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestAddReciprocalRanks(t *testing.T) {
	out := make([]float64, 4)
	AddReciprocalRanks(out, []int{2, 0, 3}, 1, 6) // places 1, 2, 3: 6/2, 6/3, 6/4
	AddReciprocalRanks(out, []int{0}, 3, 2)       // place 1: 2/4
	if want := []float64{2.5, 0, 3, 1.5}; !slices.Equal(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
}

func TestNth(t *testing.T) {
	tests := []struct {
		xs   []float64
		n    int
		want float64
	}{
		{[]float64{5}, 0, 5},
		{[]float64{3, 1, 2}, 0, 1},
		{[]float64{3, 1, 2}, 2, 3},
		{[]float64{2, 2, 1, 2}, 1, 2},
		{[]float64{0.5, 0.9, 0.1, 0.7, 0.3}, 3, 0.7},
	}
	for _, tt := range tests {
		if got := Nth(slices.Clone(tt.xs), tt.n); got != tt.want {
			t.Errorf("Nth(%v, %d) = %v, want %v", tt.xs, tt.n, got, tt.want)
		}
	}
}

func TestBestBounds(t *testing.T) {
	bounds := []float64{0.9, 0.5, 0.7, 0.5, 0.1, 0.5}
	tests := []struct {
		at   []int
		need int
		want []int
	}{
		{[]int{0, 1}, 2, []int{0, 1}},             // no more than need: all
		{[]int{0, 1, 2, 3, 4, 5}, 1, []int{0}},    // the best
		{[]int{4, 2, 0}, 2, []int{0, 2}},          // above the second best, then ties
		{[]int{1, 3, 5, 4}, 2, []int{1, 3}},       // ties: the first in at
		{[]int{5, 4, 3, 2, 1}, 3, []int{2, 5, 3}}, // above the third, then ties
	}
	for _, tt := range tests {
		if got := BestBounds(tt.at, bounds, tt.need); !slices.Equal(got, tt.want) {
			t.Errorf("BestBounds(%v, %d) = %v, want %v", tt.at, tt.need, got, tt.want)
		}
	}
}

func TestFloor(t *testing.T) {
	tests := []struct {
		scores    []float64
		threshold float64
		need      int
		want      float64
	}{
		{nil, 0.2, 1, 0.2},
		{[]float64{0.9, 0.4}, 0, 3, 0},             // too few: the threshold
		{[]float64{0.9, 0.4}, 0, 2, 0.4},           // just enough: the worst
		{[]float64{0.9, 0.4, 0.6}, 0, 2, 0.6},      // the second best
		{[]float64{0.9, 0.4, 0.6}, 0.7, 2, 0.7},    // the threshold, higher
		{[]float64{0.3, 0.3, 0.8, 0.3}, 0, 3, 0.3}, // ties
	}
	for _, tt := range tests {
		if got := Floor(slices.Clone(tt.scores), tt.threshold, tt.need); got != tt.want {
			t.Errorf("Floor(%v, %v, %d) = %v, want %v", tt.scores, tt.threshold, tt.need, got, tt.want)
		}
	}
}

func TestContextCaps(t *testing.T) {
	var cc ContextCaps
	cc.Direct(10, 0b011) // holds terms 0 and 1
	cc.Direct(4, 0b001)  // holds term 0
	cc.Direct(8, 0b100)  // holds term 2
	tests := []struct {
		score float64
		held  uint64
		want  float64
	}{
		{20, 0b011, 10 * ContextShare}, // only the first holds both
		{20, 0b001, 4 * ContextShare},  // the lower of the two holding term 0
		{3, 0b001, 3},                  // under the cap
		{20, 0b111, 20},                // none holds all three: no cap
		{20, 0b100, 8 * ContextShare},
		{20, 0, 4 * ContextShare}, // every match holds no terms
	}
	for _, tt := range tests {
		if got := cc.Score(tt.score, tt.held); got != tt.want {
			t.Errorf("Score(%v, %b) = %v, want %v", tt.score, tt.held, got, tt.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	keys := []string{Stem("deploy"), Stem("canary")}
	long := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
	tests := []struct{ text, want string }{
		{"", ""},
		{" \t\n", ""},
		{"nothing matches here", "nothing matches here"},
		{"We deployed the Canary.", "We **deployed** the **Canary.**"},
		{"deploy\u00a0canary", "**deploy** **canary**"},
		{long, "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen…"},
		{long + " deploying", "…three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen **deploying**"},
		{"canary " + long, "**canary** one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen…"},
	}
	k := NewKeys(keys)
	for _, tt := range tests {
		if got := k.Snippet(tt.text); got != tt.want {
			t.Errorf("Snippet(%q) =\n %q, want\n %q", tt.text, got, tt.want)
		}
	}
}

func TestWindow(t *testing.T) {
	hit := func(n int, at ...int) []bool {
		h := make([]bool, n)
		for _, i := range at {
			h[i] = true
		}
		return h
	}
	tests := []struct {
		hit        []bool
		start, end int
	}{
		{nil, 0, 0},
		{hit(3), 0, 3},
		{hit(20), 0, 16},
		{hit(20, 19), 4, 20},
		{hit(40, 2, 30, 31), 16, 32},
		{hit(40, 2, 20), 0, 16}, // a tie: the first
	}
	for _, tt := range tests {
		if s, e := Window(tt.hit); s != tt.start || e != tt.end {
			t.Errorf("Window(%v) = %d, %d, want %d, %d", tt.hit, s, e, tt.start, tt.end)
		}
	}
}

func TestStemAndHas(t *testing.T) {
	k := NewKeys([]string{Stem("running"), ""})
	tests := []struct {
		tok  string
		want bool
	}{
		{"running", true}, {"runs", true}, {"run", true}, {"ran", false}, {"", true},
	}
	for _, tt := range tests {
		if got := k.Has(Stem(tt.tok)); got != tt.want {
			t.Errorf("Has(Stem(%q)) = %v, want %v", tt.tok, got, tt.want)
		}
	}
}

func TestScorerScore(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	base := Scorer{Weights: Weights{2, 1, 1}, HalfLife: day, Now: now, BestText: 4, BestCos: 0.5}
	tests := []struct {
		name     string
		mode     Mode
		bestText float64
		it       Item
		fused    float64
		parts    Parts
		rel, sc  float64
	}{
		{"text", ByText, 4, Item{Text: 2, Dialogue: 1, Importance: 0.5, Touched: now.Add(-day)},
			0, Parts{Text: 0.5, Dialogue: 0.25, Importance: 0.5, Recency: 0.5, Session: 0.5, Question: 1, Spread: 1}, 0.5, 0.5},
		{"text, no best", ByText, 0, Item{Text: 0, Importance: 1, Touched: now},
			0, Parts{Importance: 1, Recency: 1, Question: 1, Spread: 1}, 0, 0.5},
		{"vector", ByVector, 4, Item{Text: 4, Cosine: 0.25, HasCosine: true},
			0, Parts{Text: 1, Vector: 0.25, Session: 0.5, Question: 1, Spread: 1}, 0.5, 0.25},
		{"vector, negative cosine", ByVector, 4, Item{Cosine: -0.5, HasCosine: true},
			0, Parts{Question: 1, Spread: 1}, 0, 0},
		{"vector, pending", ByVector, 4, Item{Text: 1, Pending: true},
			0, Parts{Text: 0.25, Session: 0.25, Question: 1, Spread: 1}, 0.25, 0.125},
		{"hybrid", Hybrid, 4, Item{Text: 4, Cosine: 1.5, HasCosine: true, Touched: now.Add(-2 * day)},
			0.5, Parts{Text: 1, Vector: 1, Fused: 0.5, Recency: 0.25, Session: 0.5, Question: 1, Spread: 1}, 0.5, 0.3125},
		// A question loses QuestionPenalty's share of its score.
		{"question", ByText, 4, Item{Text: 2, Importance: 0.5, Touched: now.Add(-day), Asks: true},
			0, Parts{Text: 0.5, Importance: 0.5, Recency: 0.5, Session: 0.5, Question: 0.75, Spread: 1}, 0.5, 0.375},
	}
	for _, tt := range tests {
		s := base
		s.Mode, s.BestText, s.QuestionPenalty = tt.mode, tt.bestText, 0.25
		p, rel, sc := s.Score(tt.it, tt.fused)
		if p != tt.parts || rel != tt.rel || sc != tt.sc {
			t.Errorf("%s: Score = %+v, %v, %v, want %+v, %v, %v", tt.name, p, rel, sc, tt.parts, tt.rel, tt.sc)
		}
	}
}

// With a session weight, an item whose session was scored blends it in
// beside its relevance; one whose session was not keeps its relevance in
// the session part, so that such items keep their order.
func TestScorerScoreSession(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	s := Scorer{Weights: Weights{2, 1, 1}, HalfLife: 24 * time.Hour, Now: now, BestText: 4, SessionWeight: 0.5}
	// Weights 2, 1 (the session part: 0.5 × 2), 1 and 1: over 5.
	p, rel, sc := s.Score(Item{Text: 4, Session: 0.25, HasSession: true, Importance: 1, Touched: now}, 0)
	if rel != 1 || p.Session != 0.25 || sc != (2*1+1*0.25+1+1)/5.0 {
		t.Errorf("in a session: %+v, %v, %v", p, rel, sc)
	}
	p, rel, sc = s.Score(Item{Text: 2, Importance: 1, Touched: now}, 0)
	if rel != 0.5 || p.Session != 0.5 || sc != (2*0.5+1*0.5+1+1)/5.0 {
		t.Errorf("outside a session: %+v, %v, %v", p, rel, sc)
	}
	if got, want := Blend(Weights{2, 1, 1}, 0, 0.5, 1, 1, 1), (Weights{2, 1, 1}).Score(0.5, 1, 1); got != want {
		t.Errorf("Blend with no session weight = %v, want Score's %v", got, want)
	}
}

func TestSessionShare(t *testing.T) {
	const k1 = 1.0
	weights := []float64{3, 1} // a rare term and a common one (a name)
	tests := []struct {
		counts []int
		want   float64
	}{
		{[]int{0, 0}, 0},
		{[]int{1, 1}, 0.5},                   // each term once: 1/(1 + k1)
		{[]int{0, 1}, 1.0 / 8},               // the name alone: its weight's share of that
		{[]int{0, 5}, 1 * (2 * 5.0 / 6) / 8}, // however often it is said, under its weight
		{[]int{3, 0}, 3 * (2 * 3.0 / 4) / 8},
		{[]int{2}, 3 * (2 * 2.0 / 3) / 8}, // counts shorter than the terms
	}
	for _, tt := range tests {
		if got := SessionShare(tt.counts, weights, k1); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("SessionShare(%v) = %v, want %v", tt.counts, got, tt.want)
		}
	}
	if got := SessionShare([]int{4, 4}, []float64{0, 0}, k1); got != 0 {
		t.Errorf("SessionShare with no weight = %v, want 0", got)
	}
	if got := SessionShare([]int{1000000, 1000000}, weights, k1); got >= 1 {
		t.Errorf("SessionShare of a session saying every term again and again = %v, want under 1", got)
	}
}

func TestSpreadFactors(t *testing.T) {
	got := SpreadFactors([]int32{1, 2, 1, 0, 1, 2, 0}, 0.5)
	want := []float64{1, 1, 0.5, 1, 0.25, 0.5, 1}
	if !slices.Equal(got, want) {
		t.Errorf("SpreadFactors = %v, want %v", got, want)
	}
	if got := SpreadFactors(nil, 0.5); len(got) != 0 {
		t.Errorf("SpreadFactors of nothing = %v", got)
	}
	if got := SpreadFactors([]int32{1, 1}, 0); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("SpreadFactors with no spread = %v, want all 1", got)
	}
}

func TestLexical(t *testing.T) {
	tests := []struct {
		w, text, bestText, cos float64
		has                    bool
		bestCos, want          float64
	}{
		{0.25, 2, 4, 0.5, true, 0.5, 0.625},  // 0.75·0.5 + 0.25·1
		{0.25, 2, 4, 0.5, false, 0.5, 0.375}, // no vector
		{0.25, 2, 4, -0.5, true, 0.5, 0.375}, // a negative cosine counts 0
		{0.25, 0, 0, 0.25, true, 0.5, 0.125}, // text missed it
		{0.25, 2, 4, 0.5, true, 0, 0.375},    // no best cosine
	}
	for _, tt := range tests {
		if got := Lexical(tt.w, tt.text, tt.bestText, tt.cos, tt.has, tt.bestCos); got != tt.want {
			t.Errorf("Lexical(%v, %v, %v, %v, %v, %v) = %v, want %v", tt.w, tt.text, tt.bestText, tt.cos, tt.has, tt.bestCos, got, tt.want)
		}
	}
}
