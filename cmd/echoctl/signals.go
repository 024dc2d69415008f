package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is why a command stopped early: echoctl received a signal. Commands that
// produce a plan (optimize, validate, calibrate) stop their program, write nothing and
// return it; main then exits as a shell reports a death by that signal (130, 143, 129).
// done says what the command had written by then (the source path's rewrite -w may have
// written some files); "" is nothing.
type interrupted struct {
	sig  syscall.Signal
	done string
}

func (i interrupted) Error() string {
	done := i.done
	if done == "" {
		done = "nothing was written"
	}
	return fmt.Sprintf("interrupted by %s: %s", signalName(i.sig), done)
}

// interruption is ctx's interruption saying what was done, and true, where a signal ended
// ctx; nil and false otherwise.
func interruption(ctx context.Context, done string) (error, bool) {
	var intr interrupted
	if !errors.As(context.Cause(ctx), &intr) {
		return nil, false
	}
	intr.done = done
	return intr, true
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
		cancel(interrupted{sig: s.(syscall.Signal)})
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
