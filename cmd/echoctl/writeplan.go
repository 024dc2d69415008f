package main

import (
	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/plan"
)

// writePlan writes the plan where -o says: a file, or "-", the command's standard output.
func writePlan(cmd *cobra.Command, path string, p *plan.Plan) error {
	if path == outfile.Stdout {
		return p.Write(cmd.OutOrStdout())
	}
	return plan.WriteFile(path, p)
}
