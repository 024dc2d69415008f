package rewrite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// Whether the kernels touch each byte of a pair's device side at most once for each of its
// copies: on a discrete GPU a mapped buffer is read over the link on every kernel access, so a
// merge pays only then (Choose). Decided conservatively, from the source; anything not shown
// to be one pass is not:
//   - each kernel parameter the device side is passed to is used only as p[i], read at most
//     once and written at most once, where i is the thread's global index
//     (blockIdx.x * blockDim.x + threadIdx.x, in any order, directly or through a variable
//     set to it once), outside any loop but a grid-stride one over that index
//     (i += gridDim.x * blockDim.x), in a kernel that indexes in one dimension only (a y or z
//     index would mean threads sharing i);
//   - no path launches kernels on the device side twice without a linking copy between
//     (a launch in a loop that does not copy, two launches in a row), followed with the
//     proofs' path facts (pathflow.go).
// Launches are <<<…>>>, cudaLaunchKernel with a local array of &variables, or a function of
// the translation unit that passes such an array to cudaLaunchKernel (the corpus's launch);
// a cudaMemset of the device side is one pass too. Any other use the launch analysis cannot
// name (a helper that launches inside, a pointer into the buffer) is not one pass.

// kernelUse is one kernel parameter a launch passes the device side to.
type kernelUse struct {
	kernel *parse.Ref
	param  int
}

// access decides Access for a pair of fn, whose graph and events functionFlow computed.
func (rw *rewriter) access(p rules.Proof, g *facts.CFG, stmtEv map[*parse.Node][]facts.Event) rules.Access {
	devSites := map[string]bool{}
	for _, a := range p.Allocs {
		if !a.Host {
			devSites[rules.SiteKey(a.At)] = true
		}
	}
	type passState struct {
		pair  bool  // the device side holds the pair's allocation
		since uint8 // kernel passes over it since its last copy or allocation, at most 2
	}
	var bad []string
	badAt := map[string]bool{}
	fail := func(at parse.Loc, why string) {
		k := fmt.Sprintf("%08d %s", at.Line, why)
		if !badAt[k] {
			badAt[k] = true
			bad = append(bad, k)
		}
	}
	kernels := map[string]bool{}
	sites := map[string]siteAccess{}
	flow := &rules.PathFlow[passState]{G: g, StmtEv: stmtEv, Step: func(s passState, ev facts.Event) passState {
		switch {
		case ev.Kind == facts.EvDef && ev.V == p.DeviceID:
			s = passState{pair: ev.Alloc == facts.AllocDevice && devSites[rules.SiteKey(ev.At)]}
		case !s.pair:
		case ev.Kind == facts.EvCopy && (ev.Src == p.HostID && ev.Dst == p.DeviceID || ev.Src == p.DeviceID && ev.Dst == p.HostID):
			s.since = 0
		case ev.Kind == facts.EvLaunch && ev.V == p.DeviceID:
			k := rules.SiteKey(ev.At)
			sa, ok := sites[k]
			if !ok {
				sa = rw.siteAccess(ev.At, p.DeviceID)
				sites[k] = sa
			}
			if sa.why != "" {
				fail(ev.At, sa.why)
			}
			for _, n := range sa.kernels {
				kernels[n] = true
			}
			if s.since > 0 {
				fail(ev.At, fmt.Sprintf("the launch at line %d uses it again with no copy since the last", ev.At.Line))
			}
			s.since = min(s.since+1, 2)
		}
		return s
	}}
	if _, err := flow.Run(passState{}); err != nil {
		return rules.Access{Why: "the launches are not followed: " + err.Error()}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return rules.Access{Why: "not one pass: " + bad[0][9:]}
	}
	if len(kernels) == 0 {
		return rules.Access{OnePass: true, Why: "no kernel reads it"}
	}
	var names []string
	for n := range kernels {
		names = append(names, n)
	}
	sort.Strings(names)
	return rules.Access{OnePass: true, Why: "one pass: " + strings.Join(names, ", ") + ", once per copy"}
}

// siteAccess is what one launch site does with the device side: why it is not one pass ("" when
// it is) and the kernels, as "kernel(p[i])", for the reason.
type siteAccess struct {
	why     string
	kernels []string
}

// siteAccess classifies the launch (or fill) that begins at at and uses the device variable d.
func (rw *rewriter) siteAccess(at parse.Loc, d parse.DeclID) siteAccess {
	var call *parse.Node
	for _, n := range rw.byKey[rules.SiteKey(at)] {
		if parse.IsCall(n.Kind) {
			call = n
			break
		}
	}
	if call == nil {
		return siteAccess{why: fmt.Sprintf("the launch at line %d is not found where the AST puts it", at.Line)}
	}
	var uses []kernelUse
	args := call.Args()
	switch name := call.Callee(); {
	case call.Kind == "CUDAKernelCallExpr":
		for i, a := range args {
			u := parse.Unwrap(a)
			if u.Kind == "DeclRefExpr" && u.Ref != nil && u.Ref.ID == d {
				uses = append(uses, kernelUse{call.CalleeRef(), i})
			} else if refersTo(a, d) {
				return siteAccess{why: fmt.Sprintf("the launch at line %d passes a pointer into it", at.Line)}
			}
		}
	case name == "cudaMemset" || name == "cudaMemsetAsync":
		return siteAccess{kernels: []string{name}}
	case name == "cudaLaunchKernel" && len(args) >= 4:
		uses = arrayUses(rw.e, args[0], args[3], d)
	default:
		if s := rw.e.Summarize(name); s != nil && len(s.LaunchArgs) > 0 {
			for i, k := range s.LaunchArgs {
				if i < len(args) && k >= 0 && k < len(args) {
					uses = append(uses, arrayUses(rw.e, args[k], args[i], d)...)
				}
			}
		}
	}
	if len(uses) == 0 {
		return siteAccess{why: fmt.Sprintf("the call at line %d launches kernels on it that the analysis does not name", at.Line)}
	}
	var out siteAccess
	for _, u := range uses {
		one, what := onePassParam(rw.e, u.kernel, u.param)
		if !one {
			return siteAccess{why: what}
		}
		out.kernels = append(out.kernels, what)
	}
	if len(uses) > 1 {
		out.why = fmt.Sprintf("the launch at line %d passes it %d times", at.Line, len(uses))
	}
	return out
}

// arrayUses are the kernel parameters a launch through an argument array (a local array of
// &variables) passes d to; none when the kernel or the array is not one the analysis knows.
func arrayUses(e *facts.Effects, kernel, array *parse.Node, d parse.DeclID) []kernelUse {
	k := parse.Unwrap(kernel)
	if k.Kind == "UnaryOperator" && k.Opcode == "&" && len(k.Inner) == 1 {
		k = parse.Unwrap(k.Inner[0])
	}
	a := parse.Unwrap(array)
	if k.Kind != "DeclRefExpr" || k.Ref == nil || a.Kind != "DeclRefExpr" || a.Ref == nil {
		return nil
	}
	var out []kernelUse
	for i, s := range e.ArgArrays[a.Ref.ID] {
		if s.Tracked && s.V == d {
			out = append(out, kernelUse{k.Ref, i})
		}
	}
	return out
}

// refersTo reports whether n reads the variable v anywhere.
func refersTo(n *parse.Node, v parse.DeclID) bool {
	found := false
	n.Walk(func(c *parse.Node) bool {
		found = found || c.Kind == "DeclRefExpr" && c.Ref != nil && c.Ref.ID == v
		return !found
	})
	return found
}

// onePassParam reports whether the kernel r touches each element of its parameter i at most
// once per launch (the file's comment), and says how ("scale(in[i])") or why not.
func onePassParam(e *facts.Effects, r *parse.Ref, i int) (bool, string) {
	if r == nil || e.Overloaded[r.Name] || e.Funcs[r.Name] == nil || !facts.HasAttr(e.Funcs[r.Name], "CUDAGlobalAttr") {
		name := "a kernel"
		if r != nil {
			name = r.Name
		}
		return false, name + "'s body is not in the translation unit"
	}
	fn := e.Funcs[r.Name]
	params := facts.Params(fn)
	if i < 0 || i >= len(params) {
		return false, r.Name + " has fewer parameters than the launch passes"
	}
	param := params[i]
	k := &kernelBody{fn: fn, name: r.Name, parent: map[*parse.Node]*parse.Node{}}
	return k.onePass(param)
}

type kernelBody struct {
	fn     *parse.Node
	name   string
	parent map[*parse.Node]*parse.Node
	gid    map[parse.DeclID]*parse.Node // variables set once to the global index → their grid-stride loop, or nil
}

func (k *kernelBody) onePass(param *parse.Node) (bool, string) {
	body := facts.FuncBody(k.fn)
	no := func(why string) (bool, string) { return false, k.name + " " + why }
	var walk func(n, up *parse.Node)
	walk = func(n, up *parse.Node) {
		k.parent[n] = up
		for _, c := range n.Inner {
			walk(c, n)
		}
	}
	walk(body, nil)
	multi := false
	body.Walk(func(n *parse.Node) bool {
		if b, ok := builtin(n); ok && !strings.HasSuffix(b, ".x") {
			multi = true
		}
		return !multi
	})
	if multi {
		return no("indexes in more than one dimension")
	}
	k.findGIDs(body)
	reads, writes := 0, 0
	what := ""
	var why string
	body.Walk(func(n *parse.Node) bool {
		if why != "" {
			return false
		}
		if n.Kind != "DeclRefExpr" || n.Ref == nil || n.Ref.ID != param.ID {
			return true
		}
		sub := k.up(n)
		if sub == nil || sub.Kind != "ArraySubscriptExpr" || len(sub.Inner) != 2 || parse.Unwrap(sub.Inner[0]) != n {
			why = fmt.Sprintf("uses %s other than as %s[i] (line %d)", param.Name, param.Name, n.Range.Begin.Line)
			return false
		}
		idx := parse.Unwrap(sub.Inner[1])
		var loop *parse.Node
		switch {
		case isGID(idx):
		case idx.Kind == "DeclRefExpr" && idx.Ref != nil && k.isGIDVar(idx.Ref.ID):
			loop = k.gid[idx.Ref.ID]
		default:
			why = fmt.Sprintf("indexes %s by something other than the thread's global index (line %d)", param.Name, n.Range.Begin.Line)
			return false
		}
		for x := k.parent[sub]; x != nil; x = k.parent[x] {
			switch x.Kind {
			case "ForStmt", "WhileStmt", "DoStmt", "CXXForRangeStmt":
				if x != loop {
					why = fmt.Sprintf("reads %s in a loop (line %d)", param.Name, n.Range.Begin.Line)
					return false
				}
			}
		}
		r, w := k.accessKind(sub)
		if r {
			reads++
		}
		if w {
			writes++
		}
		what = fmt.Sprintf("%s(%s[i])", k.name, param.Name)
		return false
	})
	switch {
	case why != "":
		return no(why)
	case reads > 1 || writes > 1:
		return no(fmt.Sprintf("touches %s[i] more than once", param.Name))
	case what == "":
		return true, k.name + "(" + param.Name + " unused)"
	}
	return true, what
}

// up is the node above n, past the casts and parentheses around it.
func (k *kernelBody) up(n *parse.Node) *parse.Node {
	x := k.parent[n]
	for x != nil && parse.Unwrap(x) != x {
		x = k.parent[x]
	}
	return x
}

// accessKind says whether the element p[i] (sub) is read, written or both where it is used.
func (k *kernelBody) accessKind(sub *parse.Node) (read, write bool) {
	lv := sub
	for {
		x := k.parent[lv]
		for x != nil && x.Kind == "ParenExpr" {
			lv, x = x, k.parent[x]
		}
		if x != nil && x.Kind == "MemberExpr" && !x.IsArrow {
			lv = x // p[i].x: still the element
			continue
		}
		switch {
		case x == nil:
			return true, true
		case x.Kind == "BinaryOperator" && x.Opcode == "=" && len(x.Inner) == 2 && x.Inner[0] == lv:
			return false, true
		case x.Kind == "CompoundAssignOperator" && len(x.Inner) == 2 && x.Inner[0] == lv,
			x.Kind == "UnaryOperator" && (x.Opcode == "++" || x.Opcode == "--"):
			return true, true
		case x.Kind == "UnaryOperator" && x.Opcode == "&":
			return true, true // its address: counted as both, and a second use makes it more than once
		case x.Kind == "ImplicitCastExpr" && x.CastKind == "LValueToRValue":
			return true, false
		}
		return true, true
	}
}

// findGIDs finds the variables set to the global thread index once: declared with it and never
// assigned, or the variable of a grid-stride loop (for (i = gid; …; i += gridDim.x * blockDim.x))
// assigned nowhere else.
func (k *kernelBody) findGIDs(body *parse.Node) {
	k.gid = map[parse.DeclID]*parse.Node{}
	assigned := map[parse.DeclID]int{}
	body.Walk(func(n *parse.Node) bool {
		var l *parse.Node
		switch {
		case n.Kind == "BinaryOperator" && n.Opcode == "=" && len(n.Inner) == 2,
			n.Kind == "CompoundAssignOperator" && len(n.Inner) == 2:
			l = n.Inner[0]
		case n.Kind == "UnaryOperator" && (n.Opcode == "++" || n.Opcode == "--" || n.Opcode == "&") && len(n.Inner) == 1:
			l = n.Inner[0]
		}
		if l = parse.Unwrap(l); l != nil && l.Kind == "DeclRefExpr" && l.Ref != nil {
			assigned[l.Ref.ID]++
		}
		if n.Kind == "VarDecl" && len(n.Inner) > 0 && isGID(n.Inner[len(n.Inner)-1]) && !strings.Contains(n.Type, "&") {
			k.gid[n.ID] = nil
		}
		return true
	})
	body.Walk(func(n *parse.Node) bool {
		if n.Kind != "ForStmt" || len(n.Inner) != 5 || n.Inner[0].Kind != "DeclStmt" || len(n.Inner[0].Inner) != 1 {
			return true
		}
		v, inc := n.Inner[0].Inner[0], parse.Unwrap(n.Inner[3])
		if _, ok := k.gid[v.ID]; !ok || inc == nil || inc.Kind != "CompoundAssignOperator" || inc.Opcode != "+=" || len(inc.Inner) != 2 {
			return true
		}
		if l := parse.Unwrap(inc.Inner[0]); l.Kind == "DeclRefExpr" && l.Ref != nil && l.Ref.ID == v.ID && isProduct(inc.Inner[1], "gridDim.x", "blockDim.x") {
			k.gid[v.ID] = n
			assigned[v.ID]--
		}
		return true
	})
	for id := range k.gid {
		if assigned[id] > 0 {
			delete(k.gid, id)
		}
	}
}

func (k *kernelBody) isGIDVar(id parse.DeclID) bool {
	_, ok := k.gid[id]
	return ok
}

// isGID reports whether n is blockIdx.x * blockDim.x + threadIdx.x, the factors and terms in
// either order, through casts.
func isGID(n *parse.Node) bool {
	u := parse.Unwrap(n)
	if u == nil || u.Kind != "BinaryOperator" || u.Opcode != "+" || len(u.Inner) != 2 {
		return false
	}
	for _, o := range [][2]*parse.Node{{u.Inner[0], u.Inner[1]}, {u.Inner[1], u.Inner[0]}} {
		if b, ok := builtin(o[0]); ok && b == "threadIdx.x" && isProduct(o[1], "blockIdx.x", "blockDim.x") {
			return true
		}
	}
	return false
}

// isProduct reports whether n is the product of the builtins a and b, in either order.
func isProduct(n *parse.Node, a, b string) bool {
	u := parse.Unwrap(n)
	if u == nil || u.Kind != "BinaryOperator" || u.Opcode != "*" || len(u.Inner) != 2 {
		return false
	}
	x, okx := builtin(u.Inner[0])
	y, oky := builtin(u.Inner[1])
	return okx && oky && (x == a && y == b || x == b && y == a)
}

// builtin names the CUDA builtin a node reads ("blockIdx.x"): clang's host-side dump shows
// blockIdx.x as a property read calling __fetch_builtin_x on the blockIdx variable.
func builtin(n *parse.Node) (string, bool) {
	u := parse.Unwrap(n)
	if u == nil || u.Kind != "PseudoObjectExpr" {
		return "", false
	}
	for _, c := range u.Inner {
		if c.Kind != "CallExpr" || len(c.Inner) == 0 {
			continue
		}
		m := parse.Unwrap(c.Inner[0])
		if m.Kind != "MemberExpr" || !strings.HasPrefix(m.Name, "__fetch_builtin_") {
			continue
		}
		var v string
		m.Walk(func(x *parse.Node) bool {
			if x.Kind == "DeclRefExpr" && x.Ref != nil {
				v = x.Ref.Name
			}
			return v == ""
		})
		switch v {
		case "threadIdx", "blockIdx", "blockDim", "gridDim":
			return v + "." + strings.TrimPrefix(m.Name, "__fetch_builtin_"), true
		}
	}
	return "", false
}
