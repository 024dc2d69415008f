package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/trace"
)

// fixedIdentity stands in for /proc, which the rows' made-up PIDs are not in.
func fixedIdentity(r *live.Row) identity {
	return identity{command: r.Command, buildID: "ab12", cgroup: "/kubepods/pod" + r.Comm, podUID: "uid-" + r.Comm}
}

func newTestCollector() *Collector {
	c := NewCollector()
	c.identify = fixedIdentity
	return c
}

func streamRow(pid int, lost uint64) live.Row {
	return live.Row{PID: pid, Comm: "stream", Command: "stream --size 256K", CopyShare: 0.25, Pairs: 2, Lost: lost,
		Detail: live.Detail{PredictedSpeedup: 1.5},
		Totals: live.Totals{Copies: trace.PerDirection{H2D: 3, D2H: 2}, Bytes: trace.PerDirection{H2D: 3 << 20, D2H: 2 << 20},
			CopyNS: trace.PerDirection{H2D: 1_500_000_000}, Launches: 7}}
}

// A traced process's row becomes its counters and gauges, with its identity on each; the
// totals are what the counters say, not the interval's rates.
func TestCollectorRow(t *testing.T) {
	c := newTestCollector()
	c.Update([]live.Row{streamRow(42, 0)}, 0)
	// Labels in the order a scrape sorts them, direction among them.
	const pre, post = `build_id="ab12",comm="stream",container="/kubepods/podstream"`, `pid="42",pod_uid="uid-stream"`
	const labels = pre + "," + post
	want := `
# HELP echo_copy_bytes_total Bytes moved by successful copies since attaching.
# TYPE echo_copy_bytes_total counter
echo_copy_bytes_total{` + pre + `,direction="d2d",` + post + `} 0
echo_copy_bytes_total{` + pre + `,direction="d2h",` + post + `} 2.097152e+06
echo_copy_bytes_total{` + pre + `,direction="h2d",` + post + `} 3.145728e+06
echo_copy_bytes_total{` + pre + `,direction="h2h",` + post + `} 0
# HELP echo_copy_seconds_total Time spent inside successful copy calls since attaching, waiting for earlier GPU work included.
# TYPE echo_copy_seconds_total counter
echo_copy_seconds_total{` + pre + `,direction="d2d",` + post + `} 0
echo_copy_seconds_total{` + pre + `,direction="d2h",` + post + `} 0
echo_copy_seconds_total{` + pre + `,direction="h2d",` + post + `} 1.5
echo_copy_seconds_total{` + pre + `,direction="h2h",` + post + `} 0
# HELP echo_copy_share_ratio Share of wall time with a copy moving data over the last interval, not waiting for kernels (attach's COPY%).
# TYPE echo_copy_share_ratio gauge
echo_copy_share_ratio{` + labels + `} 0.25
# HELP echo_kernel_launches_total Kernel launches, runtime and driver, since attaching.
# TYPE echo_kernel_launches_total counter
echo_kernel_launches_total{` + labels + `} 7
# HELP echo_candidate_pairs Host/device buffer pairs the live planner finds in the recent calls.
# TYPE echo_candidate_pairs gauge
echo_candidate_pairs{` + labels + `} 2
# HELP echo_predicted_speedup_ratio The live plan's predicted speed-up (1 without pairs).
# TYPE echo_predicted_speedup_ratio gauge
echo_predicted_speedup_ratio{` + labels + `} 1.5
`
	names := []string{"echo_copy_bytes_total", "echo_copy_seconds_total", "echo_copy_share_ratio",
		"echo_kernel_launches_total", "echo_candidate_pairs", "echo_predicted_speedup_ratio"}
	// A pedantic registry checks the metrics against what Describe announced, and sorts
	// their labels as a scrape sees them.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

// Only the processes of the last sample have series: one that exited leaves, and one that
// could not be traced has echo_process_traced 0 and no figures.
func TestCollectorBoundedToLastSample(t *testing.T) {
	c := newTestCollector()
	failed := live.Row{PID: 9, Comm: "other", Command: "other", Error: "not a CUDA process"}
	c.Update([]live.Row{streamRow(42, 0), streamRow(43, 0), failed}, 0)
	if n := testutil.CollectAndCount(c, "echo_copy_bytes_total"); n != 8 {
		t.Errorf("%d echo_copy_bytes_total series for two traced processes, want 8", n)
	}
	if n := testutil.CollectAndCount(c, "echo_process_traced"); n != 3 {
		t.Errorf("%d echo_process_traced series, want 3", n)
	}
	c.Update([]live.Row{streamRow(43, 0)}, 0)
	if n := testutil.CollectAndCount(c, "echo_copy_bytes_total"); n != 4 {
		t.Errorf("%d echo_copy_bytes_total series after one process left, want 4", n)
	}
	if n, w := testutil.CollectAndCount(c), 4*3+5+2; n != w { // 3 metrics by direction, 5 without, 2 per node
		t.Errorf("%d series after one process left, want %d", n, w)
	}
	if len(c.ids) != 1 {
		t.Errorf("identities kept for %d processes after the others left, want 1", len(c.ids))
	}
}

// A process attached without --launches has no launch counter: its launches were not
// probed, and a counter at 0 would say none came.
func TestCollectorLaunchesNotTraced(t *testing.T) {
	c := newTestCollector()
	untraced := streamRow(43, 0)
	untraced.NoLaunches, untraced.Totals.Launches = true, 0
	c.Update([]live.Row{streamRow(42, 0), untraced}, 0)
	if n := testutil.CollectAndCount(c, "echo_kernel_launches_total"); n != 1 {
		t.Errorf("%d echo_kernel_launches_total series, want 1 (the process whose launches were probed)", n)
	}
	if n := testutil.CollectAndCount(c, "echo_copy_share_ratio"); n != 2 {
		t.Errorf("%d echo_copy_share_ratio series, want 2", n)
	}
}

// The node's lost events are the tracer's, whatever the rows say, and never go down.
func TestCollectorNodeLost(t *testing.T) {
	c := newTestCollector()
	for i, s := range []struct{ lost, want float64 }{{6, 6}, {9, 9}, {9, 9}, {7, 9}} {
		c.Update([]live.Row{streamRow(42, 99), streamRow(43, 99)}, uint64(s.lost))
		if got := testutil.ToFloat64(nodeOnly{c, descNodeLost}); got != s.want {
			t.Errorf("step %d: echo_node_lost_events_total %v, want %v", i, got, s.want)
		}
	}
}

// A PID whose command changed is read again: another process, or one that exec'd.
func TestCollectorReadsIdentityPerProcess(t *testing.T) {
	c := newTestCollector()
	reads := 0
	c.identify = func(r *live.Row) identity { reads++; return fixedIdentity(r) }
	a := streamRow(42, 0)
	c.Update([]live.Row{a}, 0)
	c.Update([]live.Row{a}, 0)
	b := a
	b.Command = "stream --size 64K"
	c.Update([]live.Row{b}, 0)
	if reads != 2 {
		t.Errorf("identity read %d times for one process sampled twice and another under its PID, want 2", reads)
	}
}

// nodeOnly collects one of the node's metrics from a collector.
type nodeOnly struct {
	c    *Collector
	desc *prometheus.Desc
}

func (n nodeOnly) Describe(ch chan<- *prometheus.Desc) { ch <- n.desc }

func (n nodeOnly) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() { n.c.Collect(all); close(all) }()
	for m := range all {
		if m.Desc() == n.desc {
			ch <- m
		}
	}
}
