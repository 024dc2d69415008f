package source

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
)

// A Pair is a candidate: a host buffer and a device buffer, each held in a local pointer
// variable of one function, linked by at least one copy between the two variables.
type Pair struct {
	Function     string
	Host, Device string // the variables' names
	HostID       DeclID
	DeviceID     DeclID
	Copies       []CopySite
}

// CopySite is one linking copy of a pair.
type CopySite struct {
	At   Loc
	Dir  plan.CopyDirection
	Sync bool // cudaMemcpy: the host waits for it
	Full bool // its size is provably the allocation's
	// KeepWait: S2 found a launch in flight here, so the rewrite turns the copy into a
	// synchronize rather than removing it.
	KeepWait bool
}

// Site is where one side of a pair is allocated or freed: the rewrite edits exactly these.
type Site struct {
	At   Loc
	Host bool // the host side's (else the device side's)
}

// candidates finds the pairs of one function from its events: a copy between a variable that
// some path gives a host allocation and one that some path gives a device allocation.
func candidates(fn *Node, evs []event, names map[DeclID]string) []Pair {
	host, dev := map[DeclID]bool{}, map[DeclID]bool{}
	for _, ev := range evs {
		if ev.kind == evDef {
			switch ev.alloc {
			case allocHost:
				host[ev.v] = true
			case allocDevice:
				dev[ev.v] = true
			}
		}
	}
	var out []Pair
	seen := map[[2]DeclID]int{}
	for _, ev := range evs {
		if ev.kind != evCopy {
			continue
		}
		var h, d DeclID
		switch {
		case ev.dir == plan.CopyH2D && host[ev.src] && dev[ev.dst]:
			h, d = ev.src, ev.dst
		case ev.dir == plan.CopyD2H && host[ev.dst] && dev[ev.src]:
			h, d = ev.dst, ev.src
		default:
			continue
		}
		k := [2]DeclID{h, d}
		if _, ok := seen[k]; !ok {
			seen[k] = len(out)
			out = append(out, Pair{Function: fn.Name + templateArgs(fn), Host: names[h], Device: names[d], HostID: h, DeviceID: d})
		}
	}
	return out
}

// A copy between a host and a device buffer that is no candidate — a side in a struct field, a
// global, a parameter, a container, or a pointer whose allocation the analysis does not know —
// is a pair all the same: it is declined, undecidable, with the construct that hid it named
// (Verdict.Construct), never left out. A copy made inside a helper is the caller's: a side that
// is a parameter of a function the translation unit calls is left to the callers, which see the
// copy through the helper's summary.

// declinedCopies are the pairs of fn's copies that candidates found no pair for.
func (e *effects) declinedCopies(fn *Node, evs []event, pairs []Pair) []Proof {
	host, dev := map[DeclID]bool{}, map[DeclID]bool{}
	for _, ev := range evs {
		if ev.kind == evDef {
			switch ev.alloc {
			case allocHost:
				host[ev.v] = true
			case allocDevice:
				dev[ev.v] = true
			}
		}
	}
	covered := map[[2]DeclID]bool{}
	for _, p := range pairs {
		covered[[2]DeclID{p.HostID, p.DeviceID}] = true
	}
	params, locals := map[DeclID]bool{}, map[DeclID]bool{}
	for _, p := range fn.Inner {
		if p.Kind == "ParmVarDecl" {
			params[p.ID] = true
		}
	}
	fn.Walk(func(n *Node) bool {
		if n.Kind == "VarDecl" {
			locals[n.ID] = true
		}
		return true
	})
	called := e.calledFunctions()[fn]
	var out []Proof
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.kind != evCopy || (ev.dir != plan.CopyH2D && ev.dir != plan.CopyD2H) {
			continue
		}
		hID, dID, hx, dx := ev.src, ev.dst, ev.srcExpr, ev.dstExpr
		if ev.dir == plan.CopyD2H {
			hID, dID, hx, dx = ev.dst, ev.src, ev.dstExpr, ev.srcExpr
		}
		if covered[[2]DeclID{hID, dID}] {
			continue
		}
		hc, hwhy := sideConstruct(hx, hID, host[hID], params, locals, "host")
		dc, dwhy := sideConstruct(dx, dID, dev[dID], params, locals, "device")
		if hc == "" && dc == "" {
			continue // a pair candidates would have found
		}
		if called && (hc == ConstructParameter || dc == ConstructParameter) {
			continue // its callers see this copy, with their own arguments
		}
		c, why := hc, hwhy
		if c == "" || c == ConstructParameter && dc != "" && dc != ConstructParameter {
			c, why = dc, dwhy
		}
		if ev.via != "" {
			c, why = ConstructHelper, fmt.Sprintf("the copy is made inside %s, at line %d, and %s", ev.via, ev.origin.Line, why)
		}
		hn, dn := exprName(hx, hID), exprName(dx, dID)
		k := hn + "/" + dn
		if seen[k] {
			continue
		}
		seen[k] = true
		pr := Proof{Pair: Pair{Function: fn.Name + templateArgs(fn), Host: hn, Device: dn, HostID: hID, DeviceID: dID,
			Copies: []CopySite{{At: ev.at, Dir: ev.dir, Sync: ev.sync}}}}
		for i := range pr.Verdicts {
			pr.Verdicts[i] = Verdict{Cond: fmt.Sprintf("S%d", i+1), Status: plan.ConditionUndecidable, At: ev.at, Reason: why, Construct: c}
		}
		out = append(out, pr)
	}
	return out
}

// sideConstruct says why one side of a copy is no candidate's: the construct and a reason;
// "" for a local pointer given an allocation of its side's kind.
func sideConstruct(x *Node, v DeclID, allocated bool, params, locals map[DeclID]bool, side string) (Construct, string) {
	name := exprName(x, v)
	if v != 0 {
		if allocated {
			return "", ""
		}
		return ConstructAllocation, fmt.Sprintf("the %s side %s is not given an allocation the analysis knows in this function", side, name)
	}
	u := Unwrap(x)
	for u != nil {
		switch {
		case u.Kind == "UnaryOperator" && u.Opcode == "&" && len(u.Inner) == 1,
			u.Kind == "BinaryOperator" && (u.Opcode == "+" || u.Opcode == "-") && len(u.Inner) == 2:
			u = Unwrap(u.Inner[0])
			continue
		}
		break
	}
	switch {
	case u == nil:
	case u.Kind == "DeclRefExpr" && u.Ref != nil && params[u.Ref.ID]:
		return ConstructParameter, fmt.Sprintf("the %s side %s is a parameter: the buffer is the caller's, and no caller in the translation unit passes it", side, name)
	case u.Kind == "DeclRefExpr" && u.Ref != nil && locals[u.Ref.ID]:
		return ConstructAllocation, fmt.Sprintf("the %s side %s is a local variable's own storage, not an allocation", side, name)
	case u.Kind == "DeclRefExpr" && u.Ref != nil && u.Ref.Kind == "VarDecl":
		return ConstructGlobal, fmt.Sprintf("the %s side %s is a global or static variable: globals are not followed yet", side, name)
	case u.Kind == "MemberExpr", u.Kind == "ArraySubscriptExpr":
		if isContainer(u) {
			return ConstructContainer, fmt.Sprintf("the %s side %s is a container's storage: containers are not followed yet", side, name)
		}
		return ConstructField, fmt.Sprintf("the %s side %s is a struct field or an array element: fields are not followed yet", side, name)
	case u.Kind == "CXXMemberCallExpr", u.Kind == "CXXOperatorCallExpr":
		return ConstructContainer, fmt.Sprintf("the %s side %s is a container's storage: containers are not followed yet", side, name)
	}
	return ConstructAllocation, fmt.Sprintf("the %s side %s is not a pointer variable given an allocation the analysis knows", side, name)
}

// isContainer reports whether a field or element expression is reached through a class
// object's operator or method (v[0] on a std::vector is an operator call, not a subscript).
func isContainer(n *Node) bool {
	found := false
	n.Walk(func(c *Node) bool {
		found = found || c.Kind == "CXXMemberCallExpr" || c.Kind == "CXXOperatorCallExpr"
		return !found
	})
	return found
}

// exprName is how a reason names an expression: a variable, a field (s.h, p->d), an element
// (a[…]), a call (v.data()).
func exprName(x *Node, v DeclID) string {
	u := Unwrap(x)
	if u == nil {
		return "(the helper's own buffer)"
	}
	switch u.Kind {
	case "DeclRefExpr":
		if u.Ref != nil {
			return u.Ref.Name
		}
	case "CXXThisExpr":
		return "this"
	case "MemberExpr":
		if len(u.Inner) == 1 {
			base, sep := exprName(u.Inner[0], 0), "."
			if u.IsArrow {
				sep = "->"
			}
			if base == "this" {
				return u.Name
			}
			return base + sep + u.Name
		}
	case "ArraySubscriptExpr":
		if len(u.Inner) == 2 {
			return exprName(u.Inner[0], 0) + "[…]"
		}
	case "UnaryOperator":
		if len(u.Inner) == 1 {
			return u.Opcode + exprName(u.Inner[0], 0)
		}
	case "BinaryOperator":
		if len(u.Inner) == 2 {
			return exprName(u.Inner[0], 0) + " " + u.Opcode + " …"
		}
	case "CXXMemberCallExpr":
		if len(u.Inner) > 0 {
			if m := Unwrap(u.Inner[0]); m.Kind == "MemberExpr" && len(m.Inner) == 1 {
				sep := "."
				if m.IsArrow {
					sep = "->"
				}
				return exprName(m.Inner[0], 0) + sep + m.Name + "()"
			}
		}
	case "CXXOperatorCallExpr", "CallExpr":
		if c := u.Callee(); c != "" {
			return c + "(…)"
		}
	}
	return "an expression"
}

// calledFunctions are the functions with a body that some call in the translation unit names.
func (e *effects) calledFunctions() map[*Node]bool {
	if e.called != nil {
		return e.called
	}
	e.called = map[*Node]bool{}
	for _, fn := range e.bodies {
		fn.Walk(func(n *Node) bool {
			if isCall(n.Kind) {
				if b := e.body(n.CalleeRef()); b != nil {
					e.called[b] = true
				}
			}
			return true
		})
	}
	return e.called
}

// uninstantiated declines the pairs of the function templates in the main file that nothing in
// the translation unit instantiates: their types are dependent, so their copies are only named
// (a call of cudaMemcpy between two pointers of the pattern), never proved.
func uninstantiated(tu *TU, e *effects) []Proof {
	explicit := map[string]bool{} // explicit instantiations (template void f<float>(…);) stand apart
	for _, fn := range e.bodies {
		if templateArgs(fn) != "" {
			explicit[fn.Name] = true
		}
	}
	var out []Proof
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, c := range n.Inner {
			switch c.Kind {
			case "NamespaceDecl", "LinkageSpecDecl":
				walk(c)
			case "FunctionTemplateDecl":
				var pattern *Node
				instantiated := false
				for _, f := range c.Inner {
					if f.Kind != "FunctionDecl" || funcBody(f) == nil {
						continue
					}
					if templateArgs(f) != "" {
						instantiated = true
					} else {
						pattern = f
					}
				}
				if pattern != nil && !instantiated && !explicit[pattern.Name] && pattern.Loc.File == tu.File {
					out = append(out, templateCopies(pattern)...)
				}
			}
		}
	}
	walk(tu.Root)
	return out
}

// templateCopies are a template pattern's H2D and D2H copies, as declined pairs.
func templateCopies(fn *Node) []Proof {
	var out []Proof
	seen := map[string]bool{}
	funcBody(fn).Walk(func(n *Node) bool {
		if n.Kind != "CallExpr" || len(n.Inner) < 5 {
			return true
		}
		callee := Unwrap(n.Inner[0])
		name := callee.Name
		if callee.Ref != nil {
			name = callee.Ref.Name
		}
		if name != "cudaMemcpy" && name != "cudaMemcpyAsync" {
			return true
		}
		args := n.Inner[1:]
		k := Unwrap(args[3])
		if k.Ref == nil || (k.Ref.Name != "cudaMemcpyHostToDevice" && k.Ref.Name != "cudaMemcpyDeviceToHost") {
			return true
		}
		hx, dx, dir := args[1], args[0], plan.CopyH2D
		if k.Ref.Name == "cudaMemcpyDeviceToHost" {
			hx, dx, dir = args[0], args[1], plan.CopyD2H
		}
		hn, dn := exprName(hx, 0), exprName(dx, 0)
		if seen[hn+"/"+dn] {
			return true
		}
		seen[hn+"/"+dn] = true
		why := fmt.Sprintf("the function template %s is not instantiated in this translation unit: its pairs are proved where it is", fn.Name)
		pr := Proof{Pair: Pair{Function: fn.Name, Host: hn, Device: dn, Copies: []CopySite{{At: n.Range.Begin, Dir: dir, Sync: name == "cudaMemcpy"}}}}
		for i := range pr.Verdicts {
			pr.Verdicts[i] = Verdict{Cond: fmt.Sprintf("S%d", i+1), Status: plan.ConditionUndecidable, At: n.Range.Begin, Reason: why, Construct: ConstructTemplate}
		}
		out = append(out, pr)
		return true
	})
	return out
}
