// Package interrupt is how echoctl's commands stop on a signal: a context that SIGINT,
// SIGTERM or SIGHUP ends with Interrupted as its cause, and the error a command returns for
// it, saying what it had written, with the status a shell reports for a death by that signal.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Interrupted is why a command stopped early: echoctl received a signal. Commands that
// produce a plan (optimize, validate, calibrate) stop their program, write nothing and
// return it; main then exits as a shell reports a death by that signal (130, 143, 129).
// done says what the command had written by then (the source path's rewrite -w may have
// written some files); "" is nothing.
type Interrupted struct {
	sig  syscall.Signal
	done string
}

func (i Interrupted) Error() string {
	done := i.done
	if done == "" {
		done = "nothing was written"
	}
	return fmt.Sprintf("interrupted by %s: %s", signalName(i.sig), done)
}

// Of is the interruption that ended ctx, saying what was done, and true, where a signal ended
// ctx; nil and false otherwise.
func Of(ctx context.Context, done string) (error, bool) {
	var intr Interrupted
	if !errors.As(context.Cause(ctx), &intr) {
		return nil, false
	}
	intr.done = done
	return intr, true
}

// Status is the exit status a shell reports for a death by the signal: 128+N.
func (i Interrupted) Status() int { return 128 + int(i.sig) }

// Context ends when echoctl receives SIGINT, SIGTERM or SIGHUP (a closed terminal or
// ssh session), with Interrupted as its cause, so that every command stops its program and
// removes its temporary files rather than dying with them left behind. Only the first signal
// is taken: a second one ends echoctl at once, as it would without the handler (unless a
// running command forwards it to its program).
func Context() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		signal.Stop(sigs)
		cancel(Interrupted{sig: s.(syscall.Signal)})
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		cancel(nil)
	}
}

// signalName is the signal as a shell names it.
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
