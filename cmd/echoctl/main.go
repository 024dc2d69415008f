// Command echoctl finds and removes redundant host↔device copies in unmodified GPU programs.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/echo-uma/echo/internal/interrupt"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := interrupt.Context()
	out := &stdout{f: os.Stdout}
	root := newRootCmd()
	root.SetOut(out)
	err := root.ExecuteContext(ctx)
	stop()
	if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		err = out.failed()
	}
	var status exitStatus
	var intr interrupt.Interrupted
	switch {
	case errors.As(err, &status):
		os.Exit(int(status))
	case errors.As(err, &intr):
		fmt.Fprintln(os.Stderr, "echoctl:", intr)
		os.Exit(intr.Status())
	case err != nil:
		fmt.Fprintln(os.Stderr, "echoctl:", err)
		os.Exit(1)
	}
}
