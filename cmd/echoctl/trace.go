package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/pipeline"
	"github.com/echo-uma/echo/tracer"
)

type traceOptions struct {
	*globalOptions
	output       string
	pid          int
	duration     time.Duration
	follow       bool
	minHostBytes byteSize
	hostAllocs   bool
	noHostAllocs bool // the old default's opt-out, still accepted
	launches     bool
	ringSize     byteSize
	perFunction  bool
	allDriver    bool
	cpuProfile   string
}

func newTraceCmd(g *globalOptions) *cobra.Command {
	o := &traceOptions{globalOptions: g, minHostBytes: tracer.DefaultMinHostBytes, ringSize: tracer.DefaultRingBytes}
	cmd := &cobra.Command{
		Use:   "trace [flags] (-- CMD [ARGS...] | -p PID)",
		Short: "Record a CUDA program's allocations, copies and syncs (and, asked, launches) into a trace file",
		Long: `trace records every allocation, copy, stream and synchronisation call
of an unmodified CUDA program with eBPF uprobes on the CUDA runtime (shared or statically
linked) and the CUDA driver, into a trace file for ` + "`echoctl stats`" + ` and ` + "`echoctl plan`" + `.

The host allocators (malloc & co.) are not probed unless --host-allocs: an interpreter calls
them thousands of times per step, and their probes were the whole cost of tracing one. Host
buffers are then known by the pointer and size their copies name, and ` + "`echoctl validate`" + `
finds where each was allocated, in-process, for a few nanoseconds a call.

Kernel launches are not probed unless --launches: a plan needs copies, allocations and the
synchronisations between them, while an inference loop launches dozens of kernels per step
and their probes were most of what tracing it cost. The trace header says whether they were.

With a command, echoctl starts it with every probe in place before its first instruction
and ends with it (exiting with its status). With -p it attaches to a running process until
the process exits, Ctrl-C, or --duration; calls made before the attach are not in the trace.

The trace is recorded beside -o and replaces it only once recorded: a command that fails
to start leaves the old trace as it was. With -o - the trace goes to standard output and
the program's own standard output to standard error. A disk that fills stops the recording,
not the program: the trace is kept, truncated, and says so; so does a reader of -o - that
closes the pipe early.

Needs root, or CAP_BPF and CAP_PERFMON (and CAP_SYS_PTRACE for another user's process): see echoctl check.`,
		Example: `  sudo echoctl trace -- ./build/workloads/stream --size 64M
  sudo echoctl trace -o app.trace -p 4242 --duration 30s
  echoctl stats trace.bin`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrace(cmd, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "trace.bin", `trace file to write ("-": standard output)`)
	f.IntVarP(&o.pid, "pid", "p", 0, "attach to this running process instead of starting a command")
	f.DurationVar(&o.duration, "duration", 0, "with -p: stop after this long (default: until the process exits or Ctrl-C)")
	f.BoolVar(&o.follow, "follow", false, "trace child processes too (probes every process that maps the libraries, filtered in the kernel)")
	f.BoolVar(&o.hostAllocs, "host-allocs", false, "also probe malloc, free, operator new[] and delete[] (the full picture, at a cost)")
	f.BoolVar(&o.launches, "launches", false, "also probe kernel launches (cudaLaunchKernel, cuLaunchKernel): kernel lanes in the report, at ~1 µs a launch")
	f.Var(&o.minHostBytes, "min-host-bytes", "with --host-allocs: record host allocations of at least this size")
	f.BoolVar(&o.noHostAllocs, "no-host-allocs", false, "the default now; kept for scripts")
	_ = f.MarkHidden("no-host-allocs")
	f.Var(&o.ringSize, "ring-size", "ring buffer size (a power of two, from a page to 2G)")
	f.BoolVar(&o.allDriver, "all-driver-probes", false, "probe the CUDA driver in every process, even where only the shared runtime calls it (its calls there are the runtime's, recorded already)")
	f.BoolVar(&o.perFunction, "uprobe-per-function", false, "attach one uprobe per function, as on kernels before 6.6 (slower to detach)")
	_ = f.MarkHidden("uprobe-per-function")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of echoctl itself to this file")
	_ = f.MarkHidden("cpuprofile")
	return cmd
}

func runTrace(cmd *cobra.Command, o *traceOptions, command []string) error {
	if (len(command) == 0) == (o.pid == 0) {
		return errors.New("give either a command after -- or -p PID")
	}
	if o.duration != 0 && o.pid == 0 {
		return errors.New("--duration applies to -p only: a launched command is traced until it exits")
	}
	if o.hostAllocs && o.noHostAllocs {
		return errors.New("--host-allocs and --no-host-allocs contradict each other")
	}
	if err := tracer.CheckRingSize(uint64(o.ringSize)); err != nil {
		return fmt.Errorf("--ring-size: %w", err)
	}
	if err := tracer.CheckPrivileges(); err != nil {
		return err
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	stderr := cmd.ErrOrStderr()
	opts := tracer.Options{
		Config: tracer.Config{
			MinHostBytes: uint64(o.minHostBytes), HostAllocs: o.hostAllocs, Launches: o.launches,
			Follow: o.follow, RingBytes: uint32(o.ringSize), OnePerFunction: o.perFunction,
			AllDriverProbes: o.allDriver,
		},
		Command: command, PID: o.pid, Duration: o.duration,
		Stdin: cmd.InOrStdin(), Stdout: stdoutFile(cmd.OutOrStdout()), Stderr: stderr,
		Progress: func(format string, args ...any) {
			fmt.Fprintf(stderr, "echoctl: "+format+"\n", args...)
		},
	}
	if err := oneStdout(o.output, o.json, "trace"); err != nil {
		return err
	}
	if o.output == outfile.Stdout || o.json {
		// The trace or the JSON is on stdout: the program's output must not mix into it.
		opts.Stdout = stderr
	}
	if o.output == outfile.Stdout {
		// A reader that closes the pipe (| head -c 1000) must fail the write, not kill echoctl
		// with SIGPIPE as Go does for fd 1 (and the program with it): the tracer then stops
		// recording and the program runs to its end.
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, syscall.SIGPIPE)
		defer signal.Stop(pipe)
	}
	res, err := recordTrace(cmd, o.output, opts)
	noCUDA := errors.Is(err, tracer.ErrNoCUDA)
	if err != nil && !noCUDA {
		return err
	}
	if o.json {
		if err := printTraceJSON(cmd, o.output, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "echoctl: wrote %s: %d events, %d lost, %d CUDA libraries probed; next: echoctl stats %s\n",
			o.output, res.Events, res.Lost, len(res.Libraries), shell.Quote(o.output))
	}
	if res.Lost > 0 {
		fmt.Fprintf(stderr, "echoctl: WARNING: %d events were lost (the ring buffer was full): the trace is incomplete; "+
			"rerun with a larger --ring-size (now %s)\n", res.Lost, units.Size(uint64(o.ringSize)))
	}
	if noCUDA {
		fmt.Fprintf(stderr, "echoctl: warning: %v\n", err)
	}
	if len(command) > 0 && res.ExitCode != 0 {
		return exitStatus(res.ExitCode)
	}
	return nil
}

func printTraceJSON(cmd *cobra.Command, output string, res tracer.Result) error {
	return printJSON(cmd.OutOrStdout(), struct {
		Schema    string   `json:"schema"`
		Output    string   `json:"output"`
		Events    uint64   `json:"events"`
		Lost      uint64   `json:"lost"`
		ExitCode  int      `json:"exit_code"`
		Libraries []string `json:"libraries"`
	}{schemaTrace, output, res.Events, res.Lost, res.ExitCode, res.Libraries})
}

// recordTrace is pipeline.RecordTrace with echoctl's launcher and version.
func recordTrace(cmd *cobra.Command, path string, opts tracer.Options) (tracer.Result, error) {
	return pipeline.RecordTrace(cmd.Context(), path, stdoutFile(cmd.OutOrStdout()), selfLauncher(), opts)
}

// selfLauncher is echoctl's own hidden commands, through which the tracer starts the program
// and hands its probes on, and its version.
func selfLauncher() pipeline.Launcher {
	return pipeline.Launcher{Launch: launchCmdName, Hold: holdCmdName, Version: version}
}
