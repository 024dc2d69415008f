package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// event applies one event to the state of one group of paths, recording what it shows about
// S1–S4 for the pair.
func (a *pairAnalysis) event(s pstate, ev facts.Event) pstate {
	// On paths where a side holds only buffers that are not the pair's allocations (a
	// hand-merged branch, say), what happens there is about those buffers, not the pair.
	if ev.Kind != facts.EvDef && ev.Kind != facts.EvEscape && (s.hDefs == 1<<otherDef || s.dDefs == 1<<otherDef) {
		return s
	}
	switch ev.Kind {
	case facts.EvDef:
		s = a.defEvent(s, ev)
	case facts.EvRead, facts.EvWrite:
		s = a.accessEvent(s, ev)
	case facts.EvLaunch:
		s = a.launchEvent(s, ev)
	case facts.EvCopy:
		s = a.copyEvent(s, ev)
	case facts.EvSync:
		s.inFlightAny, s.inFlightPair = parse.Loc{}, parse.Loc{}
	case facts.EvFree:
		s = a.freeEvent(s, ev)
	case facts.EvEscape:
		a.escapeEvent(ev)
	}
	return s
}

// defEvent: a side (or another variable) is given a value.
func (a *pairAnalysis) defEvent(s pstate, ev facts.Event) pstate {
	h, d := a.h, a.d
	bit := a.defBit(ev.At, ev.Alloc, ev.Size)
	if ev.Undef {
		bit = 0
	}
	if ev.Alloc != facts.AllocOther && (ev.V == h || ev.V == d) {
		a.allocs[SiteKey(ev.At)] = Site{At: ev.At, Host: ev.V == h}
	}
	if ev.V == h || ev.V == d {
		s.staleSize &^= bit // the size expression is evaluated afresh here
		s.pairing = a.pair(s.pairing, ev)
	}
	if ev.V == h {
		s.hDefs, s.hostDirty, s.gpuDirty, s.freedH = bit, parse.Loc{}, parse.Loc{}, parse.Loc{}
	} else if ev.V == d {
		s.dDefs, s.hostDirty, s.gpuDirty, s.freedD = bit, parse.Loc{}, parse.Loc{}, parse.Loc{}
	}
	return s
}

// accessEvent: the host reads or writes through a pointer (S1).
func (a *pairAnalysis) accessEvent(s pstate, ev facts.Event) pstate {
	if ev.V == a.d {
		a.findC(1, plan.ConditionUndecidable, ev.At, "the host dereferences the device pointer", ConstructCrossAccess)
		return s
	}
	if ev.V != a.h {
		return s
	}
	if s.gpuDirty.Line != 0 {
		a.find(1, plan.ConditionRefused, ev.At, fmt.Sprintf("the host uses the host side before the D2H copy brings back what the GPU wrote at line %d%s", s.gpuDirty.Line, a.gpuWrite(s.gpuDirty)))
	}
	if ev.Kind == facts.EvWrite {
		if s.inFlightPair.Line != 0 {
			a.find(1, plan.ConditionRefused, ev.At, fmt.Sprintf("the host writes the host side while the kernel at line %d may still use the device side", s.inFlightPair.Line))
		}
		s.hostDirty = ev.At
	}
	return s
}

// launchEvent: a kernel is launched, with a pointer among its arguments (S1).
func (a *pairAnalysis) launchEvent(s pstate, ev facts.Event) pstate {
	s.inFlightAny = ev.At
	if ev.V == a.h {
		a.findC(1, plan.ConditionUndecidable, ev.At, "the host pointer is passed to a kernel", ConstructCrossAccess)
	}
	if ev.V != a.d {
		return s
	}
	switch {
	case ev.Fills && a.full(s, ev):
		// Written whole on the device and read not at all: a host write before it is
		// gone, merged, as the D2H copy after it makes it gone as written.
		s.hostDirty = parse.Loc{}
	case s.hostDirty.Line != 0:
		a.find(1, plan.ConditionRefused, s.hostDirty, fmt.Sprintf("a host write reaches the kernel at line %d without a copy in between (a live value)", ev.At.Line))
	}
	if s.freedH.Line != 0 {
		a.freedBeforeKernel(s.freedH, ev.At)
	}
	if ev.GpuWrites {
		s.gpuDirty = ev.At
		if _, ok := a.writeWhy[ev.At.Offset]; !ok {
			a.writeWhy[ev.At.Offset] = ev.Why
		}
	}
	s.inFlightPair = ev.At
	return s
}

// freeEvent: a side is freed (S4).
func (a *pairAnalysis) freeEvent(s pstate, ev facts.Event) pstate {
	h, d := a.h, a.d
	if ev.V != h && ev.V != d {
		return s
	}
	a.freeSites[SiteKey(ev.At)] = Site{At: ev.At, Host: ev.V == h}
	if ev.Via != "" && !ev.ViaFreeOnly {
		side := "host"
		if ev.V == d {
			side = "device"
		}
		a.findC(4, plan.ConditionUndecidable, ev.At, fmt.Sprintf("the %s side is freed inside %s, which does more than free it, or frees it only on some paths: the rewrite can only replace a call that frees and nothing else", side, ev.Via), ConstructHelper)
	}
	if ev.V == h {
		s.freedH = ev.At
	} else {
		s.freedD = ev.At
	}
	if ev.V == h || ev.V == d {
		s.pairing = a.pair(s.pairing, ev)
	}
	if s.freedH.Line != 0 && s.freedD.Line != 0 {
		a.frees[fmt.Sprintf("%d", ev.At.Offset)] = ev.At
		if s.inFlightPair.Line != 0 {
			a.find(4, plan.ConditionKeepWait, ev.At, fmt.Sprintf("the kernel at line %d may still use the buffer at its last free: the rewrite frees it after a synchronize", s.inFlightPair.Line))
		}
	}
	return s
}

// escapeEvent: a side is stored, returned, compared or otherwise let out of sight (S3).
func (a *pairAnalysis) escapeEvent(ev facts.Event) {
	if ev.V != a.h && ev.V != a.d {
		return
	}
	st := plan.ConditionUndecidable
	if ev.Refused {
		st = plan.ConditionRefused
	}
	side := "host"
	if ev.V == a.d {
		side = "device"
	}
	a.findC(3, st, ev.At, "the "+side+" pointer is "+ev.Why, ConstructEscape)
}

// freedBeforeKernel is a free of the host side reached before a kernel that uses the device
// side: merged, that free would release the buffer the kernel reads. The rewrite moves it:
// it frees the merged buffer once, where the second of the two frees is (after the GPU work,
// S4's line), and removes this one; a free it cannot remove (inside a helper that does more)
// was declined where it is.
func (a *pairAnalysis) freedBeforeKernel(free, kernel parse.Loc) {
	k := SiteKey(free)
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
func (a *pairAnalysis) pair(states uint8, ev facts.Event) uint8 {
	host := ev.V == a.h
	alloc := ev.Kind == facts.EvDef && ev.Alloc != facts.AllocOther && !ev.Undef
	gone := ev.Kind == facts.EvFree || ev.Kind == facts.EvDef && !alloc && !ev.Undef
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
			a.find(4, plan.ConditionRefused, ev.At, fmt.Sprintf("the %s side gets a new allocation here while the %s side keeps the buffer it was paired with: one merged buffer cannot be both", side, otherSide))
			out |= pairBoth
		case alloc: // mine or otherHalf: allocated again before the other side is
			a.findC(4, plan.ConditionUndecidable, ev.At, fmt.Sprintf("the %s side is allocated again before the %s side is: the analysis pairs one allocation of each", side, otherSide), ConstructAllocation)
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
func (a *pairAnalysis) copyEvent(s pstate, ev facts.Event) pstate {
	h, d := a.h, a.d
	linking := (ev.Dir == plan.CopyH2D && ev.Src == h && ev.Dst == d) || (ev.Dir == plan.CopyD2H && ev.Src == d && ev.Dst == h)
	if !linking {
		switch {
		case ev.Src == d || ev.Dst == d:
			a.findC(1, plan.ConditionUndecidable, ev.At, "the device side is copied to or from another buffer", ConstructOtherCopy)
		case ev.Src == h:
			s = a.event(s, facts.Event{Kind: facts.EvRead, V: h, At: ev.At})
		case ev.Dst == h:
			s = a.event(s, facts.Event{Kind: facts.EvWrite, V: h, At: ev.At})
		}
		if ev.Sync {
			s.inFlightAny, s.inFlightPair = parse.Loc{}, parse.Loc{}
		}
		return s
	}
	if ev.Via != "" {
		a.findC(1, plan.ConditionUndecidable, ev.At, fmt.Sprintf("the linking copy is made inside %s, at line %d: a copy inside a helper serves all its callers, and is not followed yet", ev.Via, ev.Origin.Line), ConstructHelper)
	}
	full := a.full(s, ev)
	key := fmt.Sprintf("%d", ev.At.Offset)
	c, seen := a.copies[key]
	c.At, c.Dir, c.Sync, c.Full = ev.At, ev.Dir, ev.Sync, full && (!seen || c.Full)
	a.copies[key] = c
	if !full && ev.Via == "" {
		a.findC(1, plan.ConditionUndecidable, ev.At, "the copy's size is not provably the whole of both allocations, or a side may hold another buffer here", ConstructSize)
	}
	if ev.Dir == plan.CopyH2D {
		if s.gpuDirty.Line != 0 {
			a.find(1, plan.ConditionRefused, ev.At, fmt.Sprintf("the H2D copy overwrites what the GPU wrote to the device side at line %d%s", s.gpuDirty.Line, a.gpuWrite(s.gpuDirty)))
		}
		s.hostDirty = parse.Loc{}
	} else {
		if s.hostDirty.Line != 0 {
			a.find(1, plan.ConditionRefused, s.hostDirty, fmt.Sprintf("a host write is overwritten by the D2H copy at line %d", ev.At.Line))
		}
		s.gpuDirty = parse.Loc{}
	}
	if !async(ev) {
		if s.inFlightAny.Line != 0 {
			a.find(2, plan.ConditionKeepWait, ev.At, fmt.Sprintf("the synchronous copy waits for the kernel at line %d before the host goes on: the rewrite keeps a synchronize here", s.inFlightAny.Line))
			c.KeepWait = true
			a.copies[key] = c
		}
		s.inFlightAny, s.inFlightPair = parse.Loc{}, parse.Loc{}
	} else {
		a.findC(2, plan.ConditionUndecidable, ev.At, "an asynchronous copy's stream ordering is not followed yet", ConstructAsync)
	}
	return s
}

func async(ev facts.Event) bool { return !ev.Sync }

// gpuWrite says what the GPU work at l may have written the device side with, for a reason:
// ": " and the kernel's write with its line, or "".
func (a *pairAnalysis) gpuWrite(l parse.Loc) string {
	if why := a.writeWhy[l.Offset]; why != "" {
		return ": " + why
	}
	return ""
}

// full reports whether a linking copy moves whole buffers: on every path here each side holds
// only allocations the analysis saw, all of the copy's size.
func (a *pairAnalysis) full(s pstate, ev facts.Event) bool {
	if ev.CopySize == "" || strings.Contains(ev.CopySize, "?") || s.hDefs == 0 || s.dDefs == 0 {
		return false
	}
	for _, v := range facts.KeyVars(ev.CopySize) {
		if a.addrKept[v] {
			return false
		}
	}
	for _, defs := range []uint64{s.hDefs, s.dDefs} {
		if defs&(1<<otherDef) != 0 || defs&s.staleSize != 0 {
			return false
		}
		for i := 0; i < otherDef; i++ {
			if defs&(1<<i) != 0 && a.sizes[i] != ev.CopySize {
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
		var last parse.Loc
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
func SiteKey(l parse.Loc) string {
	if l.Spelling != nil {
		return fmt.Sprintf("%d@%s:%d", l.Offset, l.Spelling.File, l.Spelling.Offset)
	}
	return fmt.Sprintf("%d", l.Offset)
}
