package rules

import (
	"path/filepath"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/trace"
)

// Profile is what a run measured at the source lines of its copies (issue 28 item 4): the
// copy sites of a trace, named by file and line from the binary's DWARF (as echoctl stats
// names them), with their time. It ranks the pairs a rewrite proves by what their copies cost
// in that run, and tells the pairs the run never exercised.
type Profile struct {
	sites []trace.SiteStats
}

// NewProfile takes a trace's copy sites, already named by file and line; a site without a
// line (no DWARF) matches nothing.
func NewProfile(sites []trace.SiteStats) *Profile {
	return &Profile{sites: sites}
}

// Measured is what the run spent in one pair's linking copies.
type Measured struct {
	NS    uint64 // time in the copy calls (their data movement where the trace could tell)
	Count uint64 // calls
	Bytes uint64 // what they moved
	// WaitNS is the rest of the calls' time where the trace told data movement from waiting:
	// the GPU work a synchronous copy waited for before it moved anything, the kernels' time
	// as far as the trace can see it; 0 where it could not tell.
	WaitNS uint64
}

// lineSlack is how many lines after a copy call's first line the call's return address may
// be placed at: a call written over several lines (arguments one a line) is given the line of
// any of them, as the compiler chooses.
const lineSlack = 2

// Measure is what the run measured at the copies of each of a file's proved pairs, in their
// order.
// A site counts for the copy written at or just before its line (within lineSlack) in a
// file of the same name: of several copies within reach, the nearest, so two copies on
// consecutive lines are told apart, and no site counts twice.
func (p *Profile) Measure(proofs []Proof) []Measured {
	out := make([]Measured, len(proofs))
	for _, s := range p.sites {
		if best := PairAt(proofs, s.File, s.Line); best >= 0 {
			out[best].NS += siteNS(s)
			out[best].Count += s.Count
			out[best].Bytes += s.Bytes
			if s.MovingNS != nil && *s.MovingNS < s.NS {
				out[best].WaitNS += s.NS - *s.MovingNS
			}
		}
	}
	return out
}

// PairAt is the index of the proof in proofs whose pair's linking copy a binary's call at
// file:line (DWARF) is: the copy written at that line or up to lineSlack lines before it, the
// nearest of several; -1 when none is.
func PairAt(proofs []Proof, file string, line int) int {
	best, bestLine := -1, 0
	if line == 0 || file == "" {
		return best
	}
	for i, pr := range proofs {
		for _, c := range pr.Copies {
			for _, l := range copyLines(c.At) {
				if sameFile(c.At.File, file) && l <= line && line-l <= lineSlack && l > bestLine {
					best, bestLine = i, l
				}
			}
		}
	}
	return best
}

// copyLines are the lines a copy call may be attributed to: where it is, and where its
// name is written when it sits in a macro's arguments (CHECK(cudaMemcpy(…))).
func copyLines(at parse.Loc) []int {
	lines := []int{at.Line}
	if at.Spelling != nil && at.Spelling.Line != at.Line {
		lines = append(lines, at.Spelling.Line)
	}
	return lines
}

func sameFile(a, b string) bool { return filepath.Base(a) == filepath.Base(b) }

// siteNS is a site's copy time: its data movement where the trace could tell it from the
// waits for GPU work, else the calls' whole time.
func siteNS(s trace.SiteStats) uint64 {
	if s.MovingNS != nil {
		return *s.MovingNS
	}
	return s.NS
}
