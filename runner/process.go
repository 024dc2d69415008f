package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Forwarded are the signals `echoctl run` passes on to the program it runs, so that a
// service manager, a batch system or a user's kill reaches the program as if echoctl were
// not there.
var Forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2}

// stopGrace is how long a program gets to exit after SIGTERM when its context ends.
const stopGrace = 5 * time.Second

// Status is a finished program's exit status the way a shell reports it: 128+N when signal
// N ended it.
func Status(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Signaled reports whether the program was ended by a signal rather than exiting.
func Signaled(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// execute starts cmd and waits for it. The program dies with echoctl (a SIGKILLed echoctl
// orphans nothing). With forward, the signals echoctl receives go to the program and ctx is
// not watched, and in a terminal's foreground the program is the foreground job (terminal);
// otherwise the end of ctx stops the program (SIGTERM, then SIGKILL after a grace period)
// and execute returns ctx's cause, as it does when the program died of the interrupt that
// ends ctx before ctx ended (Interrupted).
func execute(ctx context.Context, cmd *exec.Cmd, forward bool) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var sigs, chld chan os.Signal
	var tty *terminal
	if forward {
		// Registered before the start, so that no signal in between is lost to echoctl.
		sigs = make(chan os.Signal, 8)
		signal.Notify(sigs, Forwarded...)
		defer signal.Stop(sigs)
		if tty = foregroundTerminal(); tty != nil {
			tty.hand(cmd.SysProcAttr)
			chld = make(chan os.Signal, 1)
			signal.Notify(chld, syscall.SIGCHLD)
			defer signal.Stop(chld)
		}
	}
	if err := cmd.Start(); err != nil {
		if tty != nil {
			tty.done(0)
		}
		return fmt.Errorf("starting %s: %w", cmd.Args[0], err)
	}
	if tty != nil {
		defer tty.done(cmd.Process.Pid)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	done := ctx.Done()
	if forward {
		done = nil
	}
	for {
		select {
		case err := <-exited:
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				return fmt.Errorf("waiting for %s: %w", cmd.Args[0], err)
			}
			if forward {
				return nil // echoctl stands for the program: its status is echoctl's
			}
			// One path for an interrupt: a Ctrl-C that killed the program before echoctl's
			// handler saw it is the interrupt, not a failing program.
			return Interrupted(ctx, Status(cmd.ProcessState))
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case <-chld:
			if childStopped(cmd.Process.Pid) {
				tty.stopped(cmd.Process.Pid)
			}
		case <-done:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(stopGrace):
				_ = cmd.Process.Kill()
				<-exited
			}
			return context.Cause(ctx)
		}
	}
}
