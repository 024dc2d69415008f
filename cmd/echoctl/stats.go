package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/statsview"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// statsOptions are the flags of `echoctl stats`.
type statsOptions struct {
	global *globalOptions
	top    int // copy sites to list; 0: all
}

func newStatsCmd(global *globalOptions) *cobra.Command {
	opts := &statsOptions{global: global}
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "Summarize a trace: calls per API, bytes and time per copy direction, lost events",
		Long: `stats reads a trace written by 'echoctl trace' and prints the calls per API, the bytes
moved and the time spent in copies per direction (cudaMemcpyDefault copies under the
direction their pointers give), the share of wall time inside copy calls, the busiest
copy sites as module+offset (with the function and source line where the module on
disk still is the traced one and has symbols), and the events the ring buffer lost.

A trace that was cut short or damaged is summarized as far as it is readable, and the
command then fails saying where and why.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(cmd.OutOrStdout(), args[0], opts)
		},
	}
	cmd.Flags().IntVar(&opts.top, "top", 10, "number of copy sites to list (0 lists all)")
	return cmd
}

func runStats(out io.Writer, path string, opts *statsOptions) error {
	if opts.top < 0 {
		return fmt.Errorf("--top %d: give 0 (all sites) or more", opts.top)
	}
	tf, err := trace.Open(path)
	if err != nil {
		return err
	}
	defer tf.Close()
	r := tf.Reader
	st, readErr := trace.SummarizeEstimating(r, planner.NewTransferTimer(r.Header()))
	if opts.top > 0 && len(st.TopSites) > opts.top {
		st.TopSites = st.TopSites[:opts.top]
	}
	pipeline.NameCopySites(symbols.NewResolver(), st.TopSites)
	if opts.global.json {
		doc := struct {
			Schema string `json:"schema"`
			*trace.Stats
		}{schemaStats, st}
		if err := printJSON(out, doc); err != nil {
			return fmt.Errorf("writing statistics: %w", err)
		}
	} else {
		statsview.Print(out, path, r, st, readErr)
	}
	if readErr != nil {
		return fmt.Errorf("reading %s: %w", path, readErr)
	}
	return nil
}
