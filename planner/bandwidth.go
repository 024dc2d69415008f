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
	perSite  map[callSite]*siteRate
	minBytes uint64 // sites of smaller copies give no rate: their time is mostly fixed cost
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

// point is a call site's copy as a whole: its bytes and duration per copy, its cold first
// copy left out where it has later ones; ok is false when it has no duration.
func (s *siteRate) point() (bytes, ns float64, ok bool) {
	copies, b, t := s.copies, s.bytes, s.ns
	if copies > 1 {
		copies, b, t = copies-1, b-s.firstBytes, t-s.firstNS
	}
	if b == 0 || t == 0 {
		return 0, 0, false
	}
	return float64(b) / float64(copies), float64(t) / float64(copies), true
}

// envelope is the most time a copy of bytes needs, judged from every call site's copies: no
// site's own copies can be told to have waited without launch events, but together they
// bound one another. A copy takes no longer than a larger one took, nor than its bytes at a
// smaller one's rate (a call's time grows with its bytes from a fixed cost paid once). A
// rate alone would charge small copies too little of that fixed cost, which is most of
// their time. ok is false when no site has a duration.
func (b *bandwidth) envelope(bytes uint64) (ns float64, ok bool) {
	x := float64(bytes)
	best := func(t float64) {
		if !ok || t < ns {
			ns, ok = t, true
		}
	}
	for _, lo := range b.perSite {
		xl, tl, okl := lo.point()
		if !okl {
			continue
		}
		if xl >= x {
			best(tl) // a larger copy's time bounds a smaller one's
			continue
		}
		best(tl * x / xl) // the smaller site's rate, carried to bytes: its fixed cost paid once
	}
	return ns, ok
}

// unwaitedSlack is how far above the envelope a site's copies may lie and still be taken to
// have waited for nothing: the sites that waited for nothing lie on it, give or take their
// own noise, and a wait for kernels lifts a site's copies well above it.
const unwaitedSlack = 1.1

// unwaited is whether the copies of call site k, in a trace without launch events, are taken
// to have waited for nothing: they took no longer than the envelope of all sites' copies
// allows at their size, give or take unwaitedSlack.
func (b *bandwidth) unwaited(k callSite) bool {
	s := b.perSite[k]
	if s == nil {
		return false
	}
	x, t, ok := s.point()
	if !ok {
		return false
	}
	env, ok := b.envelope(uint64(x))
	return ok && t <= env*unwaitedSlack
}

// unwaitedRate is nsFor for traces without launch events: bytes at the rate of the sites
// taken to have waited for nothing, those of minBytes or more, in dir or else the other
// direction; never less than the envelope, which keeps the fixed cost a rate leaves out of
// small copies; the envelope alone where no such site is known.
func (b *bandwidth) unwaitedRate(dir string, bytes, minBytes uint64) (float64, bool) {
	env, ok := b.envelope(bytes)
	if !ok {
		return 0, false
	}
	var r rate
	for k, s := range b.perSite {
		if x, t, ok := s.point(); ok && x >= float64(minBytes) && b.unwaited(k) {
			r.bytes[k.dir] += uint64(x)
			r.ns[k.dir] += uint64(t)
		}
	}
	for _, i := range []int{dirIndex(dir), 1 - dirIndex(dir)} {
		if r.ns[i] > 0 && r.bytes[i] > 0 {
			return max(env, float64(bytes)*float64(r.ns[i])/float64(r.bytes[i])), true
		}
	}
	return env, true
}

// empty reports whether no copy waited for nothing (or, without launch events, whether no
// copy gave a rate at all).
func (b *bandwidth) empty() bool {
	if b.perSite != nil {
		_, ok := b.envelope(1)
		return !ok
	}
	return b.warm.ns == [2]uint64{} && b.cold.ns == [2]uint64{}
}

// nsFor estimates how long moving bytes takes in dir, from that direction's rate or, when
// it has none, the other's; warm copies first. ok is false when no copy waited for nothing.
func (b *bandwidth) nsFor(dir string, bytes uint64) (float64, bool) {
	if b.perSite != nil {
		return b.unwaitedRate(dir, bytes, b.minBytes)
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
