package planner

import (
	"cmp"
	"slices"

	"github.com/echo-uma/echo/trace"
)

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
	// sites whose typical copy lies on the envelope stand in for copies that waited for
	// nothing.
	perSite  map[callSite]*siteRate
	minBytes uint64 // sites of smaller copies give no rate: their time is mostly fixed cost
}

type siteRate struct {
	copies     int
	bytes, ns  uint64
	firstBytes uint64
	firstNS    uint64
	// recent are the site's latest copies after its first, at most typicalWindow of them
	// (a ring from copies-1 on), whose median is typical's; typ caches it until the next.
	recent []copyTime
	typ    *copyTime
}

// copyTime is one copy's bytes and duration.
type copyTime struct{ bytes, ns uint64 }

// typicalWindow is how many of a site's latest copies its typical copy is the median of:
// enough that the few a loaded machine slows stay a minority, few enough that finding the
// median costs next to nothing per copy.
const typicalWindow = 63

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

// sample takes a copy into the rate unless it waited; either way it is its site's copy, so
// a first copy that waited leaves the site's next one warm: it ran cold, not the one after.
func (b *bandwidth) sample(e *trace.Event, dir string, waited bool) {
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
	if waited {
		return
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
	if s.copies > 0 {
		c := copyTime{e.Bytes, ns}
		if len(s.recent) < typicalWindow {
			s.recent = append(s.recent, c)
		} else {
			s.recent[(s.copies-1)%typicalWindow] = c
		}
		s.typ = nil
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

// typical is a call site's median copy of its latest (typicalWindow), its cold first copy
// left out where it has later ones: the witness of whether the site's copies waited for GPU
// work. A wait for kernels lifts most copies of a site (the kernels it waits for run every
// iteration; a copy the host issued late may find them done), while a loaded machine's
// noise (a preempted thread, another process's memory traffic) lifts a few copies of any
// site, by so much that a site's mean can show a wait it never had: of 120 corpus traces
// on a loaded machine, the copy share of 3 fell by 15–22 points without launch events, each
// through a site one of whose six copies took 5–80 times the others'. ok is false when it
// has no duration.
func (s *siteRate) typical() (bytes, ns float64, ok bool) {
	if s.typ == nil {
		l := slices.Clone(s.recent)
		if len(l) == 0 {
			l = []copyTime{{s.firstBytes, s.firstNS}}
		}
		// by time per byte, so that sites whose copies vary in size are ordered by rate
		slices.SortFunc(l, func(a, b copyTime) int {
			return cmp.Compare(float64(a.ns)*float64(b.bytes), float64(b.ns)*float64(a.bytes))
		})
		s.typ = &l[(len(l)-1)/2] // of an even count the lower middle: noise only slows a copy
	}
	return float64(s.typ.bytes), float64(s.typ.ns), s.typ.bytes > 0 && s.typ.ns > 0
}

// envelope is the most time a copy of bytes needs, judged from every call site's copies: no
// site's own copies can be told to have waited without launch events, but together they
// bound one another. A copy takes no longer than a larger one took, nor than its bytes at a
// smaller one's rate (a call's time grows with its bytes from a fixed cost paid once). A
// rate alone would charge small copies too little of that fixed cost, which is most of
// their time. ok is false when no site has a duration.
func (b *bandwidth) envelope(bytes uint64) (ns float64, ok bool) {
	return b.envelopeOf(bytes, (*siteRate).point)
}

// envelopeOf is envelope with each site's copies taken as pointOf has them: as a whole
// (point), or by its typical copy (typical).
func (b *bandwidth) envelopeOf(bytes uint64, pointOf func(*siteRate) (float64, float64, bool)) (ns float64, ok bool) {
	x := float64(bytes)
	best := func(t float64) {
		if !ok || t < ns {
			ns, ok = t, true
		}
	}
	for _, lo := range b.perSite {
		xl, tl, okl := pointOf(lo)
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

// unwaitedSlack is how far above the envelope a site's typical copy may lie and still be
// taken to have waited for nothing: the sites that waited for nothing lie on it, give or
// take their own noise, and a wait for kernels lifts a site's copies well above it.
const unwaitedSlack = 1.1

// unwaited is whether the copies of call site k, in a trace without launch events, are taken
// to have waited for nothing: its typical copy took no longer than the envelope of all
// sites' typical copies allows at its size, give or take unwaitedSlack. The typical copy,
// not the mean: a site whose mean a few preempted copies lifted did not wait for kernels.
func (b *bandwidth) unwaited(k callSite) bool {
	s := b.perSite[k]
	if s == nil {
		return false
	}
	x, t, ok := s.typical()
	if !ok {
		return false
	}
	env, ok := b.envelopeOf(uint64(x), (*siteRate).typical)
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
