// Command bpfstats measures what each loaded BPF program costs per run: it turns on the
// kernel's run-time statistics (BPF_ENABLE_STATS), samples every program whose name has the
// given prefix until the duration ends or it is interrupted, and prints each program's runs
// and average nanoseconds a run, from the last sample before the program went away. It
// tells how much of a traced call's cost is Echo's BPF programs, against the uprobe traps'
// own (bench/trapcost.sh). Needs root.
//
//	bpfstats [-prefix NAME] [-for DURATION] &   # then trace something, e.g.:
//	echoctl trace -o /tmp/t -- build/workloads/stream --iters 2000
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

type sample struct {
	name string
	runs uint64
	time time.Duration
}

func main() {
	prefix := flag.String("prefix", "", "only programs whose name begins so (the kernel keeps 15 characters)")
	dur := flag.Duration("for", 30*time.Second, "how long to sample")
	every := flag.Duration("every", 50*time.Millisecond, "how often to sample")
	flag.Parse()
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bpfstats: enabling BPF run-time statistics:", err)
		os.Exit(1)
	}
	defer stats.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, unix.SIGTERM)
	seen := map[ebpf.ProgramID]sample{}
	tick := time.NewTicker(*every)
	defer tick.Stop()
	deadline := time.After(*dur)
	for done := false; !done; {
		sampleAll(*prefix, seen)
		select {
		case <-tick.C:
		case <-deadline:
			done = true
		case <-stop:
			done = true
		}
	}
	sampleAll(*prefix, seen)
	rows := make([]sample, 0, len(seen))
	for _, s := range seen {
		if s.runs > 0 {
			rows = append(rows, s)
		}
	}
	slices.SortFunc(rows, func(a, b sample) int { return cmp.Compare(b.runs, a.runs) })
	fmt.Printf("%-16s %12s %10s\n", "program", "runs", "ns/run")
	for _, s := range rows {
		fmt.Printf("%-16s %12d %10.1f\n", s.name, s.runs, float64(s.time.Nanoseconds())/float64(s.runs))
	}
}

// sampleAll records the statistics of every loaded program whose name has prefix.
func sampleAll(prefix string, seen map[ebpf.ProgramID]sample) {
	var id ebpf.ProgramID
	for {
		next, err := ebpf.ProgramGetNextID(id)
		if err != nil { // os.ErrNotExist after the last
			return
		}
		id = next
		p, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // gone meanwhile
		}
		info, ierr := p.Info()
		st, serr := p.Stats()
		p.Close()
		if ierr != nil || serr != nil || len(info.Name) < len(prefix) || info.Name[:len(prefix)] != prefix {
			continue
		}
		seen[id] = sample{info.Name, st.RunCount, st.Runtime}
	}
}
