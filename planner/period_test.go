package planner

import (
	"math/rand/v2"
	"testing"
)

// seqOf makes a call sequence from letters, one call a microsecond.
func seqOf(s string) (toks []uint32, ns []uint64) {
	for i, c := range s {
		toks, ns = append(toks, uint32(c-'A')), append(ns, uint64(i)*1000)
	}
	return toks, ns
}

func TestFindRepeats(t *testing.T) {
	cases := []struct {
		name, seq     string
		apart         int // calls from this one on are 0.1 ms apart, not 1 µs
		start, period int
		repeats       int
	}{
		{"one call", "AAAAAA", 0, 0, 1, 6},
		{"a set-up, then the loop", "QRSTUVABCABCABCABCABC", 0, 6, 3, 5},
		{"the smallest period that explains the span", "ABABABABABAB", 0, 0, 2, 6},
		{"every call twice per unit: its period only two back", "AABBAABBAABBAABB", 0, 0, 4, 4},
		{"a first iteration that differs", "AXYBCABCABCABCABC", 0, 3, 3, 4},
		{"a longer loop beats a shorter one with more repeats", "AAAAAAAABCDEBCDEBCDEBCDEBCDE", 8, 8, 4, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks, ns := seqOf(c.seq)
			for i := c.apart; c.apart > 0 && i < len(ns); i++ {
				ns[i] += uint64(i-c.apart+1) * 100_000
			}
			runs := findRepeats(toks, func(i int) uint64 { return ns[i] }, 26)
			if len(runs) == 0 {
				t.Fatalf("no repeat found in %s", c.seq)
			}
			if r := runs[0]; r.start != c.start || r.period != c.period || r.repeats != c.repeats {
				t.Errorf("%s: best %+v; want start %d, period %d, %d repeats", c.seq, r, c.start, c.period, c.repeats)
			}
		})
	}
	if toks, ns := seqOf("ABCDEFG"); len(findRepeats(toks, func(i int) uint64 { return ns[i] }, 26)) != 0 {
		t.Errorf("repeats in a sequence without any")
	}
}

// BenchmarkFindRepeats searches a million calls: a set-up of one-off and recurring uploads,
// then a loop of five calls, one of them in a different place every 13th iteration.
func BenchmarkFindRepeats(b *testing.B) {
	const calls = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	var toks []uint32
	var ns []uint64
	for i := 0; i < calls; i++ {
		var t uint32
		switch {
		case i < 20_000:
			t = 100 + rng.Uint32N(500)
		case i%65 == 3:
			t = 7
		default:
			t = uint32(i % 5)
		}
		toks, ns = append(toks, t), append(ns, uint64(i)*2000)
	}
	b.ResetTimer()
	for b.Loop() {
		if runs := findRepeats(toks, func(i int) uint64 { return ns[i] }, 600); len(runs) == 0 {
			b.Fatal("no repeat found")
		}
	}
	b.ReportMetric(float64(calls)*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
