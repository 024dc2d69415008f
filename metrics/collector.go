// Package metrics serves what `echoctl attach` samples as Prometheus metrics (the text
// format, and OpenMetrics to a scraper that asks for it): per watched process its copies,
// launches and pairs, labelled with who the process is; per node the events lost and the
// tracer's own cost. docs/metrics.md lists every metric.
package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/trace"
)

// processLabels name a watched process on every per-process metric: the PID and command
// name, the executable's build-id, its control group (the container), and the Kubernetes
// pod's UID where the control group is a pod's.
var processLabels = []string{"pid", "comm", "build_id", "container", "pod_uid"}

func processDesc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append(append([]string(nil), processLabels...), extra...), nil)
}

var (
	descCopies   = processDesc("echo_copies_total", "Successful host/device copy calls since attaching.", "direction")
	descBytes    = processDesc("echo_copy_bytes_total", "Bytes moved by successful copies since attaching.", "direction")
	descCopySecs = processDesc("echo_copy_seconds_total", "Time spent inside successful copy calls since attaching, waiting for earlier GPU work included.", "direction")
	descShare    = processDesc("echo_copy_share_ratio", "Share of wall time with a copy moving data over the last interval, not waiting for kernels (attach's COPY%).")
	descLaunches = processDesc("echo_kernel_launches_total", "Kernel launches, runtime and driver, since attaching.")
	descPairs    = processDesc("echo_candidate_pairs", "Host/device buffer pairs the live planner finds in the recent calls.")
	descSpeedup  = processDesc("echo_predicted_speedup_ratio", "The live plan's predicted speed-up (1 without pairs).")
	descTraced   = processDesc("echo_process_traced", "1 while the process is traced, 0 while it lives but could not be traced (attach says why).")

	descNodeLost    = prometheus.NewDesc("echo_node_lost_events_total", "Events the tracer's ring buffer had no room for since echoctl started, every watched process together (whose they were cannot be told).", nil, nil)
	descNodeWatched = prometheus.NewDesc("echo_watched_processes", "Processes watched now, traced or not.", nil, nil)
)

// Collector holds the last sample's rows and turns them into metrics at each scrape, so a
// process that exited (and left the sample) leaves the metrics with it: nothing is kept
// per process past its last row.
type Collector struct {
	identify func(r *live.Row) identity

	mu       sync.Mutex
	rows     []live.Row
	ids      map[int]identity // per PID, read once per process
	nodeLost uint64           // the tracer's, since it started
}

// NewCollector returns a collector with no rows; Update gives it some.
func NewCollector() *Collector {
	return &Collector{identify: identify, ids: map[int]identity{}}
}

// Update replaces the rows with a new sample's, and the node's lost events with the
// tracer's count (live.Sampler.Lost: one ring buffer serves every process).
func (c *Collector) Update(rows []live.Row, nodeLost uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := make(map[int]bool, len(rows))
	for i := range rows {
		r := &rows[i]
		seen[r.PID] = true
		// A PID whose command changed is another process under a reused PID, or one that
		// exec'd: who it is is read again.
		if id, ok := c.ids[r.PID]; !ok || id.command != r.Command {
			c.ids[r.PID] = c.identify(r)
		}
	}
	for pid := range c.ids {
		if !seen[pid] {
			delete(c.ids, pid)
		}
	}
	c.rows, c.nodeLost = rows, max(c.nodeLost, nodeLost) // a counter: never down
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCopies, descBytes, descCopySecs, descShare, descLaunches,
		descPairs, descSpeedup, descTraced, descNodeLost, descNodeWatched} {
		ch <- d
	}
}

// Collect sends the metrics of the last sample's rows and the node's.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.rows {
		r := &c.rows[i]
		collectRow(ch, r, c.ids[r.PID].labels(r))
	}
	ch <- prometheus.MustNewConstMetric(descNodeLost, prometheus.CounterValue, float64(c.nodeLost))
	ch <- prometheus.MustNewConstMetric(descNodeWatched, prometheus.GaugeValue, float64(len(c.rows)))
}

// collectRow sends one process's metrics; a process that could not be traced has only
// echo_process_traced, at 0.
func collectRow(ch chan<- prometheus.Metric, r *live.Row, labels []string) {
	metric := func(d *prometheus.Desc, t prometheus.ValueType, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, append(labels, extra...)...)
	}
	if r.Error != "" {
		metric(descTraced, prometheus.GaugeValue, 0)
		return
	}
	metric(descTraced, prometheus.GaugeValue, 1)
	t := &r.Totals
	for _, kind := range []uint32{trace.KindHostToDevice, trace.KindDeviceToHost, trace.KindDeviceToDevice, trace.KindHostToHost} {
		dir := trace.Direction(kind)
		metric(descCopies, prometheus.CounterValue, float64(t.Copies.Get(kind)), dir)
		metric(descBytes, prometheus.CounterValue, float64(t.Bytes.Get(kind)), dir)
		metric(descCopySecs, prometheus.CounterValue, float64(t.CopyNS.Get(kind))/1e9, dir)
	}
	metric(descShare, prometheus.GaugeValue, r.CopyShare)
	if !r.NoLaunches { // not probed: a counter at 0 would say none came
		metric(descLaunches, prometheus.CounterValue, float64(t.Launches))
	}
	metric(descPairs, prometheus.GaugeValue, float64(r.Pairs))
	metric(descSpeedup, prometheus.GaugeValue, r.Detail.PredictedSpeedup)
}
