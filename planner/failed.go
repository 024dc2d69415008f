package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/echo-uma/echo/trace"
)

// failures counts the CUDA calls of a trace and which of them returned an error. A failed
// call did nothing, but it says the program did not run as written: a failed copy refuses
// the buffers it names (the copies a pair would merge are not the copies the program
// means to make), and the plan says how many calls failed.
type failures struct {
	calls  map[trace.EventType]int
	failed map[trace.EventType]map[int32]int
}

func newFailures() failures {
	return failures{calls: map[trace.EventType]int{}, failed: map[trace.EventType]map[int32]int{}}
}

// count notes one CUDA call, and whether it failed.
func (f failures) count(e *trace.Event) {
	f.calls[e.Type]++
	if !e.Failed() {
		return
	}
	if f.failed[e.Type] == nil {
		f.failed[e.Type] = map[int32]int{}
	}
	f.failed[e.Type][e.Ret]++
}

// failedCopy marks the buffers a failed copy names, and lists its site among the rejected.
func (a *analysis) failedCopy(e *trace.Event) {
	dst, src := a.bufs.find(e.PID, e.Addr), a.bufs.find(e.PID, e.Src)
	dir := a.direction(e, dst, src)
	site := a.sites.of(e, e.Bytes, false)
	what := fmt.Sprintf("%s at %s: %s", e.Type, site.Name(), trace.ErrorName(e.Type, e.Ret))
	for _, b := range []*buffer{dst, src} {
		if b == nil {
			continue
		}
		if b.failedCopies == 0 {
			b.failedCopy = what
		}
		b.failedCopies++
	}
	a.reject(e, dir, "the copy failed ("+trace.ErrorName(e.Type, e.Ret)+"): it moved nothing")
}

// failedCopies is why a pair whose buffers were named by failed copies is refused, or "".
func failedCopies(h, d *buffer) string {
	n, what := h.failedCopies+d.failedCopies, cmp.Or(h.failedCopy, d.failedCopy)
	if n == 0 {
		return ""
	}
	if h.failedCopies > 0 && d.failedCopies > 0 {
		n = max(h.failedCopies, d.failedCopies) // a copy between the two counts once
	}
	copies := "copies"
	if n == 1 {
		copies = "copy"
	}
	return fmt.Sprintf("copies failed: %d %s returned an error on these buffers (%s): the program does not run as "+
		"written; fix it first", n, copies, what)
}

// note says how many CUDA calls failed, per API, or "".
func (f failures) note() string {
	var parts []string
	total := 0
	for t, codes := range f.failed {
		n := 0
		var names []string
		for code, k := range codes {
			n += k
			names = append(names, trace.ErrorName(t, code))
		}
		slices.Sort(names)
		total += n
		parts = append(parts, fmt.Sprintf("%s %d of %d (%s)", t, n, f.calls[t], strings.Join(names, ", ")))
	}
	if total == 0 {
		return ""
	}
	slices.Sort(parts)
	return fmt.Sprintf("%d CUDA calls failed: %s; the program did not run as written, and pairs whose copies "+
		"failed are refused", total, strings.Join(parts, "; "))
}
