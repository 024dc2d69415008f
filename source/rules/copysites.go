package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// Why a file a grep matches has no pair: its copies, each with what kept it from linking a
// pair. A survey prints these for a file whose text calls cudaMalloc and cudaMemcpy but whose
// analysis found no candidate, so the difference between the two counts is explained file by
// file (issue 40).

// Unpaired is one linear copy (cudaMemcpy, cudaMemcpyAsync) that links no pair, and why.
type Unpaired struct {
	At       parse.Loc
	Function string
	Why      string
}

// copyCalls are the runtime's linear copies, the ones a pair is linked by.
var copyCalls = map[string]bool{"cudaMemcpy": true, "cudaMemcpyAsync": true}

// CopySites counts the linear copies written in file (the main file or one it includes) and
// lists those no proof names as a linking copy, with why.
func CopySites(tu *parse.TU, file string, proofs []Proof) (int, []Unpaired) {
	linked := map[int]bool{}
	for _, p := range proofs {
		for _, c := range p.Copies {
			if c.At.File == file {
				linked[c.At.Offset] = true
			}
		}
	}
	n := 0
	var out []Unpaired
	seen := map[int]bool{}
	var visit func(d *parse.Node, where string)
	visitFn := func(fn *parse.Node, where string) {
		fn.Walk(func(c *parse.Node) bool {
			if !parse.IsCall(c.Kind) || !copyCalls[c.Callee()] || c.Range.Begin.File != file || seen[c.Range.Begin.Offset] {
				return true
			}
			seen[c.Range.Begin.Offset] = true
			n++
			if !linked[c.Range.Begin.Offset] && !paired(proofs, fn.Name, c) {
				out = append(out, Unpaired{At: c.Range.Begin, Function: fn.Name, Why: unpairedWhy(fn, c, where)})
			}
			return true
		})
	}
	visit = func(d *parse.Node, where string) {
		switch d.Kind {
		case "FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl":
			if facts.FuncBody(d) != nil {
				w := where
				if d.Kind != "FunctionDecl" && w == "" {
					w = "a class method"
				}
				visitFn(d, w)
			}
			return
		case "FunctionTemplateDecl":
			where = "a function template"
		case "NamespaceDecl":
			if where == "" {
				where = "a namespace"
			}
		case "CXXRecordDecl", "ClassTemplateDecl":
			where = "a class"
		case "LinkageSpecDecl":
		default:
			return
		}
		for _, c := range d.Inner {
			visit(c, where)
		}
	}
	for _, d := range tu.Root.Inner {
		visit(d, "")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Offset < out[j].At.Offset })
	return n, out
}

// paired reports whether a proof of fn has the copy's two variables as its sides.
func paired(proofs []Proof, fn string, c *parse.Node) bool {
	args := c.Args()
	if len(args) < 2 {
		return false
	}
	dst, src := parse.Unwrap(args[0]), parse.Unwrap(args[1])
	if dst.Ref == nil || src.Ref == nil {
		return false
	}
	for _, p := range proofs {
		if p.Function == fn && (p.HostID == dst.Ref.ID && p.DeviceID == src.Ref.ID || p.HostID == src.Ref.ID && p.DeviceID == dst.Ref.ID) {
			return true
		}
	}
	return false
}

// unpairedWhy says what keeps a copy from linking a pair: its direction, a side that is no
// local pointer variable, a side this function does not allocate, or where the copy is.
func unpairedWhy(fn, c *parse.Node, where string) string {
	args := c.Args()
	if len(args) < 4 {
		return "the copy's direction is a default argument"
	}
	dir := parse.Unwrap(args[3])
	h, d := args[1], args[0]
	switch {
	case dir.Kind == "DeclRefExpr" && dir.Ref != nil && dir.Ref.Name == "cudaMemcpyHostToDevice":
	case dir.Kind == "DeclRefExpr" && dir.Ref != nil && dir.Ref.Name == "cudaMemcpyDeviceToHost":
		h, d = args[0], args[1]
	case dir.Kind == "DeclRefExpr" && dir.Ref != nil:
		return "a " + strings.TrimPrefix(dir.Ref.Name, "cudaMemcpy") + " copy, not host to device or back"
	default:
		return "its direction is not written as cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost"
	}
	locals := map[parse.DeclID]*parse.Node{}
	fn.Walk(func(n *parse.Node) bool {
		if n.Kind == "VarDecl" {
			locals[n.ID] = n
		}
		return true
	})
	if why := sideWhy(fn, h, "host", locals); why != "" {
		return why
	}
	if why := sideWhy(fn, d, "device", locals); why != "" {
		return why
	}
	if where != "" {
		return "in " + where + ", which the analysis does not follow"
	}
	return "both sides are allocated here; the analysis found no pair (an unusual allocation or control flow)"
}

// sideWhy is why one side of a copy is no candidate's, or "" when it is a local pointer this
// function allocates on that side.
func sideWhy(fn, x *parse.Node, side string, locals map[parse.DeclID]*parse.Node) string {
	u := parse.Unwrap(x)
	switch u.Kind {
	case "DeclRefExpr":
	case "MemberExpr":
		return fmt.Sprintf("the %s side is a struct field (.%s)", side, u.Name)
	case "ArraySubscriptExpr":
		return fmt.Sprintf("the %s side is an array element", side)
	case "UnaryOperator":
		if u.Opcode == "&" {
			return fmt.Sprintf("the %s side is the address of a variable (a stack value, not a buffer)", side)
		}
		return fmt.Sprintf("the %s side is an expression (%s)", side, u.Opcode)
	case "BinaryOperator":
		return fmt.Sprintf("the %s side points into part of a buffer (pointer arithmetic): not a full-buffer copy", side)
	case "CXXMemberCallExpr", "CXXOperatorCallExpr":
		return fmt.Sprintf("the %s side is a container's storage (%s)", side, u.Callee())
	case "CallExpr":
		return fmt.Sprintf("the %s side is what %s returns", side, u.Callee())
	default:
		return fmt.Sprintf("the %s side is not a pointer variable (%s)", side, u.Kind)
	}
	if u.Ref == nil {
		return fmt.Sprintf("the %s side is not a variable", side)
	}
	name := u.Ref.Name
	switch {
	case u.Ref.Kind == "ParmVarDecl":
		return fmt.Sprintf("the %s side %s is a parameter: its buffer is the caller's", side, name)
	case u.Ref.Kind != "VarDecl":
		return fmt.Sprintf("the %s side %s is a %s", side, name, u.Ref.Kind)
	case locals[u.Ref.ID] == nil:
		return fmt.Sprintf("the %s side %s is a global", side, name)
	case strings.Contains(u.Ref.Type, "["):
		return fmt.Sprintf("the %s side %s is a local array, not an allocation", side, name)
	}
	if !allocates(fn, u.Ref.ID, side == "host") {
		if side == "host" {
			return fmt.Sprintf("the host side %s is not given malloc, new or cudaMallocHost in this function", name)
		}
		return fmt.Sprintf("the device side %s is not given cudaMalloc in this function", name)
	}
	return ""
}

var hostAllocs = map[string]bool{"malloc": true, "calloc": true, "aligned_alloc": true, "realloc": true,
	"valloc": true, "memalign": true, "posix_memalign": true, "cudaMallocHost": true, "cudaHostAlloc": true}

// allocates reports whether fn gives v a host (or device) allocation anywhere: v = malloc(…),
// T *v = new T[n], cudaMallocHost(&v, …), cudaMalloc(&v, …).
func allocates(fn *parse.Node, v parse.DeclID, host bool) bool {
	found := false
	isAlloc := func(e *parse.Node) bool {
		e = parse.Unwrap(e)
		if !host {
			return false
		}
		return e.Kind == "CXXNewExpr" || parse.IsCall(e.Kind) && hostAllocs[e.Callee()]
	}
	fn.Walk(func(n *parse.Node) bool {
		switch {
		case found:
			return false
		case n.Kind == "VarDecl" && n.ID == v && len(n.Inner) > 0:
			found = isAlloc(n.Inner[len(n.Inner)-1])
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2:
			if l := parse.Unwrap(n.Inner[0]); l.Ref != nil && l.Ref.ID == v {
				found = isAlloc(n.Inner[1])
			}
		case parse.IsCall(n.Kind):
			name := n.Callee()
			dev := name == "cudaMalloc" || name == "cudaMallocAsync" || name == "cudaMallocPitch"
			hostCall := name == "cudaMallocHost" || name == "cudaHostAlloc" || name == "posix_memalign"
			if (dev && !host) || (hostCall && host) {
				if args := n.Args(); len(args) > 0 {
					if r := facts.AddrOf(args[0]); r != nil && r.ID == v {
						found = true
					}
				}
			}
		}
		return true
	})
	return found
}
