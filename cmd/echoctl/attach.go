package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/live"
	"github.com/echo-uma/echo/metrics"
	"github.com/echo-uma/echo/tracer"
	"github.com/echo-uma/echo/view"
)

// attachOptions are the flags of `echoctl attach`.
type attachOptions struct {
	global     *globalOptions
	pids       []int
	interval   time.Duration
	once       bool
	hostAllocs bool
	launches   bool
	metrics    string // serve Prometheus metrics on this address instead of showing rows
}

func newAttachCmd(global *globalOptions) *cobra.Command {
	o := &attachOptions{global: global}
	cmd := &cobra.Command{
		Use:   "attach [-p PID]... [--interval D] [--once] [--json] [--metrics ADDR]",
		Short: "Live view of the copy share of running CUDA processes",
		Long: `attach traces running processes without restarting them and shows, per process and
refreshed every interval: copies and bytes per second host-to-device and device-to-host,
the share of wall time spent inside copy calls, kernel launches per second, the buffer
pairs a live run of the planner finds, and events lost.

Without -p it watches every process that maps a CUDA runtime or driver library, and
picks up new ones as they start. In a terminal the view is interactive (s: sort, r:
reverse, /: filter, enter: details with the 'echoctl optimize' command to try, q: quit);
otherwise it prints a table every interval until interrupted. --once samples one
interval, prints the rows (as JSON with --json) and exits. --metrics ADDR shows nothing
and serves the same figures, as counters since attaching, to Prometheus on
http://ADDR/metrics, labelled with each process's PID, command name, build-id and control
group (docs/metrics.md).

A process whose runtime is linked statically into its executable is found only with -p.
Pairs found by attaching are identified by pointers: optimize the program from its start
to get a plan that can be deployed. Needs root, or CAP_BPF and CAP_PERFMON (and
CAP_SYS_PTRACE for other users' processes): see echoctl check.

It exits non-zero, saying why, when it could attach to none of the processes it was given
(-p) or, with --once, found; finding no CUDA process at all is not an error (--once prints
no rows and exits 0).`,
		Example: `  sudo echoctl attach
  sudo echoctl attach -p 4242 --interval 2s
  sudo echoctl attach --once --json | jq '.processes[] | {pid, comm, copy_share}'
  sudo echoctl attach --metrics :9464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAttach(cmd, o) },
	}
	f := cmd.Flags()
	f.IntSliceVarP(&o.pids, "pid", "p", nil, "trace these processes only (repeat or separate with commas)")
	f.DurationVar(&o.interval, "interval", time.Second, "how often rows are refreshed; with --once, how long to sample")
	f.BoolVar(&o.once, "once", false, "sample one interval, print the rows and exit")
	f.StringVar(&o.metrics, "metrics", "", "run headless and serve Prometheus metrics on http://`ADDR`/metrics (:9464, 127.0.0.1:9464; port 0 picks one)")
	f.BoolVar(&o.hostAllocs, "host-allocs", false, "also probe malloc & co. (their probes cost the most; attached traces pair buffers from the copies alone)")
	f.BoolVar(&o.launches, "launches", false, "also probe kernel launches (the launches column; dozens per step in inference loops, at ~1 µs each)")
	return cmd
}

func runAttach(cmd *cobra.Command, o *attachOptions) error {
	if o.interval < 100*time.Millisecond {
		return fmt.Errorf("--interval %v: give 100ms or more", o.interval)
	}
	opts := live.Options{PIDs: o.pids, Interval: o.interval, Version: version}
	opts.Config.HostAllocs, opts.Config.MinHostBytes, opts.Config.Launches = o.hostAllocs, tracer.DefaultMinHostBytes, o.launches
	if o.metrics != "" {
		if o.once {
			return errors.New("--metrics serves until interrupted: leave out --once")
		}
		return metrics.Attach(cmd.Context(), o.metrics, o.interval, opts, cmd.ErrOrStderr())
	}
	out := cmd.OutOrStdout()
	if o.once {
		rows, err := live.Once(cmd.Context(), opts)
		if err != nil {
			return err
		}
		return printRows(out, rows, o.global.json)
	}
	s, err := live.Start(cmd.Context(), opts)
	if err != nil {
		return err
	}
	defer s.Close()
	if isTerminal(out) && !o.global.json {
		return view.Run(cmd.Context(), s.Sample, o.interval, "echoctl attach")
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for {
		select {
		case <-cmd.Context().Done():
			return nil
		case <-tick.C:
			if err := printRows(out, s.Sample(), o.global.json); err != nil {
				return err
			}
		}
	}
}

// attachDoc is one sample of `attach --json`.
type attachDoc struct {
	Schema    string     `json:"schema"`
	Time      time.Time  `json:"time"` // when the sample was taken
	Processes []live.Row `json:"processes"`
}

func isTerminal(w io.Writer) bool {
	f, ok := stdoutFile(w).(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// printRows prints one sample: a JSON document on one line (JSON Lines when repeated), or
// a plain table.
func printRows(w io.Writer, rows []live.Row, asJSON bool) error {
	if rows == nil {
		rows = []live.Row{}
	}
	if asJSON {
		return json.NewEncoder(w).Encode(attachDoc{Schema: schemaAttach, Time: time.Now().UTC(), Processes: rows})
	}
	return view.WriteRows(w, rows)
}
