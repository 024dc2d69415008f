package facts

import (
	"fmt"

	"github.com/echo-uma/echo/source/parse"
)

// A CFG is one function body's control flow, built from the AST's structured statements. The
// proofs run over it to a fixpoint, so loops need no unrolling. Each block holds the
// statements and conditions it evaluates in order; an edge out of a branch carries the
// condition and the value it took, which lets the proofs keep apart the paths of two branches
// on the same unchanged flag (`if (o.manual) … if (!o.manual) …`).
type CFG struct {
	Blocks []*Block
	Entry  int
	Exit   int
}

// Block is a straight-line run of statements (expression trees, evaluated in order).
type Block struct {
	ID    int
	Stmts []*parse.Node
	Succs []Edge
}

// Edge is a successor. Cond, when set, is the branch condition and When the value it had.
type Edge struct {
	To   int
	Cond *parse.Node
	When bool
}

// Unstructured is why a function's control flow cannot be followed: goto, setjmp, exceptions,
// switch. The pairs of such a function are declined with it.
type Unstructured struct {
	Reason string
	At     parse.Loc
}

func (u *Unstructured) Error() string { return fmt.Sprintf("line %d: %s", u.At.Line, u.Reason) }

type cfgBuilder struct {
	g                 *CFG
	breaks, continues []int // targets of the innermost loop
}

// BuildCFG builds the control-flow graph of a function's body (the FunctionDecl's last child,
// a CompoundStmt).
func BuildCFG(fn *parse.Node) (*CFG, error) {
	if FuncBody(fn) == nil {
		return nil, fmt.Errorf("building the control-flow graph: %s has no body", fn.Name)
	}
	b := &cfgBuilder{g: &CFG{}}
	entry := b.block()
	exit := b.block()
	b.g.Entry, b.g.Exit = entry.ID, exit.ID
	end, err := b.stmt(FuncBody(fn), entry)
	if err != nil {
		return nil, err
	}
	if end != nil {
		b.edge(end, exit.ID, nil, false)
	}
	return b.g, nil
}

func (b *cfgBuilder) block() *Block {
	blk := &Block{ID: len(b.g.Blocks)}
	b.g.Blocks = append(b.g.Blocks, blk)
	return blk
}

func (b *cfgBuilder) edge(from *Block, to int, cond *parse.Node, when bool) {
	from.Succs = append(from.Succs, Edge{To: to, Cond: cond, When: when})
}

// stmt adds s to the graph starting in cur and returns the block control falls out of, or nil
// when it cannot fall through (return, break, continue, exit()).
func (b *cfgBuilder) stmt(s *parse.Node, cur *Block) (*Block, error) {
	if s == nil || s.Kind == "" || cur == nil {
		return cur, nil
	}
	switch s.Kind {
	case "CompoundStmt":
		return b.compound(s, cur)
	case "NullStmt":
		return cur, nil
	case "IfStmt":
		return b.ifStmt(s, cur)
	case "WhileStmt":
		if len(s.Inner) != 2 {
			return nil, &Unstructured{"a while with a condition variable", s.Range.Begin}
		}
		return b.loop(cur, nil, s.Inner[0], nil, s.Inner[1], false)
	case "DoStmt":
		return b.doStmt(s, cur)
	case "ForStmt":
		if len(s.Inner) != 5 {
			return nil, &Unstructured{"a for statement of an unknown shape", s.Range.Begin}
		}
		if s.Inner[1].Kind != "" {
			return nil, &Unstructured{"a for with a condition variable", s.Range.Begin}
		}
		return b.loop(cur, s.Inner[0], s.Inner[2], s.Inner[3], s.Inner[4], false)
	case "BreakStmt", "ContinueStmt":
		targets := b.breaks
		if s.Kind == "ContinueStmt" {
			targets = b.continues
		}
		if len(targets) == 0 {
			return nil, &Unstructured{"a break or continue outside a loop (switch is not followed)", s.Range.Begin}
		}
		b.edge(cur, targets[len(targets)-1], nil, false)
		return nil, nil
	case "ReturnStmt":
		cur.Stmts = append(cur.Stmts, s)
		b.edge(cur, b.g.Exit, nil, false)
		return nil, nil
	case "GotoStmt", "IndirectGotoStmt", "LabelStmt":
		return nil, &Unstructured{"goto: control flow is not structured", s.Range.Begin}
	case "SwitchStmt":
		return nil, &Unstructured{"switch is not followed yet", s.Range.Begin}
	case "CXXTryStmt", "CXXThrowExpr":
		return nil, &Unstructured{"exceptions: control flow leaves through throw", s.Range.Begin}
	}
	if undecidableCall(s) != nil {
		return nil, undecidableCall(s)
	}
	cur.Stmts = append(cur.Stmts, s)
	if c := parse.Unwrap(s); parse.IsCall(c.Kind) && NoReturn[c.Callee()] {
		b.edge(cur, b.g.Exit, nil, false)
		return nil, nil
	}
	return cur, nil
}

// compound: a block's statements in order.
func (b *cfgBuilder) compound(s *parse.Node, cur *Block) (*Block, error) {
	for _, c := range s.Inner {
		next, err := b.stmt(c, cur)
		if err != nil {
			return nil, err
		}
		if next == nil {
			// What follows is unreachable; a label could make it reachable, but labels
			// are declined below.
			cur = b.block()
			continue
		}
		cur = next
	}
	return cur, nil
}

// ifStmt: the condition ends cur; both branches meet in a new block.
func (b *cfgBuilder) ifStmt(s *parse.Node, cur *Block) (*Block, error) {
	if len(s.Inner) < 2 || len(s.Inner) > 3 {
		return nil, &Unstructured{"an if with an initializer or a condition variable", s.Range.Begin}
	}
	cond := s.Inner[0]
	cur.Stmts = append(cur.Stmts, cond)
	then, els, join := b.block(), b.block(), b.block()
	b.edge(cur, then.ID, cond, true)
	b.edge(cur, els.ID, cond, false)
	t, err := b.stmt(s.Inner[1], then)
	if err != nil {
		return nil, err
	}
	e := els
	if len(s.Inner) == 3 {
		if e, err = b.stmt(s.Inner[2], els); err != nil {
			return nil, err
		}
	}
	for _, x := range []*Block{t, e} {
		if x != nil {
			b.edge(x, join.ID, nil, false)
		}
	}
	return join, nil
}

// doStmt: a do-while loop, or a macro's do { … } while (0), whose body runs once.
func (b *cfgBuilder) doStmt(s *parse.Node, cur *Block) (*Block, error) {
	if constFalse(s.Inner[1]) {
		// do { … } while (0), a macro's statement: the body runs once.
		after := b.block()
		b.breaks = append(b.breaks, after.ID)
		b.continues = append(b.continues, after.ID)
		end, err := b.stmt(s.Inner[0], cur)
		b.breaks, b.continues = b.breaks[:len(b.breaks)-1], b.continues[:len(b.continues)-1]
		if err != nil {
			return nil, err
		}
		if end != nil {
			b.edge(end, after.ID, nil, false)
		}
		return after, nil
	}
	return b.loop(cur, nil, s.Inner[1], nil, s.Inner[0], true)
}

// constFalse reports whether a condition is the constant 0 or false.
func constFalse(c *parse.Node) bool {
	u := parse.Unwrap(c)
	return u != nil && (u.Kind == "IntegerLiteral" && u.Value == "0" || u.Kind == "CXXBoolLiteralExpr" && u.Value == "false")
}

// noReturn are the calls that end the program: a path through one reaches the exit.
var NoReturn = map[string]bool{"exit": true, "_Exit": true, "abort": true, "quick_exit": true}

// undecidableCall finds setjmp/longjmp and throw anywhere in a statement.
func undecidableCall(s *parse.Node) *Unstructured {
	var u *Unstructured
	s.Walk(func(n *parse.Node) bool {
		if u != nil {
			return false
		}
		switch {
		case n.Kind == "CXXThrowExpr":
			u = &Unstructured{"exceptions: control flow leaves through throw", n.Range.Begin}
		case parse.IsCall(n.Kind):
			switch n.Callee() {
			case "setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "longjmp", "siglongjmp":
				u = &Unstructured{n.Callee() + ": control flow returns where the graph cannot see", n.Range.Begin}
			}
		}
		return true
	})
	return u
}

// loop adds a while, do or for loop: init once, then the condition at the head, the body, the
// increment, and back.
func (b *cfgBuilder) loop(cur *Block, init, cond, inc, body *parse.Node, bodyFirst bool) (*Block, error) {
	var err error
	if cur, err = b.stmt(init, cur); err != nil {
		return nil, err
	}
	head, bodyB, incB, after := b.block(), b.block(), b.block(), b.block()
	if bodyFirst {
		b.edge(cur, bodyB.ID, nil, false)
	} else {
		b.edge(cur, head.ID, nil, false)
	}
	if cond != nil && cond.Kind != "" {
		head.Stmts = append(head.Stmts, cond)
		b.edge(head, bodyB.ID, cond, true)
		b.edge(head, after.ID, cond, false)
	} else {
		b.edge(head, bodyB.ID, nil, false)
	}
	b.breaks = append(b.breaks, after.ID)
	b.continues = append(b.continues, incB.ID)
	end, err := b.stmt(body, bodyB)
	b.breaks, b.continues = b.breaks[:len(b.breaks)-1], b.continues[:len(b.continues)-1]
	if err != nil {
		return nil, err
	}
	if end != nil {
		b.edge(end, incB.ID, nil, false)
	}
	incEnd, err := b.stmt(inc, incB)
	if err != nil {
		return nil, err
	}
	if incEnd != nil {
		b.edge(incEnd, head.ID, nil, false)
	}
	return after, nil
}

// funcBody is a function's body: its CompoundStmt child (attributes such as __global__ come
// after it in the dump); nil for a declaration without one.
func FuncBody(fn *parse.Node) *parse.Node {
	if fn == nil {
		return nil
	}
	for _, c := range fn.Inner {
		if c.Kind == "CompoundStmt" {
			return c
		}
	}
	return nil
}

// Params are a function's parameter declarations (its ParmVarDecl children), in order.
func Params(fn *parse.Node) []*parse.Node {
	var ps []*parse.Node
	for _, c := range fn.Inner {
		if c.Kind == "ParmVarDecl" {
			ps = append(ps, c)
		}
	}
	return ps
}

// ParamIDs are the declarations of a function's parameters, as a set.
func ParamIDs(fn *parse.Node) map[parse.DeclID]bool {
	ids := map[parse.DeclID]bool{}
	for _, p := range Params(fn) {
		ids[p.ID] = true
	}
	return ids
}
