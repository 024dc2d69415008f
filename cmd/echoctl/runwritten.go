package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/runner"
)

// runAsWritten runs the program without the preload library, after one line on stderr that
// says why, and ends with its status: what `echoctl run` does with a plan that does not fit
// (another executable, a program the library cannot reach, a plan that enables nothing), as
// a launcher that starts programs through it expects.
func runAsWritten(cmd *cobra.Command, argv []string, why string) error {
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "echoctl: running the program as written: %s\n", why)
	stdio := runner.IO{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: stderr, Forward: true}
	status, err := runner.RunPlain(cmd.Context(), argv, stdio)
	if err != nil {
		return err
	}
	return statusError(status)
}
