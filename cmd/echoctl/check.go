package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/spf13/cobra"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/planview"
)

func newCheckCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "check [--json]",
		Short: "Say whether Echo can work on this machine, and what each missing piece disables",
		Long: `check looks at what Echo needs, without tracing or changing anything: the kernel (5.8
or newer, uprobes, the BPF ring buffer, uprobe_multi), the capabilities this process holds
against those tracing needs, whether the tracer's BPF objects load and a uprobe attaches,
the CUDA runtime and driver libraries a program would find (LD_LIBRARY_PATH, the ld.so
cache, /usr/local/cuda*, system directories, pip wheels), the GPU behind the first runtime
found, and the preload library. Each item is ok, warn (works, with the limit it names) or
missing (with what it disables and, where a command fixes it, the command).

It exits 0 when tracing and deploying can work (no item missing), 1 otherwise. Run it as
the user, and with the privileges, you mean to run echoctl with.`,
		Example: `  echoctl check
  sudo echoctl check --json | jq '.items[] | select(.status != "ok")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := check.Run(cmd.Context(), check.Options{LibraryPath: os.Getenv("LD_LIBRARY_PATH")})
			if err := printCheck(cmd.OutOrStdout(), rep, g.json); err != nil {
				return err
			}
			if !rep.OK {
				return exitStatus(1)
			}
			return nil
		},
	}
}

func printCheck(w io.Writer, rep check.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	st := planview.NewStyles()
	rows := make([][]string, len(rep.Items))
	for i, it := range rep.Items {
		detail := it.Detail
		if it.Disables != "" && it.Status != check.StatusOK {
			detail += " — limits " + it.Disables
			if it.Status == check.StatusMissing {
				detail = it.Detail + " — disables " + it.Disables
			}
		}
		rows[i] = []string{it.Name, string(it.Status), detail}
	}
	table, _ := planview.Table(st, []string{"CHECK", "STATUS", "DETAIL"}, rows, nil, 0, nil)
	var b strings.Builder
	b.WriteString(table)
	// The items' setcap lines become the report's one: each would replace the last's grant.
	fixes, granted := "", []string{}
	for _, it := range rep.Items {
		switch {
		case it.Fix == "" || it.Status == check.StatusOK:
		case len(it.Grant) > 0:
			granted = append(granted, it.Name)
		default:
			fixes += fmt.Sprintf("  %s: %s\n", it.Name, it.Fix)
		}
	}
	if len(granted) > 0 && rep.Fix != "" {
		fixes = fmt.Sprintf("  %s: %s\n", strings.Join(granted, ", "), rep.Fix) + fixes
	}
	if fixes != "" {
		b.WriteString("\nto fix:\n" + fixes)
	}
	verdict := "tracing and deploying can work here"
	if !rep.OK {
		verdict = "something Echo needs is missing (exit status 1)"
	}
	fmt.Fprintf(&b, "\n%s\n", verdict)
	_, err := lipgloss.Fprint(w, b.String())
	return err
}
