package trace

import (
	"fmt"
	"math"
	"time"
)

// The fixed parts of the format; FORMAT.md describes each.
const (
	// Magic opens every trace file.
	Magic = "ECHOTRC\x00"
	// Version is the format version this package writes and the newest it reads.
	Version = 1

	// recordModule and recordFooter tag the records that are not events; read as
	// little-endian bytes they spell "\0MOD" and "\0END". Every event type is below
	// maxEventTag, so a tag alone tells the records apart.
	recordModule uint32 = 0x444F4D00
	recordFooter uint32 = 0x444E4500
	maxEventTag  uint32 = 0x100

	// Bounds on the length-prefixed blocks, so that a corrupt length can neither make the
	// reader allocate gigabytes nor skip the rest of the file. The header holds the module
	// table of a whole process; a module or the footer is far smaller.
	maxHeaderLen  = 16 << 20
	maxPayloadLen = 1 << 20
)

// Header is the metadata at the start of a trace: what was traced, where and when, and the
// modules mapped when tracing began. It is stored as JSON (FORMAT.md).
type Header struct {
	Host        string    `json:"host"`
	Kernel      string    `json:"kernel"`        // uname release
	Start       time.Time `json:"start"`         // wall clock when tracing began
	StartMonoNS uint64    `json:"start_mono_ns"` // CLOCK_MONOTONIC at Start: places event timestamps in wall time
	Command     []string  `json:"command"`       // the traced command line
	// CommandBytes is Command byte for byte when an argument is not UTF-8 (RawArgs), which
	// JSON cannot carry: the writer fills it in and the reader puts it back into Command.
	CommandBytes [][]byte `json:"command_bytes,omitempty"`
	// Executable is the file the traced process runs, symbolic links resolved: argv[0] may
	// name a link (python3 -> python3.12) or nothing on disk at all.
	Executable string `json:"executable,omitempty"`
	PID        int    `json:"pid"`      // the traced (root) process
	Attached   bool   `json:"attached"` // -p trace: allocations made before the attach are missing
	// NoHostAllocs: the host allocators were not probed (the default), so host buffers are
	// known only by the pointer and size the copies name.
	NoHostAllocs bool `json:"no_host_allocs,omitempty"`
	// NoLaunches: kernel launches were not probed (the default), so the trace has none; a
	// trace without this key (an older tracer's) probed them.
	NoLaunches bool     `json:"no_launches,omitempty"`
	Tracer     string   `json:"tracer"`     // echoctl version that wrote the trace
	EventSize  int      `json:"event_size"` // EventSize; the writer fills it in
	Modules    []Module `json:"modules"`    // mapped when tracing began
}

// Footer closes a trace that ended cleanly.
type Footer struct {
	End       time.Time `json:"end"`         // wall clock when tracing ended
	EndMonoNS uint64    `json:"end_mono_ns"` // CLOCK_MONOTONIC at End
	Events    uint64    `json:"events"`      // event records in the file; the writer counts them
	Lost      []uint64  `json:"lost"`        // failed ring-buffer reservations, per CPU
	Complete  bool      `json:"complete"`    // the tracer stopped cleanly, with every event it received written
	// Truncated says why recording stopped before the traced program ended (the disk
	// filled): the records before it are whole, what came after is not in the file.
	Truncated string `json:"truncated,omitempty"`
}

// TotalLost is the number of events lost on all CPUs together.
func (f Footer) TotalLost() uint64 { return SumLost(f.Lost) }

// SumLost adds per-CPU lost-event counts, stopping at the largest uint64 instead of wrapping:
// a damaged footer or counter of 2^64−1 on one CPU must not read as a handful of events lost.
func SumLost(perCPU []uint64) uint64 {
	var n uint64
	for _, l := range perCPU {
		if l > math.MaxUint64-n {
			return math.MaxUint64
		}
		n += l
	}
	return n
}

// checkModule rejects a module the table cannot hold.
func checkModule(m Module) error {
	if m.End <= m.Start {
		return fmt.Errorf("module %s maps an empty range [%#x, %#x)", m.Path, m.Start, m.End)
	}
	return nil
}
