package view

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/echo-uma/echo/live"
)

// TestRunCancel checks that cancelling the context, as the caller does on SIGTERM, ends
// the program with a nil error after it has sampled the source.
func TestRunCancel(t *testing.T) {
	var calls atomic.Int32
	src := func() []live.Row {
		calls.Add(1)
		return fixture()
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for calls.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, New(src, 5*time.Millisecond, "t"),
			tea.WithInput(nil), tea.WithOutput(&bytes.Buffer{}), tea.WithoutSignalHandler())
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after the context was cancelled")
	}
}
