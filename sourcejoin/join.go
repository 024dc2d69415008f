// Package sourcejoin joins the binary path's findings to the source path's (plan --source,
// issue 28 item 4): each plan pair's copy sites, named by file and line from the binary's
// debug information, are matched to the linking copies of the pairs the source analysis
// proves, and the pair gets that proof's verdict. It decides and encodes; the table a person
// reads is the caller's (cmd/echoctl).
package sourcejoin

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

// A verdict's Status.
const (
	Proved         = "proved"
	ProvedWaitKept = "proved_wait_kept" // merged, the copy's wait kept
	Declined       = "declined"
	NotInSource    = "not_in_source" // no linking copy of the given files is at its copies' lines
	Ambiguous      = "ambiguous"     // its copies are linking copies of different source pairs
)

// Verdict is what the source path says of one plan pair: the source pair its copies are, and
// that pair's proof.
type Verdict struct {
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

// Findings are plan --source's findings: each plan pair's verdict, and each file's flags.
type Findings struct {
	Files []string
	Flags []parse.BuildFlags // per file
	Pairs []Verdict
}

// Doc is plan --source --json's document.
type Doc struct {
	Schema string   `json:"schema"`
	Plan   string   `json:"plan"`  // where the plan is
	Files  []string `json:"files"` // the sources given
	// Flags are each file's build flags, in the order of Files: what its proofs hold for.
	Flags [][]string `json:"assumed_flags"`
	Pairs []Verdict  `json:"pairs"`
}

// Join says, for each pair of p, whether the source path proves it: the pair's copy sites are
// named by file and line from the binary's debug information and matched to the linking
// copies of the pairs the source analysis finds in files (rules.PairAt), parsed with o.
func Join(ctx context.Context, p *plan.Plan, files []string, o parse.Options) (*Findings, error) {
	res := &Findings{Files: files}
	var proofs []rules.Proof
	var fileOf []int // proofs[i] is of files[fileOf[i]]
	for i, f := range files {
		ps, bf, err := rewrite.ProveFile(ctx, f, rewrite.RewriteOptions{Options: o})
		if err != nil {
			return nil, fmt.Errorf("--source %s: %w", f, err)
		}
		proofs = append(proofs, ps...)
		for range ps {
			fileOf = append(fileOf, i)
		}
		res.Flags = append(res.Flags, bf)
	}
	names := symbols.NewResolver()
	res.Pairs = []Verdict{}
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
				v.Flags = nonNil(res.Flags[fileOf[i]].Flags)
			}
		}
		res.Pairs = append(res.Pairs, v)
	}
	return res, nil
}

// verdictOf is one plan pair's verdict: the source pair its copies are, and that proof's.
func verdictOf(id string, proofs []rules.Proof, matched map[int]bool, where []string) Verdict {
	v := Verdict{Pair: id, Copies: where}
	switch len(matched) {
	case 0:
		v.Status = NotInSource
		return v
	case 1:
	default:
		v.Status = Ambiguous
		return v
	}
	var pr rules.Proof
	for i := range matched {
		pr = proofs[i]
	}
	v.SourcePair, v.Function = pr.Host+"/"+pr.Device, pr.Function
	if why := pr.Declined(); why != "" {
		v.Status, v.Why = Declined, why
		return v
	}
	v.Status = Proved
	for _, s := range pr.Verdicts {
		if s.Status == plan.ConditionKeepWait {
			v.Status = ProvedWaitKept
		}
	}
	return v
}

// Words is a verdict as plan --source's table says it.
func (v Verdict) Words() string {
	switch v.Status {
	case Proved:
		return "proved: echoctl rewrite merges it"
	case ProvedWaitKept:
		return "proved, the copy's wait kept: echoctl rewrite merges it"
	case Declined:
		return "declined: " + v.Why
	case Ambiguous:
		return "its copies are linking copies of different source pairs"
	}
	return "not in the given source: its copies are at " + strings.Join(v.Copies, ", ")
}

// WriteJSON writes plan --source --json's document for the plan at planPath.
func WriteJSON(w io.Writer, res *Findings, planPath string) error {
	d := Doc{Schema: "echo.plansource/1", Plan: planPath, Files: res.Files, Pairs: res.Pairs}
	for _, bf := range res.Flags {
		d.Flags = append(d.Flags, nonNil(bf.Flags))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// nonNil is s, or an empty list where s is nil: JSON says [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
