package rewrite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// Target is what a rewrite is for: the device the program will run on, the strategy asked for
// (Auto, or "": chosen per pair by Choose) and the costs a traced pair is priced with.
type Target struct {
	Device   rules.Device  // "" is Discrete: pinned, the safe default, where nothing is known
	Strategy plan.Strategy // "" is Auto
	Costs    rules.Costs   // zero is DiscreteCosts
}

// Change is what the rewrite did with one pair: rewritten (Changed) with Strategy, or left
// as written, with the reason.
type Change struct {
	rules.Proof
	Changed  bool
	Strategy plan.Strategy // the strategy it got; "" when left as written
	Reason   string        // what was done, or why the pair was left as written
	// Choice is why the pair got its strategy, or why none served it (Choose), with the
	// traced numbers that decided where there was a trace.
	Choice string
	Access rules.Access // whether its kernels touch each byte once per copy
	// Measured is what a traced run spent in the pair's copies (rewrite --trace); nil
	// without a trace.
	Measured *rules.Measured
}

// edit replaces src[begin:end] with text.
type edit struct {
	begin, end int
	text       string
}

// Rewrite serves every pair of src, the main file of tu, as t says, and returns the edited
// source and what was done with each pair. measured, when not nil, is what a traced run
// spent in each proof's copies, in their order. Each pair gets its strategy from Choose: a
// merge (mapped, managed) where S1–S4 hold and the device calls for one, pinned where the
// host side's lifetime allows it (pinned.go), or none. Edits are by byte ranges (spelling
// locations, so a call inside CHECK(…) is edited where it is written); the rest of the file is
// untouched. Every edit carries a comment naming the pair and what was done. A pair whose
// sites the rewrite cannot edit is left as written, with why.
func Rewrite(tu *parse.TU, src []byte, proofs []rules.Proof, measured []*rules.Measured, t Target) ([]byte, []Change) {
	if t.Device == "" {
		t.Device = rules.Discrete
	}
	if t.Strategy == "" {
		t.Strategy = plan.StrategyAuto
	}
	if t.Costs == (rules.Costs{}) {
		t.Costs = rules.DiscreteCosts
	}
	rw := &rewriter{tu: tu, src: src, e: facts.NewEffects(tu)}
	var out []Change
	var all []edit
	helperAt := map[helpers]int{}
	for i, p := range proofs {
		c := Change{Proof: p}
		if measured != nil {
			c.Measured = measured[i]
		}
		es, need, fn := rw.serve(&c, t)
		if len(es) > 0 && overlaps(all, es) {
			c.Changed, c.Strategy = false, ""
			c.Reason = "left as written: its sites overlap another rewritten pair's"
			es = nil
		}
		if len(es) > 0 {
			for h := helpers(1); h != 0 && h <= helperManaged; h <<= 1 {
				if need&h == 0 {
					continue
				}
				if b, ok := helperAt[h]; !ok || rw.lineStart(fn.Range.Begin.Offset) < b {
					helperAt[h] = rw.lineStart(fn.Range.Begin.Offset)
				}
			}
			all = append(all, es...)
		}
		out = append(out, c)
	}
	// Each helper before the first function that calls it; several at one place in one text.
	byPlace := map[int]helpers{}
	for h, at := range helperAt {
		byPlace[at] |= h
	}
	for at, hs := range byPlace {
		all = append(all, edit{at, at, helperText(hs)})
	}
	return apply(src, all), out
}

// serve chooses c's strategy and plans its edits; c says what was done and why.
func (rw *rewriter) serve(c *Change, t Target) ([]edit, helpers, *parse.Node) {
	p := c.Proof
	fn := rw.function(p.Function)
	if fn == nil {
		c.Reason = fmt.Sprintf("left as written: function %s not found", p.Function)
		return nil, 0, nil
	}
	rw.index(fn)
	g, stmtEv, ferr := rules.FunctionFlow(rw.e, fn)
	f := rules.Facts{Measured: c.Measured}
	life := rw.deviceLife(p, fn)
	switch {
	case !p.Safe():
		f.Merge = "not proved safe: " + p.Declined()
	case life != nil:
		f.Merge = life.Error()
	case ferr != nil:
		f.Merge = ferr.Error()
	default:
		if _, _, err := rw.mergePlan(p, plan.StrategyMapped, g, stmtEv); err != nil {
			f.Merge = "proved safe, not rewritten: " + err.Error()
		}
	}
	switch {
	case ferr != nil:
		f.Pin = ferr.Error()
		f.Access = rules.Access{Why: ferr.Error()}
	case life != nil:
		f.Pin = life.Error()
	default:
		if _, _, err := rw.pinnedPlan(p, g, stmtEv, ""); err != nil {
			f.Pin = err.Error()
		}
	}
	if ferr == nil {
		f.Access = rw.access(p, g, stmtEv)
	}
	ch := rules.Choose(t.Device, t.Strategy, f, t.Costs)
	c.Access, c.Choice = f.Access, ch.Why
	var es []edit
	var need helpers
	var err error
	switch ch.Strategy {
	case "":
		c.Reason = "left as written: " + ch.Why
		return nil, 0, nil
	case plan.StrategyPinned:
		es, need, err = rw.pinnedPlan(p, g, stmtEv, fmt.Sprintf(" /* echo: %s/%s pinned: page-locked host side, the copies kept */", p.Host, p.Device))
		c.Reason = "pinned: the host side page-locked, the copies kept"
	default:
		es, need, err = rw.mergePlan(p, ch.Strategy, g, stmtEv)
		c.Reason = "merged (" + string(ch.Strategy) + "): " + proofNote(p)
	}
	if err != nil { // planned once already: not expected
		c.Reason = "left as written: " + err.Error()
		return nil, 0, nil
	}
	c.Changed, c.Strategy = true, ch.Strategy
	return es, need, fn
}

// proofNote is the proof in a few words, for the comments.
func proofNote(p rules.Proof) string {
	note := "S1-S4 hold"
	for _, c := range p.Copies {
		if c.KeepWait {
			return note + "; the copy's wait kept"
		}
	}
	return note
}

type rewriter struct {
	tu     *parse.TU
	src    []byte
	e      *facts.Effects
	byKey  map[string][]*parse.Node
	parent map[*parse.Node]*parse.Node
}

// index maps each node of fn by where it begins (siteKey), and each node to its parent.
func (rw *rewriter) index(fn *parse.Node) {
	rw.byKey, rw.parent = map[string][]*parse.Node{}, map[*parse.Node]*parse.Node{}
	var walk func(n, up *parse.Node)
	walk = func(n, up *parse.Node) {
		if n == nil {
			return
		}
		rw.parent[n] = up
		rw.byKey[rules.SiteKey(n.Range.Begin)] = append(rw.byKey[rules.SiteKey(n.Range.Begin)], n)
		if n.Kind == "VarDecl" {
			rw.byKey[rules.SiteKey(n.Loc)] = append(rw.byKey[rules.SiteKey(n.Loc)], n)
		}
		for _, c := range n.Inner {
			walk(c, n)
		}
	}
	walk(fn, nil)
}

func (rw *rewriter) function(name string) *parse.Node {
	for _, n := range rw.tu.Root.Inner {
		if n.Kind == "FunctionDecl" && n.Name == name && facts.FuncBody(n) != nil && n.Loc.File == rw.tu.File {
			return n
		}
	}
	return nil
}

// mergePlan plans the edits of a pair merged into one buffer allocated as s says.
func (rw *rewriter) mergePlan(p rules.Proof, s plan.Strategy, g *facts.CFG, stmtEv map[*parse.Node][]facts.Event) ([]edit, helpers, error) {
	comment := func(what string) string {
		return fmt.Sprintf(" /* echo: %s/%s merged (%s): S1-S4 hold%s */", p.Host, p.Device, s, what)
	}
	var hostSites, devSites []rules.Site
	for _, a := range p.Allocs {
		if a.Host {
			hostSites = append(hostSites, a)
		} else {
			devSites = append(devSites, a)
		}
	}
	if len(hostSites) != 1 || len(devSites) != 1 {
		return nil, 0, fmt.Errorf("%d host and %d device allocation sites: only one of each is rewritten yet", len(hostSites), len(devSites))
	}
	var es []edit
	hostNode, he, need, err := rw.hostAlloc(p, s, hostSites[0], comment(""))
	if err != nil {
		return nil, 0, err
	}
	es = append(es, he)
	devNode, de, err := rw.devAlloc(p, s, devSites[0], comment(""))
	if err != nil {
		return nil, 0, err
	}
	if err := rw.precedes(hostNode, devNode); err != nil {
		return nil, 0, err
	}
	es = append(es, de)
	ce, err := rw.mergedCopies(p, comment)
	if err != nil {
		return nil, 0, err
	}
	es = append(es, ce...)
	fe, err := rw.mergedFrees(p, s, g, stmtEv, comment)
	if err != nil {
		return nil, 0, err
	}
	es = append(es, fe...)
	return es, need, nil
}

// mergedCopies are the edits of a merged pair's copies: each removed, or a synchronize where
// its wait is kept (S2).
func (rw *rewriter) mergedCopies(p rules.Proof, comment func(string) string) ([]edit, error) {
	var es []edit
	for _, c := range p.Copies {
		n := rw.call(c.At, "cudaMemcpy")
		if n == nil {
			return nil, fmt.Errorf("the copy at line %d is not found where the AST puts it", c.At.Line)
		}
		text := rw.nothing(n) + comment("; the copy removed: its wait is a no-op")
		if c.KeepWait {
			text = "cudaDeviceSynchronize()" + comment("; the copy's wait kept")
		}
		e, err := rw.replace(n, text)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// mergedFrees are the edits of a merged pair's frees: the one buffer freed once on every path
// that freed the originals (lifetimes), the other frees removed.
func (rw *rewriter) mergedFrees(p rules.Proof, s plan.Strategy, g *facts.CFG, stmtEv map[*parse.Node][]facts.Event, comment func(string) string) ([]edit, error) {
	var es []edit
	frees, sites, nullAt, err := rw.lifetimes(p, g, stmtEv, true)
	if err != nil {
		return nil, err
	}
	free := "cudaFreeHost"
	if s == plan.StrategyManaged {
		free = "cudaFree"
	}
	for k, what := range frees {
		f := sites[k]
		n := rw.freeNode(f)
		if n == nil {
			return nil, fmt.Errorf("the free at line %d is not a call the rewrite can replace", f.At.Line)
		}
		v, id := p.Device, p.DeviceID // the side freed here names the buffer here (one address under UVA)
		if f.Host {
			v, id = p.Host, p.HostID
		}
		if err := rw.replaceableFree(n, id); err != nil {
			return nil, err
		}
		text := rw.nothing(n) + comment("; freed once, with the other side")
		if what != freeDrop {
			call := fmt.Sprintf("%s(%s)", free, v)
			if nullAt[k] {
				call = fmt.Sprintf("(%s ? %s(%s) : cudaSuccess)", v, free, v)
			}
			switch {
			case what == freeLone:
				text = fmt.Sprintf("(cudaDeviceSynchronize(), %s)", call) + comment("; freed once, where the original freed one side and leaked the other")
			case p.Verdicts[3].Status == plan.ConditionKeepWait:
				text = fmt.Sprintf("(cudaDeviceSynchronize(), %s)", call) + comment("; freed once, after a synchronize")
			default:
				text = call + comment("; freed once, after both frees and the GPU work")
			}
			if !rw.statement(n) && n.Type == "void" {
				text = "(void)" + text
			}
		}
		e, err := rw.replace(n, text)
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// hostAlloc plans the host side's allocation: the one buffer.
func (rw *rewriter) hostAlloc(p rules.Proof, s plan.Strategy, site rules.Site, comment string) (*parse.Node, edit, helpers, error) {
	for _, n := range rw.byKey[rules.SiteKey(site.At)] {
		switch {
		case parse.IsCall(n.Kind) && (n.Callee() == "cudaMallocHost" || n.Callee() == "cudaHostAlloc"):
			args := n.Args()
			if r := facts.AddrOf(args[0]); r == nil || r.ID != p.HostID || len(args) < 2 {
				continue
			}
			size, err := rw.text(args[1])
			if err != nil {
				return nil, edit{}, 0, err
			}
			call := fmt.Sprintf("cudaHostAlloc((void **)&%s, %s, cudaHostAllocMapped)", p.Host, size)
			if s == plan.StrategyManaged {
				call = fmt.Sprintf("cudaMallocManaged((void **)&%s, %s, cudaMemAttachGlobal)", p.Host, size)
			}
			e, err := rw.replace(n, call+comment)
			return n, e, 0, err
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2:
			if l := parse.Unwrap(n.Inner[0]); l.Kind != "DeclRefExpr" || l.Ref == nil || l.Ref.ID != p.HostID {
				continue
			}
			e, err := rw.allocExpr(n.Inner[1], s, comment)
			return n, e, helperFor(s), err
		case n.Kind == "VarDecl" && n.ID == p.HostID && len(n.Inner) > 0:
			e, err := rw.allocExpr(n.Inner[len(n.Inner)-1], s, comment)
			return n, e, helperFor(s), err
		}
	}
	return nil, edit{}, 0, fmt.Errorf("the host allocation at line %d is not found where the AST puts it", site.At.Line)
}

func helperFor(s plan.Strategy) helpers {
	if s == plan.StrategyManaged {
		return helperManaged
	}
	return helperMapped
}

// allocExpr replaces an allocation expression (under its casts) with a call of the merged
// allocation helper.
func (rw *rewriter) allocExpr(rhs *parse.Node, s plan.Strategy, comment string) (edit, error) {
	r := parse.Unwrap(rhs)
	var text string
	switch {
	case r.Kind == "CXXNewExpr" && r.IsArray && len(r.Inner) == 1:
		n, err := rw.text(r.Inner[0])
		if err != nil {
			return edit{}, err
		}
		text = fmt.Sprintf("(%s)%s(%s)", r.Type, mergedAllocName(s), n) // new[] of bytes
	case r.Kind == "CXXNewExpr":
		return edit{}, fmt.Errorf("the new[] at line %d initializes its elements: not rewritten yet", r.Range.Begin.Line)
	case parse.IsCall(r.Kind) && r.Callee() == "calloc":
		return edit{}, fmt.Errorf("a calloc'd host side is zeroed, and the shared buffer would not be: not rewritten yet")
	case parse.IsCall(r.Kind):
		size, err := rw.allocSize(r)
		if err != nil {
			return edit{}, err
		}
		text = fmt.Sprintf("%s(%s)", mergedAllocName(s), size)
	default:
		return edit{}, fmt.Errorf("the host allocation at line %d is not one the rewrite can replace", r.Range.Begin.Line)
	}
	return rw.replace(r, text+comment)
}

// devAlloc plans the device side's allocation: the device variable names the one buffer.
func (rw *rewriter) devAlloc(p rules.Proof, s plan.Strategy, site rules.Site, comment string) (*parse.Node, edit, error) {
	for _, n := range rw.byKey[rules.SiteKey(site.At)] {
		if !parse.IsCall(n.Kind) || (n.Callee() != "cudaMalloc" && n.Callee() != "cudaMallocAsync") {
			continue
		}
		if r := facts.AddrOf(n.Args()[0]); r == nil || r.ID != p.DeviceID {
			continue
		}
		text := fmt.Sprintf("cudaHostGetDevicePointer((void **)&%s, %s, 0)", p.Device, p.Host)
		if s == plan.StrategyManaged {
			typ := rw.declType(p.DeviceID)
			text = fmt.Sprintf("%s = (%s)%s", p.Device, typ, p.Host)
			if !rw.statement(n) {
				text = "(" + text + ", cudaSuccess)"
			}
		}
		e, err := rw.replace(n, text+comment)
		return n, e, err
	}
	return nil, edit{}, fmt.Errorf("the device allocation at line %d is not a cudaMalloc the rewrite can replace", site.At.Line)
}

func (rw *rewriter) declType(id parse.DeclID) string {
	var t string
	for n := range rw.parent {
		if n.Kind == "VarDecl" && n.ID == id {
			t = n.Type
		}
	}
	return t
}

// precedes checks the host allocation runs before the device allocation whenever the latter
// does: the host one is in a statement of a block that holds the device one later, with no
// branch or loop between it and that block (a macro's do { } while (0) is fine: its body
// runs once).
func (rw *rewriter) precedes(h, d *parse.Node) error {
	bad := fmt.Errorf("the host allocation (line %d) is not certain to run before the device allocation (line %d): not rewritten yet", h.Range.Begin.Line, d.Range.Begin.Line)
	if h.Range.Begin.Offset >= d.Range.Begin.Offset {
		return bad
	}
	for up := rw.parent[h]; up != nil; up = rw.parent[up] {
		switch up.Kind {
		case "IfStmt", "ForStmt", "WhileStmt", "SwitchStmt", "ConditionalOperator", "CXXTryStmt", "CXXForRangeStmt":
			return bad
		case "BinaryOperator":
			if up.Opcode == "&&" || up.Opcode == "||" {
				return bad
			}
		case "CompoundStmt":
			if up.Range.Begin.Spelling != nil {
				continue // a macro's block
			}
			for x := d; x != nil; x = rw.parent[x] {
				if x == up {
					return nil
				}
			}
			return bad
		}
	}
	return bad
}

// call is the call named name that begins at l.
func (rw *rewriter) call(l parse.Loc, name string) *parse.Node {
	for _, n := range rw.byKey[rules.SiteKey(l)] {
		if parse.IsCall(n.Kind) && n.Callee() == name {
			return n
		}
	}
	return nil
}

var freeCalls = map[string]bool{"free": true, "cudaFree": true, "cudaFreeHost": true, "cudaFreeAsync": true}

// freeNode is the free at a site: a libc or CUDA free, delete[], or a call of a function in
// the translation unit (the corpus's host_free) whose other arguments have no effects.
func (rw *rewriter) freeNode(f rules.Site) *parse.Node {
	for _, n := range rw.byKey[rules.SiteKey(f.At)] {
		if n.Kind == "CXXDeleteExpr" {
			return n
		}
		if !parse.IsCall(n.Kind) || n.Kind == "CUDAKernelCallExpr" {
			continue
		}
		if freeCalls[n.Callee()] {
			return n
		}
		if rw.e.Funcs[n.Callee()] != nil {
			ok := true
			for _, a := range n.Args() {
				ok = ok && (parse.Unwrap(a).Kind == "DeclRefExpr" || !strings.Contains(facts.SizeKey(a), "?"))
			}
			if ok {
				return n
			}
		}
	}
	return nil
}

// statement reports whether n is a whole statement (its value is unused).
func (rw *rewriter) statement(n *parse.Node) bool {
	switch up := rw.parent[n]; {
	case up == nil:
		return false
	case up.Kind == "ExprWithCleanups":
		return rw.statement(up)
	default:
		switch up.Kind {
		case "CompoundStmt", "IfStmt", "ForStmt", "WhileStmt", "DoStmt", "CaseStmt", "DefaultStmt", "LabelStmt":
			return true
		}
	}
	return false
}

// nothing is what a removed call becomes: no code, as an expression of the call's type.
func (rw *rewriter) nothing(n *parse.Node) string {
	if rw.statement(n) || !strings.Contains(n.Type, "cudaError") {
		return "(void)0"
	}
	return "cudaSuccess"
}

// span is a node's byte range in the main file, from where its tokens are written.
func (rw *rewriter) span(n *parse.Node) (int, int, error) {
	b, e := spelled(n.Range.Begin), spelled(n.Range.End)
	if b.File != rw.tu.File || e.File != rw.tu.File || e.Offset+e.TokLen < b.Offset || e.Offset+e.TokLen > len(rw.src) {
		return 0, 0, fmt.Errorf("the code at line %d is written inside a macro or another file: not rewritten", n.Range.Begin.Line)
	}
	return b.Offset, e.Offset + e.TokLen, nil
}

// inMacroBody reports whether a token comes from a macro's body, not its arguments: a body is
// written in its #define, before the expansion; an argument where the macro is used, at or
// after it. An edit there would change every expansion of the macro. (Its text may still be
// read: a size written as an object-like macro's body means the same at the expansion.)
func inMacroBody(l parse.Loc) bool {
	return l.Spelling != nil && l.Spelling.File == l.File && l.Spelling.Offset < l.Offset
}

func spelled(l parse.Loc) parse.Loc {
	if l.Spelling != nil {
		return *l.Spelling
	}
	return l
}

func (rw *rewriter) text(n *parse.Node) (string, error) {
	b, e, err := rw.span(n)
	if err != nil {
		return "", err
	}
	return string(rw.src[b:e]), nil
}

func (rw *rewriter) replace(n *parse.Node, text string) (edit, error) {
	b, e, err := rw.span(n)
	if err != nil {
		return edit{}, err
	}
	if inMacroBody(n.Range.Begin) || inMacroBody(n.Range.End) {
		return edit{}, fmt.Errorf("the code at line %d is written in a macro's body, which every use of the macro shares: not rewritten", n.Range.Begin.Line)
	}
	if c := n.Callee(); c != "" && !strings.HasPrefix(string(rw.src[b:e]), c) {
		return edit{}, fmt.Errorf("the call to %s at line %d is not written where the AST puts it", c, n.Range.Begin.Line)
	}
	return edit{b, e, text}, nil
}

func (rw *rewriter) lineStart(off int) int {
	for off > 0 && off <= len(rw.src) && rw.src[off-1] != '\n' {
		off--
	}
	return off
}

func overlaps(have, add []edit) bool {
	for _, a := range add {
		for _, h := range have {
			if a.begin < h.end && h.begin < a.end {
				return true
			}
		}
	}
	return false
}

// apply makes the edits, which do not overlap; insertions at one place keep their order.
func apply(src []byte, es []edit) []byte {
	sort.SliceStable(es, func(i, j int) bool { return es[i].begin < es[j].begin })
	var b strings.Builder
	at := 0
	for _, e := range es {
		b.Write(src[at:e.begin])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(src[at:])
	return []byte(b.String())
}
