package rules

import (
	"testing"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/trace"
)

// TestProfileMeasure: a trace's copy site counts for the copy written at its line or just
// before it in a file of that name, the nearest of several (two copies on consecutive lines
// stay apart), a copy in a macro by the line its name is written on too, and nothing else.
func TestProfileMeasure(t *testing.T) {
	at := func(line int) parse.Loc { return parse.Loc{File: "src/app.cu", Line: line} }
	inMacro := parse.Loc{File: "src/app.cu", Line: 30, Spelling: &parse.Loc{File: "src/app.cu", Line: 31}}
	proofs := []Proof{
		{Pair: Pair{Function: "main", Host: "a", Copies: []CopySite{{At: at(10)}}}},
		{Pair: Pair{Function: "main", Host: "b", Copies: []CopySite{{At: at(11)}}}},
		{Pair: Pair{Function: "main", Host: "c", Copies: []CopySite{{At: inMacro}}}},
		{Pair: Pair{Function: "main", Host: "d", Copies: []CopySite{{At: at(50)}}}},
	}
	site := func(file string, line int, ns, count uint64) trace.SiteStats {
		return trace.SiteStats{File: file, Line: line, NS: ns, Count: count, Bytes: 64 * count}
	}
	moved := uint64(7)
	p := NewProfile([]trace.SiteStats{
		site("/build/src/app.cu", 10, 100, 2),                                                 // a, exactly
		site("/build/src/app.cu", 12, 40, 1),                                                  // b: the nearest copy at or before line 12
		site("/build/src/app.cu", 33, 9, 3),                                                   // c, by its spelling's line 31
		{File: "/build/src/app.cu", Line: 50, NS: 1000, MovingNS: &moved, Count: 1, Bytes: 8}, // d: its moving time, the rest a wait
		site("/build/src/app.cu", 54, 5, 1),                                                   // beyond reach of d
		site("/build/src/other.cu", 10, 5, 1),                                                 // another file
		site("", 0, 5, 1),                                                                     // no debug information
	})
	want := []Measured{{100, 2, 128, 0}, {40, 1, 64, 0}, {9, 3, 192, 0}, {7, 1, 8, 993}}
	for i, got := range p.Measure(proofs) {
		if got != want[i] {
			t.Errorf("%s: %+v, want %+v", proofs[i].Host, got, want[i])
		}
	}
}
