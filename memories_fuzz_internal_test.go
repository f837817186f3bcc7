package engram

import (
	"errors"
	"testing"
)

// FuzzListCursor reads any text as the opaque cursor a caller hands back
// to List: it never panics, refuses what List did not make with an error
// matching ErrInvalid, and a cursor it takes encodes back to one that
// decodes the same.
func FuzzListCursor(f *testing.F) {
	f.Add("")
	f.Add(listCursor{At: 1772355600000, ID: "01M8D16BM7AATA77HSRWEN8RQZ", Type: TypeSemantic}.encode())
	f.Add(listCursor{At: -1, ID: "x", Type: TypeFact}.encode())
	f.Add("eyJ9")
	f.Add("not base64!")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("decodeCursor(%q): %v does not match ErrInvalid", s, err)
			}
			return
		}
		if s == "" {
			return
		}
		again, err := decodeCursor(c.encode())
		if err != nil || again != c {
			t.Fatalf("decodeCursor(%q) = %+v, which encodes to a cursor read as %+v, %v", s, c, again, err)
		}
	})
}
