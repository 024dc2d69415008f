package live_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/live"
)

// footprint is what watching costs this process: Go heap in use after a collection, the
// resident set, and the memory of its BPF maps (the ring buffer among them).
type footprint struct {
	heap, rss, bpf uint64
}

func measure(b *testing.B) footprint {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return footprint{heap: ms.HeapInuse, rss: statusKB(b, "VmRSS") << 10, bpf: bpfMapBytes()}
}

// statusKB reads a "kB" field of /proc/self/status.
func statusKB(b *testing.B, field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// bpfMapBytes adds up the memlock the kernel charges for this process's BPF maps, from the
// fdinfo of each map descriptor.
func bpfMapBytes() uint64 {
	fds, _ := filepath.Glob("/proc/self/fdinfo/*")
	var total uint64
	for _, fd := range fds {
		data, err := os.ReadFile(fd)
		if err != nil || !strings.Contains(string(data), "map_type:") {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "memlock:"); ok {
				n, _ := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
				total += n
			}
		}
	}
	return total
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startStreams starts n stream workloads of 4 KiB copies around an emulated kernel of
// kernelUS microseconds and returns their PIDs once each is in its loop.
func startStreams(b *testing.B, n, kernelUS int) []int {
	b.Helper()
	pids := make([]int, n)
	for i := range pids {
		cmd := exec.Command(testenv.Built(b, "workloads/stream"), "--size", "4K", "--iters", "100000000", "--warmup", "0")
		cmd.Env = append(os.Environ(), fmt.Sprintf("CUDA_EMU_KERNEL_DELAY_US=%d", kernelUS))
		pids[i] = testenv.StartInLoop(b, cmd).Process.Pid
	}
	return pids
}

// What watching more processes costs the one shared tracer: `attach -p` over N stream
// workloads (4 KiB copies around a 10 ms emulated kernel, a GPU-bound loop of about 100
// iterations a second), each iteration of the benchmark one interval of the view (Sample,
// then the replans it starts). Reported per N: the tracer's CPU as a share of one core, its
// Go heap, resident set and BPF map memory, the events it took and lost; the lines logged
// at the end give the cost of each process added from 1 to 100.
// Run by make bench: go test -run '^$' -bench SharedTracer -benchtime 5x -v ./live/
func BenchmarkSharedTracer(b *testing.B) {
	testenv.RequireRoot(b)
	type point struct {
		n    int
		mem  footprint
		core float64
	}
	var points []point
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			pids := startStreams(b, n, 10000)
			interval := time.Second
			s, err := live.Start(context.Background(), live.Options{PIDs: pids, Interval: interval})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			time.Sleep(interval)
			s.Sample() // the first interval holds the joins
			cpu0, wall0 := cpuTime(), time.Now()
			var events uint64
			var rows int
			for b.Loop() {
				time.Sleep(interval)
				for _, r := range s.Sample() {
					events += r.Events
					if r.Error == "" {
						rows++
					}
				}
			}
			core := float64(cpuTime()-cpu0) / float64(time.Since(wall0))
			mem := measure(b)
			if want := n * b.N; rows != want {
				b.Errorf("%d rows over %d intervals: want %d (one per process each interval)", rows, b.N, want)
			}
			b.ReportMetric(100*core, "%core")
			b.ReportMetric(float64(mem.heap)/1e6, "heap-MB")
			b.ReportMetric(float64(mem.rss)/1e6, "rss-MB")
			b.ReportMetric(float64(mem.bpf)/1e6, "bpf-MB")
			b.ReportMetric(float64(events)/time.Since(wall0).Seconds(), "events/s")
			b.ReportMetric(float64(s.Lost()), "lost")
			b.ReportMetric(0, "ns/op") // an interval: its length says nothing
			points = append(points, point{n, mem, core})
		})
	}
	if len(points) == 3 {
		first, last := points[0], points[2]
		d := float64(last.n - first.n)
		b.Logf("per process added from %d to %d: %.1f%% of a core, heap %.2f MB, rss %.2f MB, bpf maps %.2f MB",
			first.n, last.n, 100*(last.core-first.core)/d, (float64(last.mem.heap)-float64(first.mem.heap))/d/1e6,
			(float64(last.mem.rss)-float64(first.mem.rss))/d/1e6, (float64(last.mem.bpf)-float64(first.mem.bpf))/d/1e6)
	}
}

// The same cost once every process's window of recent events is full, as it is for any
// process watched for long: 1 and then 10 stream workloads looping about 500 times a second
// (a 2 ms emulated kernel), each sampled until the planner's window holds its default
// (live.Options.Window) events; the line logged gives what each process added.
func BenchmarkSharedTracerFullWindows(b *testing.B) {
	testenv.RequireRoot(b)
	window := live.DefaultWindow
	var full []footprint
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			pids := startStreams(b, n, 2000)
			s, err := live.Start(context.Background(), live.Options{PIDs: pids, Interval: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			seen := map[int]uint64{}
			filled := func() bool {
				for _, pid := range pids {
					if seen[pid] < uint64(window) {
						return false
					}
				}
				return true
			}
			for deadline := time.Now().Add(60 * time.Second); !filled(); time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					b.Fatalf("windows not full after a minute: %v events seen", seen)
				}
				for _, r := range s.Sample() {
					seen[r.PID] += r.Events
				}
			}
			for b.Loop() {
				time.Sleep(time.Second)
				s.Sample()
			}
			mem := measure(b)
			b.ReportMetric(float64(mem.heap)/1e6, "heap-MB")
			b.ReportMetric(float64(mem.rss)/1e6, "rss-MB")
			b.ReportMetric(float64(s.Lost()), "lost")
			b.ReportMetric(0, "ns/op")
			full = append(full, mem)
		})
	}
	if len(full) == 2 {
		b.Logf("per process added, windows full (%d events): heap %.2f MB, rss %.2f MB", window,
			(float64(full[1].heap)-float64(full[0].heap))/9/1e6, (float64(full[1].rss)-float64(full[0].rss))/9/1e6)
	}
}
