package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/planview"
	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/validate"
)

type validateOptions struct {
	*globalOptions
	output string
}

func newValidateCmd(g *globalOptions) *cobra.Command {
	o := &validateOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "validate PLAN -- CMD [ARGS...]",
		Short: "Run the program once more and refuse the pairs whose merge would change what it reads",
		Long: `Where the trace did not see a buffer allocated (host allocators are not traced by
default; an attached trace misses what came before), validate first runs CMD once with the
preload library noting, in-process, which allocation each linking copy's pointers start:
the pair gets that site, or is narrowed to the pinned strategy (a fresh buffer every
iteration, a block of a larger allocation), or refused (no allocation of its own). A pair
only pinned may serve is then validated: pinned keeps every copy and changes nothing the
program reads.

For the pairs a merge may serve, validate runs CMD as written, with separate buffers, while the preload library watches
each candidate pair's host buffer with page protection in the windows where merging would
change what the program reads or writes, in stream time (a window that work on some streams
keeps open closes once each of them was waited for: a stream or device synchronize, or an
event recorded after that work): a host write to an input while its device copy may
still be read (S1), a kernel updating an input's device copy in place, a host access to an
output between a kernel launch or device memset and the copy that brings its results, a host write to an
output after it was read. A pair with such an access is refused for merging, naming the
instruction (pinned may still serve it); a
pair whose linking copies were all watched without one becomes validated. The plan is
updated in place (or written to -o). Comparisons of the two pointers (S3) cannot be seen;
calibration's output comparison is the check left for them.`,
		Example: `  echoctl validate app.plan -- ./app --size 64M`,
		Args:    planAndCommand,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd, o, args[0], args[1:])
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", `write the validated plan here instead of over PLAN ("-": standard output, the program's own output then going to standard error)`)
	return cmd
}

func runValidate(cmd *cobra.Command, o *validateOptions, planPath string, argv []string) error {
	if err := oneStdout(o.output, o.json, "plan"); err != nil {
		return err
	}
	p, err := pipeline.LoadPlanFor(planPath, argv)
	if err != nil {
		return err
	}
	stdio := runner.IO{Stdin: cmd.InOrStdin(), Stdout: stdoutFile(cmd.OutOrStdout()), Stderr: cmd.ErrOrStderr()}
	if o.output == outfile.Stdout || o.json {
		stdio.Stdout = cmd.ErrOrStderr() // the plan or the JSON is on stdout: the program's output must not mix into it
	}
	res, err := validate.Run(cmd.Context(), p, argv, stdio)
	if err != nil {
		return err
	}

	validate.Apply(p, res.Report)
	out := o.output
	if out == "" {
		out = planPath
	}
	if err := writePlan(cmd, out, p); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	for _, pair := range p.Pairs {
		verdict := string(pair.Status)
		switch {
		case pair.Reason != "":
			verdict += ": " + pair.Reason
		case pair.MergeRefused != "":
			verdict += " for pinned alone, no merge: " + pair.MergeRefused
		}
		fmt.Fprintf(stderr, "validate: %s %-6s %s\n", pair.ID, pair.Direction, verdict)
	}
	fmt.Fprintf(stderr, "validate: wrote %s\n", out)
	if o.json {
		return printJSON(cmd.OutOrStdout(), planview.ValidateDoc{Schema: schemaValidate, Plan: out, Pairs: planview.Verdicts(p)})
	}
	return nil
}
