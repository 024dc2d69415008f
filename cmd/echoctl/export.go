package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/export"
	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// exportOptions are the flags of `echoctl export`.
type exportOptions struct {
	global *globalOptions
	format string
	output string // "": the trace's path + ".json"; "-": stdout
	plan   string // plan whose pairs to highlight; "": none
}

func newExportCmd(global *globalOptions) *cobra.Command {
	opts := &exportOptions{global: global}
	formats := make([]string, 0, 1)
	for _, f := range export.Formats() {
		formats = append(formats, string(f))
	}
	cmd := &cobra.Command{
		Use:   "export TRACE",
		Short: "Convert a trace into a timeline for ui.perfetto.dev and chrome://tracing",
		Long: `export converts a trace written by 'echoctl trace' into Chrome trace-event JSON: one
track per traced thread, every API call as a slice (copies named with their direction and
size, launches with the kernel's address), allocations and frees as instant marks, and
libraries loaded later as marks on their process. With --plan, the copies at the sites of
the plan's pairs carry the pair and its status in their name (and a colour in
chrome://tracing), and the plan's pairs are summarized in the trace's metadata.

To look at the result, open https://ui.perfetto.dev and choose "Open trace file" (or drop
the file on the page), or open chrome://tracing in Chrome and press "Load". The file
stays on your machine: the Perfetto UI reads it in the browser. Without network, 'echoctl
report' is the timeline viewer: it writes one HTML page, which loads nothing, with one
iteration of the loop per stream before and after the plan ('echoctl plan TRACE', then
'echoctl report TRACE.plan'; export prints the commands).

The conversion streams in constant memory, so traces of any size convert. A trace that
was cut short or damaged is converted as far as it is readable into a file that still
opens, and the command then fails saying where and why. export/README.md describes the
tracks, slices and colours.`,
		Example: `  echoctl export app.bin                       # writes app.bin.json
  echoctl export app.bin --plan app.bin.plan -o app.json
  echoctl export app.bin -o - | gzip > app.json.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.OutOrStdout(), args[0], opts)
		},
	}
	cmd.Flags().StringVar(&opts.format, "format", string(export.FormatPerfetto),
		"output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", `file to write (default TRACE.json; "-" writes to stdout)`)
	cmd.Flags().StringVar(&opts.plan, "plan", "", "plan file (from 'echoctl plan') whose pairs' copies to highlight")
	return cmd
}

func runExport(stdout io.Writer, tracePath string, opts *exportOptions) error {
	format, err := export.ParseFormat(opts.format)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	var xopts export.Options
	if opts.plan != "" {
		if xopts.Plan, err = plan.ReadFile(opts.plan); err != nil {
			return err // ReadFile names the plan
		}
		xopts.PlanPath = opts.plan
	}
	tf, err := trace.Open(tracePath)
	if err != nil {
		return err
	}
	defer tf.Close()
	r := tf.Reader

	outPath := opts.output
	if outPath == "" {
		outPath = tracePath + ".json"
	}
	if err := oneStdout(outPath, opts.global.json, "timeline"); err != nil {
		return err
	}
	sum, err := pipeline.ExportTrace(stdout, r, format, xopts, tracePath, opts.plan, outPath)
	if err != nil {
		return err
	}
	if outPath == outfile.Stdout {
		return nil
	}
	if opts.global.json {
		return printJSON(stdout, exportDoc{Schema: schemaExport, Output: outPath, Format: string(format),
			Events: sum.Events, Threads: sum.Threads, Processes: sum.Processes, Plan: opts.plan,
			Highlighted: sum.Highlighted})
	}
	_, err = fmt.Fprintf(stdout, "wrote %s: %d events on %d %s in %d %s%s\nopen it at https://ui.perfetto.dev (Open trace file) or in chrome://tracing (Load)\n%s\n",
		outPath, sum.Events, sum.Threads, texttable.Plural(sum.Threads, "thread", "threads"),
		sum.Processes, texttable.Plural(sum.Processes, "process", "processes"), highlighted(xopts.Plan, sum),
		offlineViewer(tracePath, opts.plan))
	return err
}

// offlineViewer names the timeline that needs no network: report's HTML page (one
// iteration per stream, before and after the plan), made from the plan, or from the plan
// that `echoctl plan` writes beside the trace when export was given none.
func offlineViewer(tracePath, planPath string) string {
	const what = "offline, a timeline of one iteration per stream as one HTML page that loads nothing: "
	if planPath != "" {
		return what + "echoctl report " + shell.Quote(planPath) + " --trace " + shell.Quote(tracePath)
	}
	return what + "echoctl plan " + shell.Quote(tracePath) + " && echoctl report " + shell.Quote(tracePath+".plan")
}

// exportDoc is export's --json document: what was written.
type exportDoc struct {
	Schema      string `json:"schema"`
	Output      string `json:"output"`
	Format      string `json:"format"`
	Events      uint64 `json:"events"`
	Threads     int    `json:"threads"`
	Processes   int    `json:"processes"`
	Plan        string `json:"plan,omitempty"`
	Highlighted uint64 `json:"highlighted"` // copies at the plan's pair sites
}

// highlighted says how many copies the plan marked, when there is a plan.
func highlighted(p *plan.Plan, sum export.Summary) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf(", %d %s at the plan's pair sites", sum.Highlighted, texttable.Plural(int(sum.Highlighted), "copy", "copies"))
}
