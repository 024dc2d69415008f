package tracer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/trace"
)

// Options says what to trace and how.
type Options struct {
	Config
	Command  []string      // launch this command (argv), or
	PID      int           // attach to this running process
	Duration time.Duration // attach mode: stop after this long (0: until the process exits)
	Version  string        // echoctl's, for the trace header
	// Launcher is the argv prefix of a program that waits for one byte on fd 3 and then
	// execs its arguments (echoctl's hidden __launch command): the command starts only
	// once every probe is in place.
	Launcher []string
	// Holder is the argv of a program that exits at once (echoctl's hidden __hold command):
	// once a launched command has exited, it inherits the probes, so that their removal does
	// not hold up the end of the trace. Without one, the probes are removed before Record
	// returns.
	Holder []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Log    *slog.Logger
	// Progress, when set, is told about libraries as they are found.
	Progress func(format string, args ...any)
	// Lost, when set, is told in attach mode every 100 ms how many events were lost so far.
	Lost func(total uint64)
}

// Result is how a trace ended.
type Result struct {
	Events    uint64
	Lost      uint64
	Truncated string   // why recording stopped while the program ran on (the disk filled, the reader left)
	ExitCode  int      // launch mode: the command's exit status (-1 when killed by a signal)
	Libraries []string // the CUDA libraries probed
}

// ErrNoCUDA is returned (with the trace still written) when the process never mapped a CUDA
// runtime or driver; its text says what was searched.
var ErrNoCUDA = errors.New("no CUDA runtime or driver found")

// recorder is one tracing session: the tracer, the trace being written, and the processes
// whose libraries it keeps up with (the prober).
type recorder struct {
	*prober
	opts Options
	out  io.Writer
	w    *trace.Writer
	full error // ENOSPC, EDQUOT or EPIPE: a write found no room or no reader, and recording stopped there
}

// Record traces a command it launches, or a running process, into out until the process
// exits, ctx is cancelled or the duration passes, and closes the trace with its footer.
func Record(ctx context.Context, out io.Writer, opts Options) (Result, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Progress == nil {
		opts.Progress = func(string, ...any) {}
	}
	opts.StopForMaps = len(opts.Command) > 0
	var l *launcher
	if len(opts.Command) > 0 {
		if err := checkPrivileges(); err != nil {
			return Result{}, err // before a process is started for nothing
		}
		var err error
		if l, err = startLauncher(opts); err != nil {
			return Result{}, err
		}
	}
	t, err := New(opts.Config, opts.Log)
	if err != nil {
		if l != nil {
			l.cancel()
		}
		return Result{}, err
	}
	r := &recorder{prober: newProber(t, newModules(), opts.Progress, opts.Log), opts: opts, out: out}
	if l != nil {
		res, err := r.launch(ctx, out, l)
		t.CloseAside(opts.Holder) // the command has exited
		return res, err
	}
	defer t.Close() // the process runs on: untraced when Record returns
	return r.traceRunning(ctx, out)
}

func (r *recorder) header(pid int, exe string, cmd []string, attached bool) trace.Header {
	return newHeader(r.t.cfg, r.opts.Version, pid, exe, cmd, attached)
}

// newHeader is the header of a trace of process pid, started now.
func newHeader(cfg Config, version string, pid int, exe string, cmd []string, attached bool) trace.Header {
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	host, _ := os.Hostname()
	return trace.Header{
		Host: host, Kernel: unix.ByteSliceToString(uts.Release[:]), Start: time.Now(),
		StartMonoNS: monotonicNS(), Command: cmd, Executable: exe, PID: pid, Attached: attached,
		NoHostAllocs: !cfg.HostAllocs, NoLaunches: !cfg.Launches, Tracer: version,
	}
}

func monotonicNS() uint64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

// loop writes events until the reader is drained; stopped processes are resumed after
// their libraries were read. The file is flushed whenever the buffer runs dry, so what was
// traced is on disk within idleWait even if echoctl is killed. Nothing here reads a clock
// per event: at a million events a second that alone would be a tenth of the budget.
func (r *recorder) loop(er *eventReader) error {
	er.start()
	for {
		ev, err := er.next()
		switch {
		case errors.Is(err, errDrained):
			return nil
		case errors.Is(err, errIdle):
			if err := r.w.Flush(); err != nil {
				return r.stopIfFull(err)
			}
			continue
		case err != nil:
			return err
		}
		if ev.typ() == trace.EventDlopen {
			if err := r.libraryChange(ev.pid()); err != nil {
				return r.stopIfFull(err)
			}
		}
		if err := r.w.WriteRawEvent(ev); err != nil {
			return r.stopIfFull(err)
		}
	}
}

// errDiskFull ends the loop when the trace file's disk is full, or the pipe it goes down has
// lost its reader (`echoctl trace -o - | head -c 1000`): recording stops, a file is kept
// truncated, and the program runs on untraced. The program is the user's; the trace only
// watches it.
var errDiskFull = errors.New("the disk is full")

// stopIfFull turns a write that found the disk full, or the pipe closed, into errDiskFull,
// remembering why.
func (r *recorder) stopIfFull(err error) error {
	for _, full := range []error{unix.ENOSPC, unix.EDQUOT, unix.EPIPE} {
		if errors.Is(err, full) {
			r.full = full
			return errDiskFull
		}
	}
	return err
}

// stopRecording is the end of a trace on a full disk for a program that runs on: its probes
// go (so it runs at full speed, and is not stopped at the loader's hook again, and resumed
// if it waits there now), and one line says so.
func (r *recorder) stopRecording(pid int) {
	r.t.detach()
	if r.opts.StopForMaps {
		_ = unix.Kill(pid, unix.SIGCONT)
	}
	r.sayFull("the program runs on untraced")
}

// sayFull is the one line that says recording stopped early, and why, with what became of
// the program.
func (r *recorder) sayFull(program string) {
	if r.full == unix.EPIPE {
		r.opts.Progress("the trace's reader closed the pipe: stopped recording; %s", program)
		return
	}
	r.opts.Progress("the disk is full (%v): stopped recording; the trace is kept, truncated, and %s", r.full, program)
}

// libraryChange handles the loader's notice for pid: read its libraries, write the new
// modules, probe new libraries, and let the process go on if it waits for that.
func (r *recorder) libraryChange(pid int) error {
	fresh, err := r.rescan(pid)
	for _, m := range fresh {
		if werr := r.w.WriteModule(m); werr != nil && err == nil {
			err = werr
		}
	}
	if r.opts.StopForMaps {
		if cerr := unix.Kill(pid, unix.SIGCONT); cerr != nil && !errors.Is(cerr, unix.ESRCH) && err == nil {
			err = fmt.Errorf("resuming process %d: %w", pid, cerr)
		}
	}
	return err
}

// finish drains the ring buffer (waiting for the loop to write what is left, unless it
// already ended with loopErr) and writes the footer.
func (r *recorder) finish(er *eventReader, loop <-chan error) (Result, error) {
	var err error
	if ferr := er.flush(); ferr != nil {
		err = fmt.Errorf("flushing the ring buffer: %w", ferr)
	}
	if lerr := <-loop; err == nil {
		err = lerr
	}
	er.close()
	lost, lerr := r.t.Lost()
	if err == nil {
		err = lerr
	}
	footer := trace.Footer{End: time.Now(), EndMonoNS: monotonicNS(), Lost: lost, Complete: err == nil}
	if errors.Is(err, errDiskFull) {
		err = r.truncate(&footer)
	} else if cerr := r.w.Close(footer); cerr != nil && err == nil {
		err = cerr
	}
	res := Result{Events: r.w.Events(), Lost: footer.TotalLost(), Truncated: footer.Truncated}
	for lib := range r.cudaLibs {
		res.Libraries = append(res.Libraries, lib)
	}
	if err == nil && len(r.cudaLibs) == 0 {
		err = r.noCUDA()
	}
	return res, err
}

// truncate closes a trace whose disk filled: cut back to whole records with a footer that
// says so, where the output is a file that can be cut (not a pipe). A pipe whose reader
// left takes nothing more: the reader had what it wanted.
func (r *recorder) truncate(footer *trace.Footer) error {
	if r.full == unix.EPIPE {
		footer.Truncated = "the reader closed the pipe"
		return nil
	}
	footer.Truncated = fmt.Sprintf("disk full: %v", r.full)
	file, ok := r.out.(trace.Truncater)
	if !ok {
		return fmt.Errorf("writing the trace: %w", r.full)
	}
	return r.w.TruncateClose(file, *footer)
}
