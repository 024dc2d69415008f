package tracer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/trace"
)

// traceRunning traces a running process from now on: probes on the libraries it has mapped, the
// loader hook for later dlopens (which, unlike launch mode, do not stop it), until it exits,
// ctx is cancelled or the duration passes.
func (r *recorder) traceRunning(ctx context.Context, out io.Writer) (Result, error) {
	pid := r.opts.PID
	if !alive(pid) {
		return Result{}, fmt.Errorf("no process %d", pid)
	}
	if err := checkTraceable(pid); err != nil {
		return Result{}, err
	}
	if err := r.t.AddTarget(pid); err != nil {
		return Result{}, err
	}
	mods, err := r.rescan(pid)
	if err != nil {
		return Result{}, err
	}
	if err := r.attachStatic(procfs.ExePath(pid), pid); err != nil {
		return Result{}, err
	}
	if len(r.cudaLibs) == 0 {
		r.opts.Progress("process %d has no CUDA runtime or driver mapped yet (searched its %d mapped files "+
			"and its executable); tracing on in case it loads one", pid, len(r.searched))
	}
	exe, _, _ := procfs.Exe(pid)
	h := r.header(pid, exe, cmdline(pid), true)
	h.Modules = mods
	if r.w, err = trace.NewWriter(out, h); err != nil {
		return Result{}, err
	}
	er, err := r.t.newEventReader()
	if err != nil {
		return Result{}, err
	}
	loop := make(chan error, 1)
	go func() { loop <- r.loop(er) }()

	var deadline <-chan time.Time
	if r.opts.Duration > 0 {
		timer := time.NewTimer(r.opts.Duration)
		defer timer.Stop()
		deadline = timer.C
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-ctx.Done():
			running = false
		case <-deadline:
			running = false
		case <-tick.C:
			running = alive(pid)
			r.reportLost()
		case err := <-loop:
			loop <- err
			running = false
			if errors.Is(err, errDiskFull) {
				r.stopRecording(pid)
			}
		}
	}
	res, err := r.finish(er, loop)
	res.ExitCode = -1
	return res, err
}

// CheckTarget tells whether process pid can be traced for its CUDA calls before a session
// starts on it: it exists, this process may open its files, and it maps a CUDA runtime or
// driver library or carries a runtime linked into its executable. (A session itself keeps
// tracing a process without one, in case it loads one later.)
func CheckTarget(pid int) error {
	if !alive(pid) {
		return fmt.Errorf("no process %d", pid)
	}
	if err := checkTraceable(pid); err != nil {
		return err
	}
	if UsesCUDA(pid) {
		return nil
	}
	kinds, err := staticKinds(procfs.ExePath(pid))
	if err != nil {
		return fmt.Errorf("reading process %d's executable: %w", pid, err)
	}
	for _, k := range kinds {
		if k == kindRuntime || k == kindDriver {
			return nil
		}
	}
	return fmt.Errorf("process %d (%s): %w: it maps no libcudart* or libcuda.so*, and its executable has no "+
		"statically linked runtime", pid, filepath.Base(firstOr(cmdline(pid), "?")), ErrNoCUDA)
}

func firstOr(s []string, def string) string {
	if len(s) == 0 || s[0] == "" {
		return def
	}
	return s[0]
}

// Alive reports whether pid is a process that has not exited (a zombie has).
func Alive(pid int) bool { return alive(pid) }

func alive(pid int) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	state, err := procfs.State(pid)
	if err != nil {
		// A stat read but not understood is no proof of death; one not read is.
		return errors.Is(err, procfs.ErrFormat)
	}
	return state != 'Z' && state != 'X'
}

// reportLost tells Options.Lost how many events were lost so far, when it is set.
func (r *recorder) reportLost() {
	if r.opts.Lost == nil {
		return
	}
	perCPU, err := r.t.Lost()
	if err == nil {
		r.opts.Lost(trace.SumLost(perCPU))
	}
}

// Cmdline is the command line of process pid, nil once it is gone.
func Cmdline(pid int) []string { return cmdline(pid) }

func cmdline(pid int) []string {
	args, err := procfs.Cmdline(pid)
	if err != nil {
		return nil
	}
	return args
}
