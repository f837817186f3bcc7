package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line bar on a terminal for long work: it is
// silent unless its writer is a terminal, so that logs and pipes stay
// clean. It is safe for concurrent use.
type progress struct {
	mu    sync.Mutex
	w     io.Writer // nil when not drawing
	label string
	unit  string // "" counts items, "B" bytes
	n     int64
	total int64
	last  time.Time
	drawn bool
}

// newProgress returns a bar labelled label over total (0 when unknown),
// drawn on w when w is a terminal.
func newProgress(w io.Writer, label string, total int64) *progress {
	p := &progress{label: label, total: total}
	if isTerminal(w) {
		p.w = w
	}
	return p
}

// isTerminal reports whether w is a character device, as a terminal is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// bytes makes the bar count bytes.
func (p *progress) bytes() *progress {
	p.unit = "B"
	return p
}

// set records how far the work is; a total of 0 keeps the one known.
func (p *progress) set(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = done
	if total > 0 {
		p.total = total
	}
	p.draw(false)
}

// add records n more done.
func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	p.draw(false)
}

// done draws the bar once more and ends its line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || !p.drawn {
		return
	}
	p.draw(true)
	fmt.Fprintln(p.w)
}

// draw redraws the line, at most ten times a second unless forced.
func (p *progress) draw(force bool) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if !force && p.drawn && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	// "\x1b[K" clears what a longer line drawn before left.
	fmt.Fprint(p.w, "\r"+p.line()+"\x1b[K")
}

// line is the bar's text: "import [=======>      ]  52%  1.3 MB / 2.5 MB",
// or without a total "export  1.3 MB".
func (p *progress) line() string {
	count := p.count(p.n)
	if p.total <= 0 {
		return fmt.Sprintf("%s  %s", p.label, count)
	}
	frac := min(float64(p.n)/float64(p.total), 1)
	const width = 30
	full := int(frac * width)
	bar := strings.Repeat("=", full)
	if full < width {
		bar += ">" + strings.Repeat(" ", width-full-1)
	}
	return fmt.Sprintf("%s [%s] %3.0f%%  %s / %s", p.label, bar, frac*100, count, p.count(p.total))
}

// count formats n in the bar's unit.
func (p *progress) count(n int64) string {
	if p.unit != "B" {
		return fmt.Sprint(n)
	}
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// countingReader counts the bytes read through it on a progress bar.
type countingReader struct {
	r io.Reader
	p *progress
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}

// countingWriter counts the bytes written through it on a progress bar.
type countingWriter struct {
	w io.Writer
	p *progress
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.p.add(int64(n))
	return n, err
}
