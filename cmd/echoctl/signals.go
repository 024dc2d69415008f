package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is why a command stopped early: echoctl received a signal. Commands that
// produce a plan (optimize, validate, calibrate) stop their program, write nothing and
// return it; main then exits as a shell reports a death by that signal (130, 143, 129).
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string {
	return fmt.Sprintf("interrupted by %s: nothing was written", signalName(i.sig))
}

func (i interrupted) status() int { return 128 + int(i.sig) }

// signalContext ends when echoctl receives SIGINT, SIGTERM or SIGHUP (a closed terminal or
// ssh session), with interrupted as its cause, so that every command stops its program and
// removes its temporary files rather than dying with them left behind. Only the first signal
// is taken: a second one ends echoctl at once, as it would without the handler (unless a
// running command forwards it to its program).
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		signal.Stop(sigs)
		cancel(interrupted{s.(syscall.Signal)})
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		cancel(nil)
	}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
