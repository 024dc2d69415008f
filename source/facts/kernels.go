package facts

import (
	"fmt"
	"strings"

	"github.com/echo-uma/echo/source/parse"
)

// What a launch may do to the buffer behind each of a kernel's pointer arguments, decided from
// the kernel's body (host-only mode parses it) and never from the parameter's type: `const` can
// be cast away (`((float *)in)[i] = v`, const_cast, reinterpret_cast, an atomic on a cast
// pointer, inline assembly), so a `const T *` parameter is read-only only where the body shows
// it is. A parameter the body only reads through — subscripts and dereferences as values, never
// assigned through, incremented, address-taken, stored, passed to a function without a body
// (atomics included) or returned, in the kernel or any function it calls (followed through
// their summaries, recursively) — is read-only for that launch: the kernel cannot change the
// device side through it, so a host read of the host side after the launch sees what it saw
// before. Any other parameter may be written, and the launch says where: the first access that
// is not a read, with its line, becomes part of the reason a pair is refused.
//
// That is only sound if nothing else in the kernel can write the buffer. A pointer to it
// reaches the kernel as a parameter, or through memory: a global or a struct the host filled
// (the host storing the pointer is already an S3 escape), or a pointer the kernel loaded. So a
// kernel that writes through anything but its own parameters and arrays with storage of their
// own (locals, __shared__, globals declared as arrays), that calls a function without a body
// with a pointer or a reference, that binds a reference, launches kernels or holds inline
// assembly or a lambda, has no read-only parameter. Functions in the translation unit that the
// kernel calls are read the same way, recursively (a template's instantiation is the function
// the call names); calls through pointers and recursion are not followed. What stays unseen: a
// device function compiled elsewhere (-rdc) that writes through a pointer it keeps in device
// memory.

// kernelParam is what a launch may do through one argument.
type kernelParam struct {
	readOnly bool
	why      string // when it may write: what the kernel does, with the line
}

// kernelAccess is what a launch of one kernel may do through each argument.
type kernelAccess struct {
	params []kernelParam // by parameter index
	why    string        // for any argument params does not cover
}

func (k kernelAccess) at(i int) kernelParam {
	if i < len(k.params) {
		return k.params[i]
	}
	return kernelParam{why: k.why}
}

// kernelAccess reads the kernel r's body for what a launch may do through each argument.
func (e *Effects) kernelAccess(r *parse.Ref) kernelAccess {
	if r == nil {
		return kernelAccess{why: "the kernel is named through a pointer the analysis does not follow, so it may write every argument"}
	}
	fn := e.Body(r)
	switch {
	case fn == nil:
		return kernelAccess{why: fmt.Sprintf("the body of %s is not in the translation unit, so it may write every argument", r.Name)}
	case !HasAttr(fn, "CUDAGlobalAttr"):
		return kernelAccess{why: fmt.Sprintf("%s is not a __global__ function with a body here, so it may write every argument", r.Name)}
	}
	if w := e.foreignWrites(fn, map[*parse.Node]bool{}); w != "" {
		return kernelAccess{why: fmt.Sprintf("%s may write memory it did not get as a parameter (%s), so it may write every argument", r.Name, w)}
	}
	s := e.summarizeFn(fn)
	if s == nil {
		return kernelAccess{why: fmt.Sprintf("%s calls itself, so it may write every argument", r.Name)}
	}
	out := kernelAccess{params: make([]kernelParam, len(s.params)), why: "the argument is beyond the kernel's parameters"}
	for i, p := range s.params {
		if _, la := s.LaunchArgs[i]; la || !isPointerType(p.Type) {
			out.params[i] = kernelParam{why: fmt.Sprintf("%s takes it as %s %s, not a pointer it only reads through", r.Name, p.Type, p.Name)}
			continue
		}
		k := kernelParam{readOnly: true}
		for _, ev := range s.effects[i] {
			if ev.Kind != EvRead {
				k = kernelParam{why: describeAccess(r.Name, p, ev)}
				break
			}
		}
		out.params[i] = k
	}
	return out
}

// describeAccess says what a kernel's access to its parameter p is, and where: the line of the
// access itself, inside a function the kernel calls where it is there.
func describeAccess(kernel string, p *parse.Node, ev Event) string {
	where, in := ev.At, ""
	if ev.Origin.Line != 0 {
		where, in = ev.Origin, " (in "+ev.originFn+")"
	}
	what := ""
	switch ev.Kind {
	case EvWrite:
		what = "writes through its parameter " + p.Name
	case EvEscape:
		what = "lets its parameter " + p.Name + " escape"
	case EvFree:
		what = "frees its parameter " + p.Name
	case EvDef:
		what = "reassigns its parameter " + p.Name
	case EvLaunch:
		what = "passes its parameter " + p.Name + " to another kernel"
	default:
		what = "uses its parameter " + p.Name + " other than by reading through it"
	}
	s := fmt.Sprintf("%s %s at line %d%s", kernel, what, where.Line, in)
	if ev.Kind == EvEscape {
		s += ": " + ev.Why
	}
	if constPointee(p.Type) {
		s += ", though it is declared " + p.Type
	}
	return s
}

// constPointee reports whether a parameter type is a pointer to const ("const float *"): only
// ever said in a reason, never trusted.
func constPointee(t string) bool {
	return isPointerType(t) && strings.HasPrefix(strings.TrimSpace(t), "const ")
}

func HasAttr(fn *parse.Node, kind string) bool {
	for _, c := range fn.Inner {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// foreignWrites says how fn's body may write memory other than through its own parameters
// and arrays with their own storage (see the file's comment), with the line; "" when it
// cannot.
func (e *Effects) foreignWrites(fn *parse.Node, seen map[*parse.Node]bool) string {
	if seen[fn] {
		return "a recursive call of " + fn.Name
	}
	seen[fn] = true
	defer delete(seen, fn)
	params := ParamIDs(fn)
	body := FuncBody(fn)
	if body == nil {
		return "a call of " + fn.Name + ", whose body is not here"
	}
	for id := range ownLocals(body, params) {
		params[id] = true
	}
	found := ""
	at := func(n *parse.Node, what string) string {
		return fmt.Sprintf("%s at line %d", what, n.Range.Begin.Line)
	}
	body.Walk(func(n *parse.Node) bool {
		if found != "" {
			return false
		}
		switch n.Kind {
		case "GCCAsmStmt", "MSAsmStmt":
			found = at(n, "inline assembly")
		case "CUDAKernelCallExpr":
			found = at(n, "a kernel launch")
		case "LambdaExpr":
			found = at(n, "a lambda")
		case "VarDecl":
			// A reference bound to p[i] writes it as a plain variable would be written.
			if strings.Contains(n.Type, "&") {
				found = fmt.Sprintf("a reference %s bound at line %d", n.Name, n.Loc.Line)
			}
		case "BinaryOperator":
			if n.Opcode == "=" && len(n.Inner) == 2 && !ownLvalue(n.Inner[0], params) {
				found = at(n, "a write through a pointer it loaded")
			}
		case "CompoundAssignOperator":
			if len(n.Inner) == 2 && !ownLvalue(n.Inner[0], params) {
				found = at(n, "a write through a pointer it loaded")
			}
		case "UnaryOperator":
			if (n.Opcode == "++" || n.Opcode == "--") && len(n.Inner) == 1 && !ownLvalue(n.Inner[0], params) {
				found = at(n, "a write through a pointer it loaded")
			}
		case "CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr":
			found = e.foreignCall(n, params, seen)
		}
		return found == ""
	})
	if found != "" && fn.Name != "" {
		found += " in " + fn.Name
	}
	return found
}

// ownLocals are the local pointers of a body that only ever point into the parameters' memory
// or arrays of their own: every value given to one (its initializer, an assignment, an
// increment) is such a pointer, and its address is never taken. A write through one is a write
// through a parameter (`float *w = (float *)in; w[i] = …`), which the summary sees as such.
func ownLocals(body *parse.Node, params map[parse.DeclID]bool) map[parse.DeclID]bool {
	cands := map[parse.DeclID][]*parse.Node{} // a local pointer → the values given to it (nil: an increment)
	bad := map[parse.DeclID]bool{}
	body.Walk(func(n *parse.Node) bool {
		switch {
		case n.Kind == "VarDecl" && isPointerType(n.Type):
			if len(n.Inner) == 0 {
				bad[n.ID] = true // no value yet: what it is given later is checked, but keep it simple
			} else {
				cands[n.ID] = append(cands[n.ID], n.Inner[len(n.Inner)-1])
			}
		case (n.Kind == "BinaryOperator" && n.Opcode == "=" || n.Kind == "CompoundAssignOperator") && len(n.Inner) == 2:
			if l := parse.Unwrap(n.Inner[0]); l.Kind == "DeclRefExpr" && l.Ref != nil {
				if n.Kind == "BinaryOperator" {
					cands[l.Ref.ID] = append(cands[l.Ref.ID], n.Inner[1])
				}
			}
		case n.Kind == "UnaryOperator" && n.Opcode == "&" && len(n.Inner) == 1:
			if r := parse.Unwrap(n.Inner[0]); r.Kind == "DeclRefExpr" && r.Ref != nil {
				bad[r.Ref.ID] = true
			}
		}
		return true
	})
	own := map[parse.DeclID]bool{}
	for id := range params {
		own[id] = true
	}
	for changed := true; changed; {
		changed = false
		for id, vals := range cands {
			if own[id] || bad[id] {
				continue
			}
			ok := true
			for _, v := range vals {
				ok = ok && ownBase(v, own)
			}
			if ok {
				own[id], changed = true, true
			}
		}
	}
	for id := range params {
		delete(own, id)
	}
	return own
}

// foreignCall says how a call in a kernel (or a function it calls) may write memory other than
// the caller's own; "" when it cannot.
func (e *Effects) foreignCall(c *parse.Node, params map[parse.DeclID]bool, seen map[*parse.Node]bool) string {
	name := c.Callee()
	if strings.HasPrefix(name, "__fetch_builtin_") {
		return "" // threadIdx.x and the like
	}
	r := c.CalleeRef()
	if c.Kind != "CallExpr" || r == nil || r.Kind != "FunctionDecl" && r.Kind != "CXXMethodDecl" || strings.Contains(r.Type, "&") {
		// A method called on an object, an operator, a call through a pointer, or one taking
		// a reference. (A static method, std::numeric_limits<int>::max(), is a function.)
		return fmt.Sprintf("a call the analysis does not follow at line %d", c.Range.Begin.Line)
	}
	for _, a := range c.Args() {
		if t := typeOf(a); (isPointerType(t) || strings.Contains(t, "[")) && !ownBase(a, params) {
			return fmt.Sprintf("a pointer it loaded passed to %s at line %d", name, c.Range.Begin.Line)
		}
	}
	if callee := e.Body(r); callee != nil {
		return e.foreignWrites(callee, seen)
	}
	if e.Overloaded[name] {
		return fmt.Sprintf("a call of the overloaded %s at line %d", name, c.Range.Begin.Line)
	}
	return "" // no body, and given only values or the caller's own memory
}

// ownLvalue reports whether an assigned expression is a variable, or memory reached through
// a parameter or an array with its own storage.
func ownLvalue(l *parse.Node, params map[parse.DeclID]bool) bool {
	l = parse.Unwrap(l)
	switch {
	case l == nil:
		return false
	case l.Kind == "DeclRefExpr":
		return true // the variable itself
	case l.Kind == "MemberExpr" && !l.IsArrow && len(l.Inner) == 1:
		return ownLvalue(l.Inner[0], params)
	case l.Kind == "MemberExpr" && len(l.Inner) == 1,
		l.Kind == "UnaryOperator" && l.Opcode == "*" && len(l.Inner) == 1:
		return ownBase(l.Inner[0], params)
	case l.Kind == "ArraySubscriptExpr" && len(l.Inner) == 2:
		return ownBase(l.Inner[0], params)
	}
	return false
}

// ownBase reports whether a pointer expression points into a parameter's memory or an array
// with its own storage.
func ownBase(b *parse.Node, params map[parse.DeclID]bool) bool {
	b = parse.Unwrap(b)
	switch {
	case b == nil:
		return false
	case b.Kind == "DeclRefExpr" && b.Ref != nil:
		return params[b.Ref.ID] || (b.Ref.Kind == "VarDecl" && strings.Contains(b.Ref.Type, "["))
	case b.Kind == "BinaryOperator" && (b.Opcode == "+" || b.Opcode == "-") && len(b.Inner) == 2:
		if isPointerType(typeOf(b.Inner[0])) || strings.Contains(typeOf(b.Inner[0]), "[") {
			return ownBase(b.Inner[0], params)
		}
		return ownBase(b.Inner[1], params)
	case b.Kind == "UnaryOperator" && b.Opcode == "&" && len(b.Inner) == 1:
		return ownLvalue(b.Inner[0], params)
	case (b.Kind == "ArraySubscriptExpr" || b.Kind == "MemberExpr") && strings.Contains(typeOf(b), "["):
		return ownLvalue(b, params) // a row of an array: m[ty] in m[ty][tx], s.a in s.a[i]
	}
	return false
}
