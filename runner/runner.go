// Package runner runs a program with Echo's preload library (libechoshim.so) on a compact
// plan, and reads back the report the library writes at exit.
package runner

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/echo-uma/echo/internal/embedshim"
	"github.com/echo-uma/echo/internal/scratch"
)

// FindShim locates libechoshim.so: $ECHO_SHIM, else lib/ beside the bin/ directory echoctl
// runs from (build/bin/echoctl finds build/lib/libechoshim.so), else the copy echoctl
// carries, written once to its cache (internal/embedshim). $ECHO_SHIM must be the library
// (CheckShim); a file beside echoctl that is not is passed over for the carried copy.
func FindShim() (string, error) {
	if p := os.Getenv("ECHO_SHIM"); p != "" {
		if err := CheckShim(p); err != nil {
			return "", fmt.Errorf("ECHO_SHIM: %w (unset it to use the library echoctl carries)", err)
		}
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding echoctl's own executable: %w", err)
	}
	beside := filepath.Clean(filepath.Join(filepath.Dir(self), "..", "lib", "libechoshim.so"))
	err = CheckShim(beside)
	if err == nil {
		return beside, nil
	}
	none := "none beside echoctl (" + beside + ")"
	if !errors.Is(err, os.ErrNotExist) {
		none = "none beside echoctl (" + err.Error() + ")"
	}
	p, err := embedshim.Extract()
	if err != nil {
		return "", fmt.Errorf("no preload library: %s, and %w (set ECHO_SHIM to one)", none, err)
	}
	return p, nil
}

// Preloadable refuses an executable the shim cannot reach: one with the CUDA runtime linked
// into it, whose calls never go through the dynamic linker.
func Preloadable(exe string) error {
	f, err := elf.Open(exe)
	if err != nil {
		return fmt.Errorf("reading %s: %w", exe, err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "cudaMalloc" && s.Section != elf.SHN_UNDEF {
			return fmt.Errorf("%s has the CUDA runtime linked in statically, which a preload library cannot "+
				"intercept: relink it with -cudart shared (echoctl trace still works on it)", exe)
		}
	}
	return nil
}

// Report is what the shim writes at exit (shim/report.c).
type Report struct {
	PID      int    `json:"pid"` // the process that wrote it
	Mode     string `json:"mode"`
	Active   bool   `json:"active"`
	Reason   string `json:"reason"` // why it ran the program untouched, if it did
	Said     bool   `json:"said"`   // the shim printed its one line on stderr
	Plan     string `json:"plan"`   // from a plan directory: the deployment's file name chosen
	GPU      string `json:"gpu"`
	CC       string `json:"cc"`
	Driver   int    `json:"driver"`
	Runtime  int    `json:"runtime"`
	Pageable bool   `json:"pageable"`
	// ConcurrentManaged: the host may touch managed memory while kernels run (false on
	// Jetson before Thor, where the managed strategy does not apply).
	ConcurrentManaged bool `json:"concurrent_managed"`
	// Integrated: the GPU shares the host's DRAM (Jetson); HostPageTables: it reaches
	// pageable memory through the host's page tables (Grace Hopper's ATS, not a discrete
	// GPU's HMM). echoctl rewrite --device auto reads them.
	Integrated     bool `json:"integrated"`
	HostPageTables bool `json:"host_page_tables"`
	// ConcurrentKernels: kernels of several streams may run at once (every CUDA GPU since
	// Fermi; the emulator only with CPUs for its streams' threads).
	ConcurrentKernels bool `json:"concurrent_kernels"`
	// Served counts the pairs served: merged, or (the pinned strategy) their host side
	// page-locked. The shim's report names it "merged", as it did before pinned existed.
	Served       int    `json:"merged"`
	CopiesElided int    `json:"copies_elided"`
	Fallbacks    int    `json:"fallbacks"`
	Freed        int    `json:"freed"`
	WallNS       uint64 `json:"wall_ns"`
	// SetupNS is what serving the plan cost the run beyond the program's own work:
	// page-locking pool buffers, mapping and page-locking merged ones (shim_setup_since).
	SetupNS     uint64   `json:"setup_ns"`
	Launches    int      `json:"launches"`     // resolve mode: launches and memsets the shim saw
	IterationNS []uint64 `json:"iteration_ns"` // between successive copies at the loop marker
	// UntimedNS: resolve mode, each iteration without the copies the run timed alone in it.
	UntimedNS []uint64 `json:"untimed_ns"`
	// DrainedNS: resolve mode, how long each iteration's drains before its asynchronous timed
	// copies waited for the device (the rest's wait that the program's own iteration lacks).
	DrainedNS []uint64 `json:"drained_ns"`
	// DrainedChainNS: resolve mode, the most of those drains, over the same iterations but
	// the first (cold), that any one stream had work running through (shim/busy.c): their
	// longest chain, where the program's own streams run beside one another.
	DrainedChainNS uint64       `json:"drained_chain_ns"`
	Waits          WaitsReport  `json:"waits"`
	Pinned         PinnedReport `json:"pinned"`
	Pairs          []PairReport `json:"pairs"`

	// Energy, where the machine measures it (shim/energy.c): EnergySource "nvml" (the GPU's
	// counter), "ina3221" (a Jetson's power rails) or "" (not measured); EnergyMJ the whole
	// run's, IterationEnergyMJ one marked iteration's (measure mode; 0 when not sampled).
	EnergySource      string  `json:"energy_source"`
	EnergyMJ          float64 `json:"energy_mj"`
	IterationEnergyMJ float64 `json:"iteration_energy_mj"`

	// Skipped: the plan directory's files the shim could not use (it says so on stderr only
	// under ECHO_VERBOSE, since every process of the environment reads them); SkippedFirst
	// names the first and why.
	Skipped      int    `json:"skipped"`
	SkippedFirst string `json:"skipped_first"`
}

// Fallback is a pair some of whose allocations the library made as written, why (the first
// reason), and what that cost: the copies then made on them, from or to pageable memory.
type Fallback struct {
	Pair        string `json:"pair"`
	Allocations int    `json:"allocations"`
	Copies      int    `json:"copies"`
	Reason      string `json:"reason"`
}

// FallbackPairs are the run's fallbacks, pair by pair.
func (r Report) FallbackPairs() []Fallback {
	var out []Fallback
	for _, p := range r.Pairs {
		if p.Fallbacks > 0 {
			out = append(out, Fallback{Pair: p.ID, Allocations: p.Fallbacks, Copies: p.FallbackCopies, Reason: p.Note})
		}
	}
	return out
}

// WaitsReport counts the waits elided copies kept (shim/repair.c): as an event recorded on
// the copy's stream, or, where that could not be recorded, as a stream or device synchronize.
type WaitsReport struct {
	Event    int `json:"event"`
	Fallback int `json:"fallback"`
}

// PinnedReport is what the pinned strategy's pools did over a run (shim/pinned.c).
type PinnedReport struct {
	Buffers   int    `json:"buffers"`   // page-locked buffers allocated
	Bytes     uint64 `json:"bytes"`     // their size, together
	Reused    int    `json:"reused"`    // allocations served by a buffer the program had freed
	Fallbacks int    `json:"fallbacks"` // allocations made as written: the cap, or the runtime, said no
	Syncs     int    `json:"syncs"`     // asynchronous copies followed by a wait to keep their completion
}

// ResolvedSide is what a resolve run saw of one side of a pair: the allocation its linking
// copies pointed at.
type ResolvedSide struct {
	Found       bool   `json:"found"`
	Module      string `json:"module"` // build-id, or size:N:NAME
	Path        string `json:"path"`   // the module's file
	Offset      uint64 `json:"offset"`
	Call        string `json:"call"`
	Bytes       uint64 `json:"bytes"`
	Ordinal     int    `json:"ordinal"`
	Allocations int    `json:"allocations"` // distinct allocations linked: more than one is a fresh buffer each time
	// SiteAllocations: every allocation the site made in the run, whatever its ordinal (the
	// pinned strategy's pool serves them all), linked or not.
	SiteAllocations int `json:"site_allocations"`
	// SiteFresh: of a host site's allocations after its first, those most of whose pages were
	// not in memory when they were made (mincore): the program faults them in anew.
	SiteFresh int `json:"site_fresh"`
	// SmallPages: a host side whose mapping the kernel may not back with transparent huge
	// pages (smaps' THPeligible 0, read at its first copy): faulted in 4 KiB at a time.
	SmallPages bool `json:"small_pages"`
	OtherSites bool `json:"other_sites"` // buffers from another site were linked too
	Threads    bool `json:"threads"`     // more than one thread allocated at the site
	Unmatched  int  `json:"unmatched"`   // copies whose pointer started no allocation of the pair's size
	// The first buffer's call chain (shim/chain.c), its ordinal among the calls of its site and
	// size from that chain, how many such calls the run made, and whether several threads made
	// them: a chain one thread calls names its buffers where several threads allocate at the site.
	Chain        []Frame `json:"chain"`
	ChainOrdinal int     `json:"chain_ordinal"`
	ChainCalls   int     `json:"chain_calls"`
	ChainThreads bool    `json:"chain_threads"`
}

// Frame is one return address of a call chain: the module (a build-id, or size:N:NAME) and
// the offset in it.
type Frame struct {
	Module string `json:"module"`
	Offset uint64 `json:"offset"`
}

// PairReport is what a validate run saw of one pair.
type PairReport struct {
	ID       string `json:"id"`
	Seen     bool   `json:"seen"`   // both sides were allocated at their planned sites
	Copies   int    `json:"copies"` // linking copies watched
	Refused  bool   `json:"refused"`
	Reason   string `json:"reason"`
	AtModule string `json:"at_module"` // the instruction that made the access: module id
	AtOffset uint64 `json:"at_offset"` // and offset
	AtNS     uint64 `json:"at_ns"`     // when, since the run started
	AtCopy   int    `json:"at_copy"`   // the pair's linking copies seen by then
	// Deploy: the pair was served (merged: a copy between its halves was elided; pinned: its
	// host side came from the pool), how, and why it was not when it was not.
	Served bool `json:"merged"`
	Elided int  `json:"elided"`
	Pinned int  `json:"pinned"` // host allocations served from the pinned pool
	// Fallbacks: allocations of the pair's the shim made as written (the pool's cap, CUDA
	// not ready, a failed allocation; Note gives the first reason), and FallbackCopies the
	// copies then made on them: what the fallbacks cost.
	Fallbacks      int    `json:"fallbacks"`
	FallbackCopies int    `json:"fallback_copies"`
	Note           string `json:"note"`
	// Resolve: the host side, then the device side.
	Resolved []ResolvedSide `json:"resolved,omitempty"`
	// Resolve: per linking-copy site of the plan's pair (in its order), how many of its copies
	// were made with no GPU work outstanding and how many with some (shim/busy.c).
	CopyWaits []CopyWaits `json:"copy_waits,omitempty"`
	// Validate: who took each side's slot (the host side, then the device side).
	Identity []SideIdentity `json:"identity,omitempty"`
	// Resolve, a staged pair: the host-to-host copies between the program's buffer and the
	// framework's (shim/staging.c).
	Staging *StagingReport `json:"staging,omitempty"`
}

// StagingReport is what a resolve run saw of a staged pair's staging: the host-to-host copies
// it found (their site, as ResolvedSide names one, and their mean time), and the linking
// copies none staged.
type StagingReport struct {
	Copies  int     `json:"copies"`
	Missing int     `json:"missing"`
	NS      float64 `json:"ns"`
	Module  string  `json:"module"` // build-id, or size:N:NAME
	Path    string  `json:"path"`
	Offset  uint64  `json:"offset"`
	Call    string  `json:"call"`
}

// CopyWaits counts a linking-copy site's copies by whether GPU work the host had not waited
// for was outstanding when each was made (Clean ones waited for none), and times them alone.
type CopyWaits struct {
	Clean int `json:"clean"`
	Busy  int `json:"busy"`
	// Timed of them were timed alone (their stream drained first); TransferNS is their mean
	// time, the first (cold) one left out where there are others.
	Timed      int     `json:"timed"`
	TransferNS float64 `json:"transfer_ns"`
}

// SideIdentity is the call chain of the allocation that took a side's slot in a validate
// run, its ordinal among that chain's calls of its site and size, and how many the run made.
type SideIdentity struct {
	Known   bool    `json:"known"` // the slot was taken and the chain read
	Chain   []Frame `json:"chain"`
	Ordinal int     `json:"ordinal"`
	Count   int     `json:"count"`
	Threads bool    `json:"threads"` // more than one thread allocated from the chain
}

// ErrNoReport: the program ran (Result.ExitCode is its status) but the shim wrote no report,
// so what it did is unknown.
var ErrNoReport = errors.New("the shim left no report")

// IO is where the program's standard streams go; a nil Stdout is captured into the
// Result instead.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Forward passes the signals echoctl receives (Forwarded) on to the program, which
	// then decides how it ends, instead of the context stopping it.
	Forward bool
}

// Result is one run.
type Result struct {
	ExitCode int    // as a shell reports it: 128+N when signal N ended the program
	Signaled bool   // a signal ended the program (it wrote no report then)
	Stdout   []byte // when captured
	// Wall is the complete run as the user waits for it, from the program's start to its
	// exit: loader, set-up (page-locking, pools) and tail included, which the iterations the
	// shim times leave out.
	Wall   time.Duration
	Report Report // what the program's processes did together
	// Processes are the reports of each process that reached exit with the shim, the
	// started one's among them (a program may fork, and use CUDA in the child).
	Processes []Report
}

// Run runs argv with the shim preloaded on the compact plan and reads its report. The end
// of ctx stops the program and Run returns ctx's cause (unless stdio.Forward).
func Run(ctx context.Context, argv []string, compact string, stdio IO) (Result, error) {
	dir, remove, err := scratch.Dir("echoctl-run-")
	if err != nil {
		return untouched(ctx, argv, stdio, err)
	}
	defer remove()
	planPath := filepath.Join(dir, "plan")
	if err := os.WriteFile(planPath, []byte(compact), 0o644); err != nil {
		return untouched(ctx, argv, stdio, err)
	}
	return run(ctx, argv, "ECHO_PLAN="+planPath, dir, stdio)
}

// RunDir runs argv with the shim preloaded on a plan directory (ECHO_PLAN_DIR): the shim
// picks the deployment there for the executable and the device, or runs it untouched.
func RunDir(ctx context.Context, argv []string, plans string, stdio IO) (Result, error) {
	plans, err := filepath.Abs(plans)
	if err != nil {
		return Result{}, err
	}
	dir, remove, err := scratch.Dir("echoctl-run-")
	if err != nil {
		return untouched(ctx, argv, stdio, err)
	}
	defer remove()
	return run(ctx, argv, "ECHO_PLAN_DIR="+plans, dir, stdio)
}

// untouched is a deployment whose files (the compact plan, the report's directory) could
// not be made in TMPDIR, full or read-only: where echoctl stands for the program
// (stdio.Forward, echoctl run) the program runs as written, as the shim runs it on any
// other failure, and one line says why; a validation or calibration run fails instead,
// since a run without the shim measures nothing.
func untouched(ctx context.Context, argv []string, stdio IO, cause error) (Result, error) {
	if pe, ok := errors.AsType[*os.PathError](cause); ok {
		cause = pe.Err // the temporary name means nothing to the user
	}
	why := fmt.Sprintf("making the plan's temporary files in %s: %v", os.TempDir(), cause)
	if !stdio.Forward {
		return Result{}, fmt.Errorf("%s: free space there or set TMPDIR to another directory", why)
	}
	if stdio.Stderr != nil {
		fmt.Fprintf(stdio.Stderr, "echoctl: running the program as written: %s\n", why)
	}
	cmd, captured := command(argv, stdio)
	if err := execute(ctx, cmd, stdio.Forward); err != nil {
		return Result{}, err
	}
	return Result{ExitCode: Status(cmd.ProcessState), Signaled: Signaled(cmd.ProcessState), Stdout: captured.Bytes(),
		Report: Report{Reason: why, Said: stdio.Stderr != nil}}, nil
}

// command is argv with stdio attached, standard output captured when stdio has none.
func command(argv []string, stdio IO) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(argv[0], argv[1:]...)
	captured := &bytes.Buffer{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	if stdio.Stdout == nil {
		cmd.Stdout = captured
	}
	return cmd, captured
}

// run runs argv with the shim on the plan that planEnv names, its report in dir.
func run(ctx context.Context, argv []string, planEnv, dir string, stdio IO) (Result, error) {
	shim, err := FindShim()
	if err != nil {
		return Result{}, err
	}
	reportPath := filepath.Join(dir, "report.json")
	cmd, captured := command(argv, stdio)
	cmd.Env = append(withoutEnv(embedshim.Preloaded(os.Environ(), shim), "ECHO_PLAN", "ECHO_PLAN_DIR", "ECHO_REPORT"),
		planEnv, "ECHO_REPORT="+reportPath)
	start := time.Now()
	if err := execute(ctx, cmd, stdio.Forward); err != nil {
		return Result{}, err
	}
	res := Result{ExitCode: Status(cmd.ProcessState), Signaled: Signaled(cmd.ProcessState), Stdout: captured.Bytes(),
		Wall: time.Since(start)}
	data, err := os.ReadFile(reportPath)
	if err != nil && res.Signaled {
		// The shim writes its report at exit; a program killed by a signal never gets there.
		res.Report.Reason = fmt.Sprintf("the program was killed by a signal (status %d) before the shim could report", res.ExitCode)
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("%w (did %s start?): %w", ErrNoReport, argv[0], err)
	}
	res.Report, res.Processes, err = readReports(data, cmd.Process.Pid)
	return res, err
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// RunPlain runs argv as written, without the shim, and returns its exit status (128+N for
// signal N). Like Run, it stops the program when ctx ends, or forwards signals.
func RunPlain(ctx context.Context, argv []string, stdio IO) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.Stdin, stdio.Stdout, stdio.Stderr
	if err := execute(ctx, cmd, stdio.Forward); err != nil {
		return 0, err
	}
	return Status(cmd.ProcessState), nil
}
