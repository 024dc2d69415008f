package parse

// DeclID is clang's address of a declaration as the dump prints it ("0x55d0…"). Every
// reference to a variable carries the id of its declaration, so two DeclRefExprs name the same
// pointer variable exactly when their Ref.ID agree: this is the identity the proofs track.
type DeclID uint64

// Loc is one source location as clang printed it, with the file and line clang elided filled
// in from the locations before it. For a token that comes from a macro expansion, Loc is where
// the expansion is in the file (what a rewrite edits) and Spelling is where the token was
// written.
type Loc struct {
	File   string
	Offset int // byte offset in File
	Line   int
	Col    int
	TokLen int // length of the token that starts here
	// Spelling is where a macro-expanded token was written; nil outside macros.
	Spelling *Loc
}

// Valid reports whether clang gave a location (implicit declarations have none).
func (l Loc) Valid() bool { return l.File != "" }

// Range is a node's source range: Begin is its first token, End the start of its last.
type Range struct {
	Begin, End Loc
}

// Ref is the declaration an expression refers to (a DeclRefExpr's referencedDecl).
type Ref struct {
	ID   DeclID
	Kind string
	Name string
	Type string
}

// Node is one AST node kept in full detail: a declaration, statement or expression from the
// main file or its own headers. Fields the dump does not carry for a kind stay zero.
type Node struct {
	Kind string // clang's class name: FunctionDecl, VarDecl, CallExpr, CUDAKernelCallExpr, …
	ID   DeclID // the node's own id (a declaration's identity)
	Name string // a declaration's or member's name
	Type string // the qualified type as written
	// Desugared is the type with the typedefs at its top level looked through, where clang
	// printed one (desugaredQualType: "float" for a `real` that is a typedef of float).
	Desugared string
	// ArgType is sizeof's or alignof's type operand (`sizeof(T)`), desugared where clang
	// printed it so; "" for `sizeof expr`, whose type is its operand's.
	ArgType string
	Loc     Loc // a declaration's location (its name)
	Range   Range

	Ref      *Ref   // what a DeclRefExpr refers to
	Opcode   string // BinaryOperator, UnaryOperator, CompoundAssignOperator: "=", "&", "+=", …
	CastKind string // casts: "BitCast", "PointerToIntegral", "LValueToRValue", …
	Value    string // literals: the value as clang printed it
	IsArrow  bool   // MemberExpr: a->b rather than a.b
	IsArray  bool   // CXXNewExpr, CXXDeleteExpr: new[] / delete[]
	Postfix  bool   // UnaryOperator: p++ rather than ++p
	// Invalid: clang marked the declaration invalid (an error inside it, or a type it could
	// not resolve); what refers to it is not what the source says (broken.go).
	Invalid bool
	// Member is a MemberExpr's field or method, by declaration id (referencedMemberDecl).
	Member DeclID

	Inner []*Node
}

// Callee is the name of the function a call calls, looking through the implicit casts and
// parentheses around it; "" when the callee is not a named function (a call through a pointer
// variable, for example, names that variable's declaration kind in CalleeRef instead).
func (n *Node) Callee() string {
	if r := n.CalleeRef(); r != nil && (r.Kind == "FunctionDecl" || r.Kind == "CXXMethodDecl") {
		return r.Name
	}
	if len(n.Inner) > 0 && IsCall(n.Kind) {
		if m := unwrap(n.Inner[0]); m.Kind == "MemberExpr" {
			return m.Name
		}
	}
	return ""
}

// CalleeRef is the declaration a call's callee expression refers to, or nil.
func (n *Node) CalleeRef() *Ref {
	if !IsCall(n.Kind) || len(n.Inner) == 0 {
		return nil
	}
	return unwrap(n.Inner[0]).Ref
}

// Args are a call's arguments. For a CUDAKernelCallExpr the launch configuration (the
// <<<…>>> part, a call clang makes to cudaConfigureCall or __cudaPushCallConfiguration) is not
// among them: see Config.
func (n *Node) Args() []*Node {
	if !IsCall(n.Kind) || len(n.Inner) == 0 {
		return nil
	}
	if n.Kind == "CUDAKernelCallExpr" {
		if len(n.Inner) < 2 {
			return nil
		}
		return n.Inner[2:]
	}
	return n.Inner[1:]
}

// Config is a kernel launch's <<<grid, block, shmem, stream>>> call, or nil.
func (n *Node) Config() *Node {
	if n.Kind != "CUDAKernelCallExpr" || len(n.Inner) < 2 {
		return nil
	}
	return n.Inner[1]
}

// Walk calls fn for n and every node below it, depth first, parents before children; fn
// returning false skips the node's children.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.Inner {
		c.Walk(fn)
	}
}

// Unwrap looks through the nodes that only change how an expression is typed or grouped
// (implicit casts, parentheses, C-style, static, reinterpret and const casts, temporaries) to the
// expression underneath: `(void **)&d` unwraps to `&d`, `(float *)malloc(n)` to the call.
func Unwrap(n *Node) *Node { return unwrap(n) }

func unwrap(n *Node) *Node {
	for n != nil && len(n.Inner) == 1 {
		switch n.Kind {
		case "ImplicitCastExpr", "ParenExpr", "CStyleCastExpr", "CXXStaticCastExpr",
			"CXXReinterpretCastExpr", "CXXConstCastExpr", "CXXFunctionalCastExpr", "MaterializeTemporaryExpr",
			"ExprWithCleanups", "CXXBindTemporaryExpr", "ConstantExpr":
			n = n.Inner[0]
		default:
			return n
		}
	}
	return n
}

func IsCall(kind string) bool {
	switch kind {
	case "CallExpr", "CUDAKernelCallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr":
		return true
	}
	return false
}
