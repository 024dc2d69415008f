package source

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/plan"
)

// event applies one event to the state of one group of paths, recording what it shows about
// S1–S4 for the pair.
func (a *pairAnalysis) event(s pstate, ev event) pstate {
	h, d := a.h, a.d
	// On paths where a side holds only buffers that are not the pair's allocations (a
	// hand-merged branch, say), what happens there is about those buffers, not the pair.
	if ev.kind != evDef && ev.kind != evEscape && (s.hDefs == 1<<otherDef || s.dDefs == 1<<otherDef) {
		return s
	}
	switch ev.kind {
	case evDef:
		bit := a.defBit(ev.at, ev.alloc, ev.size)
		if ev.undef {
			bit = 0
		}
		if ev.alloc != allocOther && (ev.v == h || ev.v == d) {
			a.allocs[siteKey(ev.at)] = Site{At: ev.at, Host: ev.v == h}
		}
		if ev.v == h || ev.v == d {
			s.staleSize &^= bit // the size expression is evaluated afresh here
			s.pairing = a.pair(s.pairing, ev)
		}
		if ev.v == h {
			s.hDefs, s.hostDirty, s.gpuDirty, s.freedH = bit, Loc{}, Loc{}, Loc{}
		} else if ev.v == d {
			s.dDefs, s.hostDirty, s.gpuDirty, s.freedD = bit, Loc{}, Loc{}, Loc{}
		}
	case evRead, evWrite:
		if ev.v == d {
			a.findC(1, plan.ConditionUndecidable, ev.at, "the host dereferences the device pointer", ConstructCrossAccess)
			break
		}
		if ev.v != h {
			break
		}
		if s.gpuDirty.Line != 0 {
			a.find(1, plan.ConditionRefused, ev.at, fmt.Sprintf("the host uses the host side before the D2H copy brings back what the GPU wrote at line %d%s", s.gpuDirty.Line, a.gpuWrite(s.gpuDirty)))
		}
		if ev.kind == evWrite {
			if s.inFlightPair.Line != 0 {
				a.find(1, plan.ConditionRefused, ev.at, fmt.Sprintf("the host writes the host side while the kernel at line %d may still use the device side", s.inFlightPair.Line))
			}
			s.hostDirty = ev.at
		}
	case evLaunch:
		s.inFlightAny = ev.at
		if ev.v == h {
			a.findC(1, plan.ConditionUndecidable, ev.at, "the host pointer is passed to a kernel", ConstructCrossAccess)
		}
		if ev.v != d {
			break
		}
		switch {
		case ev.fills && a.full(s, ev):
			// Written whole on the device and read not at all: a host write before it is
			// gone, merged, as the D2H copy after it makes it gone as written.
			s.hostDirty = Loc{}
		case s.hostDirty.Line != 0:
			a.find(1, plan.ConditionRefused, s.hostDirty, fmt.Sprintf("a host write reaches the kernel at line %d without a copy in between (a live value)", ev.at.Line))
		}
		if s.freedH.Line != 0 {
			a.freedBeforeKernel(s.freedH, ev.at)
		}
		if ev.gpuWrites {
			s.gpuDirty = ev.at
			if _, ok := a.writeWhy[ev.at.Offset]; !ok {
				a.writeWhy[ev.at.Offset] = ev.why
			}
		}
		s.inFlightPair = ev.at
	case evCopy:
		s = a.copyEvent(s, ev)
	case evSync:
		s.inFlightAny, s.inFlightPair = Loc{}, Loc{}
	case evFree:
		if ev.v != h && ev.v != d {
			break
		}
		a.freeSites[siteKey(ev.at)] = Site{At: ev.at, Host: ev.v == h}
		if ev.via != "" && !ev.viaFreeOnly {
			side := "host"
			if ev.v == d {
				side = "device"
			}
			a.findC(4, plan.ConditionUndecidable, ev.at, fmt.Sprintf("the %s side is freed inside %s, which does more than free it, or frees it only on some paths: the rewrite can only replace a call that frees and nothing else", side, ev.via), ConstructHelper)
		}
		if ev.v == h {
			s.freedH = ev.at
		} else {
			s.freedD = ev.at
		}
		if ev.v == h || ev.v == d {
			s.pairing = a.pair(s.pairing, ev)
		}
		if s.freedH.Line != 0 && s.freedD.Line != 0 {
			a.frees[fmt.Sprintf("%d", ev.at.Offset)] = ev.at
			if s.inFlightPair.Line != 0 {
				a.find(4, plan.ConditionKeepWait, ev.at, fmt.Sprintf("the kernel at line %d may still use the buffer at its last free: the rewrite frees it after a synchronize", s.inFlightPair.Line))
			}
		}
	case evEscape:
		if ev.v == h || ev.v == d {
			st := plan.ConditionUndecidable
			if ev.refused {
				st = plan.ConditionRefused
			}
			side := "host"
			if ev.v == d {
				side = "device"
			}
			a.findC(3, st, ev.at, "the "+side+" pointer is "+ev.why, ConstructEscape)
		}
	}
	return s
}

// freedBeforeKernel is a free of the host side reached before a kernel that uses the device
// side: merged, that free would release the buffer the kernel reads. The rewrite moves it:
// it frees the merged buffer once, where the second of the two frees is (after the GPU work,
// S4's line), and removes this one; a free it cannot remove (inside a helper that does more)
// was declined where it is.
func (a *pairAnalysis) freedBeforeKernel(free, kernel Loc) {
	k := siteKey(free)
	if _, ok := a.moved[k]; !ok {
		a.moved[k] = movedFree{free: free, kernel: kernel}
	}
}

// Pairing states: a merged buffer stands for one allocation of each side, so between two
// allocations of one side the other side is allocated once, and neither side gets a new
// buffer while the other keeps the one it was paired with.
const (
	pairNone  uint8 = 1 << iota // neither side holds an allocation of the pair
	pairH                       // the host side holds one, the device side none yet
	pairD                       // the device side holds one, the host side none yet
	pairBoth                    // both hold their paired allocations
	pairHalfD                   // paired, and the host side freed (or given another value)
	pairHalfH                   // paired, and the device side freed (or given another value)
)

// pair moves the pairing states over a definition or a free of one side, recording S4's
// refusal where a side gets a new allocation the other cannot follow.
func (a *pairAnalysis) pair(states uint8, ev event) uint8 {
	host := ev.v == a.h
	alloc := ev.kind == evDef && ev.alloc != allocOther && !ev.undef
	gone := ev.kind == evFree || ev.kind == evDef && !alloc && !ev.undef
	if !alloc && !gone {
		return states
	}
	mine, other, half, otherHalf := pairH, pairD, pairHalfD, pairHalfH
	side, otherSide := "host", "device"
	if !host {
		mine, other, half, otherHalf = pairD, pairH, pairHalfH, pairHalfD
		side, otherSide = "device", "host"
	}
	var out uint8
	for st := uint8(1); st != 0 && st <= pairHalfH; st <<= 1 {
		if states&st == 0 {
			continue
		}
		switch {
		case alloc && st == pairNone:
			out |= mine
		case alloc && st == other:
			out |= pairBoth
		case alloc && (st == pairBoth || st == half):
			a.find(4, plan.ConditionRefused, ev.at, fmt.Sprintf("the %s side gets a new allocation here while the %s side keeps the buffer it was paired with: one merged buffer cannot be both", side, otherSide))
			out |= pairBoth
		case alloc: // mine or otherHalf: allocated again before the other side is
			a.findC(4, plan.ConditionUndecidable, ev.at, fmt.Sprintf("the %s side is allocated again before the %s side is: the analysis pairs one allocation of each", side, otherSide), ConstructAllocation)
			out |= mine
		case gone && (st == mine || st == otherHalf):
			out |= pairNone
		case gone && st == pairBoth:
			out |= half
		default:
			out |= st
		}
	}
	return out
}

// copyEvent handles a copy: the pair's linking copies, or a copy of one side to elsewhere.
func (a *pairAnalysis) copyEvent(s pstate, ev event) pstate {
	h, d := a.h, a.d
	linking := (ev.dir == plan.CopyH2D && ev.src == h && ev.dst == d) || (ev.dir == plan.CopyD2H && ev.src == d && ev.dst == h)
	if !linking {
		switch {
		case ev.src == d || ev.dst == d:
			a.findC(1, plan.ConditionUndecidable, ev.at, "the device side is copied to or from another buffer", ConstructOtherCopy)
		case ev.src == h:
			s = a.event(s, event{kind: evRead, v: h, at: ev.at})
		case ev.dst == h:
			s = a.event(s, event{kind: evWrite, v: h, at: ev.at})
		}
		if ev.sync {
			s.inFlightAny, s.inFlightPair = Loc{}, Loc{}
		}
		return s
	}
	if ev.via != "" {
		a.findC(1, plan.ConditionUndecidable, ev.at, fmt.Sprintf("the linking copy is made inside %s, at line %d: a copy inside a helper serves all its callers, and is not followed yet", ev.via, ev.origin.Line), ConstructHelper)
	}
	full := a.full(s, ev)
	key := fmt.Sprintf("%d", ev.at.Offset)
	c, seen := a.copies[key]
	c.At, c.Dir, c.Sync, c.Full = ev.at, ev.dir, ev.sync, full && (!seen || c.Full)
	a.copies[key] = c
	if !full && ev.via == "" {
		a.findC(1, plan.ConditionUndecidable, ev.at, "the copy's size is not provably the whole of both allocations, or a side may hold another buffer here", ConstructSize)
	}
	if ev.dir == plan.CopyH2D {
		if s.gpuDirty.Line != 0 {
			a.find(1, plan.ConditionRefused, ev.at, fmt.Sprintf("the H2D copy overwrites what the GPU wrote to the device side at line %d%s", s.gpuDirty.Line, a.gpuWrite(s.gpuDirty)))
		}
		s.hostDirty = Loc{}
	} else {
		if s.hostDirty.Line != 0 {
			a.find(1, plan.ConditionRefused, s.hostDirty, fmt.Sprintf("a host write is overwritten by the D2H copy at line %d", ev.at.Line))
		}
		s.gpuDirty = Loc{}
	}
	if !ev.async() {
		if s.inFlightAny.Line != 0 {
			a.find(2, plan.ConditionKeepWait, ev.at, fmt.Sprintf("the synchronous copy waits for the kernel at line %d before the host goes on: the rewrite keeps a synchronize here", s.inFlightAny.Line))
			c.KeepWait = true
			a.copies[key] = c
		}
		s.inFlightAny, s.inFlightPair = Loc{}, Loc{}
	} else {
		a.findC(2, plan.ConditionUndecidable, ev.at, "an asynchronous copy's stream ordering is not followed yet", ConstructAsync)
	}
	return s
}

func (ev event) async() bool { return !ev.sync }

// gpuWrite says what the GPU work at l may have written the device side with, for a reason:
// ": " and the kernel's write with its line, or "".
func (a *pairAnalysis) gpuWrite(l Loc) string {
	if why := a.writeWhy[l.Offset]; why != "" {
		return ": " + why
	}
	return ""
}

// full reports whether a linking copy moves whole buffers: on every path here each side holds
// only allocations the analysis saw, all of the copy's size.
func (a *pairAnalysis) full(s pstate, ev event) bool {
	if ev.copySize == "" || strings.Contains(ev.copySize, "?") || s.hDefs == 0 || s.dDefs == 0 {
		return false
	}
	for _, v := range keyVars(ev.copySize) {
		if a.addrKept[v] {
			return false
		}
	}
	for _, defs := range []uint64{s.hDefs, s.dDefs} {
		if defs&(1<<otherDef) != 0 || defs&s.staleSize != 0 {
			return false
		}
		for i := 0; i < otherDef; i++ {
			if defs&(1<<i) != 0 && a.sizes[i] != ev.copySize {
				return false
			}
		}
	}
	return true
}

// verdicts sums each condition's findings: a refusal wins over an undecidable, which wins over
// a kept wait; the earliest line decides among equals, and the reason's text among those at
// one place (so the same source always gets the same words).
func (a *pairAnalysis) verdicts() [4]Verdict {
	var out [4]Verdict
	rank := map[plan.Condition]int{plan.ConditionRefused: 3, plan.ConditionUndecidable: 2, plan.ConditionKeepWait: 1}
	for i := range out {
		v := Verdict{Cond: fmt.Sprintf("S%d", i+1), Status: plan.ConditionHolds}
		var fs []finding
		for _, f := range a.findings[i] {
			fs = append(fs, f)
		}
		sort.Slice(fs, func(x, y int) bool {
			if rank[fs[x].status] != rank[fs[y].status] {
				return rank[fs[x].status] > rank[fs[y].status]
			}
			if fs[x].at.Offset != fs[y].at.Offset {
				return fs[x].at.Offset < fs[y].at.Offset
			}
			return fs[x].why < fs[y].why
		})
		if len(fs) > 0 {
			v.Status, v.At, v.Reason = fs[0].status, fs[0].at, fs[0].why
			if v.Status == plan.ConditionUndecidable {
				v.Construct = fs[0].construct
			}
		}
		out[i] = v
	}
	if out[0].Status == plan.ConditionHolds && len(a.copies) == 0 {
		out[0] = Verdict{Cond: "S1", Status: plan.ConditionUndecidable, Reason: "no linking copy is reachable"}
	}
	if out[3].Status == plan.ConditionHolds || out[3].Status == plan.ConditionKeepWait {
		var last Loc
		for _, l := range a.frees {
			if l.Offset > last.Offset {
				last = l
			}
		}
		wait := out[3].Reason
		out[3].At = last
		if last.Line != 0 {
			out[3].Reason = "the shared buffer is freed where the second of the two frees is, after the GPU work"
		} else {
			out[3].Reason = "neither path frees both sides: the shared buffer is not freed"
		}
		if m := a.firstMoved(); m.free.Line != 0 {
			out[3].Reason = fmt.Sprintf("the host side's free at line %d runs before the kernel at line %d uses the device side: the rewrite removes it, and ", m.free.Line, m.kernel.Line)
			if last.Line != 0 {
				out[3].Reason += fmt.Sprintf("frees the shared buffer at line %d instead, where the second of the two frees is, after the GPU work", last.Line)
			} else {
				out[3].Reason += "the shared buffer is not freed, as the device side is not"
			}
		}
		if out[3].Status == plan.ConditionKeepWait {
			out[3].Reason += "; " + wait
		}
	}
	return out
}

// firstMoved is the earliest of the frees the rewrite moves (a.moved), or none.
func (a *pairAnalysis) firstMoved() movedFree {
	var m movedFree
	for _, x := range a.moved {
		if m.free.Line == 0 || x.free.Offset < m.free.Offset {
			m = x
		}
	}
	return m
}

// siteKey tells apart the nodes a macro argument puts at one expansion location by where
// each was written.
func siteKey(l Loc) string {
	if l.Spelling != nil {
		return fmt.Sprintf("%d@%s:%d", l.Offset, l.Spelling.File, l.Spelling.Offset)
	}
	return fmt.Sprintf("%d", l.Offset)
}
