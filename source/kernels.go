package source

import "strings"

// Which of a __global__ kernel's pointer parameters a launch only reads, from the kernel's
// body (host-only mode parses it). A parameter the body only reads through — subscripts and
// dereferences as values, never assigned through, incremented, address-taken, stored, passed
// to a function without a body or returned — is read-only for that launch: the kernel cannot
// change the device side through it, so a host read of the host side after the launch sees
// what it saw before.
//
// That is only sound if nothing else in the kernel can write the buffer. A pointer to it
// reaches the kernel as a parameter, or through memory: a global or a struct the host filled
// (the host storing the pointer is already an S3 escape), or a pointer the kernel loaded. So a
// kernel that writes through anything but its own parameters and arrays with storage of
// their own (locals, __shared__, globals declared as arrays), that calls a function without
// a body with a pointer or a reference, that binds a reference, launches kernels or holds
// inline assembly or a lambda, has no read-only parameter. Functions in the translation unit that the kernel calls are read
// the same way, recursively; templates, overloaded names and recursion are not followed.
// What stays unseen: a device function compiled elsewhere (-rdc) that writes through a
// pointer it keeps in device memory.

// readOnlyParams reports, for a launch of the kernel r, which parameters the kernel only
// reads; nil when it cannot tell (not a __global__ function with a body in the translation
// unit, an overloaded name, or a body that may write through something else).
func (e *effects) readOnlyParams(r *Ref) []bool {
	if r == nil || e.overloaded[r.Name] {
		return nil
	}
	fn := e.funcs[r.Name]
	if fn == nil || !hasAttr(fn, "CUDAGlobalAttr") || e.foreignWrites(fn, map[string]bool{}) {
		return nil
	}
	s := e.summarize(r.Name)
	if s == nil {
		return nil
	}
	out := make([]bool, len(s.params))
	for i, p := range s.params {
		if _, la := s.launchArgs[i]; la || !isPointerType(p.Type) {
			continue
		}
		ro := true
		for _, ev := range s.effects[i] {
			ro = ro && ev.kind == evRead
		}
		out[i] = ro
	}
	return out
}

func hasAttr(fn *Node, kind string) bool {
	for _, c := range fn.Inner {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// foreignWrites reports whether fn's body may write memory other than through its own
// parameters and arrays with their own storage (see the file's comment).
func (e *effects) foreignWrites(fn *Node, seen map[string]bool) bool {
	if seen[fn.Name] {
		return true // recursion
	}
	seen[fn.Name] = true
	defer delete(seen, fn.Name)
	params := map[DeclID]bool{}
	for _, p := range fn.Inner {
		if p.Kind == "ParmVarDecl" {
			params[p.ID] = true
		}
	}
	body := funcBody(fn)
	if body == nil {
		return true
	}
	found := false
	body.Walk(func(n *Node) bool {
		if found {
			return false
		}
		switch n.Kind {
		case "GCCAsmStmt", "MSAsmStmt", "CUDAKernelCallExpr", "LambdaExpr":
			found = true
		case "VarDecl":
			// A reference bound to p[i] writes it as a plain variable would be written.
			found = strings.Contains(n.Type, "&")
		case "BinaryOperator":
			if n.Opcode == "=" && len(n.Inner) == 2 {
				found = !ownLvalue(n.Inner[0], params)
			}
		case "CompoundAssignOperator":
			if len(n.Inner) == 2 {
				found = !ownLvalue(n.Inner[0], params)
			}
		case "UnaryOperator":
			if (n.Opcode == "++" || n.Opcode == "--") && len(n.Inner) == 1 {
				found = !ownLvalue(n.Inner[0], params)
			}
		case "CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr":
			found = e.foreignCall(n, params, seen)
		}
		return !found
	})
	return found
}

// foreignCall reports whether a call in a kernel (or a function it calls) may write memory
// other than the caller's own.
func (e *effects) foreignCall(c *Node, params map[DeclID]bool, seen map[string]bool) bool {
	name := c.Callee()
	if strings.HasPrefix(name, "__fetch_builtin_") {
		return false // threadIdx.x and the like
	}
	r := c.CalleeRef()
	if c.Kind != "CallExpr" || r == nil || r.Kind != "FunctionDecl" || strings.Contains(r.Type, "&") {
		return true // a method, an operator, a call through a pointer, or one taking a reference
	}
	for _, a := range c.Args() {
		if t := typeOf(a); (isPointerType(t) || strings.Contains(t, "[")) && !ownBase(a, params) {
			return true
		}
	}
	if e.overloaded[name] {
		return true
	}
	if callee := e.funcs[name]; callee != nil {
		return e.foreignWrites(callee, seen)
	}
	return false // no body, and given only values or the caller's own memory
}

// ownLvalue reports whether an assigned expression is a variable, or memory reached through
// a parameter or an array with its own storage.
func ownLvalue(l *Node, params map[DeclID]bool) bool {
	l = Unwrap(l)
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
func ownBase(b *Node, params map[DeclID]bool) bool {
	b = Unwrap(b)
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
