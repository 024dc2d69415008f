package main

import (
	"context"
	"fmt"
	"io"

	"github.com/echo-uma/echo/internal/interrupt"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/sourcejoin"
	"github.com/echo-uma/echo/sourcereport"
)

// sourceVerdicts is plan --source's join of p's pairs to the source path's proofs in files
// (sourcejoin.Join), parsed as the default flags say; a signal while clang runs is the
// command's interruption.
func sourceVerdicts(ctx context.Context, p *plan.Plan, files []string) (*sourcejoin.Findings, error) {
	res, err := sourcejoin.Join(ctx, p, files, (&clangFlags{}).options())
	if err != nil {
		if intr, ok := interrupt.Of(ctx, ""); ok {
			return nil, intr
		}
		return nil, err
	}
	return res, nil
}

// renderSourceProofs prints the source path's verdicts on p's pairs as a table, and what
// each file's proofs assumed.
func renderSourceProofs(w io.Writer, res *sourcejoin.Findings) error {
	fmt.Fprintf(w, "\nthe source path (%s):\n", sourcereport.PathList(res.Files))
	t := texttable.Columns{Headers: []string{"PAIR", "SOURCE PAIR", "VERDICT"}}
	for _, v := range res.Pairs {
		name := "-"
		if v.SourcePair != "" {
			name = v.SourcePair + " in " + v.Function
		}
		t.Rows = append(t.Rows, []string{v.Pair, name, v.Words()})
	}
	if _, err := io.WriteString(w, t.Render()); err != nil {
		return err
	}
	for i, f := range res.Files {
		sourcereport.PrintAssumed(w, f, res.Flags[i])
	}
	return nil
}
