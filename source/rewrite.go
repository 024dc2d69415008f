package source

import (
	"fmt"
	"sort"
	"strings"
)

// Strategy is how the rewrite allocates a merged pair's one buffer: the two strategies the
// binary path measures (DESIGN.md), chosen by the machine the program runs on.
type Strategy string

const (
	// Mapped is page-locked host memory the GPU maps (cudaHostAlloc with
	// cudaHostAllocMapped, the device side from cudaHostGetDevicePointer): discrete GPUs.
	Mapped Strategy = "mapped"
	// Managed is cudaMallocManaged: integrated GPUs and Grace Hopper, where both sides share
	// one memory.
	Managed Strategy = "managed"
)

// ParseStrategy reads a --strategy value.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case Mapped, Managed:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("unknown strategy %q: use mapped (discrete GPUs) or managed (integrated GPUs, Grace Hopper)", s)
}

// Change is what the rewrite did with one pair: merged (Changed), or left as written with
// the reason.
type Change struct {
	Proof
	Changed bool
	Reason  string
	// Measured is what a traced run spent in the pair's copies (rewrite --trace); nil
	// without a trace.
	Measured *Measured
}

// edit replaces src[begin:end] with text.
type edit struct {
	begin, end int
	text       string
}

// helperName is the allocation function a rewrite adds when a host side's allocation is an
// expression (malloc, a host_alloc helper, new[]): cudaHostAlloc and cudaMallocManaged return
// an error code, not the pointer, so the expression calls this instead. It returns null on
// failure as malloc does, so the program's own check still sees the failure.
const helperName = "echo_shared_alloc"

func helper(s Strategy) string {
	call := "cudaHostAlloc(&p, bytes, cudaHostAllocMapped)"
	if s == Managed {
		call = "cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)"
	}
	return fmt.Sprintf("/* echo: the one buffer of merged host/device pairs (%s) */\n"+
		"static void *%s(size_t bytes)\n{\n\tvoid *p = 0;\n\treturn %s == cudaSuccess ? p : 0;\n}\n\n", s, helperName, call)
}

// Rewrite merges every pair proved safe in src, the main file of tu, into one buffer
// allocated the way s says, and returns the edited source and what was done with each pair.
// Edits are by byte ranges (spelling locations, so a call inside CHECK(…) is edited where it
// is written); the rest of the file is untouched. Every edit carries a comment naming the
// pair and the proof. A pair whose sites the rewrite cannot edit is left as written, with why.
func Rewrite(tu *TU, src []byte, proofs []Proof, s Strategy) ([]byte, []Change) {
	rw := &rewriter{tu: tu, src: src, s: s, e: newEffects(tu)}
	var out []Change
	var all []edit
	helperAt := -1
	for _, p := range proofs {
		c := Change{Proof: p}
		if !p.Safe() {
			c.Reason = "not proved safe: " + p.Declined()
			out = append(out, c)
			continue
		}
		es, needHelper, fn, err := rw.pair(p)
		if err == nil && overlaps(all, es) {
			err = fmt.Errorf("its sites overlap another merged pair's")
		}
		if err != nil {
			c.Reason = "proved safe, not rewritten: " + err.Error()
			out = append(out, c)
			continue
		}
		if needHelper {
			if b := rw.lineStart(fn.Range.Begin.Offset); helperAt < 0 || b < helperAt {
				helperAt = b
			}
		}
		all = append(all, es...)
		c.Changed = true
		c.Reason = "merged (" + string(s) + "): " + proofNote(p)
		out = append(out, c)
	}
	if helperAt >= 0 {
		all = append(all, edit{helperAt, helperAt, helper(s)})
	}
	return apply(src, all), out
}

// Declined names the first condition that is refused or undecidable, with its line and
// why; "" for a pair proved safe.
func (p Proof) Declined() string {
	for _, v := range p.Verdicts {
		if v.Status == Refused || v.Status == Undecidable {
			return fmt.Sprintf("%s %s at line %d: %s", v.Cond, v.Status, v.At.Line, v.Reason)
		}
	}
	return ""
}

// proofNote is the proof in a few words, for the comments.
func proofNote(p Proof) string {
	note := "S1-S4 hold"
	for _, c := range p.Copies {
		if c.KeepWait {
			return note + "; the copy's wait kept"
		}
	}
	return note
}

type rewriter struct {
	tu     *TU
	src    []byte
	s      Strategy
	e      *effects
	byKey  map[string][]*Node
	parent map[*Node]*Node
}

// index maps each node of fn by where it begins (siteKey), and each node to its parent.
func (rw *rewriter) index(fn *Node) {
	rw.byKey, rw.parent = map[string][]*Node{}, map[*Node]*Node{}
	var walk func(n, up *Node)
	walk = func(n, up *Node) {
		if n == nil {
			return
		}
		rw.parent[n] = up
		rw.byKey[siteKey(n.Range.Begin)] = append(rw.byKey[siteKey(n.Range.Begin)], n)
		if n.Kind == "VarDecl" {
			rw.byKey[siteKey(n.Loc)] = append(rw.byKey[siteKey(n.Loc)], n)
		}
		for _, c := range n.Inner {
			walk(c, n)
		}
	}
	walk(fn, nil)
}

func (rw *rewriter) function(name string) *Node {
	for _, n := range rw.tu.Root.Inner {
		if n.Kind == "FunctionDecl" && n.Name == name && funcBody(n) != nil && n.Loc.File == rw.tu.File {
			return n
		}
	}
	return nil
}

// pair plans the edits of one safe pair.
func (rw *rewriter) pair(p Proof) ([]edit, bool, *Node, error) {
	fn := rw.function(p.Function)
	if fn == nil {
		return nil, false, nil, fmt.Errorf("function %s not found", p.Function)
	}
	rw.index(fn)
	comment := func(what string) string {
		return fmt.Sprintf(" /* echo: %s/%s merged (%s): S1-S4 hold%s */", p.Host, p.Device, rw.s, what)
	}
	var hostSites, devSites []Site
	for _, a := range p.Allocs {
		if a.Host {
			hostSites = append(hostSites, a)
		} else {
			devSites = append(devSites, a)
		}
	}
	if len(hostSites) != 1 || len(devSites) != 1 {
		return nil, false, nil, fmt.Errorf("%d host and %d device allocation sites: only one of each is rewritten yet", len(hostSites), len(devSites))
	}
	var es []edit
	hostNode, he, needHelper, err := rw.hostAlloc(p, hostSites[0], comment(""))
	if err != nil {
		return nil, false, nil, err
	}
	es = append(es, he)
	devNode, de, err := rw.devAlloc(p, devSites[0], comment(""))
	if err != nil {
		return nil, false, nil, err
	}
	if err := rw.precedes(hostNode, devNode); err != nil {
		return nil, false, nil, err
	}
	es = append(es, de)
	for _, c := range p.Copies {
		n := rw.call(c.At, "cudaMemcpy")
		if n == nil {
			return nil, false, nil, fmt.Errorf("the copy at line %d is not found where the AST puts it", c.At.Line)
		}
		text := rw.nothing(n) + comment("; the copy removed: its wait is a no-op")
		if c.KeepWait {
			text = "cudaDeviceSynchronize()" + comment("; the copy's wait kept")
		}
		e, err := rw.replace(n, text)
		if err != nil {
			return nil, false, nil, err
		}
		es = append(es, e)
	}
	last := siteKey(p.Verdicts[3].At)
	for _, f := range p.Frees {
		n := rw.freeNode(f)
		if n == nil {
			return nil, false, nil, fmt.Errorf("the free at line %d is not a call the rewrite can replace", f.At.Line)
		}
		text := rw.nothing(n) + comment("; freed once, below")
		if siteKey(f.At) == last {
			free := "cudaFreeHost"
			if rw.s == Managed {
				free = "cudaFree"
			}
			text = fmt.Sprintf("%s(%s)", free, p.Host) + comment("; freed once, after both frees and the GPU work")
			if p.Verdicts[3].Status == KeepWait {
				text = fmt.Sprintf("(cudaDeviceSynchronize(), %s(%s))", free, p.Host) + comment("; freed once, after a synchronize")
			}
		}
		e, err := rw.replace(n, text)
		if err != nil {
			return nil, false, nil, err
		}
		es = append(es, e)
	}
	return es, needHelper, fn, nil
}

// hostAlloc plans the host side's allocation: the one buffer.
func (rw *rewriter) hostAlloc(p Proof, site Site, comment string) (*Node, edit, bool, error) {
	for _, n := range rw.byKey[siteKey(site.At)] {
		switch {
		case isCall(n.Kind) && (n.Callee() == "cudaMallocHost" || n.Callee() == "cudaHostAlloc"):
			args := n.Args()
			if r := addrOf(args[0]); r == nil || r.ID != p.HostID || len(args) < 2 {
				continue
			}
			size, err := rw.text(args[1])
			if err != nil {
				return nil, edit{}, false, err
			}
			call := fmt.Sprintf("cudaHostAlloc((void **)&%s, %s, cudaHostAllocMapped)", p.Host, size)
			if rw.s == Managed {
				call = fmt.Sprintf("cudaMallocManaged((void **)&%s, %s, cudaMemAttachGlobal)", p.Host, size)
			}
			e, err := rw.replace(n, call+comment)
			return n, e, false, err
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2:
			if l := Unwrap(n.Inner[0]); l.Kind != "DeclRefExpr" || l.Ref == nil || l.Ref.ID != p.HostID {
				continue
			}
			e, err := rw.allocExpr(n.Inner[1], comment)
			return n, e, true, err
		case n.Kind == "VarDecl" && n.ID == p.HostID && len(n.Inner) > 0:
			e, err := rw.allocExpr(n.Inner[len(n.Inner)-1], comment)
			return n, e, true, err
		}
	}
	return nil, edit{}, false, fmt.Errorf("the host allocation at line %d is not found where the AST puts it", site.At.Line)
}

// allocExpr replaces an allocation expression (under its casts) with a call of the helper.
func (rw *rewriter) allocExpr(rhs *Node, comment string) (edit, error) {
	r := Unwrap(rhs)
	var size *Node
	switch {
	case r.Kind == "CXXNewExpr" && len(r.Inner) > 0:
		size = r.Inner[0]
	case isCall(r.Kind):
		args := r.Args()
		switch r.Callee() {
		case "malloc", "valloc":
			size = args[0]
		case "aligned_alloc", "memalign":
			size = args[1]
		case "calloc":
			return edit{}, fmt.Errorf("a calloc'd host side is zeroed, and the shared buffer would not be: not rewritten yet")
		default:
			if s := rw.e.summarize(r.Callee()); s != nil && s.returnsHost && s.sizeParam >= 0 && s.sizeParam < len(args) {
				for i, a := range args {
					if i != s.sizeParam && strings.Contains(sizeKey(a), "?") {
						return edit{}, fmt.Errorf("the call to %s has arguments with effects: not rewritten", r.Callee())
					}
				}
				size = args[s.sizeParam]
			}
		}
	}
	if size == nil {
		return edit{}, fmt.Errorf("the host allocation at line %d is not one the rewrite can replace", r.Range.Begin.Line)
	}
	st, err := rw.text(size)
	if err != nil {
		return edit{}, err
	}
	return rw.replace(r, fmt.Sprintf("%s(%s)%s", helperName, st, comment))
}

// devAlloc plans the device side's allocation: the device variable names the one buffer.
func (rw *rewriter) devAlloc(p Proof, site Site, comment string) (*Node, edit, error) {
	for _, n := range rw.byKey[siteKey(site.At)] {
		if !isCall(n.Kind) || (n.Callee() != "cudaMalloc" && n.Callee() != "cudaMallocAsync") {
			continue
		}
		if r := addrOf(n.Args()[0]); r == nil || r.ID != p.DeviceID {
			continue
		}
		text := fmt.Sprintf("cudaHostGetDevicePointer((void **)&%s, %s, 0)", p.Device, p.Host)
		if rw.s == Managed {
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

func (rw *rewriter) declType(id DeclID) string {
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
func (rw *rewriter) precedes(h, d *Node) error {
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
func (rw *rewriter) call(l Loc, name string) *Node {
	for _, n := range rw.byKey[siteKey(l)] {
		if isCall(n.Kind) && n.Callee() == name {
			return n
		}
	}
	return nil
}

var freeCalls = map[string]bool{"free": true, "cudaFree": true, "cudaFreeHost": true, "cudaFreeAsync": true}

// freeNode is the free at a site: a libc or CUDA free, delete[], or a call of a function in
// the translation unit (the corpus's host_free) whose other arguments have no effects.
func (rw *rewriter) freeNode(f Site) *Node {
	for _, n := range rw.byKey[siteKey(f.At)] {
		if n.Kind == "CXXDeleteExpr" {
			return n
		}
		if !isCall(n.Kind) || n.Kind == "CUDAKernelCallExpr" {
			continue
		}
		if freeCalls[n.Callee()] {
			return n
		}
		if rw.e.funcs[n.Callee()] != nil {
			ok := true
			for _, a := range n.Args() {
				ok = ok && (Unwrap(a).Kind == "DeclRefExpr" || !strings.Contains(sizeKey(a), "?"))
			}
			if ok {
				return n
			}
		}
	}
	return nil
}

// statement reports whether n is a whole statement (its value is unused).
func (rw *rewriter) statement(n *Node) bool {
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
func (rw *rewriter) nothing(n *Node) string {
	if rw.statement(n) || !strings.Contains(n.Type, "cudaError") {
		return "(void)0"
	}
	return "cudaSuccess"
}

// span is a node's byte range in the main file, from where its tokens are written.
func (rw *rewriter) span(n *Node) (int, int, error) {
	b, e := spelled(n.Range.Begin), spelled(n.Range.End)
	if b.File != rw.tu.File || e.File != rw.tu.File || e.Offset+e.TokLen < b.Offset || e.Offset+e.TokLen > len(rw.src) {
		return 0, 0, fmt.Errorf("the code at line %d is written inside a macro or another file: not rewritten", n.Range.Begin.Line)
	}
	return b.Offset, e.Offset + e.TokLen, nil
}

func spelled(l Loc) Loc {
	if l.Spelling != nil {
		return *l.Spelling
	}
	return l
}

func (rw *rewriter) text(n *Node) (string, error) {
	b, e, err := rw.span(n)
	if err != nil {
		return "", err
	}
	return string(rw.src[b:e]), nil
}

func (rw *rewriter) replace(n *Node, text string) (edit, error) {
	b, e, err := rw.span(n)
	if err != nil {
		return edit{}, err
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
