package main

import (
	"fmt"
	"io"

	"github.com/echo-uma/echo/runner"
)

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
