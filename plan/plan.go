// Package plan is Echo's plan: its data model (the host/device buffer pairs linked by
// whole-buffer copies, the program's loop, each pair's share of it, why every other pair or
// copy was refused, and where each pair stands), its file format (PLAN.md: Read, Write,
// Check, Version) and the compact text the shim reads (Compact), in one place. planner makes
// a plan from a trace and predicts it; validate, calibrate and deploy move its pairs along;
// the source path (scan, rewrite) speaks its words: Strategy, CopyDirection, Condition.
package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/echo-uma/echo/trace"
)

// Version is the plan file format this package writes. It reads versions 1 and 2 too:
// version 2 added context.pairs_digest, which a version 1 plan lacks (its enabled pairs then
// deploy only with --force, or once calibrated again); version 3 added the strategies a
// pair allows (absent: the three merges), why a merge is refused where only pinned is
// allowed, and device blocks; version 4 added the loop's span and confidence; version 5 the
// per-strategy estimates and the enabled plan's savings; version 6 the stage that refused
// each refused pair (refused_at); version 7 what the resolve run learnt of each copy and host
// site (call_ms, timed, site_allocations) and the host's first-touch rates; version 8 the
// resolve run's iteration without its timed copies (loop.rest_ms_per_iteration); version 9
// the launcher; version 10 whether the device reaches pageable memory
// (context.pageable_access), the savings' set-up per run, and a staged pair's staging (the
// framework's page-locked buffer it goes through, and the copy into or out of it the resolve
// run found); version 11 what the resolve run's drains waited an iteration
// (loop.drained_ms_per_iteration), how many of a host site's allocations came with fresh
// pages (fresh_allocations), and whether the device runs one stream's kernels at a time
// (context.serial_kernels).
const Version = 11

// oldestVersion is the oldest plan format Read still takes.
const oldestVersion = 1

// Status is where a pair stands on its way to being merged.
type Status string

const (
	StatusCandidate  Status = "candidate"  // the trace found nothing against it; needs validation
	StatusRefused    Status = "refused"    // Reason says why
	StatusValidated  Status = "validated"  // a validate run saw no conflicting access
	StatusCalibrated Status = "calibrated" // a calibrate run measured it
	StatusEnabled    Status = "enabled"    // calibration found it wins: deploy merges it
)

// Site is where a call is made, stable across runs (DESIGN.md "site"): the module, by
// build-id (or path and size when it has none), the return address as an offset in it, the
// function called, the size, and how many calls with those four came before this one.
type Site struct {
	Module     string `json:"module"` // path as mapped; "" when unresolved (attached traces)
	BuildID    string `json:"build_id,omitempty"`
	ModuleSize int64  `json:"module_size,omitempty"` // identifies a module without a build-id
	Offset     uint64 `json:"offset"`
	Call       string `json:"call"`    // API name: malloc, cudaMalloc, cudaMemcpy, ...
	Bytes      uint64 `json:"bytes"`   // size of the allocation or copy
	Ordinal    int    `json:"ordinal"` // earlier calls at the same module, offset, call and size
}

// AnyOrdinal is the site with its ordinal cleared: where the pinned strategy serves every
// allocation, whichever call it is.
func (s Site) AnyOrdinal() Site {
	s.Ordinal = 0
	return s
}

// Buffer is one side of a pair.
type Buffer struct {
	Site Site    `json:"site"`
	Kind MemKind `json:"kind"` // pageable, pinned, registered, managed, device
	// Unresolved: the allocation was not in the trace (an attached trace, or host allocators
	// not traced); Site then holds only what the copies told (its size), and validate finds
	// the allocation.
	Unresolved bool `json:"unresolved,omitempty"`
	// Block: the buffer is a part of the allocation at Site (a caching allocator's segment,
	// a pool), Offset bytes in, the pair's size long. Only pinned can serve such a pair.
	Block  bool   `json:"block,omitempty"`
	Offset uint64 `json:"offset,omitempty"`
	// Allocations: how many allocations at Site a validate run saw linked at the pair's
	// copies; more than one means a fresh buffer every iteration, which only pinned serves.
	Allocations int `json:"allocations,omitempty"`
	// SiteAllocations: every allocation at Site the resolve run saw, whatever its ordinal,
	// linked or not (the pinned strategy's pool serves them all); 0: not counted.
	SiteAllocations int `json:"site_allocations,omitempty"`
	// FreshAllocations: of those after the site's first, how many came with most of their
	// pages not yet in memory (the shim asks mincore), which the program then faults in: malloc
	// gave the memory back at free. 0: none, or not counted.
	FreshAllocations int `json:"fresh_allocations,omitempty"`
	// SmallPages: the resolve run found the buffer's mapping not eligible for transparent huge
	// pages (a C program's malloc where the kernel gives them only to who asks): the program
	// faults it in 4 KiB at a time, at the host's slower first-touch rate.
	SmallPages bool `json:"small_pages,omitempty"`
	// Identity: who took the slot in the validate run (identity.go); nil before validation,
	// or where the run could not read the call chain.
	Identity *Identity `json:"identity,omitempty"`
}

// Copy is one linking-copy site of a pair.
type Copy struct {
	Site Site `json:"site"`
	// Offset: a chunk's, into both buffers, for a copy of part of the pair (Site.Bytes of
	// them); the chunks of a direction cover the pair exactly.
	Offset       uint64        `json:"offset,omitempty"`
	Direction    CopyDirection `json:"direction"`     // h2d, d2h
	Stream       string        `json:"stream"`        // "legacy", or the handle of a created stream
	Count        int           `json:"count"`         // copies at this site in the trace
	PerIteration float64       `json:"per_iteration"` // copies per iteration of the loop
	MS           float64       `json:"ms"`            // transfer time of one copy
	// Estimated: the call also waited for earlier GPU work, so MS comes from the bytes and
	// the bandwidth seen on copies that did not wait, not from the call's own duration.
	Estimated bool `json:"estimated,omitempty"`
	// Waited is the share of the site's calls that also waited for GPU work: where MS is not
	// Estimated, that wait is in MS, and a merge keeps it (DESIGN.md S2), so it removes less.
	Waited float64 `json:"waited,omitempty"`
	// CallMS is the site's mean call, wait included (its first, cold, call left out where it
	// has others): MS once a resolve run showed the calls waited for nothing (validate).
	CallMS float64 `json:"call_ms,omitempty"`
	// Timed: MS is the copy's transfer as the resolve run timed it alone, its stream drained
	// before it and waited for after it: no wait for earlier work is in it, and an
	// asynchronous copy's time on its stream is.
	Timed bool `json:"timed,omitempty"`
	// Repair is what a merge keeps of the copy's ordering where it elides it (RepairNone,
	// RepairEventWait; plans made before it may say RepairStreamSync or RepairDeviceSync);
	// "" for a copy no merge elides (driver API).
	Repair Repair `json:"repair,omitempty"`
}

// AsyncCall reports whether the copy was made with an asynchronous call (cudaMemcpyAsync,
// cuMemcpyDtoHAsync_v2, ...): one that returns before the copy is done, or, to pageable
// memory, once done, its wait for the stream's earlier work included.
func (c Copy) AsyncCall() bool { return strings.Contains(c.Site.Call, "Async") }

// CopyDirection is which way a copy moves data: h2d, d2h (the two a pair's linking copies
// take), d2d, h2h, or default where the runtime could not tell (trace.Direction's words).
type CopyDirection string

// PairDirection is which way a pair's linking copies go: input (host to device), output
// (device to host), or both.
type PairDirection string

// Repair is what an elided copy keeps of its ordering.
type Repair string

// What an elided copy keeps of its ordering.
const (
	// RepairNone: an asynchronous copy only stood between earlier and later work of its
	// stream, which stay ordered.
	RepairNone Repair = "none"
	// RepairEventWait: a copy that returned only once done (a synchronous copy, S2; an
	// asynchronous one to pageable host memory) made the host wait for an operation on its
	// stream, which started after that stream's earlier work and what the stream's implicit
	// barrier orders before it: an event recorded on the same stream and waited for, which
	// waits for exactly that (shim/repair.c), not for the non-blocking streams.
	RepairEventWait Repair = "event_wait"
	// RepairStreamSync and RepairDeviceSync are what shims before event_wait kept: a
	// synchronize of the copy's stream, or of the device. Read in older plans only.
	RepairStreamSync Repair = "stream_sync"
	RepairDeviceSync Repair = "device_sync"
)

var repairs = []Repair{RepairNone, RepairEventWait, RepairStreamSync, RepairDeviceSync}

// RepairOf is the shim's rule (shim/hooks_cuda.c) for a copy made with call in direction
// dir whose host side is of kind hostKind.
func RepairOf(call, dir string, hostKind MemKind) Repair {
	switch {
	case call == "cudaMemcpy":
		return RepairEventWait
	case call != "cudaMemcpyAsync":
		return ""
	case dir == "d2h" && hostKind != KindPinned:
		return RepairEventWait
	}
	return RepairNone
}

// Pair is a host and a device buffer linked by linking copies.
type Pair struct {
	ID        string        `json:"id"`        // p1, p2, ... in order of first copy
	Direction PairDirection `json:"direction"` // input (H2D), output (D2H), both
	Bytes     uint64        `json:"bytes"`     // buffer size
	Host      Buffer        `json:"host"`
	Device    Buffer        `json:"device"`
	Copies    []Copy        `json:"copies"`
	// Staging: the pair's copies go through a framework's page-locked buffer, filled from
	// (or emptied into) Host by a host-to-host copy (staging.go); nil for a pair whose
	// copies name its host buffer.
	Staging *Staging `json:"staging,omitempty"`

	BytesPerIteration  uint64  `json:"bytes_per_iteration"`
	CopyMSPerIteration float64 `json:"copy_ms_per_iteration"`
	Estimated          bool    `json:"estimated,omitempty"` // some of the copy time is an estimate
	FCopy              float64 `json:"f_copy"`              // share of an iteration in this pair's copies
	PredictedSpeedup   float64 `json:"predicted_speedup"`   // 1 / (1 - FCopy)

	// Strategies are the ways this pair may be served (DESIGN.md "strategy"); none for a
	// refused pair (Read gives the pairs of a plan before version 3 the three merges).
	// MergeRefused says why the merges are not among them, when pinned alone is.
	Strategies   []Strategy `json:"strategies,omitempty"`
	MergeRefused string     `json:"merge_refused,omitempty"`

	Status    Status `json:"status"`               // moved only by lifecycle.go's methods
	Reason    string `json:"reason,omitempty"`     // why refused, in words a user understands
	RefusedAt Stage  `json:"refused_at,omitempty"` // which stage refused it (absent before version 6)
	// RefusedFrom is the status a pair calibration refused had before (RefuseCalibrated),
	// which a later calibration measures it as again; "" for every other refusal.
	RefusedFrom Status   `json:"refused_from,omitempty"`
	Evidence    []string `json:"evidence,omitempty"` // what each status rests on
}

// Strategy is a way to serve a pair (DESIGN.md "strategy").
type Strategy string

// Strategies.
const (
	StrategyMapped  Strategy = "mapped"
	StrategyManaged Strategy = "managed"
	StrategySystem  Strategy = "system"
	StrategyPinned  Strategy = "pinned"
)

// MergeStrategies serve a pair by making its two buffers one. Managed is not among them any
// more: managed memory cannot be mapped at a second address, so it would make the two one
// from their allocations on, before a linking copy confirmed the planned slots hold the
// planned buffers (shim/bind.c). Plans that name it still read; the shim refuses to deploy it.
var MergeStrategies = []Strategy{StrategyMapped, StrategySystem}

// ParseStrategy is the strategy a user named (--strategy), or an error that says which
// names Echo knows. managed is one (plans before version 5 may name it), though no pair
// allows it any more: asked for, it serves nothing, and the program runs as written.
func ParseStrategy(name string) (Strategy, error) {
	if s := Strategy(name); slices.Contains(strategies, s) {
		return s, nil
	}
	return "", fmt.Errorf("unknown strategy %q: give mapped, system or pinned", name)
}

// Allows reports whether the pair may be served by strategy.
func (p *Pair) Allows(strategy Strategy) bool {
	return slices.Contains(p.Strategies, strategy)
}

// PairsFor is the pairs a strategy may serve.
func PairsFor(pairs []Pair, strategy Strategy) []Pair {
	var out []Pair
	for _, pair := range pairs {
		if pair.Allows(strategy) {
			out = append(out, pair)
		}
	}
	return out
}

// Sited reports whether the pair's sites that strategy needs are known: the host side's for
// pinned, both for a merge (a trace that did not see them leaves that to validate).
func (p *Pair) Sited(strategy Strategy) bool {
	return !p.Host.Unresolved && (strategy == StrategyPinned || !p.Device.Unresolved)
}

// Merges reports whether any merge strategy may serve the pair.
func (p *Pair) Merges() bool {
	return slices.ContainsFunc(MergeStrategies, p.Allows)
}

// OnlyPinned narrows the pair to the pinned strategy, saying why it cannot be merged.
func (p *Pair) OnlyPinned(why string) {
	p.Strategies = []Strategy{StrategyPinned}
	if p.MergeRefused == "" {
		p.MergeRefused = why
	}
}

// Rejection is a copy site that links no pair, and why.
type Rejection struct {
	Site      Site          `json:"site"`
	Direction CopyDirection `json:"direction"`
	Count     int           `json:"count"`
	Reason    string        `json:"reason"`
}

// Loop is the program's main loop as the period of its linking copies.
type Loop struct {
	Iterations int     `json:"iterations"`       // 0: no loop found
	MS         float64 `json:"ms_per_iteration"` // wall time of one iteration
	Marker     *Site   `json:"marker,omitempty"` // the copy site whose period defines it
	// MarkerEvery: calls at the marker's site and size per iteration, when more than one (a
	// helper that copies both ways): the shim, which sees no direction, times every n-th.
	MarkerEvery int     `json:"marker_every,omitempty"`
	CopyMS      float64 `json:"copy_ms_per_iteration"` // removable copy time, all candidate pairs
	// Span is where the loop repeats exactly, and Confidence how sure the planner is that it
	// is the program's main loop (0 to 1); both absent when no loop was found.
	Span       *LoopSpan `json:"span,omitempty"`
	Confidence float64   `json:"confidence,omitempty"`
	// RestMS is the iteration without its timed copies as the resolve run ran it (validate):
	// the median iteration less the copies it timed alone in it whose timing the plan took
	// (Copy.Timed). That run drained the device before each timed copy, so the rest holds the
	// kernels those copies would have overlapped, run out before them: no less than what a
	// merge leaves of the iteration besides the copies that are not Timed (Predict's floor).
	// 0: no resolve run timed a copy in the loop.
	RestMS float64 `json:"rest_ms_per_iteration,omitempty"`
	// DrainMS is the part of RestMS the resolve run spent draining the device before its
	// asynchronous timed copies: kernels the program's own iteration runs beside its host work
	// (and beside one another, on its streams) instead of waiting for them there: the floor
	// takes the longer of the rest without them and them shared among the streams. 0: no
	// such drain waited.
	DrainMS float64 `json:"drained_ms_per_iteration,omitempty"`
	// DrainOverlap is how many of the drained kernels' streams ran beside one another at
	// most: the drains' total over their longest chain, the most of them one stream had work
	// running through (runner.Report.DrainedChainNS), over the resolve run's marked
	// iterations. The floor shares DrainMS among this many. 0: not measured (a plan from
	// before it was), and the floor shares them among the streams whose copies go.
	DrainOverlap float64 `json:"drain_overlap,omitempty"`
}

// LoopSpan is the stretch of the trace where the loop's unit of calls (copies and syncs)
// repeats back to back: its first and last iterations' starts, as the indices of the
// marker's calls among the trace's events and their entry times on the trace's clock.
type LoopSpan struct {
	FirstEvent uint64 `json:"first_event"`
	LastEvent  uint64 `json:"last_event"`
	FirstNS    uint64 `json:"first_ns"`
	LastNS     uint64 `json:"last_ns"`
	Repeats    int    `json:"repeats"`             // iterations in the span, the unit exactly each
	Calls      int    `json:"calls_per_iteration"` // copies and syncs in the unit
}

// Module names a file the plan depends on.
type Module struct {
	Path    string `json:"path"`
	BuildID string `json:"build_id,omitempty"`
	Size    int64  `json:"size,omitempty"`
}

// Context is what the plan was made (and later calibrated) on; a mismatch at deploy time
// means the program runs untouched.
type Context struct {
	Executable Module `json:"executable"`
	// Launcher is the traced command's executable where it is another program that started
	// Executable (echoctl trace --follow of a shell or a launcher): validate, calibrate and
	// run take that command, and the shim applies the plan in the process that runs
	// Executable (program.go).
	Launcher  *Module  `json:"launcher,omitempty"`
	Libraries []Module `json:"libraries,omitempty"` // the CUDA libraries the program used
	// Filled by calibration, from the device it ran on.
	GPU               string   `json:"gpu,omitempty"`
	ComputeCapability string   `json:"compute_capability,omitempty"`
	Driver            int      `json:"driver,omitempty"`
	Runtime           int      `json:"runtime,omitempty"`
	Strategy          Strategy `json:"strategy,omitempty"` // managed, mapped, system, pinned
	// Pageable: the device reaches pageable host memory (the system strategy's need), as
	// calibration's runs reported it; false also where no device is known yet (GPU "").
	Pageable bool `json:"pageable_access,omitempty"`
	// SerialKernels: the calibrated device runs one stream's kernels at a time
	// (cudaDevAttrConcurrentKernels 0: the emulator on a CPU with no room for its streams'
	// threads), so the prediction does not share the resolve run's drains among streams.
	SerialKernels bool `json:"serial_kernels,omitempty"`
	// PairsDigest is calibration's digest of the pairs it enabled (PairsDigest): deploying
	// other pairs (a hand edit that swapped two sites) is refused.
	PairsDigest string `json:"pairs_digest,omitempty"`
	// FirstTouch is the planning host's rate of faulting in fresh memory, measured once where a
	// pair needs it (Machine.FirstTouchBytesPerMS), so that predicting again elsewhere prices
	// the program's host, not that one.
	FirstTouch *FirstTouch `json:"first_touch,omitempty"`
}

// FirstTouch is a host's first-touch rates, in bytes per ms: of 4 KiB pages, and of a mapping
// that asked for transparent huge pages (Machine.FirstTouchBytesPerMS takes the faster).
type FirstTouch struct {
	BytesPerMS     float64 `json:"bytes_per_ms"`
	HugeBytesPerMS float64 `json:"huge_bytes_per_ms"`
}

// Source is the trace a plan was made from.
type Source struct {
	Path    string   `json:"path"`
	Command []string `json:"command"`
	// CommandBytes is Command byte for byte when an argument is not UTF-8 (trace.RawArgs):
	// Write fills it in and Read puts it back into Command.
	CommandBytes [][]byte  `json:"command_bytes,omitempty"`
	PID          int       `json:"pid"`
	Host         string    `json:"host"`
	Start        time.Time `json:"start"`
	Attached     bool      `json:"attached,omitempty"` // allocations before the attach are missing
}

// Plan is Echo's decision for one program.
type Plan struct {
	// Schema names the document for scripts ("echo.plan/4"); Version is what Read goes by.
	// Plans written before it have none.
	Schema           string      `json:"schema,omitempty"`
	Version          int         `json:"version"`
	Created          time.Time   `json:"created"`
	Tool             string      `json:"tool"` // echoctl version that wrote it
	Trace            Source      `json:"trace"`
	Context          Context     `json:"context"`
	Loop             Loop        `json:"loop"`
	Pairs            []Pair      `json:"pairs"`
	Rejected         []Rejection `json:"rejected"`
	FCopy            float64     `json:"f_copy"`            // candidate pairs together
	PredictedSpeedup float64     `json:"predicted_speedup"` // 1 / (1 - FCopy): the Amdahl bound
	// Estimates predict each strategy's iteration (Predict); Savings is what the enabled plan
	// saves and what finding it cost (calibration fills it in).
	Estimates []Estimate `json:"estimates,omitempty"`
	Savings   *Savings   `json:"savings,omitempty"`
	Notes     []string   `json:"notes,omitempty"` // what the user should know about the plan as a whole
}

// MemKind is the kind of memory a buffer is.
type MemKind string

// Memory kinds of a buffer.
const (
	KindPageable   MemKind = "pageable"
	KindPinned     MemKind = "pinned"
	KindRegistered MemKind = "registered"
	KindManaged    MemKind = "managed"
	KindDevice     MemKind = "device"
)

// Estimate is the predicted iteration of one strategy serving every pair it may serve
// (planner.Predict makes it).
type Estimate struct {
	Strategy Strategy `json:"strategy"`
	MS       float64  `json:"ms_per_iteration"` // predicted wall time of one iteration
	Speedup  float64  `json:"speedup"`          // loop.ms_per_iteration / MS
	Pairs    int      `json:"pairs"`            // pairs it serves
}

// Name is how a site reads to a person: module+offset (the raw address where no module
// maps it), as the trace names its sites.
func (s Site) Name() string {
	return trace.Site{Module: s.Module, Offset: s.Offset}.String()
}

// MaxFCopy keeps a predicted speed-up finite when estimates add up to the whole loop.
const MaxFCopy = 0.99
