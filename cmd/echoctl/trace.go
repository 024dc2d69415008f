package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/tracer"
)

type traceOptions struct {
	*globalOptions
	output       string
	pid          int
	duration     time.Duration
	follow       bool
	minHostBytes byteSize
	noHostAllocs bool
	ringSize     byteSize
	perFunction  bool
	cpuProfile   string
}

func newTraceCmd(g *globalOptions) *cobra.Command {
	o := &traceOptions{globalOptions: g, minHostBytes: 64 << 10, ringSize: 16 << 20}
	cmd := &cobra.Command{
		Use:   "trace [flags] (-- CMD [ARGS...] | -p PID)",
		Short: "Record a CUDA program's allocations, copies, launches and syncs into a trace file",
		Long: `trace records every allocation, copy, kernel launch, stream and synchronisation call
of an unmodified CUDA program with eBPF uprobes on the CUDA runtime (shared or statically
linked), the CUDA driver and the host allocators, into a trace file for ` + "`echoctl stats`" + ` and
` + "`echoctl plan`" + `.

With a command, echoctl starts it with every probe in place before its first instruction
and ends with it (exiting with its status). With -p it attaches to a running process until
the process exits, Ctrl-C, or --duration; calls made before the attach are not in the trace.

Needs root, or CAP_BPF and CAP_PERFMON (and CAP_SYS_PTRACE for another user's process): see echoctl check.`,
		Example: `  sudo echoctl trace -- ./build/workloads/stream --size 64M
  sudo echoctl trace -o app.trace -p 4242 --duration 30s
  echoctl stats trace.bin`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrace(cmd, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "trace.bin", "trace file to write")
	f.IntVarP(&o.pid, "pid", "p", 0, "attach to this running process instead of starting a command")
	f.DurationVar(&o.duration, "duration", 0, "with -p: stop after this long (default: until the process exits or Ctrl-C)")
	f.BoolVar(&o.follow, "follow", false, "trace child processes too (probes every process that maps the libraries, filtered in the kernel)")
	f.Var(&o.minHostBytes, "min-host-bytes", "record host allocations of at least this size")
	f.BoolVar(&o.noHostAllocs, "no-host-allocs", false, "do not probe malloc, free, operator new[] and delete[]")
	f.Var(&o.ringSize, "ring-size", "ring buffer size (a power of two, at least 4K)")
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
	if r := uint64(o.ringSize); r < 4096 || r&(r-1) != 0 {
		return fmt.Errorf("--ring-size %s is not a power of two of at least 4K", formatBytes(r))
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
			MinHostBytes: uint64(o.minHostBytes), HostAllocs: !o.noHostAllocs,
			Follow: o.follow, RingBytes: uint32(o.ringSize), OnePerFunction: o.perFunction,
		},
		Command: command, PID: o.pid, Duration: o.duration,
		Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr,
		Progress: func(format string, args ...any) {
			fmt.Fprintf(stderr, "echoctl: "+format+"\n", args...)
		},
	}
	res, err := recordTrace(cmd, o.output, opts)
	noCUDA := errors.Is(err, tracer.ErrNoCUDA)
	if err != nil && !noCUDA {
		if res.Events == 0 {
			os.Remove(o.output)
		}
		return err
	}
	if o.json {
		if err := printTraceJSON(cmd, o.output, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "echoctl: wrote %s: %d events, %d lost, %d CUDA libraries probed; next: echoctl stats %s\n",
			o.output, res.Events, res.Lost, len(res.Libraries), o.output)
	}
	if res.Lost > 0 {
		fmt.Fprintf(stderr, "echoctl: WARNING: %d events were lost (the ring buffer was full): the trace is incomplete; "+
			"rerun with a larger --ring-size (now %s)\n", res.Lost, formatBytes(uint64(o.ringSize)))
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
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Output    string   `json:"output"`
		Events    uint64   `json:"events"`
		Lost      uint64   `json:"lost"`
		ExitCode  int      `json:"exit_code"`
		Libraries []string `json:"libraries"`
	}{output, res.Events, res.Lost, res.ExitCode, res.Libraries})
}

// recordTrace traces into the file at path with echoctl's launcher and version filled in.
func recordTrace(cmd *cobra.Command, path string, opts tracer.Options) (tracer.Result, error) {
	self, err := os.Executable()
	if err != nil {
		return tracer.Result{}, fmt.Errorf("finding echoctl's own executable: %w", err)
	}
	opts.Launcher, opts.Version = []string{self, launchCmdName}, version
	out, err := os.Create(path)
	if err != nil {
		return tracer.Result{}, fmt.Errorf("creating the trace file: %w", err)
	}
	res, err := tracer.Record(cmd.Context(), out, opts)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", path, cerr)
	}
	return res, err
}
