package tracer

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/trace"
)

// interruptGrace is how long a launched command gets to exit after an interrupt.
const interruptGrace = 10 * time.Second

// launcher is the command's process before it is the command: echoctl's launcher, waiting
// for one byte on its gate before it execs the command.
type launcher struct {
	cmd     *exec.Cmd
	release *os.File // the gate's write end: a byte lets the command run, closing it cancels
	exe     string   // the command's executable, absolute
}

// startLauncher starts the command's process stopped behind the launcher. It starts before
// the BPF programs load, so that its own start-up (a Go program's) overlaps theirs.
func startLauncher(opts Options) (*launcher, error) {
	argv := opts.Command
	exe, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("finding %s: %w", argv[0], err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return nil, err
	}
	if err := notScript(exe); err != nil {
		return nil, err
	}
	if len(opts.Launcher) == 0 {
		return nil, errors.New("no launcher to start the command with")
	}
	gate, release, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(opts.Launcher[0], append(append(opts.Launcher[1:], exe), argv...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.Stdin, opts.Stdout, opts.Stderr
	cmd.ExtraFiles = []*os.File{gate}
	// If echoctl dies, the command must not stay stopped at a probe forever.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		release.Close()
		gate.Close()
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	gate.Close()
	return &launcher{cmd: cmd, release: release, exe: exe}, nil
}

// cancel ends the launcher without running the command.
func (l *launcher) cancel() {
	l.release.Close()
	l.cmd.Wait()
}

// launch puts the first probes in place for the launcher's process (the dynamic loader's
// hook, and anything linked into the executable), then lets it exec. The loader hook stops
// the process again once its libraries are mapped, before any of their code runs; the loop
// probes them and resumes it.
func (r *recorder) launch(ctx context.Context, out io.Writer, l *launcher) (Result, error) {
	argv, exe, cmd, release := r.opts.Command, l.exe, l.cmd, l.release
	pid := cmd.Process.Pid
	abort := func(err error) (Result, error) {
		l.cancel() // the launcher exits without exec'ing
		return Result{}, err
	}
	if err := r.t.AddTarget(pid); err != nil {
		return abort(err)
	}
	for _, interp := range r.loaders(exe) {
		if _, err := r.t.Probe(interp, kindLoader, pid); err != nil {
			return abort(err)
		}
	}
	if err := r.attachStatic(exe, pid); err != nil {
		return abort(err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	if r.w, err = trace.NewWriter(out, r.header(pid, real, argv, false)); err != nil {
		return abort(err)
	}
	er, err := r.t.newEventReader()
	if err != nil {
		return abort(err)
	}
	loop := make(chan error, 1)
	go func() { loop <- r.loop(er) }()
	if _, err := release.Write([]byte{1}); err != nil {
		return abort(fmt.Errorf("releasing the launcher: %w", err))
	}
	release.Close()

	exited, loopErr := awaitProgram(ctx, cmd, pid, loop)
	if errors.Is(loopErr, errDiskFull) {
		// Recording stops; the program does not: the trace is finished while it runs on, and
		// echoctl ends as it does.
		r.stopRecording(pid)
		res, err := r.finish(er, loop)
		select {
		case <-exited:
		case <-ctx.Done():
			_ = cmd.Process.Signal(os.Interrupt)
			<-exited
		}
		res.ExitCode = runner.Status(cmd.ProcessState)
		return res, err
	}
	res, err := r.finish(er, loop)
	if res.Truncated != "" {
		// The disk filled as the program ended, before the loop's error was seen: said all
		// the same.
		r.sayFull("the program had ended")
	}
	res.ExitCode = runner.Status(cmd.ProcessState)
	return res, err
}

// awaitProgram waits for the launched program to exit, for ctx to end (the program is
// interrupted, then killed after interruptGrace) or for the event loop to end (the program is
// killed, unless the disk filled and it runs on). It returns the channel the program's exit
// comes on, and the loop's error where the loop ended first, put back on loop for finish.
func awaitProgram(ctx context.Context, cmd *exec.Cmd, pid int, loop chan error) (chan error, error) {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var loopErr error
	loopEnded := false
	select {
	case <-exited:
	case <-ctx.Done():
		// A terminal's Ctrl-C reached the command too; a SIGTERM to echoctl alone did not.
		_ = cmd.Process.Signal(os.Interrupt)
		_ = unix.Kill(pid, unix.SIGCONT)
		select {
		case <-exited:
		case <-time.After(interruptGrace):
			_ = cmd.Process.Kill()
			<-exited
		}
	case loopErr = <-loop:
		loopEnded = true
		if !errors.Is(loopErr, errDiskFull) {
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	if loopEnded {
		loop <- loopErr // for finish, which waits for the loop's result
	}
	return exited, loopErr
}

// abiLoaders are the dynamic loaders the ELF ABIs name (every dynamic executable of the
// machine's architecture asks for one of these in its PT_INTERP).
var abiLoaders = []string{"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"}

// loaders are the dynamic loaders to probe before the command runs: the one the executable
// names, and, following children, the ABI's too, which a static launcher's dynamic
// children (a static shell's, a Go program's) map though the launcher never did.
func (r *recorder) loaders(exe string) []string {
	var out []string
	if interp := interpreter(exe); interp != "" {
		out = append(out, interp)
	}
	if r.t.cfg.Follow {
		for _, l := range abiLoaders {
			if _, err := os.Stat(l); err == nil && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// interpreter is the dynamic loader named in the executable's PT_INTERP, or "" for a
// static executable.
func interpreter(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
		if err != nil {
			return ""
		}
		return strings.TrimRight(string(b), "\x00")
	}
	return ""
}

// RunLauncher is the launcher's side: wait for the tracer's byte on fd 3, then become the
// command. EOF means the tracer gave up; the command is not run.
func RunLauncher(exe string, argv []string) error {
	gate := os.NewFile(3, "gate")
	var b [1]byte
	if n, _ := gate.Read(b[:]); n != 1 {
		return errors.New("the tracer did not start the command")
	}
	gate.Close()
	if err := unix.Exec(exe, argv, os.Environ()); err != nil {
		return fmt.Errorf("running %s: %w", exe, err)
	}
	return nil
}

// notScript fails for a #! script (a pyenv shim, a wrapper): the process ends up running
// another file, which the trace could not name as the plan's executable, so echoctl asks for
// that file instead of tracing the wrong one.
func notScript(exe string) error {
	f, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, isScript := strings.CutPrefix(string(head[:n]), "#!")
	if !isScript {
		return nil
	}
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return fmt.Errorf("%s is a script (#!%s), which runs another program: trace that program itself "+
		"(for a pyenv shim: echoctl trace -- \"$(pyenv which python3)\" ...)", exe, strings.TrimSpace(line))
}
