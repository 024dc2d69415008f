package rules

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// Verdict is one condition's outcome with the source line that decides it.
type Verdict struct {
	Cond   string // "S1" … "S4"
	Status plan.Condition
	At     parse.Loc
	Reason string
	// Construct is, for an undecidable verdict, what the analysis does not follow; "" for
	// any other verdict.
	Construct Construct
}

// Construct is a kind of code the analysis does not follow (yet), named on the undecidable
// verdict it causes so that a survey can count pairs "undecidable by construct". The words are
// what a reason says; the set is small and closed.
type Construct string

const (
	// ConstructControlFlow: goto, switch, setjmp/longjmp, exceptions.
	ConstructControlFlow Construct = "control flow"
	// ConstructField: a side held in a struct's field or an array's element (s.h, p->d, a[i]).
	ConstructField Construct = "struct field"
	// ConstructGlobal: a side held in a global or static variable.
	ConstructGlobal Construct = "global"
	// ConstructParameter: a side the function is given by a caller the translation unit does
	// not show.
	ConstructParameter Construct = "parameter"
	// ConstructHelper: a linking copy, or a free that cannot be moved, inside another function.
	ConstructHelper Construct = "helper function"
	// ConstructTemplate: a function template with no instantiation in the translation unit.
	ConstructTemplate Construct = "template"
	// ConstructContainer: a side that is a container's storage (v.data(), &v[0]).
	ConstructContainer Construct = "container"
	// ConstructAllocation: a side whose allocation the analysis does not know (a library's
	// allocator, a pointer copied from elsewhere).
	ConstructAllocation Construct = "allocation"
	// ConstructEscape: a side stored, returned, address-taken or passed to a function without
	// a body.
	ConstructEscape Construct = "escape"
	// ConstructAsync: an asynchronous copy, whose stream ordering is not followed.
	ConstructAsync Construct = "async copy"
	// ConstructSize: a copy not provably of the whole of both allocations.
	ConstructSize Construct = "copy size"
	// ConstructOtherCopy: the device side copied to or from a third buffer.
	ConstructOtherCopy Construct = "other copy"
	// ConstructCrossAccess: the host dereferences the device pointer, or a kernel is given the
	// host pointer.
	ConstructCrossAccess Construct = "cross access"
)

// Construct is what the verdict Declined names was undecidable for; "" when the pair is safe or
// refused, or its first declining verdict names no construct. It is what scan's report counts
// pairs "undecidable by construct" by (issue 40); TestCorpusVerdicts checks it.
func (p Proof) Construct() Construct {
	for _, v := range p.Verdicts {
		if v.Status == plan.ConditionRefused || v.Status == plan.ConditionUndecidable {
			return v.Construct
		}
	}
	return ""
}

// Proof is a pair with its four verdicts. Safe only when no verdict is refused or
// undecidable.
type Proof struct {
	Pair
	Verdicts [4]Verdict
	// Allocs and Frees are the pair's allocation and free sites the analysis reached, in
	// source order: what a rewrite replaces.
	Allocs, Frees []Site
}

// Safe reports whether every condition holds (S2 possibly with a kept wait).
func (p *Proof) Safe() bool {
	for _, v := range p.Verdicts {
		if v.Status == plan.ConditionRefused || v.Status == plan.ConditionUndecidable {
			return false
		}
	}
	return true
}

// Prove finds the candidate pairs of every function in the translation unit with a body in
// the main file and decides S1–S4 for each.
func Prove(tu *parse.TU) []Proof {
	e := facts.NewEffects(tu)
	var out []Proof
	for _, fn := range e.Bodies {
		if fn.Loc.File != tu.File {
			continue
		}
		out = append(out, proveFunction(e, fn)...)
	}
	out = append(out, uninstantiated(tu, e)...)
	// Where clang recovered from an error, the AST is not the source: broken.go.
	return declineBroken(tu, out)
}

func proveFunction(e *facts.Effects, fn *parse.Node) []Proof {
	names := map[parse.DeclID]string{}
	fn.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" {
			names[n.ID] = n.Name
		}
		return true
	})
	e.Tracked, e.ArgArrays, e.Aliases = facts.LocalPointers(fn), map[parse.DeclID][]facts.ArgSlot{}, nil
	e.Stable = facts.StableInits(fn)
	g, gerr := facts.BuildCFG(fn)
	// Events per statement, once: the fixpoint revisits blocks.
	var all []facts.Event
	stmtEv := map[*parse.Node][]facts.Event{}
	walkStmts := func(s *parse.Node) {
		evs := e.StmtEvents(s)
		stmtEv[s] = evs
		all = append(all, evs...)
	}
	if gerr == nil {
		for _, b := range g.Blocks {
			for _, s := range b.Stmts {
				walkStmts(s)
			}
		}
	} else {
		walkStmts(facts.FuncBody(fn))
	}
	pairs := candidates(fn, all, names)
	declined := declinedCopies(e, fn, all, pairs)
	addrKept := map[parse.DeclID]bool{}
	for _, ev := range all {
		if ev.Kind == facts.EvAssign && ev.AddrKept {
			addrKept[ev.V] = true
		}
	}
	var out []Proof
	for _, p := range pairs {
		pr := Proof{Pair: p}
		if gerr != nil {
			u, _ := gerr.(*facts.Unstructured)
			for i := range pr.Verdicts {
				pr.Verdicts[i] = Verdict{Cond: fmt.Sprintf("S%d", i+1), Status: plan.ConditionUndecidable, Reason: gerr.Error(), Construct: ConstructControlFlow}
				if u != nil {
					pr.Verdicts[i].At = u.At
				}
			}
			out = append(out, pr)
			continue
		}
		a := &pairAnalysis{h: p.HostID, d: p.DeviceID, defs: map[string]int{}, sizes: map[int]string{},
			sizeVars: map[int][]parse.DeclID{}, addrKept: addrKept, copies: map[string]CopySite{}}
		a.run(g, stmtEv)
		pr.Verdicts = a.verdicts()
		for _, c := range a.copies {
			pr.Copies = append(pr.Copies, c)
		}
		sort.Slice(pr.Copies, func(i, j int) bool { return pr.Copies[i].At.Offset < pr.Copies[j].At.Offset })
		pr.Allocs, pr.Frees = sortedSites(a.allocs), sortedSites(a.freeSites)
		out = append(out, pr)
	}
	return append(out, declined...)
}

// finding is one piece of evidence for a condition.
type finding struct {
	status    plan.Condition
	at        parse.Loc
	why       string
	construct Construct // for an undecidable finding
}

// pairAnalysis is the forward dataflow for one pair over the function's graph.
type pairAnalysis struct {
	h, d     parse.DeclID
	defs     map[string]int // definition site → bit
	sizes    map[int]string // bit → allocation size key
	sizeVars map[int][]parse.DeclID
	// addrKept are the variables whose address is kept somewhere in the function: they may
	// change through it unseen, so no size that reads one is provably an allocation's.
	addrKept  map[parse.DeclID]bool
	findings  [4]map[string]finding
	copies    map[string]CopySite
	frees     map[string]parse.Loc // where the shared buffer can be freed: the second of the pair's frees
	allocs    map[string]Site      // the pair's allocation sites
	freeSites map[string]Site      // every free of either side
	deps      map[string][]parse.DeclID
	// writeWhy is, by a launch's offset, what the kernel may write the device side with.
	writeWhy map[int]string
	// moved are the host side's frees that run before GPU work using the device side: the
	// rewrite removes them, and frees the merged buffer where the second free is.
	moved map[string]movedFree
}

// movedFree is a free of the host side before a kernel that uses the device side.
type movedFree struct {
	free, kernel parse.Loc
}

const otherDef = 63

// pstate is the facts of one group of paths that agree on their branch facts.
type pstate struct {
	hDefs, dDefs uint64
	hostDirty    parse.Loc // a host write not yet copied to the device side
	gpuDirty     parse.Loc // a launch that may have written the device side, not yet copied back
	inFlightPair parse.Loc // a launch using the device side the host has not waited for
	inFlightAny  parse.Loc // any launch the host has not waited for
	freedH       parse.Loc
	freedD       parse.Loc
	// staleSize are the definitions whose size expression read a variable that has changed
	// since: the expression no longer has the allocation's size.
	staleSize uint64
	// pairing is where the two sides' lifetimes may stand (a set of pairing states): a merged
	// buffer serves one allocation of each side.
	pairing uint8
}

// flow maps a branch-fact key ("cond=1;…") to the state of the paths with those facts.
type flow map[string]pstate

// keepLoc is where a joined path state says a thing happened: of two paths' locations, the
// earlier in the source. Paths are joined in the order Go's maps give them (flow), so a join
// that kept whichever came first made a reason cite one launch in one run and another in the
// next (HeCBench's ldpc-cuda: the GPU write at line 262 or 270, four runs, two each).
func keepLoc(a, b parse.Loc) parse.Loc {
	switch {
	case a.Line == 0:
		return b
	case b.Line == 0:
		return a
	case cmp.Or(cmp.Compare(b.File, a.File), cmp.Compare(b.Line, a.Line), cmp.Compare(b.Col, a.Col)) < 0:
		return b
	}
	return a
}

func joinState(a, b pstate) pstate {
	return pstate{a.hDefs | b.hDefs, a.dDefs | b.dDefs, keepLoc(a.hostDirty, b.hostDirty),
		keepLoc(a.gpuDirty, b.gpuDirty), keepLoc(a.inFlightPair, b.inFlightPair),
		keepLoc(a.inFlightAny, b.inFlightAny), keepLoc(a.freedH, b.freedH), keepLoc(a.freedD, b.freedD),
		a.staleSize | b.staleSize, a.pairing | b.pairing}
}

func sameState(a, b pstate) bool {
	return a.hDefs == b.hDefs && a.dDefs == b.dDefs && a.hostDirty.Line == b.hostDirty.Line &&
		a.gpuDirty.Line == b.gpuDirty.Line && a.inFlightPair.Line == b.inFlightPair.Line &&
		a.inFlightAny.Line == b.inFlightAny.Line && a.freedH.Line == b.freedH.Line && a.freedD.Line == b.freedD.Line &&
		a.staleSize == b.staleSize && a.pairing == b.pairing
}

// maxFacts bounds the path groups; past it, facts are dropped and groups merged.
const maxGroups = 16

func (f flow) add(key string, s pstate) {
	if old, ok := f[key]; ok {
		s = joinState(old, s)
	}
	f[key] = s
}

func (f flow) same(g flow) bool {
	if len(f) != len(g) {
		return false
	}
	for k, s := range f {
		t, ok := g[k]
		if !ok || !sameState(s, t) {
			return false
		}
	}
	return true
}

func (a *pairAnalysis) run(g *facts.CFG, stmtEv map[*parse.Node][]facts.Event) {
	for i := range a.findings {
		a.findings[i] = map[string]finding{}
	}
	a.frees, a.deps, a.writeWhy, a.moved = map[string]parse.Loc{}, map[string][]parse.DeclID{}, map[int]string{}, map[string]movedFree{}
	a.allocs, a.freeSites = map[string]Site{}, map[string]Site{}
	in := make([]flow, len(g.Blocks))
	in[g.Entry] = flow{"": pstate{pairing: pairNone}}
	work := []int{g.Entry}
	queued := map[int]bool{g.Entry: true}
	for steps := 0; len(work) > 0 && steps < 100000; steps++ {
		id := work[0]
		work = work[1:]
		queued[id] = false
		b := g.Blocks[id]
		cur := flow{}
		for k, s := range in[id] {
			cur[k] = s
		}
		for _, st := range b.Stmts {
			cur = a.step(cur, stmtEv[st])
		}
		for _, e := range b.Succs {
			next := cur
			if e.Cond != nil {
				next = a.branch(cur, e.Cond, e.When)
			}
			merged := flow{}
			for k, s := range in[e.To] {
				merged[k] = s
			}
			for k, s := range next {
				merged.add(k, s)
			}
			if len(merged) > maxGroups {
				all := pstate{}
				for _, s := range merged {
					all = joinState(all, s)
				}
				merged = flow{"": all}
			}
			if in[e.To] == nil || !merged.same(in[e.To]) {
				in[e.To] = merged
				if !queued[e.To] {
					queued[e.To] = true
					work = append(work, e.To)
				}
			}
		}
	}
}

// branch keeps the paths on which cond can have the value when, and records that it has.
func (a *pairAnalysis) branch(f flow, cond *parse.Node, when bool) flow {
	c := parse.Unwrap(cond)
	for c.Kind == "UnaryOperator" && c.Opcode == "!" && len(c.Inner) == 1 {
		c, when = parse.Unwrap(c.Inner[0]), !when
	}
	key := facts.SizeKey(c)
	if strings.Contains(key, "?") {
		return f // a condition with calls or unknown parts: no fact
	}
	a.deps[key] = facts.SizeVars(c)
	val := "0"
	if when {
		val = "1"
	}
	out := flow{}
	for k, s := range f {
		facts := splitFacts(k)
		if old, ok := facts[key]; ok {
			if old != val {
				continue // this group of paths cannot take the edge
			}
		} else {
			facts[key] = val
		}
		out.add(joinFacts(facts), s)
	}
	return out
}

func splitFacts(k string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Split(k, ";") {
		if i := strings.LastIndexByte(f, '='); i > 0 {
			m[f[:i]] = f[i+1:]
		}
	}
	return m
}

func joinFacts(m map[string]string) string {
	var fs []string
	for k, v := range m {
		fs = append(fs, k+"="+v)
	}
	sort.Strings(fs)
	return strings.Join(fs, ";")
}

// kill drops the facts that read v.
func (a *pairAnalysis) kill(f flow, v parse.DeclID) flow {
	out := flow{}
	for k, s := range f {
		facts := splitFacts(k)
		for fk := range facts {
			for _, d := range a.deps[fk] {
				if d == v {
					delete(facts, fk)
				}
			}
		}
		out.add(joinFacts(facts), s)
	}
	return out
}

func (a *pairAnalysis) find(cond int, st plan.Condition, at parse.Loc, why string) {
	a.findC(cond, st, at, why, "")
}

// findC is find for an undecidable finding caused by a construct the analysis does not follow.
func (a *pairAnalysis) findC(cond int, st plan.Condition, at parse.Loc, why string, c Construct) {
	k := fmt.Sprintf("%s:%d:%s", at.File, at.Offset, why)
	a.findings[cond-1][k] = finding{st, at, why, c}
}

func (a *pairAnalysis) defBit(at parse.Loc, kind facts.AllocKind, size string) uint64 {
	if kind == facts.AllocOther {
		return 1 << otherDef
	}
	k := fmt.Sprintf("%s:%d", at.File, at.Offset)
	i, ok := a.defs[k]
	if !ok {
		i = len(a.defs)
		if i >= otherDef {
			return 1 << otherDef
		}
		a.defs[k] = i
		a.sizes[i] = size
		a.sizeVars[i] = facts.KeyVars(size)
	}
	return 1 << i
}

func (a *pairAnalysis) step(f flow, evs []facts.Event) flow {
	for _, ev := range evs {
		if ev.Kind == facts.EvAssign {
			f = a.kill(f, ev.V)
			var stale uint64
			for i, vs := range a.sizeVars {
				for _, v := range vs {
					if v == ev.V {
						stale |= 1 << i
					}
				}
			}
			if stale != 0 {
				out := flow{}
				for k, s := range f {
					s.staleSize |= stale
					out.add(k, s)
				}
				f = out
			}
			continue
		}
		out := flow{}
		for k, s := range f {
			out.add(k, a.event(s, ev))
		}
		f = out
	}
	return f
}

func sortedSites(m map[string]Site) []Site {
	var out []Site
	for _, s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Offset < out[j].At.Offset })
	return out
}
