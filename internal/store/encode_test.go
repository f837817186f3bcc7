package store

import (
	"testing"
	"time"
)

func TestTimesRoundTrip(t *testing.T) {
	for _, tm := range []time.Time{
		{},
		time.Unix(0, 0).UTC(),
		time.Date(2026, 11, 27, 3, 9, 7, 123e6, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1e6, time.UTC),
	} {
		if got := FromMS(MS(tm)); !got.Equal(tm) {
			t.Errorf("FromMS(MS(%v)) = %v", tm, got)
		}
	}
	if MS(time.Time{}) == MS(time.Unix(0, 0)) {
		t.Error("the zero time encodes as the Unix epoch")
	}
}

func TestTagsRoundTrip(t *testing.T) {
	for _, tags := range [][]string{nil, {"a"}, {"x y", `q"uote`, "ü"}} {
		got, err := DecodeTags(EncodeTags(tags))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tags) {
			t.Fatalf("DecodeTags(EncodeTags(%q)) = %q", tags, got)
		}
		for i := range tags {
			if got[i] != tags[i] {
				t.Fatalf("DecodeTags(EncodeTags(%q)) = %q", tags, got)
			}
		}
	}
	if _, err := DecodeTags(`{"not":"a list"}`); err == nil {
		t.Error("DecodeTags of an object: no error")
	}
}
