package procmem

import (
	"runtime"
	"testing"
)

func TestResident(t *testing.T) {
	rss, hwm, err := Resident()
	if err != nil {
		t.Skip(err) // no /proc here
	}
	if rss <= 0 || hwm < rss {
		t.Fatalf("VmRSS %d, VmHWM %d", rss, hwm)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	rss2, hwm2, err := Resident()
	if err != nil {
		t.Fatal(err)
	}
	if rss2-rss < 60<<20 || hwm2-hwm < 60<<20 {
		t.Errorf("after touching 64 MiB: VmRSS %d → %d, VmHWM %d → %d", rss, rss2, hwm, hwm2)
	}
	runtime.KeepAlive(b)
}
