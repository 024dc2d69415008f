package main

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/tracer"
)

// launchCmdName is the hidden command `echoctl trace` starts the traced program through:
// it waits until the probes are in place, then execs the program in its own process.
const launchCmdName = "__launch"

// holdCmdName is the hidden command a finished trace hands its probes to: it exits at once,
// and the kernel removes the probes (a wait for a grace period) as it does, after echoctl
// has given its answer (tracer.Tracer.CloseAside).
const holdCmdName = "__hold"

// The launcher must exec from the process's main thread. A uprobe bound to a process keeps
// the task it was opened on; when another thread of a Go program execs, the kernel makes that
// thread the new leader and the old task (and with it every such probe) is gone. Pinning the
// main goroutine to the main thread from init is the only way to be sure of that in Go.
func init() { runtime.LockOSThread() }

func newLaunchCmd() *cobra.Command {
	return &cobra.Command{
		Use:                launchCmdName + " EXE ARGV...",
		Hidden:             true,
		DisableFlagParsing: true,
		Args:               cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tracer.RunLauncher(args[0], args[1:])
		},
	}
}

func newHoldCmd() *cobra.Command {
	return &cobra.Command{
		Use:                holdCmdName,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return nil },
	}
}
