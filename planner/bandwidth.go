package planner

import "github.com/echo-uma/echo/trace"

// bandwidth is the copy rate seen on copies that waited for nothing, per direction. A
// synchronous copy issued while GPU work was pending also waited for that work, so its
// transfer time is estimated from its bytes at this rate instead. The first copy from each
// call site is counted apart: it runs cold (fresh pages touched for the first time, lazy
// initialisation), so the rate comes from the later ones wherever there are any.
type bandwidth struct {
	warm, cold rate
	seen       map[callSite]bool
	// perSite is each call site's own rate, its first (cold) copy left out, for traces
	// whose copies cannot be told apart by whether they waited (no launch events): the
	// fastest site's stands in for copies that waited for nothing.
	perSite map[callSite]*siteRate
}

type siteRate struct {
	copies     int
	bytes, ns  uint64
	firstBytes uint64
	firstNS    uint64
}

type rate struct {
	bytes, ns [2]uint64 // h2d, d2h
}

type callSite struct {
	pid    uint32
	caller uint64
	dir    int
}

func dirIndex(dir string) int {
	if dir == "d2h" {
		return 1
	}
	return 0
}

func (b *bandwidth) sample(e *trace.Event, dir string) {
	ns := e.Duration()
	if ns == 0 {
		return
	}
	k := callSite{e.PID, e.Caller, dirIndex(dir)}
	r := &b.warm
	if !b.seen[k] {
		if b.seen == nil {
			b.seen = map[callSite]bool{}
		}
		b.seen[k] = true
		r = &b.cold
	}
	r.bytes[k.dir] += e.Bytes
	r.ns[k.dir] += ns
}

// sampleSite adds a copy to its call site's rate.
func (b *bandwidth) sampleSite(e *trace.Event, dir string) {
	ns := e.Duration()
	if ns == 0 {
		return
	}
	k := callSite{e.PID, e.Caller, dirIndex(dir)}
	if b.perSite == nil {
		b.perSite = map[callSite]*siteRate{}
	}
	s := b.perSite[k]
	if s == nil {
		s = &siteRate{firstBytes: e.Bytes, firstNS: ns}
		b.perSite[k] = s
	}
	s.copies++
	s.bytes += e.Bytes
	s.ns += ns
}

// fastest is the least time per byte of any call site, its cold first copy left out
// where it has later ones; ok is false when no site has a rate.
func (b *bandwidth) fastest() (nsPerByte float64, ok bool) {
	for _, s := range b.perSite {
		bytes, ns := s.bytes, s.ns
		if s.copies > 1 {
			bytes, ns = bytes-s.firstBytes, ns-s.firstNS
		}
		if bytes == 0 || ns == 0 {
			continue
		}
		if r := float64(ns) / float64(bytes); !ok || r < nsPerByte {
			nsPerByte, ok = r, true
		}
	}
	return nsPerByte, ok
}

// empty reports whether no copy waited for nothing (or, without launch events, whether no
// copy gave a rate at all).
func (b *bandwidth) empty() bool {
	if b.perSite != nil {
		_, ok := b.fastest()
		return !ok
	}
	return b.warm.ns == [2]uint64{} && b.cold.ns == [2]uint64{}
}

// nsFor estimates how long moving bytes takes in dir, from that direction's rate or, when
// it has none, the other's; warm copies first. ok is false when no copy waited for nothing.
func (b *bandwidth) nsFor(dir string, bytes uint64) (float64, bool) {
	if b.perSite != nil {
		r, ok := b.fastest()
		return float64(bytes) * r, ok
	}
	for _, i := range []int{dirIndex(dir), 1 - dirIndex(dir)} {
		for _, r := range []*rate{&b.warm, &b.cold} {
			if r.ns[i] > 0 && r.bytes[i] > 0 {
				return float64(bytes) * float64(r.ns[i]) / float64(r.bytes[i]), true
			}
		}
	}
	return 0, false
}
