package engram_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// FuzzImport imports any bytes into a memory holding a few entries: no
// call panics; a refused file is an *ImportError naming a line, and the
// memory is as it was; an accepted file leaves the database intact, and
// its export survives a round trip through an empty memory unchanged.
func FuzzImport(f *testing.F) {
	clock := testutil.NewClock(exStart)
	src := exOpen(f, "default", clock, nil)
	exSeed(f, src, clock)
	good := exExport(f, src, engram.ExportOptions{})
	f.Add(good, byte(0))
	f.Add(good, byte(1))
	f.Add(good, byte(2))
	lines := strings.SplitAfter(string(good), "\n")
	for i := 1; i+1 < len(lines); i += 7 {
		one := lines[0] + lines[i] + `{"type":"end","records":1}` + "\n"
		f.Add([]byte(one), byte(i))
		f.Add([]byte(strings.Replace(one, `"`, `'`, 3)), byte(i))
		f.Add([]byte(one[:len(one)/2]), byte(i))
	}
	f.Add([]byte(lines[0]+`{"type":"memory","kind":"semantic","row":{"id":"x"}}`+"\n"), byte(0))
	f.Add([]byte("{}\n"), byte(0))
	f.Fuzz(func(t *testing.T, data []byte, policy byte) {
		wd := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("FuzzImport hangs on %q", data)) })
		defer wd.Stop()
		ctx := context.Background()
		open := func() *engram.Memory {
			m, err := engram.New(engram.Tier1, engram.InMemory(), engram.WithClock(testutil.NewClock(exStart).Now))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m := open()
		defer m.Close()
		for _, id := range []string{"sem-03", "ep-x"} {
			if _, err := m.Semantic().Store(ctx, engram.SemanticEntry{ID: id, Content: "the deploy runs from " + id}); err != nil {
				t.Fatal(err)
			}
		}
		export := func(m *engram.Memory) string {
			var b bytes.Buffer
			if err := m.Export(ctx, &b, engram.ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		before := export(m)
		_, err := m.Import(ctx, bytes.NewReader(data), engram.ImportOptions{Conflict: engram.Conflict(policy % 3)})
		if err != nil {
			var ie *engram.ImportError
			if !errors.As(err, &ie) || ie.Line < 1 {
				t.Fatalf("a refused import is not an *ImportError with a line: %T %v", err, err)
			}
			if !errors.Is(err, engram.ErrInvalid) && !errors.Is(err, engram.ErrExists) {
				t.Fatalf("a refused import matches neither ErrInvalid nor ErrExists: %v", err)
			}
			if after := export(m); after != before {
				t.Fatalf("a refused import (%v) changed the memory", err)
			}
			return
		}
		if err := m.CheckIntegrity(ctx); err != nil {
			t.Fatalf("after an import: %v", err)
		}
		first := export(m)
		again := open()
		defer again.Close()
		if _, err := again.Import(ctx, strings.NewReader(first), engram.ImportOptions{}); err != nil {
			t.Fatalf("an export of an accepted import is refused: %v", err)
		}
		if second := export(again); second != first {
			t.Fatalf("an accepted import does not round-trip:\n%s\n%s", first, second)
		}
	})
}
