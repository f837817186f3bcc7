package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestWordVectors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.txt")
	if err := os.WriteFile(path, []byte("the 1 0 0\ngame 0 1 0\nplay 0 0.5 0.5\nchess 0 0 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := loadWordVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Dimensions() != 3 || w.words != 4 {
		t.Fatalf("dims %d, words %d; want 3 and 4", w.Dimensions(), w.words)
	}
	vs, err := w.Embed(context.Background(), []string{"The game!", "zzz qqq", "play chess"})
	if err != nil {
		t.Fatal(err)
	}
	// "the" is a stopword: the game alone.
	if vs[0][0] != 0 || vs[0][1] != 1 || vs[0][2] != 0 {
		t.Errorf("the game = %v, want [0 1 0]", vs[0])
	}
	if vs[1][0] != 1 || vs[1][1] != 0 || vs[1][2] != 0 {
		t.Errorf("unknown words = %v, want the fixed [1 0 0]", vs[1])
	}
	var n float64
	for _, x := range vs[2] {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-6 || vs[2][2] <= vs[2][1] {
		t.Errorf("play chess = %v: want a unit vector leaning to chess, the rarer word", vs[2])
	}

	for name, text := range map[string]string{"ragged": "a 1 2\nb 1\n", "not a number": "a 1 x\n", "empty": "\n"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := loadWordVectors(p); err == nil {
			t.Errorf("%s file: no error", name)
		}
	}
}
