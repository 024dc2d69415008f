package sourcereport

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress shows a long scan's progress on standard error: a bar redrawn in place where
// standard error is a terminal, else a line when the scan starts, every few seconds, and at
// its last file, so a log of a scan over a thousand files stays a few lines long.
type Progress struct {
	w     io.Writer
	tty   bool
	every time.Duration
	start time.Time
	last  time.Time
	drawn bool
}

// NewProgress shows progress on w, as a bar where tty (w is a terminal).
func NewProgress(w io.Writer, tty bool) *Progress {
	return &Progress{w: w, tty: tty, every: 5 * time.Second, start: time.Now()}
}

// Update is scan.ScanOptions.Progress: called once per file, one call at a time.
func (p *Progress) Update(done, total int, file string) {
	now := time.Now()
	if p.tty {
		if now.Sub(p.last) < 100*time.Millisecond && done < total {
			return
		}
		p.last = now
		const width = 30
		fill := width * done / max(total, 1)
		name := file
		if len(name) > 40 {
			name = "…" + name[len(name)-39:]
		}
		fmt.Fprintf(p.w, "\r\x1b[Kscan [%s%s] %d of %d %s %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
			done, total, now.Sub(p.start).Round(time.Second), name)
		p.drawn = true
		if done == total {
			fmt.Fprintln(p.w)
			p.drawn = false
		}
		return
	}
	if done == 1 || done == total || now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "scan: file %d of %d: %s (%s)\n", done, total, file, now.Sub(p.start).Round(time.Second))
	}
}

// Finish ends a bar a scan left unfinished (an error, an interrupt) with its line.
func (p *Progress) Finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
