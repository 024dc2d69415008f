package planner

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

type pairKey struct{ host, device int }

// pairAcc is what the trace says about one host/device buffer pair.
type pairAcc struct {
	num          int // p1, p2, ... in order of first copy
	host, device *buffer
	copies       map[copyKey]*copyAcc
	order        []*copyAcc
	partial      string          // the first partial copy between the two buffers
	partialDirs  [2]bool         // h2d, d2h: directions of partial copies, for a pair that has only those
	blocks       map[uint64]bool // offsets of the device blocks its copies reached, if not the whole allocation
	async        bool
}

// copiedIn is whether the host buffer is copied to the device: the pair is an input.
func (p *pairAcc) copiedIn() bool {
	for _, c := range p.order {
		if c.dir == "h2d" {
			return true
		}
	}
	return p.partialDirs[0]
}

type copyKey struct {
	site   plan.Site
	dir    string
	stream uint64
	offset uint64 // of a chunk, into both buffers; 0 for a whole-buffer copy
}

// minWarmCopies is how many copies after the first a site needs before its times leave the
// first one out: the first copy (and the first iteration of a loop) runs cold, on pages
// touched for the first time and libraries initialising lazily.
const minWarmCopies = 2

// copyAcc is one linking-copy site of a pair.
type copyAcc struct {
	copyKey
	count         int
	firstNS       uint64 // when the first copy started
	secondNS      uint64 // and the second
	lastNS        uint64 // and the last
	firstDuration uint64 // how long the first took
	firstWaited   bool   // and whether it also waited for GPU work
	cleanNS       uint64 // summed durations of copies that waited for nothing
	clean         int
	waitedNS      uint64 // summed durations of copies that also waited for GPU work
	waited        int
	bytesEachCopy uint64
	pid           uint32 // the process and caller of its copies, which the copy clock
	caller        uint64 // knows its call site by
}

type rejectKey struct {
	site   plan.Site
	dir    string
	reason string
}

func (a *analysis) reject(e *trace.Event, dir, reason string) {
	k := rejectKey{a.sites.of(e, e.Bytes, false), dir, reason}
	r := a.rejected[k]
	if r == nil {
		r = &plan.Rejection{Site: k.site, Direction: plan.CopyDirection(dir), Reason: reason}
		a.rejected[k] = r
	}
	r.Count++
}

// direction resolves a copy's direction, cudaMemcpyDefault through the allocation map.
func (a *analysis) direction(e *trace.Event, dst, src *buffer) string {
	if e.Kind == trace.KindDefault {
		switch dev := func(b *buffer) bool { return b != nil && b.deviceSide() }; {
		case dev(src) && dev(dst):
			return "d2d"
		case dev(src):
			return "d2h"
		case dev(dst):
			return "h2d"
		}
		return "h2h"
	}
	return trace.Direction(e.Kind)
}

func (a *analysis) copy(e *trace.Event) {
	dst, src := a.bufs.find(e.PID, e.Addr), a.bufs.find(e.PID, e.Src)
	dir := a.direction(e, dst, src)
	waited, async := a.clock.copy(e, dir), asyncCopy(e.Type)
	for _, b := range []*buffer{dst, src} {
		if b != nil {
			b.lastUseNS = e.ExitNS
		}
	}
	if e.Type == trace.EventCUDAMemcpy2D || e.Type == trace.EventCUDAMemcpy2DAsync {
		for _, b := range []*buffer{dst, src} {
			if b != nil {
				b.copied2D = true
			}
		}
		a.reject(e, dir, "a 2D copy: pitched copies cannot link a pair (not supported yet)")
		return
	}
	switch dir {
	case "d2d":
		if dst != nil && dst.deviceWrite == "" {
			dst.deviceWrite = "a device-to-device copy"
		}
		return
	case "h2h":
		return
	case "h2d", "d2h":
		if e.Bytes == 0 {
			a.reject(e, dir, "a copy of zero bytes")
			return
		}
	default:
		a.reject(e, dir, fmt.Sprintf("unknown copy kind %d", e.Kind))
		return
	}
	hostAddr, devAddr, host, dev := e.Src, e.Addr, src, dst
	if dir == "d2h" {
		hostAddr, devAddr, host, dev = e.Addr, e.Src, dst, src
	}
	if a.header.Attached || a.header.NoHostAllocs {
		host = a.implied(host, e.PID, hostAddr, e.Bytes, plan.KindPageable)
	}
	if a.header.Attached {
		dev = a.implied(dev, e.PID, devAddr, e.Bytes, plan.KindDevice)
	}
	switch {
	case host == nil:
		a.reject(e, dir, "the host side is no allocation the trace saw (stack, static data, or below --min-host-bytes when traced)")
		return
	case dev == nil:
		a.reject(e, dir, "the device side is no allocation the trace saw")
		return
	case host.deviceSide() || !dev.deviceSide():
		a.reject(e, dir, fmt.Sprintf("copies between %s and %s memory, not host and device", host.kind, dev.kind))
		return
	}
	p := a.pair(host, dev)
	k := copyKey{a.sites.of(e, e.Bytes, false), dir, e.Stream, hostAddr - host.start}
	if (hostAddr != host.start || e.Bytes != host.size) && chunkOf(host, dev, hostAddr, devAddr, e.Bytes) {
		p.async = p.async || async
		a.link(p, k, e, waited)
		return
	}
	if hostAddr != host.start || e.Bytes != host.size {
		if p.partial == "" {
			p.partial = fmt.Sprintf("%s copies %d bytes at offset %d of a %d-byte host buffer and offset %d of a %d-byte device buffer",
				e.Type, e.Bytes, hostAddr-host.start, host.size, devAddr-dev.start, dev.size)
		}
		p.partialDirs[dirIndex(dir)] = true
		a.reject(e, dir, "a partial copy: not the whole of the host buffer")
		return
	}
	// The whole host buffer, to or from a part of a device allocation: a block a caching
	// allocator carved from a segment. Pinned serves it; a merge cannot.
	if devAddr != dev.start || e.Bytes != dev.size {
		p.blocks[devAddr-dev.start] = true
	}
	p.async = p.async || async
	a.link(p, k, e, waited)
}

// chunkOf is whether a copy of part of a buffer is a chunk of a pair: the same offset into
// a host and a device buffer of one size, both seen allocated (chunks cut from one buffer,
// as code overlapping copies with compute over several streams copies it). Whether the
// chunks cover the buffer is judged over the whole trace (pairAcc.chunkGaps).
func chunkOf(host, dev *buffer, hostAddr, devAddr, bytes uint64) bool {
	off := hostAddr - host.start
	return !host.unresolved && !dev.unresolved && host.size == dev.size && devAddr-dev.start == off &&
		off+bytes <= host.size
}

// copySites totals each linking-copy site over the pairs it links: a site that copies a
// fresh host buffer every iteration links a new pair each time, yet recurs as a site.
type copySites map[copyKey]*copyAcc

func (cs copySites) add(k copyKey, e *trace.Event, waited bool) *copyAcc {
	c := cs[k]
	if c == nil {
		c = newCopyAcc(k, e)
		cs[k] = c
	}
	c.record(e, waited)
	return c
}

func newCopyAcc(k copyKey, e *trace.Event) *copyAcc {
	return &copyAcc{copyKey: k, firstNS: e.EnterNS, bytesEachCopy: e.Bytes, pid: e.PID, caller: e.Caller}
}

// implied finds or makes the buffer a copy implies where the trace did not see it allocated
// (an attached trace, or host allocators not traced): the copy is all there is to know about
// it. Its free goes unseen too, so a copy that does not fit the buffer an earlier copy
// implied there is a new buffer in its place: memory freed and handed out again (a
// framework's parameters, then its inputs). A copy into part of an allocation thus looks
// whole here; validate finds no allocation of its size at its pointer and refuses it.
func (a *analysis) implied(b *buffer, pid uint32, addr, bytes uint64, kind plan.MemKind) *buffer {
	if b != nil && (!b.unresolved || b.start == addr && b.size == bytes) {
		return b
	}
	return a.bufs.add(&buffer{pid: pid, start: addr, size: bytes, kind: kind, unresolved: true,
		site: plan.Site{Call: "unknown", Bytes: bytes}})
}

func (a *analysis) pair(host, dev *buffer) *pairAcc {
	k := pairKey{host.id, dev.id}
	p := a.pairs[k]
	if p == nil {
		p = &pairAcc{num: len(a.order) + 1, host: host, device: dev, copies: map[copyKey]*copyAcc{}, blocks: map[uint64]bool{}}
		a.pairs[k] = p
		a.order = append(a.order, p)
	}
	return p
}

func (p *pairAcc) id() string { return fmt.Sprintf("p%d", p.num) }

func (p *pairAcc) add(k copyKey, e *trace.Event, waited bool) {
	c := p.copies[k]
	if c == nil {
		c = newCopyAcc(k, e)
		p.copies[k] = c
		p.order = append(p.order, c)
	}
	c.record(e, waited)
}

func (c *copyAcc) record(e *trace.Event, waited bool) {
	c.count++
	switch c.count {
	case 1:
		c.firstDuration, c.firstWaited = e.Duration(), waited
	case 2:
		c.secondNS = e.EnterNS
	}
	c.lastNS = e.EnterNS
	if waited {
		c.waited++
		c.waitedNS += e.Duration()
	} else {
		c.clean++
		c.cleanNS += e.Duration()
	}
}

// settleChunks turns the chunks of a pair that do not cover it into partial copies, as
// they would have been copy by copy: rejected, and no linking copies of the pair, whose
// whole-buffer copies still link it (merges then refuse it as partial; pinned may serve it).
func (a *analysis) settleChunks() {
	for _, p := range a.order {
		gaps := p.chunkGaps()
		if gaps == "" {
			continue
		}
		kept := p.order[:0]
		for _, c := range p.order {
			if c.bytesEachCopy == p.host.size {
				kept = append(kept, c)
				continue
			}
			delete(p.copies, c.copyKey)
			if s := a.copySites[c.copyKey]; s != nil {
				if s.count -= c.count; s.count <= 0 {
					delete(a.copySites, c.copyKey)
				}
			}
			k := rejectKey{c.site, c.dir, "a partial copy: not the whole of the host buffer"}
			if a.rejected[k] == nil {
				a.rejected[k] = &plan.Rejection{Site: k.site, Direction: plan.CopyDirection(c.dir), Reason: k.reason}
			}
			a.rejected[k].Count += c.count
			p.partialDirs[dirIndex(c.dir)] = true
		}
		p.order = kept
		p.partial = gaps
	}
}

// chunkGaps is why the pair's chunks do not cover it, "" when they do or it has none: in each
// direction with chunks, the pieces copied must cover the buffer exactly, none overlapping
// (a whole-buffer copy links the pair by itself, beside them).
func (p *pairAcc) chunkGaps() string {
	for _, dir := range []string{"h2d", "d2h"} {
		var pieces [][2]uint64
		for _, c := range p.order {
			if c.dir == dir && c.bytesEachCopy != p.host.size {
				pieces = append(pieces, [2]uint64{c.offset, c.bytesEachCopy})
			}
		}
		if len(pieces) == 0 {
			continue
		}
		if n, end, ok := plan.Tiling(pieces, p.host.size); !ok {
			return fmt.Sprintf("%s chunks (%d pieces) cover %d of %d bytes from the start, without a gap or an overlap",
				dir, n, end, p.host.size)
		}
	}
	return ""
}
