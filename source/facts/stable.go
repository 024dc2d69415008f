package facts

import (
	"strings"

	"github.com/echo-uma/echo/source/parse"
)

// Sizes are often named once and used under two spellings: Rodinia's nw allocates the host
// matrix with `max_rows * max_cols * sizeof(int)` and the device one with `sizeof(int) *
// size`, after `int size = max_cols * max_rows`. The two are provably equal when size and
// the variables its initializer reads each hold one value for the whole call once declared;
// then a size may be read through size's initializer.
//
// A variable holds one value when every reference to it is a read of its value (clang wraps
// it in an lvalue-to-rvalue conversion) or sits under sizeof: no assignment, increment,
// address (&n, a reference bound to it, an argument passed by reference) can change it; and
// when its declaration is not in a loop, where it would be run again. Parameters qualify the
// same way. The initializer must have the variable's type (no conversion that could change
// the value), no part the key cannot name and read only such variables.

// stableInits maps the variables of fn a size may be read through to their initializers.
func StableInits(fn *parse.Node) map[parse.DeclID]*parse.Node {
	body := FuncBody(fn)
	if body == nil {
		return nil
	}
	oneValue := map[parse.DeclID]bool{}
	var decls []*parse.Node
	for _, p := range Params(fn) {
		if !strings.Contains(p.Type, "&") {
			oneValue[p.ID] = true
		}
	}
	var walk func(n, parent *parse.Node, inLoop bool)
	walk = func(n, parent *parse.Node, inLoop bool) {
		switch n.Kind {
		case "VarDecl":
			if !inLoop && !strings.Contains(n.Type, "&") && !strings.Contains(n.Type, "[") {
				oneValue[n.ID] = true
				decls = append(decls, n)
			}
		case "ForStmt", "WhileStmt", "DoStmt", "CXXForRangeStmt":
			inLoop = true
		}
		for _, c := range n.Inner {
			p := n
			if n.Kind == "ParenExpr" {
				p = parent // (n) is read as n is
			}
			walk(c, p, inLoop)
		}
	}
	walk(body, nil, false)
	// Then every reference that is not a read of the value rules its variable out.
	var unset func(n, parent *parse.Node)
	unset = func(n, parent *parse.Node) {
		if n.Kind == "DeclRefExpr" && n.Ref != nil && !(parent != nil && (parent.Kind == "ImplicitCastExpr" && parent.CastKind == "LValueToRValue" ||
			parent.Kind == "UnaryExprOrTypeTraitExpr")) {
			oneValue[n.Ref.ID] = false
		}
		for _, c := range n.Inner {
			p := n
			if n.Kind == "ParenExpr" {
				p = parent
			}
			unset(c, p)
		}
	}
	unset(body, nil)
	subst := map[parse.DeclID]*parse.Node{}
	for _, d := range decls {
		if !oneValue[d.ID] || len(d.Inner) == 0 {
			continue
		}
		init := d.Inner[len(d.Inner)-1]
		if init.Kind == "InitListExpr" || typeOf(init) != unqualified(varType(d)) {
			continue
		}
		subst[d.ID] = init
	}
	// Keep the initializers that read nothing else. Each is checked as written: replacing the
	// variables it reads by their own (kept) initializers brings in nothing else either.
	for id, init := range subst {
		key := SizeKey(init)
		ok := !strings.Contains(key, "?")
		for _, v := range KeyVars(key) {
			ok = ok && oneValue[v] && v != id
		}
		if !ok {
			delete(subst, id)
		}
	}
	return subst
}

func varType(d *parse.Node) string {
	if d.Desugared != "" {
		return d.Desugared
	}
	return d.Type
}
