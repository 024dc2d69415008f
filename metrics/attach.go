package metrics

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/echo-uma/echo/live"
)

// Attach is `echoctl attach --metrics ADDR`: the processes opts names (or every CUDA one)
// traced live, and their samples served to Prometheus on addr every interval until ctx
// ends. The port is opened first, so that one in use fails at once, and announced on stderr
// once the processes are attached: port 0 picks a free one, and a script reads which from
// that line.
func Attach(ctx context.Context, addr string, interval time.Duration, opts live.Options, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for scrapes on %s: %w", addr, err)
	}
	defer ln.Close()
	s, err := live.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(stderr, "serving metrics on http://%s/metrics\n", ln.Addr())
	return Serve(ctx, ln, Options{Interval: interval, Sample: s.Sample, Lost: s.Lost})
}
