package plan

import (
	"strings"
	"testing"
)

func identityPair() Pair {
	site := func(call string, off uint64) Site {
		return Site{Module: "/app", BuildID: "ab12", Offset: off, Call: call, Bytes: 4096, Ordinal: 2}
	}
	return Pair{
		ID: "p1", Direction: "output", Bytes: 4096,
		Host:   Buffer{Site: site("malloc", 0x10), Kind: KindPageable},
		Device: Buffer{Site: site("cudaMalloc", 0x20), Kind: "device"},
		Copies: []Copy{
			{Site: site("cudaMemcpy", 0x30), Direction: "d2h"},
			{Site: site("cudaMemcpy", 0x30), Direction: "d2h"}, // the same site again: one line
		},
		Strategies: []Strategy{StrategyMapped, StrategyPinned},
	}
}

// A side with an identity names its call chain and its ordinal among that chain's calls,
// not among every call of its site; a merge names the pair's linking-copy sites, each once,
// and the digest covers both (an edited chain or copy site is another plan).
func TestCompactNamesIdentityAndCopies(t *testing.T) {
	pair := identityPair()
	plain, err := pairLines([]Pair{pair}, StrategyMapped)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain, "host ab12 10 malloc 4096 2\n") || strings.Count(plain, "copy ab12 30 cudaMemcpy 4096 d2h\n") != 1 {
		t.Errorf("without identity:\n%s", plain)
	}
	pair.Host.Identity = &Identity{Chain: []Frame{{"ab12", 0x40}, {"size:9:libc.so", 0x50}}, Ordinal: 0, Calls: 1}
	named, err := pairLines([]Pair{pair}, StrategyMapped)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(named, "host ab12 10 malloc 4096 0 ab12:40 size:9:libc.so:50\n") {
		t.Errorf("with identity:\n%s", named)
	}
	pinned, err := pairLines([]Pair{pair}, StrategyPinned)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pinned, "copy ") {
		t.Errorf("pinned names copy sites, which it does not bind at:\n%s", pinned)
	}
	a, _ := PairsDigest([]Pair{identityPair()}, StrategyMapped)
	b, _ := PairsDigest([]Pair{pair}, StrategyMapped)
	if a == b {
		t.Error("the digest does not cover the identity")
	}
}

// A plan's identity is checked as it is read.
func TestIdentityCheck(t *testing.T) {
	cases := []struct {
		id   Identity
		fail string
	}{
		{Identity{Chain: []Frame{{"ab", 1}}, Ordinal: 0, Calls: 1}, ""},
		{Identity{Chain: nil, Ordinal: 0, Calls: 1}, "frames"},
		{Identity{Chain: []Frame{{"a", 1}, {"b", 2}, {"c", 3}}, Ordinal: 0, Calls: 1}, "frames"},
		{Identity{Chain: []Frame{{"ab", 1}}, Ordinal: 1, Calls: 1}, "ordinal"},
		{Identity{Chain: []Frame{{"a b", 1}}, Ordinal: 0, Calls: 1}, "white space"},
	}
	for _, c := range cases {
		err := c.id.check()
		if (err == nil) != (c.fail == "") || err != nil && !strings.Contains(err.Error(), c.fail) {
			t.Errorf("%+v: %v; want %q", c.id, err, c.fail)
		}
	}
}
