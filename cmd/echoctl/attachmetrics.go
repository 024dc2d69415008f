package main

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/metrics"
)

// runAttachMetrics is `attach --metrics ADDR`: no view and no table, the samples served to
// Prometheus until interrupted. The port is opened first, so that one in use fails at once,
// and announced on stderr once the processes are attached: port 0 picks a free one, and a
// script reads which from that line.
func runAttachMetrics(cmd *cobra.Command, o *attachOptions, opts live.Options) error {
	ln, err := net.Listen("tcp", o.metrics)
	if err != nil {
		return fmt.Errorf("listening for scrapes on %s: %w", o.metrics, err)
	}
	defer ln.Close()
	s, err := live.Start(cmd.Context(), opts)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(cmd.ErrOrStderr(), "serving metrics on http://%s/metrics\n", ln.Addr())
	return metrics.Serve(cmd.Context(), ln, metrics.Options{Interval: o.interval, Sample: s.Sample, Lost: s.Lost})
}
