package interrupt

import (
	"context"
	"syscall"
	"testing"
)

// TestOf: a context a signal ended is that interruption, saying what was done, with the
// status a shell gives a death by the signal; any other context is none.
func TestOf(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	if _, ok := Of(ctx, ""); ok {
		t.Fatal("a running context is an interruption")
	}
	cancel(Interrupted{sig: syscall.SIGTERM})
	err, ok := Of(ctx, "")
	if !ok || err.Error() != "interrupted by SIGTERM: nothing was written" || err.(Interrupted).Status() != 143 {
		t.Errorf("%v, %v; want interrupted by SIGTERM, nothing written, status 143", err, ok)
	}
	if err, _ := Of(ctx, "wrote a.cu"); err.Error() != "interrupted by SIGTERM: wrote a.cu" {
		t.Errorf("%v; want what was written", err)
	}
}
