package main

import (
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// globalOptions are the flags every subcommand shares.
type globalOptions struct {
	verbose int  // -v: info, -vv: debug
	json    bool // machine-readable output, where a command supports it
}

func newRootCmd() *cobra.Command {
	opts := &globalOptions{}
	cmd := &cobra.Command{
		Use:   "echoctl",
		Short: "Find and remove redundant host↔device copies in GPU programs",
		Long: `echoctl traces an unmodified CUDA program, finds host/device buffer pairs linked
by full-buffer copies, and merges them at the next launch where that provably keeps the
program's output and measurably wins (unified-memory Jetson and Grace Hopper machines, and
pinned zero-copy buffers on discrete GPUs).

Pipeline: trace → stats → plan → validate → calibrate → run, or trace to calibrate at once
with optimize. attach watches running processes; export (a Perfetto timeline) and report (one
HTML page) show what was found. With --json, every command that prints results prints one
versioned JSON document (its "schema" names it) and nothing else on standard output.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr,
				&slog.HandlerOptions{Level: logLevel(opts.verbose)})))
		},
	}
	cmd.PersistentFlags().CountVarP(&opts.verbose, "verbose", "v", "log more (-v info, -vv debug)")
	cmd.PersistentFlags().BoolVar(&opts.json, "json", false, "print JSON instead of tables, where the command supports it")
	cmd.AddCommand(newTraceCmd(opts), newLaunchCmd(), newHoldCmd())
	cmd.AddCommand(newStatsCmd(opts))
	cmd.AddCommand(newValidateCmd(opts), newCalibrateCmd(opts), newRunCmd(opts), newOptimizeCmd(opts))
	cmd.AddCommand(newPlanCmd(opts), newPlansCmd(opts))
	cmd.AddCommand(newExportCmd(opts), newReportCmd(opts), newAttachCmd(opts))
	cmd.AddCommand(newScanCmd(opts), newRewriteCmd(opts))
	cmd.AddCommand(newCheckCmd(opts), newVersionCmd(opts))
	return cmd
}

func logLevel(verbose int) slog.Level {
	switch {
	case verbose >= 2:
		return slog.LevelDebug
	case verbose == 1:
		return slog.LevelInfo
	default:
		return slog.LevelWarn
	}
}
