package rules

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
)

// How the rewrite serves a pair (DESIGN.md, "strategy"), in plan's words (plan.Strategy):
// merged into one buffer both pointers name, its copies removed (mapped, managed), or kept as
// two buffers with their copies, the host side page-locked so the copies run at DMA speed
// (pinned).
//   - plan.StrategyPinned keeps the device buffer and every copy, and allocates the host side
//     with cudaMallocHost (freed with cudaFreeHost) in place of malloc or new[]: a copy from or
//     to page-locked memory skips the runtime's staging pass. Only the host side's lifetime
//     needs proof (pinned.go), so it also serves pairs a merge must refuse.
//   - plan.StrategyMapped is page-locked host memory the GPU maps (cudaHostAlloc with
//     cudaHostAllocMapped, the device side from cudaHostGetDevicePointer): on a discrete GPU
//     every kernel access crosses the link, so it pays only where the kernels touch each byte
//     once per copy; on an integrated GPU it is the one DRAM both sides read.
//   - plan.StrategyManaged is cudaMallocManaged: Grace Hopper, where a kernel that re-reads
//     the buffer gets it migrated into its own memory.
//   - plan.StrategyAuto chooses per pair (Choose): by the device, the kernels' access to the
//     pair, and with a trace its measured copies.

// ParseStrategy reads a --strategy value.
func ParseStrategy(s string) (plan.Strategy, error) {
	switch plan.Strategy(s) {
	case plan.StrategyAuto, plan.StrategyPinned, plan.StrategyMapped, plan.StrategyManaged:
		return plan.Strategy(s), nil
	}
	return "", fmt.Errorf("unknown strategy %q: use auto (chosen per pair), pinned (discrete GPUs), mapped or managed", s)
}

// Device is the kind of GPU the rewritten program is to run on.
type Device string

const (
	// Discrete GPUs reach host memory over PCIe: a mapped buffer is read over the link on
	// every kernel access.
	Discrete Device = "discrete"
	// Integrated GPUs (Jetson) share the host's DRAM: a merged buffer is what the copies
	// moved. Managed memory is not used there: without concurrent managed access the CPU
	// may not touch it while any kernel runs.
	Integrated Device = "integrated"
	// GraceHopper reaches host memory coherently (NVLink-C2C, the host's page tables).
	GraceHopper Device = "grace-hopper"
)

// ParseDevice reads a --device value other than auto, which the caller detects.
func ParseDevice(s string) (Device, error) {
	switch Device(s) {
	case Discrete, Integrated, GraceHopper:
		return Device(s), nil
	}
	return "", fmt.Errorf("unknown device %q: use discrete, integrated, grace-hopper or auto (this machine's GPU)", s)
}

// DeviceOf is the kind of a GPU from what its runtime reports: integrated
// (cudaDevAttrIntegrated), or reaching pageable memory through the host's page tables
// (cudaDevAttrPageableMemoryAccessUsesHostPageTables: ATS, Grace Hopper; a discrete GPU with
// HMM reports pageable access without it); anything else is discrete.
func DeviceOf(integrated, hostPageTables bool) Device {
	switch {
	case integrated:
		return Integrated
	case hostPageTables:
		return GraceHopper
	}
	return Discrete
}

// Access is whether the kernels touch each byte of a pair's device side at most once for each
// of its copies (access.go): what decides, on a discrete GPU, whether a mapped buffer, read
// over the link on every access, can beat a page-locked copy.
type Access struct {
	OnePass bool
	Why     string // what showed it, or why it is not known to be one pass
}

// Costs price a traced pair's strategies on a discrete GPU (ChooseFor): the rates the binary
// path's planner.Discrete measured on the H200 host.
type Costs struct {
	// LinkBytesPerMS is the host link's rate each way: a page-locked copy moves at it, and a
	// kernel reads or writes mapped memory at it.
	LinkBytesPerMS float64
	// PinMSPerMiB is what page-locking a host buffer costs once (cudaMallocHost,
	// cudaHostAlloc): 3.7 ms for 64 MiB on the H200 host.
	PinMSPerMiB float64
}

// DiscreteCosts are the H200 host's (planner.Discrete's link; the emulator's
// CUDA_EMU_PIN_US_PER_MIB default for page-locking).
var DiscreteCosts = Costs{LinkBytesPerMS: 50e6, PinMSPerMiB: 0.055}

// Facts are what the choice of a pair's strategy rests on.
type Facts struct {
	Merge  string // "" when a merge is proved safe and the rewrite can make it; else why not
	Pin    string // "" when pinned can serve the pair (pinned.go); else why not
	Access Access
	// Measured is what a traced run spent in the pair's copies (rewrite --trace); nil
	// without a trace.
	Measured *Measured
}

// Choice is a pair's strategy and why; Strategy "" leaves the pair as written.
type Choice struct {
	Strategy plan.Strategy
	Why      string
}

// Choose is the strategy a pair gets on device d when asked is what --strategy said: a
// strategy other than auto is used where the pair allows it, and the pair is left as written
// where it does not. Auto, as the binary path chooses (DESIGN.md "strategy"):
//   - discrete: mapped where a merge is proved safe and the kernels touch each byte once per
//     copy, else pinned where the host side's lifetime allows it — the safe default, since a
//     merged buffer the kernels re-read crosses the link on every read;
//   - integrated: mapped where a merge is proved safe (one DRAM: the copies were all the cost),
//     else pinned;
//   - Grace Hopper: a merge where proved safe, mapped for one pass and managed (migrated to
//     the GPU's memory) for kernels that re-read it, else pinned.
//
// With a trace (f.Measured), a discrete GPU's choice is priced with the measured copies and
// kernel time (price): a pair whose copies would save less than page-locking costs is left as
// written, and the numbers are in Why.
func Choose(d Device, asked plan.Strategy, f Facts, c Costs) Choice {
	switch asked {
	case plan.StrategyMapped, plan.StrategyManaged:
		if f.Merge != "" {
			return Choice{"", "not merged (--strategy " + string(asked) + "): " + f.Merge}
		}
		return Choice{asked, "--strategy " + string(asked)}
	case plan.StrategyPinned:
		if f.Pin != "" {
			return Choice{"", "not pinned (--strategy pinned): " + f.Pin}
		}
		return Choice{plan.StrategyPinned, "--strategy pinned"}
	}
	var ch Choice
	switch {
	case f.Merge == "" && d == Integrated:
		ch = Choice{plan.StrategyMapped, "integrated GPU: one DRAM, the copies removed"}
	case f.Merge == "" && d == GraceHopper && f.Access.OnePass:
		ch = Choice{plan.StrategyMapped, "Grace Hopper, " + f.Access.Why + ": read in place over the coherent link"}
	case f.Merge == "" && d == GraceHopper:
		ch = Choice{plan.StrategyManaged, "Grace Hopper, " + f.Access.Why + ": managed memory migrates to the GPU's"}
	case f.Merge == "" && f.Access.OnePass:
		ch = Choice{plan.StrategyMapped, "discrete GPU, " + f.Access.Why + ": the link carries each byte once, as the copy did"}
	case f.Pin == "" && f.Merge == "":
		ch = Choice{plan.StrategyPinned, "discrete GPU, " + f.Access.Why + ": mapped memory would cross the link on every read, so the copies stay, from page-locked memory"}
	case f.Pin == "":
		ch = Choice{plan.StrategyPinned, "not merged (" + f.Merge + "); the copies stay, from page-locked memory"}
	case f.Merge == "":
		return Choice{"", "not pinned (" + f.Pin + "), and " + f.Access.Why + ": a mapped buffer would cross the link on every read"}
	default:
		return Choice{"", "not merged (" + f.Merge + "); not pinned (" + f.Pin + ")"}
	}
	if d == Discrete && f.Measured != nil && f.Measured.Count > 0 {
		return price(ch, f, c)
	}
	return ch
}

// price weighs a traced pair's strategies on a discrete GPU with what the run measured: its
// copies' time C (pageable, their data movement), their bytes B, and the GPU work K they waited
// for (the kernels' time, where the trace could tell). As written the pair costs C + K; pinned
// moves B at the link's rate beside the kernels, B/link + K; mapped, only for one pass, has the
// kernels read B over the link while they compute, max(K, B/link). Either pays page-locking
// the buffer once. The cheaper of the two the pair allows is chosen, and as written is kept
// where it saves less than the page-locking costs.
func price(ch Choice, f Facts, c Costs) Choice {
	m := f.Measured
	C, K := float64(m.NS)/1e6, float64(m.WaitNS)/1e6
	link := float64(m.Bytes) / c.LinkBytesPerMS
	size := float64(m.Bytes) / float64(m.Count) // each copy moves the whole buffer
	setup := size / (1 << 20) * c.PinMSPerMiB
	pinned, mapped := link+K, max(K, link)
	numbers := fmt.Sprintf("traced: %d copies of %s, %.3f ms pageable, kernels %.3f ms; at the link's %.0f GB/s",
		m.Count, units.Bytes(uint64(size)), C, K, c.LinkBytesPerMS/1e6)
	best, est := ch.Strategy, pinned
	if ch.Strategy == plan.StrategyMapped {
		est = mapped
	}
	var alt []string
	if ch.Strategy == plan.StrategyMapped && f.Pin == "" {
		alt = append(alt, fmt.Sprintf("pinned %.3f ms", pinned))
		if pinned < mapped {
			best, est = plan.StrategyPinned, pinned
		}
	}
	if ch.Strategy == plan.StrategyPinned && f.Merge == "" && f.Access.OnePass {
		alt = append(alt, fmt.Sprintf("mapped %.3f ms", mapped))
	}
	written := C + K
	others := ""
	if len(alt) > 0 {
		others = ", " + strings.Join(alt, ", ")
	}
	if written-est <= setup {
		return Choice{"", fmt.Sprintf("%s, %s would take %.3f ms against %.3f ms as written%s, "+
			"saving less than page-locking the buffer once (%.3f ms)", numbers, best, est, written, others, setup)}
	}
	return Choice{best, fmt.Sprintf("%s; %s: %s %.3f ms against %.3f ms as written%s, page-locking %.3f ms once",
		ch.Why, numbers, best, est, written, others, setup)}
}
