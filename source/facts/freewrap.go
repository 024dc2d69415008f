package facts

import "github.com/echo-uma/echo/source/parse"

// A pair's free may be written inside a helper (the corpus's host_free(kind, p): free, delete[]
// or cudaFreeHost by kind). The rewrite frees the merged buffer once, where the second of the
// pair's two frees is, and removes the other: at a helper's call it replaces the whole call.
// That keeps the program's behaviour only where the call did nothing but free: a helper that
// also prints, counts, or frees only on some paths would lose that, or free the merged buffer
// where the program as written did not. freeWrapper tells such helpers from the rest.

// freeCallees are the calls that free their first argument.
var freeCallees = map[string]bool{"free": true, "cudaFree": true, "cudaFreeHost": true, "cudaFreeAsync": true}

// wrapperCalls are the calls a free wrapper may make besides frees: comparisons of its
// arguments, and the error handling of a checked call (CHECK(cudaFreeHost(p))).
var wrapperCalls = map[string]bool{
	"strcmp": true, "strncmp": true, "strcasecmp": true,
	"cudaGetErrorString": true, "cudaGetErrorName": true, "cudaGetLastError": true,
	"fprintf": true, "fputs": true, "perror": true, "exit": true, "abort": true, "_Exit": true,
}

// freeWrapper reports whether fn does nothing but free some of its pointer parameters — each
// on every path through it that returns — with no other effect than the error handling of a
// failed free: calls in freeCallees and wrapperCalls, delete, branches, and local scalars.
func (e *Effects) freeWrapper(fn *parse.Node) bool {
	body := FuncBody(fn)
	if body == nil {
		return false
	}
	params := ParamIDs(fn)
	locals := map[parse.DeclID]bool{}
	ok := true
	body.Walk(func(n *parse.Node) bool {
		switch n.Kind {
		case "CompoundStmt", "IfStmt", "DoStmt", "NullStmt", "ReturnStmt", "DeclStmt", "ParenExpr", "ImplicitCastExpr",
			"CStyleCastExpr", "CXXStaticCastExpr", "CXXReinterpretCastExpr", "IntegerLiteral", "StringLiteral",
			"CXXBoolLiteralExpr", "GNUNullExpr", "CXXNullPtrLiteralExpr", "ExprWithCleanups", "ConstantExpr":
		case "VarDecl":
			if isPointerType(n.Type) || len(n.Inner) != 1 {
				ok = false // a local pointer could alias anything; a scalar must be initialized
			}
			locals[n.ID] = true
		case "DeclRefExpr":
			if r := n.Ref; r == nil || !(params[r.ID] || locals[r.ID] || r.Kind == "FunctionDecl" ||
				r.Kind == "EnumConstantDecl" || r.Name == "stderr") {
				ok = false
			}
		case "BinaryOperator":
			switch n.Opcode {
			case "==", "!=", "&&", "||", "<", ">", "<=", ">=":
			default:
				ok = false
			}
		case "UnaryOperator":
			ok = n.Opcode == "!"
		case "CXXDeleteExpr":
		case "CallExpr":
			name := n.Callee()
			ok = n.CalleeRef() != nil && e.Body(n.CalleeRef()) == nil && (freeCallees[name] || wrapperCalls[name])
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return false
	}
	g, err := BuildCFG(fn)
	if err != nil {
		return false
	}
	return freedOnEveryPath(g, params)
}

// freedOnEveryPath reports whether every path from the entry that returns frees each parameter
// that some path frees. A path that ends the program (exit, abort) frees what it must
// by ending it.
func freedOnEveryPath(g *CFG, params map[parse.DeclID]bool) bool {
	type set map[parse.DeclID]bool
	frees := func(s *parse.Node, into set) {
		s.Walk(func(n *parse.Node) bool {
			var arg *parse.Node
			switch {
			case n.Kind == "CXXDeleteExpr" && len(n.Inner) == 1:
				arg = n.Inner[0]
			case parse.IsCall(n.Kind) && freeCallees[n.Callee()] && len(n.Args()) > 0:
				arg = n.Args()[0]
			}
			if a := parse.Unwrap(arg); a != nil && a.Kind == "DeclRefExpr" && a.Ref != nil && params[a.Ref.ID] {
				into[a.Ref.ID] = true
			}
			return true
		})
	}
	ends := func(b *Block) bool {
		if len(b.Stmts) == 0 {
			return false
		}
		c := parse.Unwrap(b.Stmts[len(b.Stmts)-1])
		return parse.IsCall(c.Kind) && NoReturn[c.Callee()]
	}
	all := set{}
	for _, b := range g.Blocks {
		for _, s := range b.Stmts {
			frees(s, all)
		}
	}
	// A forward must-analysis: in[b] is what every path to b has freed (nil: no path yet).
	in := make([]set, len(g.Blocks))
	in[g.Entry] = set{}
	for changed := true; changed; {
		changed = false
		for _, b := range g.Blocks {
			if in[b.ID] == nil {
				continue
			}
			out := set{}
			for k := range in[b.ID] {
				out[k] = true
			}
			for _, s := range b.Stmts {
				frees(s, out)
			}
			if ends(b) {
				for k := range all {
					out[k] = true
				}
			}
			for _, e := range b.Succs {
				if in[e.To] == nil {
					in[e.To] = set{}
					for k := range out {
						in[e.To][k] = true
					}
					changed = true
					continue
				}
				for k := range in[e.To] {
					if !out[k] {
						delete(in[e.To], k)
						changed = true
					}
				}
			}
		}
	}
	exit := in[g.Exit]
	for k := range all {
		if exit == nil || !exit[k] {
			return false
		}
	}
	return len(all) > 0
}
