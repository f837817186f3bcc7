package query

import (
	"strings"
	"testing"
)

// tokenTexts are the texts BenchmarkTokens splits: a memory's worth of
// English, of Latin-script languages with diacritics, and of other
// scripts.
var tokenTexts = []struct{ name, text string }{
	{"ascii", strings.Repeat("We decided to deploy the new Search service on Friday, after the 2026 review of BM25 ranking. ", 8)},
	{"latin", strings.Repeat("Le café où Zoë a rencontré François. Größe, Übung und Straße. Łódź, Kraków i Gdańsk; København og Ærø. ", 8)},
	{"other", strings.Repeat("Ελληνικά κείμενα και Русский текст, 東京で会議 2026年, עברית ועربية. ", 8)},
}

func BenchmarkTokens(b *testing.B) {
	for _, tt := range tokenTexts {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			b.ReportAllocs()
			for b.Loop() {
				Tokens(tt.text)
			}
		})
	}
}
