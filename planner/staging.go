package planner

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
)

// A framework's own staging (issue 44). CuPy, asked to copy a pageable NumPy array to the
// device, first copies it on the CPU (memmove) into a page-locked buffer of its own, and
// copies that buffer to the device asynchronously: the CUDA copy names the framework's
// buffer, never the program's array, and the CPU copy is no CUDA call at all. As traced, the
// pair is the framework's page-locked buffer and the device buffer, which pinned cannot serve
// (it is page-locked already) and a merge cannot either (the framework's device memory is a
// pool's). The pair that matters is the program's array and the device buffer: pinned serves
// the array's allocation site, as a user who pins by hand does (cupyx.empty_pinned), the
// framework then finds the array page-locked and copies from it directly, and the staging
// copy goes. So such a pair is planned staged: its host side is the buffer behind the
// framework's, which the resolve run finds in-process (shim/staging.c) with the host-to-host
// copy that fills the framework's buffer (h2d) or empties it (d2h), and that copy's time.

// stageRefusal is why a pair that neither a merge nor pinned can serve as traced cannot be a
// framework's staging either; "" when it may be: its host side is page-locked memory CUDA
// allocated, its device side device memory, linked by whole copies at sites that recur with
// the loop (over every buffer they copy, as pinned counts them).
func (a *analysis) stageRefusal(p *pairAcc, iterations int) string {
	h, d := p.host, p.device
	if r := failedCopies(h, d); r != "" {
		return r
	}
	switch {
	case h.kind != plan.KindPinned:
		return fmt.Sprintf("the host side is %s memory, not page-locked memory a framework stages through", h.kind)
	case d.kind != plan.KindDevice:
		return fmt.Sprintf("the device side is %s memory", d.kind)
	case len(p.order) == 0:
		return "partial copy: " + p.partial
	case h.copied2D:
		return "also copied with cudaMemcpy2D"
	}
	return a.recurrence(p, iterations, func(c *copyAcc) int { return a.copySites[c.copyKey].count }, false)
}

// stage plans the pair staged: its host side the buffer behind the framework's page-locked one
// (pair.Host, unresolved until the resolve run finds it), for pinned alone (why no merge).
func stage(pair *plan.Pair, merge string) {
	pair.Staging = &plan.Staging{Via: pair.Host.Site}
	pair.Host = plan.Buffer{Site: plan.Site{Call: "unknown", Bytes: pair.Bytes}, Kind: plan.KindPageable, Unresolved: true}
	pair.Status = plan.StatusCandidate
	pair.OnlyPinned(merge)
	pair.Evidence = append(pair.Evidence, fmt.Sprintf("staged: its copies go through page-locked memory allocated by %s "+
		"at %s, which a framework may fill from the program's own buffer (CuPy copies a pageable array into its "+
		"page-locked buffer before each copy to the device); validate looks for that host-to-host copy, and the pair "+
		"is then the program's buffer and the device's: pinning the buffer's allocation site lets the framework copy "+
		"from it directly", pair.Staging.Via.Call, pair.Staging.Via.Name()))
}
