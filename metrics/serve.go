package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/echo-uma/echo/live"
)

// Options say what to sample.
type Options struct {
	Interval time.Duration     // how often Sample is called
	Sample   func() []live.Row // the rows of the interval since the last call (live.Sampler.Sample)
	Lost     func() uint64     // the tracer's lost events since it started (live.Sampler.Lost)
}

// Serve serves /metrics on ln and samples every Interval until ctx ends. Scrapes read the
// last sample and never sample themselves: the rows' rates are per interval, and two
// scrapers must not shorten each other's intervals. The caller opens ln, so that a port in
// use is reported before any process is attached.
func Serve(ctx context.Context, ln net.Listener, o Options) error {
	c := NewCollector()
	reg := prometheus.NewRegistry()
	// The process collector gives the tracer's own cost on the node, read from /proc/self:
	// process_cpu_seconds_total, process_resident_memory_bytes and kin.
	reg.MustRegister(c, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return srv.Shutdown(shutdown)
		case err := <-served:
			if !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serving metrics on %s: %w", ln.Addr(), err)
			}
			return nil
		case <-tick.C:
			c.Update(o.Sample(), o.Lost())
		}
	}
}
