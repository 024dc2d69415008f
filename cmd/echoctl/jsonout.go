package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/echo-uma/echo/internal/outfile"
)

// The JSON documents echoctl prints with --json, one schema per command, each named by its
// "schema" field and described in docs/json.md. A change that removes or renames a field,
// or changes what one means, takes a new number; adding a field does not.
const (
	schemaTrace     = "echo.trace/1"
	schemaStats     = "echo.stats/1"
	schemaValidate  = "echo.validate/1"
	schemaCalibrate = "echo.calibrate/1"
	schemaOptimize  = "echo.optimize/1"
	schemaRun       = "echo.run/1"
	schemaEnv       = "echo.env/1"
	schemaExport    = "echo.export/1"
	schemaAttach    = "echo.attach/1"
	schemaReport    = "echo.report/1"
	schemaPlans     = "echo.plans/1"
	schemaVersion   = "echo.version/1"
)

// printJSON writes one document, indented for a person and whole for jq: one value, then a
// newline.
func printJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// oneStdout refuses -o - beside --json: both would print to standard output. what names what
// -o writes ("plan").
func oneStdout(output string, jsonOut bool, what string) error {
	if output == outfile.Stdout && jsonOut {
		return fmt.Errorf("-o - and --json both want standard output: give the %s a file", what)
	}
	return nil
}
