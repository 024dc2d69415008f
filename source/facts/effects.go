package facts

import (
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/parse"
)

// evKind is what one step of a statement does to the buffers the proofs follow.
type evKind int

const (
	EvDef    evKind = iota // a pointer variable gets a value: an allocation or something else
	EvRead                 // the host reads through a pointer
	EvWrite                // the host writes through a pointer
	EvCopy                 // cudaMemcpy(Async)
	EvLaunch               // a kernel launch (its pointer arguments)
	EvFree                 // a pointer is freed
	EvSync                 // the host waits for all GPU work
	EvEscape               // a pointer's value is observed or leaves what the analysis sees
	EvAssign               // a non-pointer variable changes (kills branch facts about it)
)

// allocKind is what a definition gives a pointer variable.
type AllocKind int

const (
	AllocOther  AllocKind = iota // anything that is not an allocation this analysis knows
	AllocHost                    // malloc, calloc, new[], aligned_alloc, cudaMallocHost, cudaHostAlloc
	AllocDevice                  // cudaMalloc, cudaMallocAsync
)

// event is one effect, in evaluation order.
type Event struct {
	Kind evKind
	V    parse.DeclID // the variable
	At   parse.Loc

	Alloc AllocKind // evDef
	Size  string    // evDef: the allocation's size, canonical (sizeKey); "" when unknown

	Dst, Src parse.DeclID       // evCopy
	Dir      plan.CopyDirection // evCopy
	Sync     bool               // evCopy: a synchronous copy
	CopySize string             // evCopy: the size argument, canonical

	Undef     bool // evDef: a declaration without a value (no buffer yet)
	GpuWrites bool // evLaunch: the kernel may write through v (not a pointer to const)
	// evLaunch: GPU work that writes v and reads nothing of it (cudaMemset), copySize its
	// size: a fill of the whole buffer ends a host write before it as the D2H copy would.
	Fills bool

	Refused bool   // evEscape: a definite observation (compare, print, cast), not just unknown
	Why     string // evEscape: how it escapes; evLaunch with gpuWrites: what the kernel does, and where

	// origin is where inside a called function an effect the call has happened, and originFn
	// that function (the innermost one), where applySummary lifted it to the call.
	Origin   parse.Loc
	originFn string
	// via is the function the call at this step calls, where a copy or a free happens inside
	// it rather than where the step is written; viaFreeOnly says that function does nothing
	// but free (freeWrapper), so the rewrite can replace the call.
	Via         string
	ViaFreeOnly bool
	// dstExpr and srcExpr are a copy's two pointer arguments as written (evCopy).
	DstExpr, SrcExpr *parse.Node
	// fromCopy marks a summary's read or write of a parameter that is one of its copies
	// (summary.copies), which a caller is given as the copy itself.
	fromCopy bool

	// evAssign: the variable's address is kept (in a pointer, a struct, a return value), so
	// it may change later through that pointer, unseen; an address only passed to a call is
	// not kept.
	AddrKept bool
}

// effects walks the statements of functions, following calls into functions whose body is
// in the translation unit.
type Effects struct {
	Funcs map[string]*parse.Node // functions with a body, by name
	// overloaded names more than one function with a body: funcs holds one of them, which a
	// call that does not name the definition itself may not be calling, so those calls are
	// not followed.
	Overloaded map[string]bool
	// byID are the functions with a body by their declaration's id, a template's
	// instantiations included: a call names the instantiation it calls.
	byID      map[parse.DeclID]*parse.Node
	Bodies    []*parse.Node // every function with a body, in the order of the file
	summaries map[*parse.Node]*summary
	Called    map[*parse.Node]bool  // CalledFunctions, once
	Tracked   map[parse.DeclID]bool // the pointer variables followed
	ArgArrays map[parse.DeclID][]ArgSlot
	Aliases   map[parse.DeclID]parse.DeclID // in a summary: a local pointer copied from a parameter
	// localTypes are the type names declared inside function bodies (localTypeNames).
	localTypes map[string]bool
	// stable are the function's variables a size may be read through (stableInits).
	Stable map[parse.DeclID]*parse.Node
	out    []Event
}

// argSlot is one element of a launch's argument array: the variable whose address it holds.
type ArgSlot struct {
	V       parse.DeclID
	Tracked bool
}

func NewEffects(tu *parse.TU) *Effects {
	e := &Effects{Funcs: map[string]*parse.Node{}, Overloaded: map[string]bool{}, byID: map[parse.DeclID]*parse.Node{},
		summaries: map[*parse.Node]*summary{}, localTypes: localTypeNames(tu)}
	for _, n := range functionsWithBodies(tu.Root) {
		e.Bodies = append(e.Bodies, n)
		if n.Kind != "FunctionDecl" {
			continue // a method: its pairs are proved, calls to it are not followed
		}
		if e.Funcs[n.Name] != nil {
			e.Overloaded[n.Name] = true
		}
		e.Funcs[n.Name] = n
		e.byID[n.ID] = n
	}
	return e
}

// functionsWithBodies are the functions defined at the top level, in namespaces and extern
// "C" blocks, the instantiations of function templates (each a FunctionDecl with its template
// arguments, inside the FunctionTemplateDecl) and the methods of classes, in their class or
// outside it; the templates' own patterns, whose types are dependent, are not among them.
func functionsWithBodies(root *parse.Node) []*parse.Node {
	var out []*parse.Node
	var walk func(n *parse.Node)
	walk = func(n *parse.Node) {
		for _, c := range n.Inner {
			switch c.Kind {
			case "FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl":
				if FuncBody(c) != nil {
					out = append(out, c)
				}
			case "NamespaceDecl", "LinkageSpecDecl", "CXXRecordDecl":
				walk(c)
			case "FunctionTemplateDecl":
				for _, f := range c.Inner {
					if f.Kind == "FunctionDecl" && FuncBody(f) != nil && TemplateArgs(f) != "" {
						out = append(out, f)
					}
				}
			}
		}
	}
	walk(root)
	return out
}

// templateArgs is an instantiation's template arguments as written in its name ("<float>");
// "" for a function that is not one.
func TemplateArgs(fn *parse.Node) string {
	var args []string
	for _, c := range fn.Inner {
		if c.Kind == "TemplateArgument" {
			args = append(args, c.Type)
		}
	}
	if len(args) == 0 {
		return ""
	}
	return "<" + strings.Join(args, ", ") + ">"
}

// body is the definition a reference to a function names: by its id (a definition, or a
// template's instantiation), else by its name where one function has it; nil when the
// translation unit has no body for it.
func (e *Effects) Body(r *parse.Ref) *parse.Node {
	if r == nil {
		return nil
	}
	if fn := e.byID[r.ID]; fn != nil {
		return fn
	}
	if r.Kind != "FunctionDecl" || e.Overloaded[r.Name] {
		return nil
	}
	return e.Funcs[r.Name]
}

// sub is an analysis of another function's body that shares what e knows of the translation
// unit, following the pointer variables in tracked.
func (e *Effects) sub(tracked map[parse.DeclID]bool) *Effects {
	return &Effects{Funcs: e.Funcs, Overloaded: e.Overloaded, byID: e.byID, Bodies: e.Bodies, summaries: e.summaries, Called: e.Called,
		localTypes: e.localTypes, Tracked: tracked, ArgArrays: map[parse.DeclID][]ArgSlot{}, Aliases: map[parse.DeclID]parse.DeclID{}}
}

// localPointers are the pointer variables declared in fn's body (not arrays of pointers).
func LocalPointers(fn *parse.Node) map[parse.DeclID]bool {
	out := map[parse.DeclID]bool{}
	fn.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" && isPointerType(n.Type) {
			out[n.ID] = true
		}
		return true
	})
	return out
}

// isPointerType reports whether a type is a pointer, itself qualified or not ("float *",
// "float *const", "float *__restrict").
func isPointerType(t string) bool {
	t = strings.TrimSpace(t)
	for {
		u := t
		for _, q := range []string{"const", "volatile", "__restrict", "restrict"} {
			u = strings.TrimSpace(strings.TrimSuffix(u, q))
		}
		if u == t {
			return strings.HasSuffix(t, "*")
		}
		t = u
	}
}

// stmtEvents are the events of one statement of the block.
func (e *Effects) StmtEvents(s *parse.Node) []Event {
	e.out = nil
	e.visit(s, useValue)
	return e.out
}

type use int

const (
	useValue  use = iota // the pointer's value itself: it escapes unless a parent handled it
	useRead              // read through
	useWrite             // written through
	useRW                // both
	useIgnore            // a use that shows nothing of the value (null test, sizeof)
)

func (e *Effects) emit(ev Event) { e.out = append(e.out, ev) }

// ptrVar is the followed pointer variable an expression is, looking through casts and
// parentheses (but not a cast to an integer); 0 when it is none.
func (e *Effects) ptrVar(n *parse.Node) parse.DeclID {
	n = parse.Unwrap(n)
	if n != nil && n.Kind == "DeclRefExpr" && n.Ref != nil {
		id := n.Ref.ID
		if a, ok := e.Aliases[id]; ok {
			id = a
		}
		if e.Tracked[id] {
			return id
		}
	}
	return 0
}

// basePtr is the pointer an argument points into: p, p + i, &p[i], (T *)p.
func (e *Effects) BasePtr(n *parse.Node) parse.DeclID {
	u := parse.Unwrap(n)
	if u == nil {
		return 0
	}
	switch {
	case u.Kind == "UnaryOperator" && u.Opcode == "&" && len(u.Inner) == 1:
		if s := parse.Unwrap(u.Inner[0]); s.Kind == "ArraySubscriptExpr" && len(s.Inner) == 2 {
			return e.ptrVar(s.Inner[0])
		}
	case u.Kind == "BinaryOperator" && (u.Opcode == "+" || u.Opcode == "-") && len(u.Inner) == 2:
		return e.ptrVar(u.Inner[0])
	}
	return e.ptrVar(u)
}

// addrOf is the variable in &v, or 0.
func AddrOf(n *parse.Node) *parse.Ref {
	u := parse.Unwrap(n)
	if u != nil && u.Kind == "UnaryOperator" && u.Opcode == "&" && len(u.Inner) == 1 {
		if d := parse.Unwrap(u.Inner[0]); d.Kind == "DeclRefExpr" {
			return d.Ref
		}
	}
	return nil
}

func IsNull(n *parse.Node) bool {
	u := parse.Unwrap(n)
	switch u.Kind {
	case "GNUNullExpr", "CXXNullPtrLiteralExpr":
		return true
	case "IntegerLiteral":
		return u.Value == "0"
	}
	return false
}

func (e *Effects) visit(n *parse.Node, u use) {
	if n == nil || n.Kind == "" {
		return
	}
	switch n.Kind {
	case "DeclRefExpr":
		e.visitRef(n, u)
		return
	case "ImplicitCastExpr", "CStyleCastExpr", "CXXStaticCastExpr", "CXXReinterpretCastExpr", "CXXConstCastExpr", "CXXFunctionalCastExpr":
		if e.visitCast(n, u) {
			return
		}
	case "ParenExpr":
		if len(n.Inner) == 1 {
			e.visit(n.Inner[0], u)
			return
		}
	case "UnaryExprOrTypeTraitExpr":
		return // sizeof, alignof: nothing is evaluated
	case "ArraySubscriptExpr":
		if len(n.Inner) == 2 {
			e.visit(n.Inner[0], derefUse(u))
			e.visit(n.Inner[1], useValue)
			return
		}
	case "MemberExpr":
		if n.IsArrow && len(n.Inner) == 1 {
			e.visit(n.Inner[0], derefUse(u))
			return
		}
		if len(n.Inner) == 1 {
			e.visit(n.Inner[0], u) // a field of a struct variable: the struct's use
			return
		}
	case "UnaryOperator":
		if e.visitUnary(n, u) {
			return
		}
	case "BinaryOperator", "CompoundAssignOperator":
		if e.visitBinary(n, u) {
			return
		}
	case "DeclStmt":
		for _, d := range n.Inner {
			e.decl(d)
		}
		return
	case "ReturnStmt":
		for _, c := range n.Inner {
			if v := e.ptrVar(c); v != 0 {
				e.emit(Event{Kind: EvEscape, V: v, At: n.Range.Begin, Why: "returned from the function"})
				return
			}
			e.visit(c, useValue)
		}
		return
	case "CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr", "CUDAKernelCallExpr":
		e.call(n)
		return
	case "CXXDeleteExpr":
		if len(n.Inner) == 1 {
			if v := e.ptrVar(n.Inner[0]); v != 0 {
				e.emit(Event{Kind: EvFree, V: v, At: n.Range.Begin})
				return
			}
		}
	}
	for _, c := range n.Inner {
		e.visit(c, useValue)
	}
}

// visitRef: a variable is used as u says.
func (e *Effects) visitRef(n *parse.Node, u use) {
	if n.Ref == nil {
		return
	}
	id := n.Ref.ID
	if a, ok := e.Aliases[id]; ok {
		id = a
	}
	if !e.Tracked[id] {
		if slots, ok := e.ArgArrays[id]; ok && u == useValue {
			for _, s := range slots {
				if s.Tracked {
					e.emit(Event{Kind: EvEscape, V: s.V, At: n.Range.Begin, Why: "in an argument array used other than for a launch"})
				}
			}
		}
		return
	}
	switch u {
	case useRead:
		e.emit(Event{Kind: EvRead, V: id, At: n.Range.Begin})
	case useWrite:
		e.emit(Event{Kind: EvWrite, V: id, At: n.Range.Begin})
	case useRW:
		e.emit(Event{Kind: EvRead, V: id, At: n.Range.Begin})
		e.emit(Event{Kind: EvWrite, V: id, At: n.Range.Begin})
	case useValue:
		e.emit(Event{Kind: EvEscape, V: id, At: n.Range.Begin, Why: "stored or used where the analysis cannot follow it"})
	}
}

// visitCast: a cast; false when its operand is to be visited as any child is.
func (e *Effects) visitCast(n *parse.Node, u use) bool {
	if n.CastKind == "PointerToIntegral" && len(n.Inner) == 1 && e.ptrVar(n.Inner[0]) != 0 {
		e.emit(Event{Kind: EvEscape, V: e.ptrVar(n.Inner[0]), At: n.Range.Begin, Refused: true, Why: "converted to an integer"})
		return true
	}
	if n.CastKind == "PointerToBoolean" && len(n.Inner) == 1 && e.ptrVar(n.Inner[0]) != 0 {
		return true // a null test
	}
	if len(n.Inner) == 1 {
		e.visit(n.Inner[0], u)
		return true
	}
	return false
}

// visitUnary: *p, !p, ++/--, &v; false when the operand is to be visited as any child is.
func (e *Effects) visitUnary(n *parse.Node, u use) bool {
	if len(n.Inner) != 1 {
		return false
	}
	switch n.Opcode {
	case "*":
		e.visit(n.Inner[0], derefUse(u))
		return true
	case "!":
		if e.ptrVar(n.Inner[0]) != 0 {
			return true
		}
	case "++", "--":
		if v := e.ptrVar(n.Inner[0]); v != 0 {
			e.emit(Event{Kind: EvDef, V: v, At: n.Range.Begin, Alloc: AllocOther})
			return true
		}
		e.assigned(n.Inner[0], n.Range.Begin)
		e.visit(n.Inner[0], useRW)
		return true
	case "&":
		if r := AddrOf(n); r != nil {
			if e.Tracked[r.ID] {
				e.emit(Event{Kind: EvEscape, V: r.ID, At: n.Range.Begin, Why: "taken by its address (&" + r.Name + ")"})
			} else if u == useValue {
				e.emit(Event{Kind: EvAssign, V: r.ID, At: n.Range.Begin, AddrKept: true})
			}
			return true
		}
		if r := rootVar(n.Inner[0]); r != nil && !e.Tracked[r.ID] && u == useValue {
			// &s.f, &a[i]: a pointer into a variable's own storage is kept.
			e.emit(Event{Kind: EvAssign, V: r.ID, At: n.Range.Begin, AddrKept: true})
		}
		if v := e.BasePtr(n); v != 0 {
			e.visit(n.Inner[0], useIgnore)
			if u == useValue {
				e.emit(Event{Kind: EvEscape, V: v, At: n.Range.Begin, Why: "pointed into by a pointer stored or used where the analysis cannot follow it"})
			}
			return true
		}
	}
	return false
}

// visitBinary: assignments, comparisons, pointer arithmetic; false when both operands are to
// be visited as any child is.
func (e *Effects) visitBinary(n *parse.Node, u use) bool {
	if len(n.Inner) != 2 {
		return false
	}
	l, r := n.Inner[0], n.Inner[1]
	switch n.Opcode {
	case "=":
		if v := e.ptrVar(l); v != 0 {
			e.define(v, r, n.Range.Begin)
			return true
		}
		e.assigned(l, n.Range.Begin)
		e.visit(l, useWrite)
		e.visit(r, useValue)
		return true
	case "==", "!=", "<", ">", "<=", ">=":
		for _, pair := range [][2]*parse.Node{{l, r}, {r, l}} {
			if v := e.ptrVar(pair[0]); v != 0 {
				if IsNull(pair[1]) {
					continue
				}
				e.emit(Event{Kind: EvEscape, V: v, At: n.Range.Begin, Refused: true, Why: "compared (" + n.Opcode + ")"})
			}
		}
		e.visitIgnoring(l)
		e.visitIgnoring(r)
		return true
	case "+", "-":
		if v := e.ptrVar(l); v != 0 && u != useValue {
			e.visit(l, u)
			e.visit(r, useValue)
			return true
		}
	}
	if n.Kind == "CompoundAssignOperator" {
		if v := e.ptrVar(l); v != 0 {
			e.emit(Event{Kind: EvDef, V: v, At: n.Range.Begin, Alloc: AllocOther})
			e.visit(r, useValue)
			return true
		}
		e.assigned(l, n.Range.Begin)
		e.visit(l, useRW)
		e.visit(r, useValue)
		return true
	}
	return false
}

// visitIgnoring visits an operand whose pointer value is only compared (already reported).
func (e *Effects) visitIgnoring(n *parse.Node) {
	if e.ptrVar(n) != 0 {
		return
	}
	e.visit(n, useValue)
}

func derefUse(u use) use {
	switch u {
	case useWrite, useRW:
		return u
	case useIgnore:
		return useIgnore
	}
	return useRead
}

// assigned records that a non-pointer variable (or a field of one) changed.
func (e *Effects) assigned(l *parse.Node, at parse.Loc) {
	l = parse.Unwrap(l)
	for l != nil && l.Kind == "MemberExpr" && !l.IsArrow && len(l.Inner) == 1 {
		l = parse.Unwrap(l.Inner[0])
	}
	if l != nil && l.Kind == "DeclRefExpr" && l.Ref != nil {
		e.emit(Event{Kind: EvAssign, V: l.Ref.ID, At: at})
	}
}

// decl handles a declaration in a DeclStmt: a followed pointer's initializer defines it, a
// launch's argument array records the variables whose addresses it holds.
func (e *Effects) decl(d *parse.Node) {
	if d.Kind != "VarDecl" {
		return
	}
	if !e.Tracked[d.ID] {
		// A declaration run again (in a loop) gives the variable a new value.
		e.emit(Event{Kind: EvAssign, V: d.ID, At: d.Loc})
	}
	if len(d.Inner) == 0 {
		if e.Tracked[d.ID] {
			e.emit(Event{Kind: EvDef, V: d.ID, At: d.Loc, Alloc: AllocOther, Undef: true})
		}
		return
	}
	init := d.Inner[len(d.Inner)-1]
	if e.Tracked[d.ID] {
		e.define(d.ID, init, d.Loc)
		return
	}
	if e.Aliases != nil && isPointerType(d.Type) {
		// A summary's local pointer into a parameter's buffer (q = p, q = (float *)p + i):
		// what is done through it is done to the parameter's buffer, and assigning it again
		// is seen as assigning the parameter.
		if v := e.BasePtr(init); v != 0 {
			e.Aliases[d.ID] = v
			return
		}
	}
	if il := parse.Unwrap(init); il.Kind == "InitListExpr" && strings.Contains(d.Type, "[") {
		var slots []ArgSlot
		all := len(il.Inner) > 0
		for _, x := range il.Inner {
			r := AddrOf(x)
			if r == nil && fieldAddr(x) {
				slots = append(slots, ArgSlot{})
				continue
			}
			if r == nil {
				all = false
				break
			}
			slots = append(slots, ArgSlot{V: r.ID, Tracked: e.Tracked[r.ID]})
		}
		if all {
			e.ArgArrays[d.ID] = slots
			return
		}
	}
	e.visit(init, useValue)
}

// define records v = rhs.
func (e *Effects) define(v parse.DeclID, rhs *parse.Node, at parse.Loc) {
	r := parse.Unwrap(rhs)
	if w := e.ptrVar(r); w != 0 {
		e.emit(Event{Kind: EvEscape, V: w, At: at, Why: "copied into another pointer variable"})
		e.emit(Event{Kind: EvEscape, V: v, At: at, Why: "a copy of another followed pointer"})
		e.emit(Event{Kind: EvDef, V: v, At: at, Alloc: AllocOther})
		return
	}
	kind, size := AllocOther, ""
	switch {
	case r.Kind == "CXXNewExpr" && r.IsArray:
		kind = AllocHost
		size = newSize(r)
	case parse.IsCall(r.Kind):
		kind, size = e.allocCall(r)
	}
	if kind == AllocOther {
		e.visit(rhs, useValue)
	} else {
		for _, a := range r.Args() {
			e.visit(a, useValue)
		}
	}
	e.emit(Event{Kind: EvDef, V: v, At: at, Alloc: kind, Size: size})
}

// allocCall classifies a call whose result is assigned to a pointer: a host allocation from
// libc, or from a function in the translation unit that returns one (the corpus's
// host_alloc), with its size.
func (e *Effects) allocCall(c *parse.Node) (AllocKind, string) {
	args := c.Args()
	switch c.Callee() {
	case "malloc", "valloc":
		if len(args) == 1 {
			return AllocHost, e.size(args[0])
		}
	case "calloc":
		if len(args) == 2 {
			return AllocHost, e.checked(productKey(e.Stable, args[0], args[1]))
		}
	case "aligned_alloc", "memalign":
		if len(args) == 2 {
			return AllocHost, e.size(args[1])
		}
	}
	if s := e.summarizeFn(e.Body(c.CalleeRef())); s != nil && s.ReturnsHost && s.SizeParam >= 0 && s.SizeParam < len(args) {
		return AllocHost, e.size(args[s.SizeParam])
	}
	return AllocOther, ""
}

// size is the canonical key of a size argument (sizes.go), unknown ("?") where it names a
// type declared inside a function, which the dump's type names cannot tell apart.
func (e *Effects) size(n *parse.Node) string { return e.checked(keyOf(n, e.Stable, 0)) }

func (e *Effects) checked(key string) string {
	if namesLocalType(key, e.localTypes) {
		return "?local type"
	}
	return key
}

// sizeVars are the variables a size expression reads.
func SizeVars(n *parse.Node) []parse.DeclID {
	var out []parse.DeclID
	n.Walk(func(c *parse.Node) bool {
		if c.Kind == "DeclRefExpr" && c.Ref != nil && c.Ref.Kind != "FunctionDecl" && c.Ref.Kind != "EnumConstantDecl" {
			out = append(out, c.Ref.ID)
		}
		return true
	})
	return out
}

// rootVar is the variable whose own storage an lvalue is part of: s in s.f.g, a in a[i] for
// an array a; nil for memory reached through a pointer.
func rootVar(l *parse.Node) *parse.Ref {
	l = parse.Unwrap(l)
	for l != nil {
		switch {
		case l.Kind == "DeclRefExpr":
			return l.Ref
		case l.Kind == "MemberExpr" && !l.IsArrow && len(l.Inner) == 1:
			l = parse.Unwrap(l.Inner[0])
		case l.Kind == "ArraySubscriptExpr" && len(l.Inner) == 2 && l.Inner[0].CastKind == "ArrayToPointerDecay":
			l = parse.Unwrap(l.Inner[0])
		default:
			return nil
		}
	}
	return nil
}

// fieldAddr reports whether n is &s.f: the address of a field of a struct variable.
func fieldAddr(n *parse.Node) bool {
	u := parse.Unwrap(n)
	if u == nil || u.Kind != "UnaryOperator" || u.Opcode != "&" || len(u.Inner) != 1 {
		return false
	}
	m := parse.Unwrap(u.Inner[0])
	for m.Kind == "MemberExpr" && !m.IsArrow && len(m.Inner) == 1 {
		m = parse.Unwrap(m.Inner[0])
	}
	return m.Kind == "DeclRefExpr"
}
