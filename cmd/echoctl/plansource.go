package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/source"
	"github.com/echo-uma/echo/symbols"
)

// renderSourceProofs says, for each pair of p, whether the source path proves it (plan
// --source, issue 28 item 4): the pair's copy sites are named by file and line from the
// binary's debug information and matched to the linking copies of the pairs the source
// analysis finds in files (source.PairAt).
func renderSourceProofs(ctx context.Context, w io.Writer, p *planner.Plan, files []string) error {
	o := source.RewriteOptions{Options: (&clangFlags{}).options()}
	var proofs []source.Proof
	for _, f := range files {
		ps, err := source.ProveFile(ctx, f, o)
		if err != nil {
			return fmt.Errorf("--source %s: %w", f, err)
		}
		proofs = append(proofs, ps...)
	}
	pairs := make([]source.Pair, len(proofs))
	for i, pr := range proofs {
		pairs[i] = pr.Pair
	}
	names := symbols.NewResolver()
	fmt.Fprintf(w, "\nthe source path (%s):\n", strings.Join(files, ", "))
	t := columns{headers: []string{"PAIR", "SOURCE PAIR", "VERDICT"}}
	for _, pair := range p.Pairs {
		matched, where := map[int]bool{}, []string{}
		for _, c := range pair.Copies {
			sym, ok := names.Return(symbols.Module{Path: c.Site.Module, BuildID: c.Site.BuildID, Size: c.Site.ModuleSize}, c.Site.Offset)
			if !ok || sym.Line == 0 {
				where = append(where, c.Site.Name()+" (no line: build with -g)")
				continue
			}
			where = append(where, fmt.Sprintf("%s:%d", sym.File, sym.Line))
			if i := source.PairAt(pairs, sym.File, sym.Line); i >= 0 {
				matched[i] = true
			}
		}
		t.rows = append(t.rows, sourceRow(pair.ID, proofs, matched, where))
	}
	_, err := io.WriteString(w, t.render())
	return err
}

// sourceRow is one plan pair's row: the source pair its copies are, and that proof's verdict.
func sourceRow(id string, proofs []source.Proof, matched map[int]bool, where []string) []string {
	if len(matched) != 1 {
		why := "not in the given source: its copies are at " + strings.Join(where, ", ")
		if len(matched) > 1 {
			why = "its copies are linking copies of different source pairs"
		}
		return []string{id, "-", why}
	}
	var pr source.Proof
	for i := range matched {
		pr = proofs[i]
	}
	name := fmt.Sprintf("%s/%s in %s", pr.Host, pr.Device, pr.Function)
	if why := pr.Declined(); why != "" {
		return []string{id, name, "declined: " + why}
	}
	for _, v := range pr.Verdicts {
		if v.Status == source.KeepWait {
			return []string{id, name, "proved, the copy's wait kept: echoctl rewrite merges it"}
		}
	}
	return []string{id, name, "proved: echoctl rewrite merges it"}
}
