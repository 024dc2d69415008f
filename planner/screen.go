package planner

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
)

// refusal is why a pair cannot be merged, judged from the trace alone; "" when nothing in
// the trace stands against it. Everything the trace cannot see (host accesses between the
// copies, kernels writing an input in place) is left to validation.
func (a *analysis) refusal(p *pairAcc, iterations int, sharing map[int][]*pairAcc) string {
	h, d := p.host, p.device
	if r := failedCopies(h, d); r != "" {
		return r
	}
	switch {
	case p.partial != "":
		return "partial copy: " + p.partial
	case driverAPI(d.call.String()):
		return fmt.Sprintf("the device side is allocated with the driver API (%s): the shim merges runtime allocations only", d.call)
	case len(p.blocks) > 0:
		return fmt.Sprintf("the device side is a block inside a %s allocation (a caching allocator's segment or a pool): "+
			"a merge replaces whole allocations", units.Bytes(d.size))
	case h.copied2D || d.copied2D:
		return "also copied with cudaMemcpy2D, which cannot be merged yet"
	case d.kind == plan.KindManaged:
		return "the device side is already managed memory"
	case d.deviceWrite != "":
		return fmt.Sprintf("the device buffer is also written by %s, which the host buffer would then see", d.deviceWrite)
	case d.deviceMemset != "" && p.copiedIn():
		return fmt.Sprintf("the device buffer is also written by %s, which the host buffer would then see: "+
			"merged, the host's input would be overwritten", d.deviceMemset)
	}
	for _, c := range p.order {
		if driverAPI(c.site.Call) {
			return fmt.Sprintf("copied with the driver API (%s at %s): the shim elides runtime copies only", c.site.Call, c.site.Name())
		}
	}
	if r := lifetime(h, d); r != "" {
		return r
	}
	if len(sharing[d.id]) > 1 {
		return fmt.Sprintf("the device buffer is linked to %d host buffers (%s): one memory cannot stand for them all",
			len(sharing[d.id]), idsOf(sharing[d.id]))
	}
	if len(sharing[-1-h.id]) > 1 {
		return fmt.Sprintf("the host buffer is linked to %d device buffers (%s): one memory cannot stand for them all",
			len(sharing[-1-h.id]), idsOf(sharing[-1-h.id]))
	}
	return a.recurrence(p, iterations, func(c *copyAcc) int { return c.count }, true)
}

// nameByChain leaves to the resolve run each side of a pair a merge may serve whose site
// several threads allocate at (a data loader's threads and the loop, through one helper):
// which call at the site is which depends on how the threads interleave, so the trace's site
// and ordinal name no buffer. The call chain above the allocation may, which only a run
// reads: the side is unresolved until the resolve run names it by its chain, and the merge
// is refused there if that chain allocates from several threads too (validate/resolve.go).
func (a *analysis) nameByChain(pair *plan.Pair, p *pairAcc) {
	sides := []struct {
		b    *buffer
		side *plan.Buffer
		name string
	}{{p.host, &pair.Host, "host"}, {p.device, &pair.Device, "device"}}
	for _, s := range sides {
		if s.b.unresolved || !a.sites.shared(s.b.pid, s.b.site, s.b.call) {
			continue
		}
		s.side.Unresolved = true
		pair.Evidence = append(pair.Evidence, fmt.Sprintf("%s at %s allocates from several threads, whose calls interleave "+
			"as they run: validate names the %s buffer by its call chain, and refuses the merge if that chain allocates "+
			"from several threads too", s.b.site.Call, s.b.site.Name(), s.name))
	}
}

// recurrence is why a pair's copies, counted by count, do not pay once per iteration of the
// loop: too small, too rare, or (with stable) not a whole number of times per iteration.
func (a *analysis) recurrence(p *pairAcc, iterations int, count func(*copyAcc) int, stable bool) string {
	bytes := p.order[0].bytesEachCopy
	if bytes < a.opts.MinBytes {
		return fmt.Sprintf("too small to pay: %s per copy (threshold %s, --min-bytes)", units.Bytes(bytes), units.Bytes(a.opts.MinBytes))
	}
	for _, c := range p.order {
		seen := count(c)
		n := seen
		if a.header.Attached && iterations > 0 && n+1 == iterations {
			n = iterations // the attach or the detach cut the first or last iteration short
		}
		switch {
		case iterations == 0 || n < iterations:
			return fmt.Sprintf("too rare: %s at %s ran %s, in fewer than the loop's %d iterations", c.site.Call, c.site.Name(), times(seen), iterations)
		case stable && n%iterations != 0:
			return fmt.Sprintf("unstable: %s at %s ran %s in %d iterations", c.site.Call, c.site.Name(), times(seen), iterations)
		}
	}
	if iterations < a.opts.MinIterations {
		return fmt.Sprintf("too rare: the loop ran %d iterations, fewer than --min-iterations %d", iterations, a.opts.MinIterations)
	}
	return ""
}

// lifetime refuses a pair when one side is freed while the other is still used: merged,
// the free would release memory the other side still needs (DESIGN.md S4).
func lifetime(h, d *buffer) string {
	if h.freedNS != 0 && h.freedNS < d.lastUseNS {
		return fmt.Sprintf("lifetime: the host buffer is freed %s before the device buffer's last use",
			msDuration(d.lastUseNS-h.freedNS))
	}
	if d.freedNS != 0 && d.freedNS < h.lastUseNS {
		return fmt.Sprintf("lifetime: the device buffer is freed %s before the host buffer's last use",
			msDuration(h.lastUseNS-d.freedNS))
	}
	return ""
}

// StreamName is how a plan names a stream: 0 and cudaStreamLegacy (1) are the legacy
// default stream, 2 is cudaStreamPerThread, any other its handle.
func StreamName(s uint64) string {
	switch s {
	case 0, 1:
		return "legacy"
	case 2:
		return "per-thread"
	}
	return fmt.Sprintf("%#x", s)
}

// driverAPI reports whether a call is the driver's (cuMemAlloc_v2, cuMemcpyHtoDAsync_v2, ...)
// rather than the runtime's (cudaMalloc, ...).
func driverAPI(call string) bool {
	return strings.HasPrefix(call, "cu") && !strings.HasPrefix(call, "cuda")
}
