package runner

import (
	"context"
	"syscall"
	"time"
)

// interruptSettle bounds how long a program's death by an interrupt waits for echoctl's own
// handler to see the signal. A terminal's Ctrl-C reaches the whole foreground process group
// at once; the program may die of it and be reaped before the signal has travelled through
// the Go runtime to the context, and its status 130 then read as a failing program (2 of 21
// process-group Ctrl-Cs of optimize ended in "exited with status 130", exit 1). The signal
// is already pending when the program dies, so the wait is short; only a program killed by
// someone else waits it out.
const interruptSettle = 2 * time.Second

// interrupts are the signals echoctl takes as an interrupt (interrupt.Context, internal/interrupt),
// as the statuses a program killed by one, or exiting after its handler caught one, reports.
var interrupts = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// Interrupted is ctx's cause when a program that ended with status (as Status gives it:
// 128+N for signal N) ended because echoctl was interrupted: the program died of an
// interrupt, or exited with the status of one, and ctx ended as well, now or within
// interruptSettle. It is nil for any other status, or when ctx did not end: the program was
// killed behind echoctl's back, and that is the program's status, not an interrupt.
func Interrupted(ctx context.Context, status int) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if !isInterrupt(status) {
		return nil
	}
	t := time.NewTimer(interruptSettle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

func isInterrupt(status int) bool {
	for _, s := range interrupts {
		if status == 128+int(s) {
			return true
		}
	}
	return false
}
