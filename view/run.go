package view

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Run shows the view full-screen until the user quits or ctx ends. Either way the terminal
// is restored and Run returns nil: a cancelled ctx is how the caller says SIGTERM.
func Run(ctx context.Context, src Source, interval time.Duration, title string) error {
	return run(ctx, New(src, interval, title))
}

// run is Run with the program's options open, so tests can drive it without a terminal.
func run(ctx context.Context, m Model, opts ...tea.ProgramOption) error {
	opts = append(opts, tea.WithContext(ctx))
	_, err := tea.NewProgram(m, opts...).Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	case errors.Is(err, tea.ErrInterrupted):
		// SIGINT from outside the terminal (kill -INT): the same as pressing ctrl+c.
		return nil
	}
	return fmt.Errorf("running the live view: %w", err)
}
