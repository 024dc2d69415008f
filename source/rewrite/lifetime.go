package rewrite

import (
	"fmt"
	"sort"

	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// Every buffer a rewrite adds is freed exactly once on every path that freed the original,
// and on no other (issue 39: Rodinia hotspot's rewrite never freed its merged buffer on the
// path where only the device side was freed). lifetimes follows each path of the function
// (pathflow.go) with what each side holds and whether it was freed, and decides what each of
// the pair's frees becomes:
//   - merged (mapped, managed): a free after which both sides are freed on every path frees
//     the one buffer; a free of one side while the other is still to be freed frees nothing;
//     a free of one side after which the other is neither freed nor used on any path (the
//     program leaked it) frees the one buffer, after a synchronize, since GPU work on the
//     other side may still be in flight; a free that comes first on one path and second on
//     another cannot be rewritten. Then every path is checked: the buffer freed once where
//     either side was, and not at all where neither was (paths that end in exit() aside).
//   - pinned: the host side's frees free the page-locked buffer; each must free only the
//     pair's allocation (or null) on every path.
// A free of a buffer that is not the pair's allocation on some path is not rewritten.

// freeEdit is what one free of a pair becomes.
type freeEdit int

const (
	freeDrop   freeEdit = iota // nothing: the other side's free frees the buffer
	freeShared                 // the one buffer is freed here: both sides are freed now
	freeLone                   // the one buffer is freed here, after a synchronize: the other side was leaked
)

// holds is what a side's variable may hold on one path.
type holds uint8

const (
	holdsNothing holds = iota // declared without a value
	holdsPair                 // the pair's allocation
	holdsNull
	holdsOther
)

type lifeState struct {
	hHolds, dHolds holds
	hFreed, dFreed bool
	// pending are the frees (by index) of one side after which the other side has not yet
	// been freed or used on this path: lone candidates.
	pending uint64
	shared  uint8 // check pass: the one buffer's frees on this path
	// hBy, dBy are the free (index + 1) that freed each side: a helper that picks one of
	// several deallocators (the corpus's host_free) shows as several frees at one call.
	hBy, dBy uint8
	ended    bool // past exit(): what is freed no longer matters
}

// lifetimes follows a pair's frees through fn; merged says whether the pair is merged (else
// pinned: only the host side's frees are followed). It returns each free site's edit, by
// siteKey, with the sites, and the sites some path reaches with the freed side null.
func (rw *rewriter) lifetimes(p rules.Proof, g *facts.CFG, stmtEv map[*parse.Node][]facts.Event, merged bool) (map[string]freeEdit, map[string]rules.Site, map[string]bool, error) {
	h, d := p.HostID, p.DeviceID
	hostSites, devSites := map[string]bool{}, map[string]bool{}
	for _, a := range p.Allocs {
		if a.Host {
			hostSites[rules.SiteKey(a.At)] = true
		} else {
			devSites[rules.SiteKey(a.At)] = true
		}
	}
	sites := map[string]rules.Site{}
	index := map[string]int{}
	for _, evs := range stmtEv {
		for _, ev := range evs {
			if ev.Kind == facts.EvFree && (ev.V == h || merged && ev.V == d) {
				k := rules.SiteKey(ev.At)
				if _, ok := sites[k]; !ok {
					sites[k] = rules.Site{At: ev.At, Host: ev.V == h}
				}
			}
		}
	}
	var keys []string
	for k := range sites {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return sites[keys[i]].At.Offset < sites[keys[j]].At.Offset })
	if len(keys) > 63 {
		return nil, nil, nil, fmt.Errorf("%d frees of the pair: not followed", len(keys))
	}
	for i, k := range keys {
		index[k] = i
	}

	var problem *parse.Loc
	var why string
	fail := func(at parse.Loc, w string) {
		if problem == nil || at.Offset < problem.Offset {
			problem, why = &at, w
		}
	}
	otherFreed := map[string]uint8{} // 1: the other side not yet freed there, 2: freed
	nullAt := map[string]bool{}      // a path reaches the free with its side null
	usedAfter := map[string]bool{}
	var edits map[string]freeEdit // nil in the first pass
	step := func(s lifeState, ev facts.Event) lifeState {
		if s.ended || (ev.V != h && ev.V != d) {
			return s
		}
		side, freed, otherF, by := &s.hHolds, &s.hFreed, &s.dFreed, &s.hBy
		if ev.V == d {
			side, freed, otherF, by = &s.dHolds, &s.dFreed, &s.hFreed, &s.dBy
		}
		if merged || ev.V == h {
			// Any event on a side ends the lone candidacy of the other side's frees.
			for i, k := range keys {
				if s.pending&(1<<i) != 0 && sites[k].Host != (ev.V == h) {
					usedAfter[k] = true
					s.pending &^= 1 << i
				}
			}
		}
		switch ev.Kind {
		case facts.EvDef:
			allocs := devSites
			if ev.V == h {
				allocs = hostSites
			}
			switch {
			case ev.Alloc != facts.AllocOther && allocs[rules.SiteKey(ev.At)]:
				*side, *freed = holdsPair, false
				if ev.V == h {
					s.shared = 0
				}
			case ev.Undef:
				*side = holdsNothing
			case rw.nullDef(ev):
				*side = holdsNull
			default:
				*side = holdsOther
			}
		case facts.EvFree:
			k := rules.SiteKey(ev.At)
			if _, ok := sites[k]; !ok {
				break
			}
			switch *side {
			case holdsNull:
				nullAt[k] = true
				return s
			case holdsPair:
			default:
				fail(ev.At, fmt.Sprintf("the free at line %d may free a buffer that is not the pair's allocation", ev.At.Line))
				return s
			}
			if *freed && *by == uint8(index[k]+1) {
				return s
			}
			if *freed {
				fail(ev.At, fmt.Sprintf("the free at line %d may free the buffer twice", ev.At.Line))
			}
			*freed, *by = true, uint8(index[k]+1)
			if !merged {
				break
			}
			if *otherF {
				otherFreed[k] |= 2
			} else {
				otherFreed[k] |= 1
				s.pending |= 1 << index[k]
			}
			if edits != nil && edits[k] != freeDrop {
				s.shared++
				if s.shared > 1 {
					fail(ev.At, fmt.Sprintf("the buffer would be freed twice (line %d)", ev.At.Line))
				}
			}
		}
		return s
	}
	stmt := func(s lifeState, st *parse.Node) lifeState {
		if c := parse.Unwrap(st); c != nil && parse.IsCall(c.Kind) && facts.NoReturn[c.Callee()] {
			s.ended = true
		}
		return s
	}
	flow := &rules.PathFlow[lifeState]{G: g, StmtEv: stmtEv, Step: step, Stmt: stmt}
	if _, err := flow.Run(lifeState{}); err != nil {
		return nil, nil, nil, err
	}
	if problem != nil {
		return nil, nil, nil, fmt.Errorf("%s", why)
	}
	edits = map[string]freeEdit{}
	for _, k := range keys {
		switch {
		case !merged:
			edits[k] = freeShared
		case otherFreed[k] == 2:
			edits[k] = freeShared
		case otherFreed[k] == 1 && !usedAfter[k]:
			edits[k] = freeLone
		case otherFreed[k] == 1:
			edits[k] = freeDrop
		case otherFreed[k] == 3:
			return nil, nil, nil, fmt.Errorf("the free at line %d comes before the other side's on some paths and after it on others", sites[k].At.Line)
		}
	}
	if !merged {
		return edits, sites, nullAt, nil
	}
	exits, err := flow.Run(lifeState{})
	if err != nil {
		return nil, nil, nil, err
	}
	if problem != nil {
		return nil, nil, nil, fmt.Errorf("%s", why)
	}
	for _, s := range exits {
		if !s.ended && (s.hFreed || s.dFreed) != (s.shared == 1) {
			side := "host"
			if s.dFreed {
				side = "device"
			}
			return nil, nil, nil, fmt.Errorf("a path frees only the %s side, which the one buffer cannot follow: it would be freed while still used, or leaked where the original was freed", side)
		}
	}
	return edits, sites, nullAt, nil
}

// nullDef reports whether a definition of a pointer variable (ev) gives it null:
// `float *h = NULL`, `h = 0`.
func (rw *rewriter) nullDef(ev facts.Event) bool {
	for _, n := range rw.byKey[rules.SiteKey(ev.At)] {
		switch {
		case n.Kind == "VarDecl" && n.ID == ev.V && len(n.Inner) > 0:
			return facts.IsNull(n.Inner[len(n.Inner)-1])
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2:
			if l := parse.Unwrap(n.Inner[0]); l.Kind == "DeclRefExpr" && l.Ref != nil && l.Ref.ID == ev.V {
				return facts.IsNull(n.Inner[1])
			}
		}
	}
	return false
}
