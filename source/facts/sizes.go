package facts

import (
	"sort"
	"strings"

	"github.com/echo-uma/echo/source/parse"
)

// Size expressions are compared by a canonical key: two sizes are the same when their keys
// are. The key is structural, with variables by declaration id, so `n * sizeof(float)` at an
// allocation and at a copy agree when both spell it so; on top of that it knows what is
// provably the same value however it is written:
//
//   - `sizeof(T)` and `sizeof expr` are keyed by the operand's type as clang printed it, with
//     the typedefs at its top level looked through (clang's desugaredQualType) and top-level
//     const and volatile dropped (a qualifier does not change a size). Two different types
//     are never equal, even when their sizes happen to be (float and int): the dump carries
//     no sizeof values, and a key equal by name is equal by definition. Variable-length
//     arrays, whose size is a run-time value, have no key.
//   - A product of unsigned operands of one type is a multiset of factors: unsigned
//     arithmetic wraps, so it is commutative and associative and `sizeof(int) * size` is
//     `size * sizeof(int)`. A product or sum of signed operands is only commutative (a*b is
//     b*a, overflow included); regrouping it could move an overflow, so it is not flattened.
//     Every operation's key carries the type it is done in, and conversions stay in the key
//     unless they keep the value (keepsValue).
//   - `calloc(n, size)` allocates n * size bytes as a size_t product when it succeeds (it
//     fails rather than wrap), so it is keyed as that product.

// sizeKey is an expression's canonical key; "?" marks a part it cannot key (a call, say), and
// a key with one is never equal to anything.
func SizeKey(n *parse.Node) string { return keyOf(n, nil, 0) }

// keyOf is sizeKey with the variables in subst replaced by the keys of their initializers
// (stableInits: variables that hold that one value wherever they can be named).
func keyOf(n *parse.Node, subst map[parse.DeclID]*parse.Node, depth int) string {
	if n == nil || depth > 64 {
		return "?"
	}
	sizeKey := func(n *parse.Node) string { return keyOf(n, subst, depth+1) }
	switch n.Kind {
	case "ParenExpr", "ConstantExpr", "ExprWithCleanups", "MaterializeTemporaryExpr", "CXXBindTemporaryExpr":
		if len(n.Inner) == 1 {
			return sizeKey(n.Inner[0])
		}
	case "ImplicitCastExpr", "CStyleCastExpr", "CXXStaticCastExpr", "CXXFunctionalCastExpr", "CXXReinterpretCastExpr":
		if len(n.Inner) == 1 {
			if keepsValue(n) {
				return sizeKey(n.Inner[0])
			}
			return "(" + typeOf(n) + ")" + sizeKey(n.Inner[0])
		}
	case "DeclRefExpr":
		if n.Ref != nil {
			if init, ok := subst[n.Ref.ID]; ok {
				return sizeKey(init)
			}
			return "v" + idString(n.Ref.ID)
		}
	case "MemberExpr":
		if len(n.Inner) == 1 {
			sep := "."
			if n.IsArrow {
				sep = "->"
			}
			return sizeKey(n.Inner[0]) + sep + n.Name
		}
	case "IntegerLiteral":
		return n.Value
	case "UnaryExprOrTypeTraitExpr":
		t := n.ArgType
		if t == "" && len(n.Inner) == 1 {
			t = typeOf(n.Inner[0])
		}
		if t = sizedType(t); t != "" && (n.Name == "sizeof" || n.Name == "alignof") {
			return n.Name + "(" + t + ")"
		}
	case "BinaryOperator":
		if len(n.Inner) != 2 {
			break
		}
		switch n.Opcode {
		case "*", "+":
			if t := typeOf(n); strings.HasPrefix(t, "unsigned ") {
				return opKey(n.Opcode, t, append(operands(n.Inner[0], n.Opcode, t, subst, depth+1),
					operands(n.Inner[1], n.Opcode, t, subst, depth+1)...))
			}
			return opKey(n.Opcode, typeOf(n), []string{sizeKey(n.Inner[0]), sizeKey(n.Inner[1])})
		}
		return "(" + sizeKey(n.Inner[0]) + n.Opcode + sizeKey(n.Inner[1]) + ")" + typeOf(n)
	}
	return "?" + n.Kind
}

// keyVars are the variables a key reads (its "v<id>" parts).
func KeyVars(key string) []parse.DeclID {
	var out []parse.DeclID
	for i := 0; i < len(key); i++ {
		if key[i] != 'v' || (i > 0 && isKeyWord(key[i-1])) {
			continue
		}
		j := i + 1
		var id parse.DeclID
		for ; j < len(key) && (key[j] >= '0' && key[j] <= '9' || key[j] >= 'a' && key[j] <= 'f'); j++ {
			d := key[j] - '0'
			if key[j] >= 'a' {
				d = key[j] - 'a' + 10
			}
			id = id<<4 | parse.DeclID(d)
		}
		if j > i+1 && (j == len(key) || !isKeyWord(key[j])) {
			out = append(out, id)
		}
		i = j - 1
	}
	return out
}

func isKeyWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// productKey is the key of a size_t product of the expressions, as calloc's two arguments.
func productKey(subst map[parse.DeclID]*parse.Node, xs ...*parse.Node) string {
	var fs []string
	for _, x := range xs {
		fs = append(fs, operands(x, "*", "unsigned long", subst, 0)...)
	}
	return opKey("*", "unsigned long", fs)
}

// operands are the keys of an unsigned op chain's operands: n's own, when n is the same
// operation in the same type (after parentheses, not after a conversion), else n's key.
func operands(n *parse.Node, op, typ string, subst map[parse.DeclID]*parse.Node, depth int) []string {
	u := n
	for u != nil && u.Kind == "ParenExpr" && len(u.Inner) == 1 {
		u = u.Inner[0]
	}
	if u != nil && u.Kind == "BinaryOperator" && u.Opcode == op && len(u.Inner) == 2 && typeOf(u) == typ && depth <= 64 {
		return append(operands(u.Inner[0], op, typ, subst, depth+1), operands(u.Inner[1], op, typ, subst, depth+1)...)
	}
	return []string{keyOf(n, subst, depth)}
}

// opKey is an arithmetic operation's key: its operands and the type it is done in, since the
// same operands wrap differently in int, unsigned int and size_t.
func opKey(op, typ string, keys []string) string {
	sort.Strings(keys)
	return "(" + strings.Join(keys, op) + ")" + typ
}

// keepsValue reports whether a conversion is left out of a key: one that does not change the
// value (lvalue to rvalue, qualifiers, pointer decays), or an integer widened to the 64-bit
// unsigned size_t, where arithmetic is modulo 2^64 and converting commutes with + and * (an
// operation done in a narrower type keeps its type in its key, so a wrap in 32 bits is not
// confused with none). Any other conversion (to int, to a 32-bit unsigned, from floating
// point) stays in the key: `int size = n` with a long long n is not n.
func keepsValue(c *parse.Node) bool {
	switch c.CastKind {
	case "LValueToRValue", "NoOp", "ArrayToPointerDecay", "FunctionToPointerDecay", "BitCast":
		return true
	case "IntegralCast":
		t := typeOf(c)
		return t == "unsigned long" || t == "unsigned long long"
	}
	return false
}

// typeOf is an expression's type with top-level typedefs looked through and top-level
// qualifiers dropped.
func typeOf(n *parse.Node) string {
	t := n.Type
	if n.Desugared != "" {
		t = n.Desugared
	}
	return unqualified(t)
}

func unqualified(t string) string {
	t = strings.TrimSpace(t)
	for {
		switch {
		case strings.HasPrefix(t, "const "):
			t = t[len("const "):]
		case strings.HasPrefix(t, "volatile "):
			t = t[len("volatile "):]
		case strings.HasSuffix(t, " const"):
			t = t[:len(t)-len(" const")]
		case strings.HasSuffix(t, " volatile"):
			t = t[:len(t)-len(" volatile")]
		default:
			return t
		}
	}
}

// sizedType is the key of a type sizeof can be compared by: "" for none, or for an array
// whose bound is not a constant (a variable-length array's size is a run-time value).
func sizedType(t string) string {
	t = unqualified(t)
	if t == "" || strings.Contains(t, "<dependent type>") {
		return ""
	}
	for rest := t; ; {
		i := strings.IndexByte(rest, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], ']')
		if j < 0 || strings.Trim(rest[i+1:i+j], "0123456789") != "" || j == 1 {
			return ""
		}
		rest = rest[i+j:]
	}
	return t
}

// sizeofTypes are the types the sizeof and alignof parts of a key name.
func sizeofTypes(key string) []string {
	var out []string
	for _, op := range []string{"sizeof(", "alignof("} {
		for rest := key; ; {
			i := strings.Index(rest, op)
			if i < 0 {
				break
			}
			rest = rest[i+len(op):]
			depth, j := 1, 0
			for ; j < len(rest) && depth > 0; j++ {
				switch rest[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			out = append(out, rest[:max(j-1, 0)])
			rest = rest[j:]
		}
	}
	return out
}

// localTypeNames are the names of the types declared inside a function body anywhere in the
// translation unit: a name the dump prints for one of them may mean different types in two
// scopes, so a size that names one is not compared by its name.
func localTypeNames(tu *parse.TU) map[string]bool {
	out := map[string]bool{}
	for _, fn := range tu.Root.Inner {
		if fn.Kind != "FunctionDecl" {
			continue
		}
		if body := FuncBody(fn); body != nil {
			body.Walk(func(n *parse.Node) bool {
				switch n.Kind {
				case "RecordDecl", "CXXRecordDecl", "TypedefDecl", "TypeAliasDecl", "EnumDecl":
					if n.Name != "" {
						out[n.Name] = true
					}
				}
				return true
			})
		}
	}
	return out
}

// namesLocalType reports whether a key's sizeof types mention one of the names.
func namesLocalType(key string, names map[string]bool) bool {
	if len(names) == 0 {
		return false
	}
	for _, t := range sizeofTypes(key) {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if names[w] {
				return true
			}
		}
	}
	return false
}

func newSize(n *parse.Node) string {
	// new T[count]: the byte size is count * sizeof(T); the dump gives the count only, so the
	// size is kept as count for element types of one byte and unknown otherwise.
	if len(n.Inner) >= 1 && (strings.HasPrefix(n.Type, "unsigned char") || strings.HasPrefix(n.Type, "char")) {
		return SizeKey(n.Inner[0])
	}
	return ""
}

func idString(id parse.DeclID) string {
	const hex = "0123456789abcdef"
	var b [16]byte
	i := len(b)
	for {
		i--
		b[i] = hex[id&15]
		id >>= 4
		if id == 0 {
			break
		}
	}
	return string(b[i:])
}
