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
	l, err := newLifeRun(rw, p, stmtEv, merged)
	if err != nil {
		return nil, nil, nil, err
	}
	flow := &rules.PathFlow[lifeState]{G: g, StmtEv: stmtEv, Step: l.step, Stmt: lifeStmt}
	if _, err := flow.Run(lifeState{}); err != nil {
		return nil, nil, nil, err
	}
	if l.problem != nil {
		return nil, nil, nil, fmt.Errorf("%s", l.why)
	}
	edits, err := l.freeEdits()
	if err != nil {
		return nil, nil, nil, err
	}
	if !merged {
		return edits, l.sites, l.nullAt, nil
	}
	l.edits = edits // the check pass counts the one buffer's frees
	exits, err := flow.Run(lifeState{})
	if err != nil {
		return nil, nil, nil, err
	}
	if l.problem != nil {
		return nil, nil, nil, fmt.Errorf("%s", l.why)
	}
	if err := checkExits(exits); err != nil {
		return nil, nil, nil, err
	}
	return edits, l.sites, l.nullAt, nil
}

// lifeRun is what lifetimes learns of one pair's frees while following its paths.
type lifeRun struct {
	rw                  *rewriter
	h, d                parse.DeclID
	merged              bool
	hostSites, devSites map[string]bool // the pair's allocation sites, by siteKey
	sites               map[string]rules.Site
	keys                []string       // the free sites, in the file's order
	index               map[string]int // a free site's place in keys
	problem             *parse.Loc     // the first problem found, and why
	why                 string
	otherFreed          map[string]uint8 // 1: the other side not yet freed there, 2: freed
	nullAt              map[string]bool  // a path reaches the free with its side null
	usedAfter           map[string]bool
	edits               map[string]freeEdit // nil in the first pass
}

// newLifeRun gathers the pair's allocation sites and the frees to follow (of the host side;
// of both when merged).
func newLifeRun(rw *rewriter, p rules.Proof, stmtEv map[*parse.Node][]facts.Event, merged bool) (*lifeRun, error) {
	l := &lifeRun{rw: rw, h: p.HostID, d: p.DeviceID, merged: merged,
		hostSites: map[string]bool{}, devSites: map[string]bool{},
		sites: map[string]rules.Site{}, index: map[string]int{},
		otherFreed: map[string]uint8{}, nullAt: map[string]bool{}, usedAfter: map[string]bool{}}
	for _, a := range p.Allocs {
		if a.Host {
			l.hostSites[rules.SiteKey(a.At)] = true
		} else {
			l.devSites[rules.SiteKey(a.At)] = true
		}
	}
	for _, evs := range stmtEv {
		for _, ev := range evs {
			if ev.Kind == facts.EvFree && (ev.V == l.h || merged && ev.V == l.d) {
				k := rules.SiteKey(ev.At)
				if _, ok := l.sites[k]; !ok {
					l.sites[k] = rules.Site{At: ev.At, Host: ev.V == l.h}
				}
			}
		}
	}
	for k := range l.sites {
		l.keys = append(l.keys, k)
	}
	sort.Slice(l.keys, func(i, j int) bool { return l.sites[l.keys[i]].At.Offset < l.sites[l.keys[j]].At.Offset })
	if len(l.keys) > 63 {
		return nil, fmt.Errorf("%d frees of the pair: not followed", len(l.keys))
	}
	for i, k := range l.keys {
		l.index[k] = i
	}
	return l, nil
}

// fail keeps the first problem in the file.
func (l *lifeRun) fail(at parse.Loc, w string) {
	if l.problem == nil || at.Offset < l.problem.Offset {
		l.problem, l.why = &at, w
	}
}

// step applies one event of the pair to a path's state.
func (l *lifeRun) step(s lifeState, ev facts.Event) lifeState {
	if s.ended || (ev.V != l.h && ev.V != l.d) {
		return s
	}
	if l.merged || ev.V == l.h {
		// Any event on a side ends the lone candidacy of the other side's frees.
		for i, k := range l.keys {
			if s.pending&(1<<i) != 0 && l.sites[k].Host != (ev.V == l.h) {
				l.usedAfter[k] = true
				s.pending &^= 1 << i
			}
		}
	}
	switch ev.Kind {
	case facts.EvDef:
		l.define(&s, ev)
	case facts.EvFree:
		l.free(&s, ev)
	}
	return s
}

// define sets what the side ev defines holds.
func (l *lifeRun) define(s *lifeState, ev facts.Event) {
	side, freed := &s.hHolds, &s.hFreed
	allocs := l.hostSites
	if ev.V == l.d {
		side, freed, allocs = &s.dHolds, &s.dFreed, l.devSites
	}
	switch {
	case ev.Alloc != facts.AllocOther && allocs[rules.SiteKey(ev.At)]:
		*side, *freed = holdsPair, false
		if ev.V == l.h {
			s.shared = 0
		}
	case ev.Undef:
		*side = holdsNothing
	case l.rw.nullDef(ev):
		*side = holdsNull
	default:
		*side = holdsOther
	}
}

// free follows a free of one side at one of the sites.
func (l *lifeRun) free(s *lifeState, ev facts.Event) {
	side, freed, otherF, by := &s.hHolds, &s.hFreed, &s.dFreed, &s.hBy
	if ev.V == l.d {
		side, freed, otherF, by = &s.dHolds, &s.dFreed, &s.hFreed, &s.dBy
	}
	k := rules.SiteKey(ev.At)
	if _, ok := l.sites[k]; !ok {
		return
	}
	switch *side {
	case holdsNull:
		l.nullAt[k] = true
		return
	case holdsPair:
	default:
		l.fail(ev.At, fmt.Sprintf("the free at line %d may free a buffer that is not the pair's allocation", ev.At.Line))
		return
	}
	if *freed && *by == uint8(l.index[k]+1) {
		return
	}
	if *freed {
		l.fail(ev.At, fmt.Sprintf("the free at line %d may free the buffer twice", ev.At.Line))
	}
	*freed, *by = true, uint8(l.index[k]+1)
	if !l.merged {
		return
	}
	if *otherF {
		l.otherFreed[k] |= 2
	} else {
		l.otherFreed[k] |= 1
		s.pending |= 1 << l.index[k]
	}
	if l.edits != nil && l.edits[k] != freeDrop {
		s.shared++
		if s.shared > 1 {
			l.fail(ev.At, fmt.Sprintf("the buffer would be freed twice (line %d)", ev.At.Line))
		}
	}
}

// lifeStmt ends a path at a call that does not return (exit()).
func lifeStmt(s lifeState, st *parse.Node) lifeState {
	if c := parse.Unwrap(st); c != nil && parse.IsCall(c.Kind) && facts.NoReturn[c.Callee()] {
		s.ended = true
	}
	return s
}

// freeEdits is each free site's edit, from what the first pass saw of the other side there.
func (l *lifeRun) freeEdits() (map[string]freeEdit, error) {
	edits := map[string]freeEdit{}
	for _, k := range l.keys {
		switch {
		case !l.merged:
			edits[k] = freeShared
		case l.otherFreed[k] == 2:
			edits[k] = freeShared
		case l.otherFreed[k] == 1 && !l.usedAfter[k]:
			edits[k] = freeLone
		case l.otherFreed[k] == 1:
			edits[k] = freeDrop
		case l.otherFreed[k] == 3:
			return nil, fmt.Errorf("the free at line %d comes before the other side's on some paths and after it on others", l.sites[k].At.Line)
		}
	}
	return edits, nil
}

// checkExits fails where a path ends with one side freed and the one buffer not freed once.
func checkExits(exits []lifeState) error {
	for _, s := range exits {
		if !s.ended && (s.hFreed || s.dFreed) != (s.shared == 1) {
			side := "host"
			if s.dFreed {
				side = "device"
			}
			return fmt.Errorf("a path frees only the %s side, which the one buffer cannot follow: it would be freed while still used, or leaked where the original was freed", side)
		}
	}
	return nil
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
