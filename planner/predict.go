package planner

import (
	"slices"
	"strings"

	"github.com/echo-uma/echo/plan"
)

// Machine is what serving a pair costs on the machine besides the copies it removes: the
// prediction's parameters (issue 26 item 4). The Amdahl bound 1/(1−f_copy) assumes a removed
// copy leaves nothing behind; on a discrete GPU a kernel reading mapped memory pulls the same
// bytes over the link, a page-locked copy still copies, and page-locking costs time once.
type Machine struct {
	// Name says what the model assumes the machine is, for a person: "unified memory (Echo
	// UMA Emulator)", "a discrete GPU (no device known yet: calibration finds it)".
	Name string
	// Pageable: the device reaches pageable host memory (HMM, ATS), which the system strategy
	// needs. Where it does not, or no device is known yet, system is not predicted.
	Pageable bool
	// Unified: host and device share one DRAM (Jetson, Grace Hopper's C2C is close to it, the
	// emulator): a kernel reads merged memory at the speed it read device memory.
	Unified bool
	// LinkBytesPerMS is the host link's rate, each way: a kernel on mapped memory reads and
	// writes the pair's bytes at it, both directions at once (the link is full duplex), and a
	// page-locked copy moves at it (DMA). Used only when not Unified.
	LinkBytesPerMS float64
	// CopyBytesPerMS is the rate assumed for a copy whose calls also waited for GPU work and
	// whose transfer the trace could not separate from the wait (no copy waited for nothing).
	// 0: no rate measured on such a machine; the plan's own copies that waited for nothing
	// bound the transfer instead (cleanCopies).
	CopyBytesPerMS float64
	// SetupMSPerBuffer is the one-time cost of page-locking one host buffer (cudaHostAlloc,
	// cudaHostRegister), which mapped and pinned pay per pair.
	SetupMSPerBuffer float64
	// StageBytesPerMS is the rate of the pass a pageable copy pays and a page-locked one
	// skips on unified memory: the runtime cannot DMA from pageable memory, so it copies
	// through a page-locked bounce buffer first (the emulator does the same, stage.c), and
	// that pass is a host memcpy. 0: not modelled, pinned saves nothing on unified memory.
	// (On a discrete GPU the same effect is the gap between the copy's rate and the link's.)
	StageBytesPerMS float64
	// FirstTouchBytesPerMS is the rate at which the host faults in a fresh allocation's pages
	// (the kernel maps and zeroes each on its first touch). A host buffer allocated afresh every
	// iteration and filled by the program pays it every iteration at a size malloc always maps
	// anew (freshMapBytes), below it in the iterations it came with fresh pages; pinned's pool
	// serves it already faulted in (shim/pinned.c). It is the faster of the host's two rates
	// (FirstTouch): a program may fault 2 MiB at a time (numpy asks for transparent huge
	// pages) or from several threads (PyTorch's fill), and how it does is nowhere in a trace;
	// the faster one keeps the prediction from promising what a program that faults quickly
	// does not save. 0: not modelled.
	FirstTouchBytesPerMS float64
	// SmallPageTouchBytesPerMS is the host's rate for 4 KiB pages, which prices the buffers
	// the resolve run found on them (Buffer.SmallPages); 0: FirstTouchBytesPerMS prices all.
	SmallPageTouchBytesPerMS float64
	// SerialKernels: the device runs one stream's kernels at a time (plan.Context.SerialKernels).
	SerialKernels bool
}

// freshMapBytes is the size from which glibc's malloc always maps a new allocation and
// unmaps it at free (its largest dynamic mmap threshold on a 64-bit host, 32 MiB): below it,
// a buffer freed and allocated again every iteration is often the same, already faulted-in,
// heap memory, so only the share the resolve run saw come with fresh pages is priced.
const freshMapBytes = 32 << 20

// Discrete is a PCIe 5 x16 GPU as the H200 host measured it: about 50 GB/s page-locked, and
// page-locking a buffer costs about a millisecond.
var Discrete = Machine{LinkBytesPerMS: 50e6, CopyBytesPerMS: 8e6, SetupMSPerBuffer: 1}

// UnifiedMemory is a machine whose GPU shares the host's DRAM (and the emulator); MachineFor
// fills in its staging rate with this host's memcpy rate. Its copy rate is not the H200's
// pageable 8 GB/s: no such rate was measured on one, and where a copy has a fixed cost (the
// emulator's CUDA_EMU_COPY_DELAY_US, a driver's latency) a rate alone charges a waited
// copy's transfer far too little; the plan's clean copies price it (cleanCopies).
var UnifiedMemory = Machine{Unified: true, SetupMSPerBuffer: 0.1}

// unifiedGPUs name GPUs that share the host's DRAM: Jetson boards, Grace superchips (whose
// C2C link reads host memory at nearly device speed), and the emulator.
var unifiedGPUs = []string{"Orin", "Xavier", "Thor", "Jetson", "Tegra", "GH200", "GB200", "Echo UMA Emulator"}

// MachineFor is the cost model of the device a plan was calibrated on (context.gpu and
// context.pageable_access): one that shares host memory, or a discrete one, which is also
// what a plan not yet calibrated (no GPU) assumes, without pageable access.
func MachineFor(c plan.Context) Machine {
	m := Discrete
	if unified(c.GPU) {
		m = UnifiedMemory
		m.StageBytesPerMS = hostCopyRate()
	}
	m.Name, m.Pageable, m.SerialKernels = machineName(c), c.Pageable, c.SerialKernels
	return m
}

// unified says whether the GPU named gpu shares the host's DRAM.
func unified(gpu string) bool {
	return slices.ContainsFunc(unifiedGPUs, func(name string) bool { return strings.Contains(gpu, name) })
}

// machineName says what MachineFor assumes the device of c is (Machine.Name).
func machineName(c plan.Context) string {
	switch {
	case unified(c.GPU):
		return "unified memory (" + c.GPU + ")"
	case c.GPU == "":
		return "a discrete GPU (no device known yet: calibration finds it)"
	}
	return "a discrete GPU (" + c.GPU + ")"
}

// withFirstTouch is m with the first-touch rates of the plan's host (Context.FirstTouch), or
// of this one, measured only where a pair needs them.
func withFirstTouch(m Machine, p *plan.Plan) Machine {
	if m.FirstTouchBytesPerMS == 0 && needsFirstTouch(p) {
		ft := p.Context.FirstTouch
		if ft == nil {
			ft = new(hostFirstTouch())
		}
		m.FirstTouchBytesPerMS = max(ft.BytesPerMS, ft.HugeBytesPerMS)
		m.SmallPageTouchBytesPerMS = ft.BytesPerMS
	}
	return m
}

// needsFirstTouch: a counted pair's host side comes with fresh pages in some iterations.
func needsFirstTouch(p *plan.Plan) bool {
	return slices.ContainsFunc(p.Pairs, func(pair plan.Pair) bool { return pair.Status.Counted() && freshShare(pair) > 0 })
}

// freshShare is the share of the iterations in which the pair's host side comes with fresh
// pages, which the program then faults in: none where validation saw it allocated once
// (Buffer.Allocations); every one at a size malloc maps afresh each time; below it, the share
// of the site's allocations after its first that the resolve run saw come with fresh pages
// (Buffer.FreshAllocations: malloc trimmed the heap the buffers were freed to, as it does
// some iterations for the emulator's framework and its three 4 MiB tensors).
func freshShare(pair plan.Pair) float64 {
	h := pair.Host
	switch {
	case h.Allocations <= 1:
		return 0
	case pair.Bytes >= freshMapBytes:
		return 1
	case h.SiteAllocations <= 1:
		return 0
	}
	return min(float64(h.FreshAllocations)/float64(h.SiteAllocations-1), 1)
}

// Predict estimates each strategy's iteration from the trace's copy times, their sync
// structure and the strategy's costs on m; strategies that serve no pair of p are left out,
// and so is system where m does not reach pageable memory (or no device is known): a
// strategy the device cannot run gets no prediction. The Amdahl bound (p.PredictedSpeedup)
// stays what it is: the most removing the copies could give. It is the one maker of
// estimates (Recount keeps them in the plan); every output reads them through Forecast.
func Predict(p *plan.Plan, m Machine) []plan.Estimate {
	T := p.Loop.MS
	if T <= 0 || p.Loop.Iterations <= 0 {
		return nil
	}
	clean := cleanCopies(p)
	m = withFirstTouch(m, p)
	var out []plan.Estimate
	for _, s := range []plan.Strategy{plan.StrategyMapped, plan.StrategySystem, plan.StrategyPinned} {
		if s == plan.StrategySystem && !m.Pageable {
			continue
		}
		var saved, untimed, blocking, added, waited float64
		n := 0
		pools := map[plan.Site][]plan.Pair{} // pinned's pools: one per host site, whatever its ordinal
		streams := map[string]float64{}
		link := map[plan.CopyDirection]float64{}
		for _, pair := range p.Pairs {
			if !pair.Status.Counted() || !pair.Allows(s) {
				continue
			}
			n++
			d := pairCost(pair, s, m, clean)
			saved += d.saved
			untimed += d.untimed
			blocking += d.blocking
			for stream, ms := range d.streams {
				streams[stream] += ms
			}
			for dir, ms := range d.link {
				link[dir] += ms
			}
			waited += d.waited
			pools[poolOf(pair)] = append(pools[poolOf(pair)], pair)
		}
		if n == 0 {
			continue
		}
		parallel := len(streams)
		if m.SerialKernels {
			parallel = 1
		}
		floor := resolveFloor(p, s, untimed, blocking, parallel)
		saved += criticalPath(streams)
		added += linkMS(link, waited)
		// Page-locked memory, paid once: mapped allocates a buffer per pair; pinned pools the
		// buffers of a host site, so a site that allocates every call pins one and reuses it,
		// and saves the first touch of the fresh buffers it would have allocated.
		switch s {
		case plan.StrategyMapped:
			added += m.SetupMSPerBuffer * float64(n) / float64(p.Loop.Iterations)
		case plan.StrategyPinned:
			added += m.SetupMSPerBuffer * float64(len(pools)) / float64(p.Loop.Iterations)
			touch := 0.0
			for _, pairs := range pools {
				touch += firstTouchMS(pairs, m, p.Loop.Iterations)
			}
			// The program's first touches happen in its own code, outside the copies the
			// trace timed: no more than the rest of the iteration.
			saved += min(touch, max(T-p.Loop.CopyMS, 0))
		}
		ms := max(T-saved+added, floor+added, T*(1-plan.MaxFCopy))
		out = append(out, plan.Estimate{Strategy: s, MS: ms, Speedup: T / ms, Pairs: n})
	}
	return out
}

// Best is the estimate with the highest speed-up, or nil.
func Best(es []plan.Estimate) *plan.Estimate {
	if len(es) == 0 {
		return nil
	}
	best := slices.MaxFunc(es, func(a, b plan.Estimate) int {
		switch {
		case a.Speedup < b.Speedup:
			return -1
		case a.Speedup > b.Speedup:
			return 1
		}
		return 0
	})
	return &best
}

// EstimateFor is the estimate of strategy, or nil.
func EstimateFor(es []plan.Estimate, strategy plan.Strategy) *plan.Estimate {
	for i := range es {
		if es[i].Strategy == strategy {
			return &es[i]
		}
	}
	return nil
}

// cost is what serving a pair saves and adds per iteration, in ms; streams holds, by stream,
// the transfers of removed asynchronous copies that a resolve run timed (criticalPath says
// how much of them an iteration saves), which saved leaves out; untimed is the part of saved
// from copies that are not Timed, which the resolve run's rest still holds (resolveFloor).
// What a merge adds is on a discrete GPU: its kernels move the removed copies' bytes over the
// link; link holds that time by direction, and waited the kernel time the copies were seen
// to wait for (linkMS). blocking is the part of saved from synchronous copies, which held
// the host in the traced iteration and overlapped nothing of it (resolveFloor).
type cost struct {
	saved, untimed, waited, blocking float64
	streams                          map[string]float64
	link                             map[plan.CopyDirection]float64
}

// pairCost is what serving pair with strategy saves and adds per iteration, in ms.
func pairCost(pair plan.Pair, strategy plan.Strategy, m Machine, clean []plan.Copy) cost {
	c := cost{streams: map[string]float64{}, link: map[plan.CopyDirection]float64{}}
	for _, cp := range pair.Copies {
		transfer := removableMS(cp, m, clean)
		dma := 0.0
		if !m.Unified && m.LinkBytesPerMS > 0 {
			dma = float64(cp.Site.Bytes) / m.LinkBytesPerMS
		}
		switch strategy {
		case plan.StrategyPinned:
			// The copy stays, at DMA speed; on unified memory page-locked and pageable copies
			// are both DRAM copies, and only the staging pass through the bounce buffer goes
			// (a pair pinned may serve has a pageable host side).
			switch {
			case !m.Unified:
				c.saved += max(transfer-dma, 0) * cp.PerIteration
			case m.StageBytesPerMS > 0:
				c.saved += min(transfer, float64(cp.Site.Bytes)/m.StageBytesPerMS) * cp.PerIteration
			}
		default:
			// The copy goes, but the wait it also was (DESIGN.md S2) stays, and on a discrete
			// GPU the kernels move the bytes over the link instead.
			ms := transfer * cp.PerIteration
			if cp.Repair == plan.RepairNone && cp.Timed {
				c.streams[cp.Stream] += ms
			} else {
				c.saved += ms
			}
			if !cp.Timed {
				c.untimed += ms
			}
			if !cp.AsyncCall() {
				c.blocking += ms
			}
			c.link[cp.Direction] += dma * cp.PerIteration
			if cp.Timed && cp.Waited > 0 && cp.CallMS > cp.MS {
				c.waited += (cp.CallMS - cp.MS) * cp.PerIteration
			}
		}
	}
	return c
}

// linkMS is what moving a merged iteration's bytes over the link adds to it, from the link
// time of each direction and the kernel time the removed copies waited for (waited). The link
// carries both directions at once, so the busier one takes the time; and the kernels that
// now read and write host memory are the kernels the copies waited for, which the iteration
// still holds (a merge keeps a copy's wait): their memory traffic runs beside their work, so
// only link time beyond that work is added. stream's 64 MiB in and out on the H200: 1.34 ms
// each way, its output copy's call 0.71 ms beyond its transfer alone, merged 2.10 ms an
// iteration against 17.36 as written (the sum of both directions, as before, predicted 3.42×
// where calibration measured 8.28×; bench/results/stream-h200-2026-12-02-n.log).
// The kernel time is what the copies' calls waited beyond their transfer timed alone: no
// more than the kernels took, so the estimate errs toward the smaller gain. A copy whose
// direction the trace could not tell counts both ways.
func linkMS(link map[plan.CopyDirection]float64, waited float64) float64 {
	var unknown float64
	for dir, ms := range link {
		if dir != "h2d" && dir != "d2h" {
			unknown += ms
		}
	}
	return max(max(link["h2d"], link["d2h"])+unknown-waited, 0)
}

// criticalPath is what removing asynchronous copies saves an iteration, from their transfers
// by stream: a stream runs its copies one after another, and streams run beside one another,
// so the iteration waits for the busiest stream's copies, not for all of them (the emulator's
// multistream: two streams, each 2 copies of 2 ms an iteration, took 4.2 ms more an iteration
// than without the delay, not 8). A GPU whose copy engines serialize copies of one direction
// across streams saves more than this: the estimate errs toward the smaller gain.
func criticalPath(streams map[string]float64) float64 {
	most := 0.0
	for _, ms := range streams {
		most = max(most, ms)
	}
	return most
}

// resolveFloor is the least an iteration of strategy s can take by the resolve run
// (Loop.RestMS): its iteration without the copies whose timing the plan took, less what
// removing the other copies saves (untimed). That run drained the device before each timed
// copy, so the rest holds every kernel and the host's work, one after another at worst: where
// removing copies leaves little, the speed-up turns on that rest, which the trace cannot see
// beside the copies it overlapped (the emulator's multistream: 5.4 ms an iteration, 4.9 ms
// of copies on its busiest stream, 1.05 ms merged, not 0.5). Pinned removes no copy: no
// floor. 0 without a resolve run's iteration.
// The floor is a run apart from the trace, and a loaded machine can make that run's rest
// longer than the traced iteration itself (the emulator's memset under a load of 10: a rest
// of 16.1 ms beside a traced iteration of 6.6, which predicted 0.62x where calibration
// measured 9.80x). The removed synchronous copies (blocking) held the host in the traced
// iteration and overlapped nothing there, so the iteration less them is the most the rest
// can be, whatever the resolve run took.
// The drains before asynchronous copies (Loop.DrainMS) waited for kernels that the
// program's own iteration runs beside its host work, and beside one another on its streams,
// where the resolve run ran them out one drain at a time (the emulator's chunked on 16 idle
// cores, four streams: drains of 0.81 ms in a rest of 0.88, a merged iteration of 0.23 ms).
// So the floor is the longer of the host's own work (the rest without the drains) and the
// drains shared among the streams whose copies go (streams, at least one): kernels that
// cannot all run at once. Without that share, a loop whose copies were the whole traced
// iteration had nothing to bound its kernels (the emulator's async_stream on 2 busy cores,
// one stream: 66x predicted, 6.8x measured). A device that runs one stream's kernels at a
// time (Machine.SerialKernels) shares them among one.
// Kernels on several streams need not all run at once: multistream's second stream folds in
// the first stream's result after an event wait, so its drains (the first stream's scale,
// then the second's scale and the fold) hold a chain of two kernels of three, and sharing
// them among its two streams promised a merged iteration of 1.32 ms where calibration
// measured 1.65 (an H100 host's CPUs). Where the resolve run measured how many streams'
// worth the drains were (Loop.DrainOverlap: their total over the most of them one stream
// waited through), they are shared among no more than that.
func resolveFloor(p *plan.Plan, s plan.Strategy, untimed, blocking float64, streams int) float64 {
	if p.Loop.RestMS <= 0 || s == plan.StrategyPinned {
		return 0
	}
	share := float64(max(streams, 1))
	if p.Loop.DrainOverlap > 0 {
		share = min(share, max(p.Loop.DrainOverlap, 1))
	}
	kernels := p.Loop.DrainMS / share
	return max(min(max(p.Loop.RestMS-p.Loop.DrainMS-untimed, kernels), p.Loop.MS-blocking), 0)
}

// poolOf is the pinned pool that serves pair's host side: its site, whatever the ordinal.
func poolOf(pair plan.Pair) plan.Site {
	site := pair.Host.Site
	site.Ordinal = 0
	return site
}

// firstTouchMS is what one pinned pool (the pairs of one host site) saves an iteration in
// first touches: a site whose allocations come with fresh pages (freshShare) makes the
// program fault in each new buffer it writes, where the pool's buffers were faulted in once;
// an iteration pays it in the share of iterations whose buffers were fresh. A buffer a d2h
// copy fills is first touched by the copy, whose time the trace has and pairCost prices.
// The resolve run counts every allocation at the site (Buffer.SiteAllocations), copied or
// not: CuPy's input array, filled by numpy and copied through CuPy's own staging buffer,
// comes from the site of the output array its d2h copy fills. Without that count, the
// buffers known to be written by the program are those its h2d copies read. The faults are
// priced at the 4 KiB rate where the resolve run found every buffer of the pool on small
// pages, else at the faster rate.
func firstTouchMS(pairs []plan.Pair, m Machine, iterations int) float64 {
	share := 0.0
	for _, pair := range pairs {
		share = max(share, freshShare(pair))
	}
	if m.FirstTouchBytesPerMS <= 0 || iterations <= 0 || share == 0 {
		return 0
	}
	var allocs int
	var h2d, d2h float64
	for _, pair := range pairs { // each pair's buffers: copied in, or filled by a copy
		allocs = max(allocs, pair.Host.SiteAllocations)
		in, out := 0.0, 0.0
		for _, cp := range pair.Copies {
			if cp.Direction == "h2d" {
				in = max(in, cp.PerIteration)
			} else {
				out = max(out, cp.PerIteration)
			}
		}
		h2d, d2h = h2d+in, d2h+out
	}
	written := h2d
	if allocs > 0 {
		written = max(float64(allocs/iterations)-d2h, 0)
	}
	rate := m.FirstTouchBytesPerMS
	if m.SmallPageTouchBytesPerMS > 0 && !slices.ContainsFunc(pairs, func(pair plan.Pair) bool { return !pair.Host.SmallPages }) {
		rate = m.SmallPageTouchBytesPerMS // every buffer of the pool on 4 KiB pages
	}
	return share * written * float64(pairs[0].Bytes) / rate
}

// removableMS is the transfer part of one copy: a copy whose calls also waited for GPU work
// (Waited) and whose time the planner could not estimate from a clean copy's bandwidth holds
// that wait, which a merge keeps; its transfer is then taken at m's copy rate, or, where m
// has none, bounded by the plan's clean copies (cleanEnvelope).
func removableMS(cp plan.Copy, m Machine, clean []plan.Copy) float64 {
	if cp.Timed || cp.Estimated || cp.Waited <= 0 {
		return cp.MS
	}
	transfer := cp.MS
	switch {
	case m.CopyBytesPerMS > 0:
		transfer = min(cp.MS, float64(cp.Site.Bytes)/m.CopyBytesPerMS)
	default:
		if ms, ok := cleanEnvelope(clean, cp.Site.Bytes); ok {
			transfer = min(cp.MS, ms)
		}
	}
	return (1-cp.Waited)*cp.MS + cp.Waited*transfer
}

// cleanCopies are the copies of p's counted pairs that waited for nothing and recur with the
// loop: their MS is a transfer alone (a one-off copy may have run cold).
func cleanCopies(p *plan.Plan) []plan.Copy {
	var out []plan.Copy
	for _, pair := range p.Pairs {
		if !pair.Status.Counted() {
			continue
		}
		for _, cp := range pair.Copies {
			if cp.Waited == 0 && !cp.Estimated && cp.PerIteration >= 1 && cp.MS > 0 && cp.Site.Bytes > 0 {
				out = append(out, cp)
			}
		}
	}
	return out
}

// cleanEnvelope is the most a transfer of bytes takes, judged from clean copies: no longer
// than a larger copy took, nor than its bytes at a smaller one's rate (its fixed cost paid
// once), as the planner's bandwidth envelope judges; ok is false without clean copies.
func cleanEnvelope(clean []plan.Copy, bytes uint64) (ms float64, ok bool) {
	for _, cp := range clean {
		t := cp.MS
		if cp.Site.Bytes < bytes {
			t = cp.MS * float64(bytes) / float64(cp.Site.Bytes)
		}
		if !ok || t < ms {
			ms, ok = t, true
		}
	}
	return ms, ok
}
