package rewrite

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// The pinned strategy: the device buffer and every copy stay; the host side is allocated
// page-locked (echo_pinned_alloc: cudaMallocHost) in place of malloc, calloc, new[] or a
// helper of the file that returns one, and every free of it becomes echo_pinned_free. What the
// program reads and when it waits do not change (S1–S3 are about merging and do not apply);
// what needs proof is the host side's lifetime, since cudaMallocHost memory must be freed with
// cudaFreeHost and by nothing else:
//   - the host pointer never leaves what the analysis follows (stored, returned, passed to a
//     function without a body other than one that only reads or writes through it during the
//     call, as fread or memcmp do: such a function could free, realloc or keep it), nor reaches
//     a kernel; comparing or printing it is fine (its value was never the program's to choose);
//   - each free of it frees only the pair's allocation or null on every path (lifetime.go),
//     and is a call the rewrite can replace (free, delete[], or a helper of the file that does
//     nothing but free it and report a failure);
//   - no asynchronous copy touches it: from pageable memory cudaMemcpyAsync returns once its
//     data is staged, from page-locked memory before it moved, so the host could overwrite or
//     read it early;
//   - the device is not reset while the buffer lives (cudaDeviceReset frees page-locked
//     memory), and the program does not set the device's flags (a page-locked allocation
//     starts the device first, and before CUDA 12 the flags then fail).
//
// When page-locked memory runs out (or for 0 bytes) echo_pinned_alloc falls back to malloc,
// and clears the error cudaMallocHost left, so a program that ran as written still runs and
// prints what it printed: returning null instead would make the program's own check report
// an out-of-memory error it never had, or crash where it had no check. An error the program
// has not read yet is left for it (the fallback is taken at once then). echo_pinned_free tells
// the two apart with cudaPointerGetAttributes, which since CUDA 11 answers for any host
// pointer without an error.

// borrowCalls are functions without a body in the translation unit that use a pointer only
// during the call, as the C library documents them: the host side may be passed to them.
var borrowCalls = map[string]bool{
	"fread": true, "fwrite": true, "fgets": true, "fputs": true, "memcmp": true, "memchr": true,
	"strlen": true, "strcmp": true, "strncmp": true, "strcpy": true, "strncpy": true,
	"qsort": true, "bsearch": true, "sscanf": true, "fscanf": true, "scanf": true,
}

// pinnedPlan is the pinned strategy's edits for one pair, and the helpers they call.
func (rw *rewriter) pinnedPlan(p rules.Proof, g *facts.CFG, stmtEv map[*parse.Node][]facts.Event, comment string) ([]edit, helpers, error) {
	var hostSite *rules.Site
	for _, a := range p.Allocs {
		if a.Host {
			if hostSite != nil {
				return nil, 0, fmt.Errorf("more than one host allocation site: only one is rewritten yet")
			}
			a := a
			hostSite = &a
		}
	}
	if hostSite == nil {
		return nil, 0, fmt.Errorf("no host allocation the analysis reached")
	}
	h := p.HostID
	for _, s := range g.Blocks {
		for _, st := range s.Stmts {
			for _, ev := range stmtEv[st] {
				if err := rw.pinnedEvent(p, ev); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	edits, sites, _, err := rw.lifetimes(p, g, stmtEv, false)
	if err != nil {
		return nil, 0, err
	}
	var es []edit
	e, need, err := rw.pinnedAlloc(p, *hostSite, comment)
	if err != nil {
		return nil, 0, err
	}
	es = append(es, e)
	for k := range edits {
		n := rw.freeNode(sites[k])
		if n == nil {
			return nil, 0, fmt.Errorf("the free at line %d is not a call the rewrite can replace", sites[k].At.Line)
		}
		if err := rw.replaceableFree(n, h); err != nil {
			return nil, 0, err
		}
		if !rw.statement(n) && n.Type != "void" {
			return nil, 0, fmt.Errorf("the value of the free at line %d is used", sites[k].At.Line)
		}
		e, err := rw.replace(n, fmt.Sprintf("echo_pinned_free(%s)%s", p.Host, comment))
		if err != nil {
			return nil, 0, err
		}
		es = append(es, e)
	}
	return es, need | helperPinned, nil
}

// pinnedEvent checks one event of the function against what pinning the host side needs.
// (What the pointer holds where it is freed is lifetimes'.)
func (rw *rewriter) pinnedEvent(p rules.Proof, ev facts.Event) error {
	h := p.HostID
	switch {
	case ev.Kind == facts.EvCopy && (ev.Src == h || ev.Dst == h) && !ev.Sync:
		return fmt.Errorf("the asynchronous copy at line %d would return before its data moved from page-locked memory", ev.At.Line)
	case ev.V != h:
	case ev.Kind == facts.EvEscape && !ev.Refused && !rw.borrowed(ev.At, h):
		return fmt.Errorf("the host pointer is %s (line %d): something the rewrite cannot see could free it", ev.Why, ev.At.Line)
	case ev.Kind == facts.EvLaunch:
		return fmt.Errorf("the host pointer is passed to the kernel at line %d", ev.At.Line)
	}
	return nil
}

// borrowed reports whether the escape at at is the host pointer passed to a borrowCalls
// function.
func (rw *rewriter) borrowed(at parse.Loc, h parse.DeclID) bool {
	for _, n := range rw.byKey[rules.SiteKey(at)] {
		if parse.IsCall(n.Kind) && borrowCalls[n.Callee()] {
			for _, a := range n.Args() {
				if rw.e.BasePtr(a) == h {
					return true
				}
			}
		}
	}
	return false
}

// pinnedAlloc plans the host allocation's edit: echo_pinned_alloc in place of the allocation
// expression.
func (rw *rewriter) pinnedAlloc(p rules.Proof, site rules.Site, comment string) (edit, helpers, error) {
	for _, n := range rw.byKey[rules.SiteKey(site.At)] {
		var rhs *parse.Node
		switch {
		case parse.IsCall(n.Kind) && (n.Callee() == "cudaMallocHost" || n.Callee() == "cudaHostAlloc"):
			if r := facts.AddrOf(n.Args()[0]); r != nil && r.ID == p.HostID {
				return edit{}, 0, fmt.Errorf("the host side is page-locked already (%s at line %d)", n.Callee(), site.At.Line)
			}
			continue
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2:
			if l := parse.Unwrap(n.Inner[0]); l.Kind != "DeclRefExpr" || l.Ref == nil || l.Ref.ID != p.HostID {
				continue
			}
			rhs = n.Inner[1]
		case n.Kind == "VarDecl" && n.ID == p.HostID && len(n.Inner) > 0:
			rhs = n.Inner[len(n.Inner)-1]
		default:
			continue
		}
		for up := rw.parent[n]; up != nil; up = rw.parent[up] {
			switch up.Kind {
			case "ForStmt", "WhileStmt", "DoStmt", "CXXForRangeStmt":
				if up.Kind != "DoStmt" || !doWhileZero(up) {
					// Page-locking, and the synchronize cudaFreeHost makes, every iteration:
					// the binary path pools such buffers; a rewrite has no pool.
					return edit{}, 0, fmt.Errorf("the host side is allocated in a loop (line %d): page-locking it every iteration costs more than its copies save", site.At.Line)
				}
			}
		}
		r := parse.Unwrap(rhs)
		var text string
		need := helpers(0)
		switch {
		case r.Kind == "CXXNewExpr" && r.IsArray && len(r.Inner) == 1:
			elem, ok := plainElement(r)
			if !ok {
				return edit{}, 0, fmt.Errorf("the new[] at line %d makes %s: only arrays of numbers and pointers are rewritten (delete[] would run destructors)", site.At.Line, r.Type)
			}
			n, err := rw.text(r.Inner[0])
			if err != nil {
				return edit{}, 0, err
			}
			text = fmt.Sprintf("(%s)echo_pinned_alloc((size_t)(%s) * sizeof(%s))", r.Type, n, elem)
		case r.Kind == "CXXNewExpr":
			return edit{}, 0, fmt.Errorf("the new[] at line %d initializes its elements: not rewritten yet", site.At.Line)
		case parse.IsCall(r.Kind) && r.Callee() == "calloc" && len(r.Args()) == 2:
			a, err := rw.text(r.Args()[0])
			if err != nil {
				return edit{}, 0, err
			}
			b, err := rw.text(r.Args()[1])
			if err != nil {
				return edit{}, 0, err
			}
			text, need = fmt.Sprintf("echo_pinned_calloc(%s, %s)", a, b), helperPinnedCalloc
		case parse.IsCall(r.Kind):
			size, err := rw.allocSize(r)
			if err != nil {
				return edit{}, 0, err
			}
			text = fmt.Sprintf("echo_pinned_alloc(%s)", size)
		default:
			return edit{}, 0, fmt.Errorf("the host allocation at line %d is not one the rewrite can replace", site.At.Line)
		}
		e, err := rw.replace(r, text+comment)
		return e, need, err
	}
	return edit{}, 0, fmt.Errorf("the host allocation at line %d is not found where the AST puts it", site.At.Line)
}

// replaceableFree checks that a free the rewrite replaces does nothing but free the host side:
// free, delete[], or a call of a function of the file whose body only frees its parameter
// (maybe by one of several deallocators, by its other arguments) and reports a failure on the
// way out of the program (the corpus's host_free). Anything else it does would be lost.
func (rw *rewriter) replaceableFree(n *parse.Node, h parse.DeclID) error {
	if n.Kind == "CXXDeleteExpr" || freeCalls[n.Callee()] {
		return nil
	}
	fn := rw.e.Funcs[n.Callee()]
	if fn == nil || rw.e.Overloaded[n.Callee()] {
		return fmt.Errorf("the free at line %d is a call the rewrite cannot see into", n.Range.Begin.Line)
	}
	if why := freeOnly(facts.FuncBody(fn)); why != "" {
		return fmt.Errorf("the free at line %d calls %s, which %s: the rewrite would drop that", n.Range.Begin.Line, n.Callee(), why)
	}
	return nil
}

// quietInFree are the calls a free-only helper may make besides the frees: pure comparisons
// that pick the deallocator, and what reports a failure.
var quietInFree = map[string]bool{"strcmp": true, "strncmp": true, "strcasecmp": true,
	"cudaGetErrorString": true, "cudaGetErrorName": true}

// freeOnly says what else a helper's body does than free ("" when nothing): statements are
// blocks, ifs, declarations of an error code and the frees themselves; a print is allowed only
// in a branch that ends the program (CHECK's report).
func freeOnly(body *parse.Node) string {
	why := ""
	var visit func(n *parse.Node, dying bool)
	visit = func(n *parse.Node, dying bool) {
		if why != "" || n == nil {
			return
		}
		switch n.Kind {
		case "CallExpr":
			name := n.Callee()
			switch {
			case freeCalls[name] || quietInFree[name] || facts.NoReturn[name]:
			case facts.PrintCalls[name] && dying:
			default:
				why = "also calls " + name
				if name == "" {
					why = "calls through a pointer"
				}
				return
			}
		case "IfStmt":
			if len(n.Inner) >= 2 {
				visit(n.Inner[0], dying)
				visit(n.Inner[1], dying || endsProgram(n.Inner[1]))
				if len(n.Inner) == 3 {
					visit(n.Inner[2], dying || endsProgram(n.Inner[2]))
				}
				return
			}
		case "BinaryOperator", "CompoundAssignOperator":
			if n.Opcode == "=" || n.Kind == "CompoundAssignOperator" {
				if l := parse.Unwrap(n.Inner[0]); l.Kind != "DeclRefExpr" || l.Ref == nil || l.Ref.Kind != "VarDecl" {
					why = "writes memory"
					return
				}
			}
		case "UnaryOperator":
			if n.Opcode == "++" || n.Opcode == "--" {
				why = "writes memory"
				return
			}
		case "ForStmt", "WhileStmt", "DoStmt":
			if n.Kind != "DoStmt" || !doWhileZero(n) {
				why = "loops"
				return
			}
		case "CUDAKernelCallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr", "GCCAsmStmt":
			why = "does more"
			return
		}
		for _, c := range n.Inner {
			visit(c, dying)
		}
	}
	visit(body, false)
	return why
}

// endsProgram reports whether a statement calls exit or abort (CHECK's failure branch).
func endsProgram(n *parse.Node) bool {
	found := false
	n.Walk(func(c *parse.Node) bool {
		found = found || parse.IsCall(c.Kind) && facts.NoReturn[c.Callee()]
		return !found
	})
	return found
}

// doWhileZero reports whether a do statement is a macro's do { … } while (0).
func doWhileZero(n *parse.Node) bool {
	if len(n.Inner) != 2 {
		return false
	}
	c := parse.Unwrap(n.Inner[1])
	return c.Kind == "IntegerLiteral" && c.Value == "0"
}

// allocSize is the size argument's text of a host allocation call the rewrite replaces:
// malloc, or a helper of the file that returns a host allocation of one of its parameters
// (the corpus's host_alloc), whose other arguments have no effects.
func (rw *rewriter) allocSize(r *parse.Node) (string, error) {
	args := r.Args()
	var size *parse.Node
	switch r.Callee() {
	case "malloc":
		size = args[0]
	case "aligned_alloc", "memalign", "valloc", "posix_memalign":
		return "", fmt.Errorf("the host side is allocated aligned (%s at line %d): not rewritten yet", r.Callee(), r.Range.Begin.Line)
	default:
		if s := rw.e.Summarize(r.Callee()); s != nil && s.ReturnsHost && s.SizeParam >= 0 && s.SizeParam < len(args) {
			for i, a := range args {
				if i != s.SizeParam && strings.Contains(facts.SizeKey(a), "?") {
					return "", fmt.Errorf("the call to %s has arguments with effects: not rewritten", r.Callee())
				}
			}
			size = args[s.SizeParam]
		}
	}
	if size == nil {
		return "", fmt.Errorf("the host allocation at line %d is not one the rewrite can replace", r.Range.Begin.Line)
	}
	return rw.text(size)
}

// deviceResetCalls end the runtime's hold on every allocation: page-locked, mapped and
// managed memory are freed there.
var deviceResetCalls = map[string]bool{"cudaDeviceReset": true, "cudaThreadExit": true}

// deviceFlagCalls must run before the device starts, which a page-locked allocation does.
var deviceFlagCalls = map[string]bool{"cudaSetDeviceFlags": true, "cudaSetValidDevices": true}

// deviceLife checks what any strategy needs of the device around a pair of fn: no call that
// must come before the device starts, and no reset while the pair's variables are still used
// (after the last use, outside any loop that uses them, is fine: the buffer is gone by then).
func (rw *rewriter) deviceLife(p rules.Proof, fn *parse.Node) error {
	for _, n := range rw.tu.Root.Inner {
		if n.Kind != "FunctionDecl" || facts.FuncBody(n) == nil || n.Loc.File != rw.tu.File {
			continue
		}
		var err error
		facts.FuncBody(n).Walk(func(c *parse.Node) bool {
			if err == nil && parse.IsCall(c.Kind) && deviceFlagCalls[c.Callee()] {
				err = fmt.Errorf("the program calls %s (line %d): the page-locked allocation would start the device before it", c.Callee(), c.Range.Begin.Line)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	last := 0
	uses := func(n *parse.Node) bool { return refersTo(n, p.HostID) || refersTo(n, p.DeviceID) }
	facts.FuncBody(fn).Walk(func(c *parse.Node) bool {
		if c.Kind == "DeclRefExpr" && c.Ref != nil && (c.Ref.ID == p.HostID || c.Ref.ID == p.DeviceID) {
			last = max(last, c.Range.Begin.Offset)
		}
		return true
	})
	resets := map[string]bool{}
	var err error
	facts.FuncBody(fn).Walk(func(c *parse.Node) bool {
		if err != nil || !parse.IsCall(c.Kind) || !rw.resets(c.Callee(), resets, map[string]bool{}) {
			return err == nil
		}
		if c.Range.Begin.Offset < last {
			err = fmt.Errorf("the device may be reset at line %d while the buffer is used (cudaDeviceReset frees it)", c.Range.Begin.Line)
			return false
		}
		for up := rw.parent[c]; up != nil; up = rw.parent[up] {
			switch up.Kind {
			case "ForStmt", "WhileStmt", "DoStmt", "CXXForRangeStmt":
				if uses(up) {
					err = fmt.Errorf("the device may be reset at line %d in a loop that uses the buffer (cudaDeviceReset frees it)", c.Range.Begin.Line)
					return false
				}
			}
		}
		return true
	})
	return err
}

// resets reports whether calling name may reset the device: a reset call, or a function of the
// file that calls one.
func (rw *rewriter) resets(name string, memo, busy map[string]bool) bool {
	if deviceResetCalls[name] {
		return true
	}
	if r, ok := memo[name]; ok {
		return r
	}
	fn := rw.e.Funcs[name]
	if fn == nil || busy[name] {
		return false
	}
	busy[name] = true
	found := false
	facts.FuncBody(fn).Walk(func(c *parse.Node) bool {
		found = found || parse.IsCall(c.Kind) && rw.resets(c.Callee(), memo, busy)
		return !found
	})
	memo[name] = found
	return found
}

// helpers are the functions a rewrite adds to the file, before the first function that needs
// them.
type helpers uint8

const (
	helperPinned helpers = 1 << iota
	helperPinnedCalloc
	helperMapped
	helperManaged
)

// helperText is the source of the helpers in hs.
func helperText(hs helpers) string {
	var b strings.Builder
	if hs&(helperPinned|helperPinnedCalloc) != 0 {
		b.WriteString(`/* echo: page-locked host buffers (pinned): the copies stay, at DMA speed. Where page-locked
 * memory runs out the buffer is plain malloc memory, as it was, and the runtime's error is
 * cleared; an error the program has not read yet is left for it. */
#include <stdlib.h>
static inline void *echo_pinned_alloc(size_t bytes)
{
	void *p = 0;
	if (cudaPeekAtLastError() == cudaSuccess) {
		if (cudaMallocHost(&p, bytes) == cudaSuccess && p)
			return p;
		(void)cudaGetLastError();
	}
	return malloc(bytes);
}

static inline void echo_pinned_free(void *p)
{
	struct cudaPointerAttributes a;
	if (p && cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost)
		(void)cudaFreeHost(p);
	else
		free(p);
}

`)
	}
	if hs&helperPinnedCalloc != 0 {
		b.WriteString(`static inline void *echo_pinned_calloc(size_t n, size_t size)
{
	unsigned char *p;
	size_t i;
	if (size && n > (size_t)-1 / size)
		return 0;
	p = (unsigned char *)echo_pinned_alloc(n * size);
	for (i = 0; p && i < n * size; i++)
		p[i] = 0;
	return p;
}

`)
	}
	for _, s := range []struct {
		h    helpers
		s    plan.Strategy
		call string
	}{{helperMapped, plan.StrategyMapped, "cudaHostAlloc(&p, bytes, cudaHostAllocMapped)"}, {helperManaged, plan.StrategyManaged, "cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)"}} {
		if hs&s.h != 0 {
			fmt.Fprintf(&b, "/* echo: the one buffer of merged host/device pairs (%s) */\n"+
				"static inline void *%s(size_t bytes)\n{\n\tvoid *p = 0;\n\treturn %s == cudaSuccess ? p : 0;\n}\n\n", s.s, mergedAllocName(s.s), s.call)
		}
	}
	return b.String()
}

// mergedAllocName is the helper a merge calls where the host allocation is an expression:
// cudaHostAlloc and cudaMallocManaged return an error code, not the pointer. It returns null
// on failure as malloc does, so the program's own check still sees the failure.
func mergedAllocName(s plan.Strategy) string { return "echo_" + string(s) + "_alloc" }

// plainElement is the element type of a new[] whose elements need no constructor or
// destructor (numbers, pointers), as written; false for any other.
func plainElement(r *parse.Node) (string, bool) {
	t := r.Type
	if r.Desugared != "" {
		t = r.Desugared
	}
	if !strings.HasSuffix(t, "*") {
		return "", false
	}
	elem := strings.TrimSpace(strings.TrimSuffix(t, "*"))
	if strings.HasSuffix(elem, "*") {
		return elem, !strings.ContainsAny(elem, "([")
	}
	words := strings.Fields(elem)
	for _, w := range words {
		switch w {
		case "const", "volatile", "signed", "unsigned", "char", "short", "int", "long", "float", "double", "bool", "_Bool", "__half":
		default:
			return "", false
		}
	}
	return strings.TrimSpace(strings.TrimSuffix(r.Type, "*")), len(words) > 0
}
