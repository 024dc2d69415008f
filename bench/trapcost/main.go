// Command trapcost measures what a uprobe trap itself costs a probed call, with no tracer
// around it: a small C program (target.c) times calls of an empty function with nothing
// attached, with an entry probe, a return probe, both, and the same through uprobe_multi
// links, in alternating rounds, and the medians are printed. Echo's per-call cost (issue
// 17) is made mostly of such traps, four per traced runtime call; bench/trapcost.sh runs it.
// Needs root (or CAP_BPF and CAP_PERFMON).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

type options struct {
	rounds int
	calls  int
	target string
	sym    string
}

func main() {
	var opts options
	flag.IntVar(&opts.rounds, "rounds", 5, "alternating rounds; each mode runs once per round")
	flag.IntVar(&opts.calls, "calls", 100000, "timed calls of the probed function per run")
	flag.StringVar(&opts.target, "target", "build/bench/trapcost-target", "the target program built from target.c")
	flag.StringVar(&opts.sym, "sym", "trap_plain", "the target's function to probe: trap_plain, trap_push or trap_endbr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, opts, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trapcost:", err)
		os.Exit(1)
	}
}
