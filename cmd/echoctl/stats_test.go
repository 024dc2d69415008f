package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/trace"
)

// writeTrace writes a trace file of events into a fresh directory; a nil footer leaves it
// cut short.
func writeTrace(t *testing.T, h trace.Header, footer *trace.Footer, events ...trace.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.bin")
	testenv.WriteTrace(t, path, h, footer, events...)
	return path
}

func TestStatsCommand(t *testing.T) {
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	exe := trace.Module{Path: "/opt/app/stream", BuildID: "ab", Start: 0x400000, End: 0x500000, Base: 0x400000}
	header := trace.Header{Host: "gpu01", Start: start, StartMonoNS: 1_000_000, PID: 4242,
		Command: []string{"./stream", "--label", "two words"}, Modules: []trace.Module{exe}}
	copyAt := func(typ trace.EventType, kind uint32, caller uint64, bytes, enter, exit uint64) trace.Event {
		return trace.Event{Type: typ, PID: 4242, TID: 4242, Kind: kind, Bytes: bytes, Caller: caller,
			EnterNS: enter, ExitNS: exit}
	}
	events := []trace.Event{
		{Type: trace.EventCUDAMalloc, PID: 4242, TID: 4242, Addr: 0x7000_0000, Bytes: 4 << 20, EnterNS: 1_000_000, ExitNS: 1_100_000},
		copyAt(trace.EventCUDAMemcpy, trace.KindHostToDevice, 0x401000, 4<<20, 1_200_000, 1_500_000),
		{Type: trace.EventCUDALaunchKernel, PID: 4242, TID: 4243, EnterNS: 1_500_000, ExitNS: 1_510_000},
		copyAt(trace.EventCUDAMemcpy, trace.KindDeviceToHost, 0x402000, 4<<20, 1_600_000, 1_700_000),
		copyAt(trace.EventCUDAMemcpy, trace.KindHostToDevice, 0x401000, 4<<20, 1_800_000, 2_000_000),
	}
	clean := &trace.Footer{End: start.Add(time.Second), EndMonoNS: 1_001_000_000, Complete: true}
	lossy := &trace.Footer{End: start.Add(time.Second), EndMonoNS: 1_001_000_000, Complete: true, Lost: []uint64{0, 40, 2}}
	attached := header
	attached.Attached = true
	noLaunches := header
	noLaunches.NoLaunches = true
	escapes := header
	escapes.Command = []string{"./stream", "--label", "\x1b]0;owned\a\x1b[2J"}

	tests := []struct {
		name    string
		args    func(path string) []string
		path    string
		wantErr string   // "" for success
		want    []string // in the output
		notWant []string
	}{
		{
			name: "human",
			args: func(p string) []string { return []string{"stats", p} },
			path: writeTrace(t, header, clean, events...),
			want: []string{
				`./stream --label 'two words' (pid 4242) on gpu01, started 2026-11-29 10:00:00 UTC, ran 1s, 5 events`,
				"cudaMemcpy        3\n", "cudaLaunchKernel  1\n",
				"h2d     2      8.0 MiB  500µs", "d2h     1      4.0 MiB  100µs", "d2d     0      0 B      0s",
				"copy share: 60.0% of 1ms wall time inside copy calls",
				"threads: 2 in 1 process\n",
				"stream+0x1000   cudaMemcpy  h2d  2      8.0 MiB  500µs",
				"stream+0x2000   cudaMemcpy  d2h  1      4.0 MiB  100µs",
			},
			notWant: []string{"WARNING", "note:", "not traced"},
		},
		{
			name:    "launches not traced",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeTrace(t, noLaunches, clean, slices.Delete(slices.Clone(events), 2, 3)...),
			want:    []string{"kernel launches: not traced (trace with --launches to count them)"},
			notWant: []string{"cudaLaunchKernel"},
		},
		{
			name: "launches not traced, json",
			args: func(p string) []string { return []string{"stats", "--json", p} },
			path: writeTrace(t, noLaunches, clean, slices.Delete(slices.Clone(events), 2, 3)...),
			want: []string{`"no_launches": true`},
		},
		{
			name:    "lost events",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeTrace(t, header, lossy, events...),
			want:    []string{"WARNING: 42 EVENTS LOST (the ring buffer was full, on 2 of 3 CPUs)", "--ring-size"},
			notWant: []string{"incomplete"},
		},
		{
			name:    "lost events past 2^64",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeTrace(t, header, &trace.Footer{Complete: true, Lost: []uint64{math.MaxUint64, 5}}, events...),
			want:    []string{"WARNING: 18446744073709551615 EVENTS LOST (the ring buffer was full, on 2 of 2 CPUs)"},
			notWant: []string{" 4 EVENTS LOST"},
		},
		{
			name:    "escape codes in the command line",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeTrace(t, escapes, clean, events...),
			want:    []string{`./stream --label $'\x1b]0;owned\x07\x1b[2J' (pid 4242)`},
			notWant: []string{"\x1b", "\a"},
		},
		{
			name: "top",
			args: func(p string) []string { return []string{"stats", "--top", "1", p} },
			path: writeTrace(t, header, clean, events...),
			want: []string{"stream+0x1000"}, notWant: []string{"stream+0x2000"},
		},
		{
			name: "attached",
			args: func(p string) []string { return []string{"stats", p} },
			path: writeTrace(t, attached, clean, events...),
			want: []string{"note: attached to a running process"},
		},
		{
			name: "tracer stopped on an error",
			args: func(p string) []string { return []string{"stats", p} },
			path: writeTrace(t, header, &trace.Footer{}, events...),
			want: []string{"WARNING: the tracer did not stop cleanly"},
		},
		{
			name:    "cut short",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeTrace(t, header, nil, events[:3]...),
			wantErr: "no footer: the trace was cut short",
			want: []string{"3 events", "WARNING: the trace is incomplete (trace corrupt at byte ",
				"cudaMemcpy        1\n", "h2d     1      4.0 MiB  300µs"},
		},
		{
			name:    "cut short, json",
			args:    func(p string) []string { return []string{"stats", "--json", p} },
			path:    writeTrace(t, header, nil, events[:3]...),
			wantErr: "no footer: the trace was cut short",
			want:    []string{`"complete": false`, `"cudaMemcpy": 1`},
		},
		{
			name:    "missing file",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    filepath.Join(t.TempDir(), "nope.bin"),
			wantErr: "nope.bin: no such file or directory",
		},
		{
			name:    "not a trace",
			args:    func(p string) []string { return []string{"stats", p} },
			path:    writeFile(t, "hello"),
			wantErr: "not an Echo trace (bad magic)",
		},
		{
			name:    "no file",
			args:    func(string) []string { return []string{"stats"} },
			wantErr: "accepts 1 arg(s), received 0",
		},
		{
			name:    "negative top",
			args:    func(p string) []string { return []string{"stats", "--top", "-1", p} },
			path:    writeTrace(t, header, clean, events...),
			wantErr: "--top -1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := execute(t, tt.args(tt.path)...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\n%s", err, out)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if strings.HasPrefix(tt.name, "missing") && !strings.HasPrefix(err.Error(), "opening ") ||
				strings.HasPrefix(tt.name, "not a trace") && !strings.HasPrefix(err.Error(), "reading ") {
				t.Errorf("error %q does not say what was being done", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestStatsJSON(t *testing.T) {
	path := writeTrace(t, trace.Header{}, &trace.Footer{Lost: []uint64{3, 4}, Complete: true},
		trace.Event{Type: trace.EventCUDAMemcpyAsync, PID: 1, TID: 2, Kind: trace.KindDeviceToHost, Bytes: 4096, EnterNS: 10, ExitNS: 30},
		trace.Event{Type: trace.EventCUMemcpyHtoD, PID: 1, TID: 3, Bytes: 512, EnterNS: 40, ExitNS: 50},
		trace.Event{Type: trace.EventFree, PID: 1, TID: 2, EnterNS: 60, ExitNS: 110})
	out, err := execute(t, "stats", "--json", path)
	if err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	var got struct {
		Calls     map[string]uint64 `json:"calls"`
		Bytes     map[string]uint64 `json:"bytes"`
		CopyNS    map[string]uint64 `json:"copy_ns"`
		Lost      uint64            `json:"lost"`
		PerCPU    []uint64          `json:"lost_per_cpu"`
		Threads   int               `json:"threads"`
		WallNS    uint64            `json:"wall_ns"`
		CopyShare float64           `json:"copy_share"`
		TopSites  []map[string]any  `json:"top_sites"`
		Complete  bool              `json:"complete"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := map[string]uint64{"h2d": 512, "d2h": 4096, "d2d": 0, "h2h": 0}
	switch {
	case got.Calls["cudaMemcpyAsync"] != 1 || got.Calls["cuMemcpyHtoD_v2"] != 1 || got.Calls["free"] != 1 || len(got.Calls) != 3:
		t.Errorf("calls %v", got.Calls)
	case len(got.Bytes) != 4 || got.Bytes["h2d"] != want["h2d"] || got.Bytes["d2h"] != want["d2h"]:
		t.Errorf("bytes %v, want %v", got.Bytes, want)
	case got.CopyNS["d2h"] != 20 || got.CopyNS["h2d"] != 10:
		t.Errorf("copy_ns %v", got.CopyNS)
	case got.Lost != 7 || len(got.PerCPU) != 2 || got.Threads != 2 || got.WallNS != 100 || got.CopyShare != 0.3:
		t.Errorf("lost %d %v, threads %d, wall %d, share %v", got.Lost, got.PerCPU, got.Threads, got.WallNS, got.CopyShare)
	case len(got.TopSites) != 2 || got.TopSites[0]["site"] != "0x0" || !got.Complete:
		t.Errorf("top_sites %v, complete %v", got.TopSites, got.Complete)
	}
}

func TestHumanUnits(t *testing.T) {
	durTests := map[time.Duration]string{0: "0s", 789: "789ns", 12345: "12.35µs", 1234567: "1.23ms", 1234567891: "1.23s", 90 * time.Second: "1m30s"}
	for d, want := range durTests {
		if got := texttable.FormatDuration(d); got != want {
			t.Errorf("texttable.FormatDuration(%d) = %q, want %q", d, got, want)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Through the real CLI: a trace made as by default probes no launch, and stats says so
// instead of counting none; with --launches it counts them.
func TestStatsLaunchesNotTraced(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--", testenv.Built(t, "workloads/stream"), "--size", "64K", "--iters", "2", "--warmup", "0"}
	for _, c := range []struct {
		flags         []string
		want, notWant string
	}{
		{nil, "kernel launches: not traced", "cudaLaunchKernel"},
		{[]string{"--launches"}, "cudaLaunchKernel", "not traced"},
	} {
		res, path := testenv.Trace(t, append(c.flags, args...)...)
		if res.ExitCode != 0 {
			t.Fatalf("echoctl trace %v: exit %d: %s", c.flags, res.ExitCode, res.Stderr)
		}
		out := testenv.Echoctl(t, nil, "stats", path)
		if !strings.Contains(out.Stdout, c.want) || strings.Contains(out.Stdout, c.notWant) {
			t.Errorf("trace %v, stats: want %q and not %q in:\n%s", c.flags, c.want, c.notWant, out.Stdout)
		}
	}
}
