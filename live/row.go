// Package live samples running CUDA processes for `echoctl attach`: per process, what its
// copies and launches cost over the last interval and which buffer pairs a live run of the
// planner finds in its recent calls.
package live

import (
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/symbols"
)

// Row is one process over the last sampling interval: a row of the live view, and of
// `echoctl attach --once --json`.
type Row struct {
	PID           int     `json:"pid"`
	Comm          string  `json:"comm"`             // the executable's base name, shell-quoted where it must be
	Command       string  `json:"command"`          // the command line, shell-quoted (no raw control bytes)
	CopiesPerS    float64 `json:"copies_per_s"`     // successful copy calls
	CopyBytesPerS float64 `json:"copy_bytes_per_s"` // all directions
	H2DBytesPerS  float64 `json:"h2d_bytes_per_s"`  // host to device
	D2HBytesPerS  float64 `json:"d2h_bytes_per_s"`  // device to host
	CopyShare     float64 `json:"copy_share"`       // share of wall time with a copy moving data (not waiting for kernels)
	LaunchesPerS  float64 `json:"launches_per_s"`   // kernel launches, runtime and driver
	// NoLaunches: kernel launches were not probed (attach without --launches), so
	// LaunchesPerS and Totals.Launches are 0 whatever the process launched.
	NoLaunches bool `json:"no_launches,omitempty"`
	Pairs      int  `json:"pairs"` // candidate pairs the planner found so far
	// Lost is how many events the tracer's one ring buffer had no room for since attach
	// began, every watched process together: it cannot tell whose they were.
	Lost      uint64   `json:"lost"`
	Events    uint64   `json:"events"`    // events seen in the interval
	Totals    Totals   `json:"totals"`    // since attaching, for counters
	Libraries []string `json:"libraries"` // the CUDA libraries probed
	Detail    Detail   `json:"detail"`
	Error     string   `json:"error,omitempty"` // why the process could not be traced
}

// Detail is what the view's detail pane shows for the selected process.
type Detail struct {
	TopSites         []Site  `json:"top_sites"` // copy sites, most time first (at most 5)
	PairList         []Pair  `json:"pair_list"`
	PredictedSpeedup float64 `json:"predicted_speedup"` // the plan's forecast (planner.ForecastFor), 1 without one
	Optimize         string  `json:"optimize"`          // the echoctl optimize command to try next
}

// Site is one copy call site over the interval.
type Site struct {
	Site         string  `json:"site"` // module+offset
	API          string  `json:"api"`
	Direction    string  `json:"direction"`
	BytesPerCopy uint64  `json:"bytes_per_copy"` // what one copy moves (stats' "bytes" is a site's total)
	PerS         float64 `json:"per_s"`
	Share        float64 `json:"share"` // of wall time, moving data (as the row's copy_share)
	// Symbol is the function and source line of the site, where its module names them
	// (function, file, line; left out when unknown).
	symbols.Symbol
}

// Pair is a candidate pair the live planner found.
type Pair struct {
	Direction plan.PairDirection `json:"direction"`
	Bytes     uint64             `json:"bytes"`
	Speedup   float64            `json:"predicted_speedup"`
	Status    plan.Status        `json:"status"`
	Reason    string             `json:"reason,omitempty"`
}
