package main

import (
	"fmt"
	"io"

	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/runner"
)

// printFallbacks names each pair some of whose allocations the library made as written,
// why, and what that cost: the copies then made from or to pageable memory (pinned).
func printFallbacks(w io.Writer, r runner.Report) {
	for _, f := range r.FallbackPairs() {
		fmt.Fprintf(w, "echoctl:   %s: %d %s made as written (%s), %d %s on them from or to pageable memory\n", f.Pair,
			f.Allocations, texttable.Plural(f.Allocations, "allocation", "allocations"), f.Reason, f.Copies,
			texttable.Plural(f.Copies, "copy", "copies"))
	}
}

// printProcesses says, for a program of several processes (one that forks and uses CUDA in
// the child), what the shim did in each: the totals above add them up.
func printProcesses(w io.Writer, procs []runner.Report) {
	if len(procs) < 2 {
		return
	}
	for _, p := range procs {
		state := "served"
		if !p.Active {
			state = "untouched: " + p.Reason
		}
		fmt.Fprintf(w, "echoctl:   process %d: %d pairs %s, %d copies elided, %d fallbacks\n", p.PID, p.Served,
			state, p.CopiesElided, p.Fallbacks)
	}
}
