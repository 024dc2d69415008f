package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
	"github.com/echo-uma/echo/source/rules"
	"github.com/echo-uma/echo/symbols"
)

// sourceVerdict is what the source path says of one plan pair (plan --source, issue 28 item
// 4): the source pair its copies are, and that pair's proof.
type sourceVerdict struct {
	Pair string `json:"pair"` // the plan's pair id
	// Status: proved, proved_wait_kept (merged, the copy's wait kept), declined,
	// not_in_source (no linking copy of the given files is at its copies' lines), ambiguous
	// (its copies are linking copies of different source pairs).
	Status     string   `json:"status"`
	SourcePair string   `json:"source_pair,omitempty"` // "h_in/d_in"
	Function   string   `json:"function,omitempty"`
	Why        string   `json:"why,omitempty"`    // a declined pair's first deciding verdict
	Copies     []string `json:"copies,omitempty"` // the pair's copy sites as file:line
	// Flags are the build flags the source pair's proof assumed (its file's).
	Flags []string `json:"assumed_flags,omitempty"`
}

// sourceProofs are plan --source's findings: each plan pair's verdict, and each file's flags.
type sourceProofs struct {
	files []string
	flags []parse.BuildFlags // per file
	pairs []sourceVerdict
}

// sourceDoc is plan --source --json's document.
type sourceDoc struct {
	Schema string   `json:"schema"`
	Plan   string   `json:"plan"`  // where the plan is
	Files  []string `json:"files"` // the sources given
	// Flags are each file's build flags, in the order of Files: what its proofs hold for.
	Flags [][]string      `json:"assumed_flags"`
	Pairs []sourceVerdict `json:"pairs"`
}

// sourceVerdicts says, for each pair of p, whether the source path proves it: the pair's copy
// sites are named by file and line from the binary's debug information and matched to the
// linking copies of the pairs the source analysis finds in files (rules.PairAt).
func sourceVerdicts(ctx context.Context, p *plan.Plan, files []string) (*sourceProofs, error) {
	o := rewrite.RewriteOptions{Options: (&clangFlags{}).options()}
	res := &sourceProofs{files: files}
	var proofs []rules.Proof
	var fileOf []int // proofs[i] is of files[fileOf[i]]
	for i, f := range files {
		ps, bf, err := rewrite.ProveFile(ctx, f, o)
		if err != nil {
			if intr, ok := interruption(ctx, ""); ok {
				return nil, intr
			}
			return nil, fmt.Errorf("--source %s: %w", f, err)
		}
		proofs = append(proofs, ps...)
		for range ps {
			fileOf = append(fileOf, i)
		}
		res.flags = append(res.flags, bf)
	}
	names := symbols.NewResolver()
	out := []sourceVerdict{}
	for _, pair := range p.Pairs {
		matched, where := map[int]bool{}, []string{}
		for _, c := range pair.Copies {
			sym, ok := names.Return(symbols.Module{Path: c.Site.Module, BuildID: c.Site.BuildID, Size: c.Site.ModuleSize}, c.Site.Offset)
			if !ok || sym.Line == 0 {
				where = append(where, c.Site.Name()+" (no line: build with -g)")
				continue
			}
			where = append(where, fmt.Sprintf("%s:%d", sym.File, sym.Line))
			if i := rules.PairAt(proofs, sym.File, sym.Line); i >= 0 {
				matched[i] = true
			}
		}
		v := verdictOf(pair.ID, proofs, matched, where)
		if len(matched) == 1 {
			for i := range matched {
				v.Flags = nonNil(res.flags[fileOf[i]].Flags)
			}
		}
		out = append(out, v)
	}
	res.pairs = out
	return res, nil
}

// verdictOf is one plan pair's verdict: the source pair its copies are, and that proof's.
func verdictOf(id string, proofs []rules.Proof, matched map[int]bool, where []string) sourceVerdict {
	v := sourceVerdict{Pair: id, Copies: where}
	switch len(matched) {
	case 0:
		v.Status = "not_in_source"
		return v
	case 1:
	default:
		v.Status = "ambiguous"
		return v
	}
	var pr rules.Proof
	for i := range matched {
		pr = proofs[i]
	}
	v.SourcePair, v.Function = pr.Host+"/"+pr.Device, pr.Function
	if why := pr.Declined(); why != "" {
		v.Status, v.Why = "declined", why
		return v
	}
	v.Status = "proved"
	for _, s := range pr.Verdicts {
		if s.Status == plan.ConditionKeepWait {
			v.Status = "proved_wait_kept"
		}
	}
	return v
}

// renderSourceProofs prints the source path's verdicts on p's pairs as a table, and what
// each file's proofs assumed.
func renderSourceProofs(w io.Writer, res *sourceProofs) error {
	fmt.Fprintf(w, "\nthe source path (%s):\n", pathList(res.files))
	t := columns{headers: []string{"PAIR", "SOURCE PAIR", "VERDICT"}}
	for _, v := range res.pairs {
		name := "-"
		if v.SourcePair != "" {
			name = v.SourcePair + " in " + v.Function
		}
		t.rows = append(t.rows, []string{v.Pair, name, sourceWords(v)})
	}
	if _, err := io.WriteString(w, t.render()); err != nil {
		return err
	}
	for i, f := range res.files {
		printAssumed(w, f, res.flags[i])
	}
	return nil
}

// sourceWords is a verdict as the table says it.
func sourceWords(v sourceVerdict) string {
	switch v.Status {
	case "proved":
		return "proved: echoctl rewrite merges it"
	case "proved_wait_kept":
		return "proved, the copy's wait kept: echoctl rewrite merges it"
	case "declined":
		return "declined: " + v.Why
	case "ambiguous":
		return "its copies are linking copies of different source pairs"
	}
	return "not in the given source: its copies are at " + strings.Join(v.Copies, ", ")
}

// writeSourceJSON writes plan --source --json's document for the plan at planPath.
func writeSourceJSON(w io.Writer, res *sourceProofs, planPath string) error {
	doc := sourceDoc{Schema: "echo.plansource/1", Plan: planPath, Files: res.files, Pairs: res.pairs}
	for _, bf := range res.flags {
		doc.Flags = append(doc.Flags, nonNil(bf.Flags))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
