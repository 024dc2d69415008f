package rules

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// A Pair is a candidate: a host buffer and a device buffer, each held in a local pointer
// variable of one function, linked by at least one copy between the two variables.
type Pair struct {
	Function     string
	Host, Device string // the variables' names
	HostID       parse.DeclID
	DeviceID     parse.DeclID
	Copies       []CopySite
}

// CopySite is one linking copy of a pair.
type CopySite struct {
	At   parse.Loc
	Dir  plan.CopyDirection
	Sync bool // cudaMemcpy: the host waits for it
	Full bool // its size is provably the allocation's
	// KeepWait: S2 found a launch in flight here, so the rewrite turns the copy into a
	// synchronize rather than removing it.
	KeepWait bool
}

// Site is where one side of a pair is allocated or freed: the rewrite edits exactly these.
type Site struct {
	At   parse.Loc
	Host bool // the host side's (else the device side's)
}

// candidates finds the pairs of one function from its events: a copy between a variable that
// some path gives a host allocation and one that some path gives a device allocation.
func candidates(fn *parse.Node, evs []facts.Event, names map[parse.DeclID]string) []Pair {
	host, dev := allocated(evs)
	var out []Pair
	seen := map[[2]parse.DeclID]int{}
	for _, ev := range evs {
		if ev.Kind != facts.EvCopy {
			continue
		}
		var h, d parse.DeclID
		switch {
		case ev.Dir == plan.CopyH2D && host[ev.Src] && dev[ev.Dst]:
			h, d = ev.Src, ev.Dst
		case ev.Dir == plan.CopyD2H && host[ev.Dst] && dev[ev.Src]:
			h, d = ev.Dst, ev.Src
		default:
			continue
		}
		k := [2]parse.DeclID{h, d}
		if _, ok := seen[k]; !ok {
			seen[k] = len(out)
			out = append(out, Pair{Function: fn.Name + facts.TemplateArgs(fn), Host: names[h], Device: names[d], HostID: h, DeviceID: d})
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

// allocated are the variables that some path of evs gives a host allocation, and those it
// gives a device allocation.
func allocated(evs []facts.Event) (host, dev map[parse.DeclID]bool) {
	host, dev = map[parse.DeclID]bool{}, map[parse.DeclID]bool{}
	for _, ev := range evs {
		if ev.Kind == facts.EvDef {
			switch ev.Alloc {
			case facts.AllocHost:
				host[ev.V] = true
			case facts.AllocDevice:
				dev[ev.V] = true
			}
		}
	}
	return host, dev
}

// declinedCopies are the pairs of fn's copies that candidates found no pair for.
func declinedCopies(e *facts.Effects, fn *parse.Node, evs []facts.Event, pairs []Pair) []Proof {
	host, dev := allocated(evs)
	covered := map[[2]parse.DeclID]bool{}
	for _, p := range pairs {
		covered[[2]parse.DeclID{p.HostID, p.DeviceID}] = true
	}
	params, locals := facts.ParamIDs(fn), map[parse.DeclID]bool{}
	fn.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" {
			locals[n.ID] = true
		}
		return true
	})
	called := e.CalledFunctions()[fn]
	var out []Proof
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Kind != facts.EvCopy || (ev.Dir != plan.CopyH2D && ev.Dir != plan.CopyD2H) {
			continue
		}
		hID, dID, hx, dx := ev.Src, ev.Dst, ev.SrcExpr, ev.DstExpr
		if ev.Dir == plan.CopyD2H {
			hID, dID, hx, dx = ev.Dst, ev.Src, ev.DstExpr, ev.SrcExpr
		}
		if covered[[2]parse.DeclID{hID, dID}] {
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
		if ev.Via != "" {
			c, why = ConstructHelper, fmt.Sprintf("the copy is made inside %s, at line %d, and %s", ev.Via, ev.Origin.Line, why)
		}
		hn, dn := exprName(hx, hID), exprName(dx, dID)
		k := hn + "/" + dn
		if seen[k] {
			continue
		}
		seen[k] = true
		pr := Proof{Pair: Pair{Function: fn.Name + facts.TemplateArgs(fn), Host: hn, Device: dn, HostID: hID, DeviceID: dID,
			Copies: []CopySite{{At: ev.At, Dir: ev.Dir, Sync: ev.Sync}}}}
		for i := range pr.Verdicts {
			pr.Verdicts[i] = Verdict{Cond: fmt.Sprintf("S%d", i+1), Status: plan.ConditionUndecidable, At: ev.At, Reason: why, Construct: c}
		}
		out = append(out, pr)
	}
	return out
}

// sideConstruct says why one side of a copy is no candidate's: the construct and a reason;
// "" for a local pointer given an allocation of its side's kind.
func sideConstruct(x *parse.Node, v parse.DeclID, allocated bool, params, locals map[parse.DeclID]bool, side string) (Construct, string) {
	name := exprName(x, v)
	if v != 0 {
		if allocated {
			return "", ""
		}
		return ConstructAllocation, fmt.Sprintf("the %s side %s is not given an allocation the analysis knows in this function", side, name)
	}
	u := parse.Unwrap(x)
	for u != nil {
		switch {
		case u.Kind == "UnaryOperator" && u.Opcode == "&" && len(u.Inner) == 1,
			u.Kind == "BinaryOperator" && (u.Opcode == "+" || u.Opcode == "-") && len(u.Inner) == 2:
			u = parse.Unwrap(u.Inner[0])
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
func isContainer(n *parse.Node) bool {
	found := false
	n.Walk(func(c *parse.Node) bool {
		found = found || c.Kind == "CXXMemberCallExpr" || c.Kind == "CXXOperatorCallExpr"
		return !found
	})
	return found
}

// exprName is how a reason names an expression: a variable, a field (s.h, p->d), an element
// (a[…]), a call (v.data()).
func exprName(x *parse.Node, v parse.DeclID) string {
	u := parse.Unwrap(x)
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
			if m := parse.Unwrap(u.Inner[0]); m.Kind == "MemberExpr" && len(m.Inner) == 1 {
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

// uninstantiated declines the pairs of the function templates in the main file that nothing in
// the translation unit instantiates: their types are dependent, so their copies are only named
// (a call of cudaMemcpy between two pointers of the pattern), never proved.
func uninstantiated(tu *parse.TU, e *facts.Effects) []Proof {
	explicit := map[string]bool{} // explicit instantiations (template void f<float>(…);) stand apart
	for _, fn := range e.Bodies {
		if facts.TemplateArgs(fn) != "" {
			explicit[fn.Name] = true
		}
	}
	var out []Proof
	var walk func(n *parse.Node)
	walk = func(n *parse.Node) {
		for _, c := range n.Inner {
			switch c.Kind {
			case "NamespaceDecl", "LinkageSpecDecl":
				walk(c)
			case "FunctionTemplateDecl":
				var pattern *parse.Node
				instantiated := false
				for _, f := range c.Inner {
					if f.Kind != "FunctionDecl" || facts.FuncBody(f) == nil {
						continue
					}
					if facts.TemplateArgs(f) != "" {
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
func templateCopies(fn *parse.Node) []Proof {
	var out []Proof
	seen := map[string]bool{}
	facts.FuncBody(fn).Walk(func(n *parse.Node) bool {
		if n.Kind != "CallExpr" || len(n.Inner) < 5 {
			return true
		}
		callee := parse.Unwrap(n.Inner[0])
		name := callee.Name
		if callee.Ref != nil {
			name = callee.Ref.Name
		}
		if name != "cudaMemcpy" && name != "cudaMemcpyAsync" {
			return true
		}
		args := n.Inner[1:]
		k := parse.Unwrap(args[3])
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
