package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
)

// run measures every mode opts.rounds times, in turn, and prints the medians to w.
func run(ctx context.Context, opts options, w io.Writer) error {
	if opts.rounds < 1 || opts.calls < 1 {
		return fmt.Errorf("-rounds and -calls must be at least 1")
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return fmt.Errorf("raising the memlock limit (run as root): %w", err)
	}
	ex, err := link.OpenExecutable(opts.target)
	if err != nil {
		return fmt.Errorf("opening %s: %w", opts.target, err)
	}
	multiErr := features.HaveBPFLinkUprobeMulti()
	p, err := loadProgs(multiErr == nil)
	if err != nil {
		return fmt.Errorf("loading programs (run as root or grant CAP_BPF and CAP_PERFMON): %w", err)
	}
	defer p.Close()
	ms := modes(multiErr == nil)
	ns := make([][]float64, len(ms))
	for r := range opts.rounds {
		// Each round starts one mode later, so that no mode always runs right after another
		// and drift on a shared machine falls on all alike.
		for k := range ms {
			i := (r + k) % len(ms)
			v, err := measure(ctx, ex, opts, ms[i], p)
			if err != nil {
				return err
			}
			ns[i] = append(ns[i], v)
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	fmt.Fprintf(w, "probed %s in %s, %d calls, median of %d rounds, kernel %s\n", opts.sym, opts.target,
		opts.calls, opts.rounds, strings.TrimSpace(string(kernel)))
	if multiErr != nil {
		fmt.Fprintf(w, "uprobe_multi modes skipped: %v\n", multiErr)
	}
	printTable(w, ms, ns)
	return nil
}

// measure attaches a mode's probes, runs the target once and detaches them.
func measure(ctx context.Context, ex *link.Executable, opts options, m mode, p *progs) (float64, error) {
	links, err := attach(ex, opts.sym, m, p)
	if err != nil {
		return 0, err
	}
	defer closeAll(links)
	return runTarget(ctx, opts.target, opts.sym, opts.calls)
}

func printTable(w io.Writer, ms []mode, ns [][]float64) {
	base := median(ns[0])
	fmt.Fprintf(w, "%-28s %12s %12s\n", "mode", "ns/call", "added ns")
	for i, m := range ms {
		v := median(ns[i])
		fmt.Fprintf(w, "%-28s %12.1f %12.1f\n", m.name, v, v-base)
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
