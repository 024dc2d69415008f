package parse

import (
	"errors"
	"io"
	"strconv"
)

// ReadAST reads a dump of `clang -Xclang -ast-dump=json` from r and returns its
// TranslationUnitDecl. Top-level declarations whose location is in a file keep accepts (the
// main file and its own headers) come back in full detail; the others (system headers, the
// prelude, the runtime's headers) are read only as far as the location state needs and
// dropped. keep nil keeps everything.
//
// clang elides a location's file and line when they equal those of the location it printed
// just before, wherever that was in the dump, so the reader follows every location in order,
// skipped declarations included, and fills each one in.
func ReadAST(r io.Reader, keep func(file string) bool) (*Node, error) {
	return readAST(r, keep, 0, 0)
}

// readAST is ReadAST under readTU's bounds.
func readAST(r io.Reader, keep func(file string) bool, maxNodes int, maxBytes int64) (*Node, error) {
	s := newScanner(r)
	root, err := readTU(s, keep, maxNodes, maxBytes)
	if err != nil {
		return nil, err
	}
	if c, err := s.peek(); err == nil {
		return nil, s.errorf("unexpected %q after the translation unit", c)
	}
	return root, nil
}

// readTU reads one translation unit's dump from s and leaves s after it: a batch's dumps
// follow one another on one stream (batch.go). It keeps at most maxNodes nodes and reads at
// most maxBytes of the dump (0: any number); past them it fails with errNodeLimit or
// errOutputLimit.
func readTU(s *scanner, keep func(file string) bool, maxNodes int, maxBytes int64) (*Node, error) {
	s.limitNext(maxBytes)
	rd := newReader(s, keep, maxNodes)
	root, err := rd.node(0, modeRoot)
	if err == nil {
		err = s.pastLimit()
	}
	if err != nil {
		return nil, err
	}
	return rd.unit(root)
}

func newReader(s *scanner, keep func(file string) bool, maxNodes int) *reader {
	rd := &reader{s: s, keep: keep, files: map[string]string{}, kinds: map[string]string{}, budget: maxNodes}
	if maxNodes <= 0 {
		rd.budget = -1
	}
	return rd
}

// unit checks that root is a translation unit and lifts its linkage blocks' declarations.
func (rd *reader) unit(root *Node) (*Node, error) {
	if root == nil || root.Kind != "TranslationUnitDecl" {
		return nil, rd.s.errorf("the dump is not a translation unit")
	}
	root.Inner = unlinkage(root.Inner)
	return root, nil
}

// unlinkage puts the declarations of extern "C" and extern "C++" blocks among the top-level
// ones: Rodinia writes its host functions as `extern "C" void f(…) {…}`, and a linkage
// specification changes nothing a proof is about.
func unlinkage(decls []*Node) []*Node {
	flat := true
	for _, d := range decls {
		flat = flat && d.Kind != "LinkageSpecDecl"
	}
	if flat {
		return decls
	}
	out := make([]*Node, 0, len(decls))
	for _, d := range decls {
		if d.Kind == "LinkageSpecDecl" {
			out = append(out, unlinkage(d.Inner)...)
			continue
		}
		out = append(out, d)
	}
	return out
}

type mode int

const (
	modeRoot mode = iota // the TranslationUnitDecl
	modeTop              // its children: kept or skipped by file
	modeKeep
	modeSkip
)

type reader struct {
	s    *scanner
	keep func(string) bool
	// The last location clang printed: its elided fields carry forward from here.
	lastFile string
	lastLine int
	// Interned strings: a dump repeats a few hundred file names and node kinds millions of
	// times, and map lookups by []byte do not allocate.
	files, kinds map[string]string
	// skipped is what a skipped object is read into, however deep: its fields are never read
	// (result gives nil). A third of a dump's objects are skipped ones (a class's definition
	// data, the system headers' declarations), more than half of what the reader allocated.
	skipped Node
	// budget is how many more nodes may be kept (-1: any number): what bounds the reader's
	// memory on a generated file.
	budget int
}

// errNodeLimit is readAST's error past its node budget.
var errNodeLimit = errors.New("too many AST nodes")

func intern(m map[string]string, b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	return s
}

// node reads one object as an AST node. In modeSkip it returns nil and keeps only the
// location state; any object the dump nests (referencedDecl, type, …) is read this way too.
func (rd *reader) node(depth int, m mode) (*Node, error) {
	s := rd.s
	if err := s.nested(depth); err != nil {
		return nil, err
	}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	if m != modeSkip && rd.budget >= 0 {
		if rd.budget == 0 {
			return nil, errNodeLimit
		}
		rd.budget--
	}
	n := &rd.skipped
	if m != modeSkip {
		n = &Node{}
	}
	if done, err := s.empty('}'); done || err != nil {
		return rd.result(n, m), err
	}
	for {
		key, err := s.key()
		if err != nil {
			return nil, err
		}
		if err := rd.field(n, string(key), depth, &m); err != nil {
			return nil, err
		}
		more, err := s.more('}')
		if err != nil {
			return nil, err
		}
		if !more {
			return rd.result(n, m), nil
		}
	}
}

func (rd *reader) result(n *Node, m mode) *Node {
	switch m {
	case modeSkip:
		return nil
	case modeTop:
		if !rd.kept(n) {
			return nil
		}
	}
	return n
}

// kept decides a top-level declaration by where its name is, else where it begins: a kernel
// defined through a macro from a header still counts as the file that expands it.
func (rd *reader) kept(n *Node) bool {
	if rd.keep == nil {
		return true
	}
	f := n.Loc.File
	if f == "" {
		f = n.Range.Begin.File
	}
	return f != "" && rd.keep(f)
}

func (rd *reader) field(n *Node, key string, depth int, m *mode) error {
	keep := *m != modeSkip
	switch key {
	case "loc":
		l, err := rd.loc(depth + 1)
		n.Loc = l
		return err
	case "range":
		return rd.rangeOf(&n.Range, depth+1)
	case "inner":
		return rd.innerField(n, depth, m)
	}
	if !keep {
		return rd.value(depth + 1)
	}
	return rd.keptField(n, key, depth)
}

// innerField reads a node's children, kept or skipped as the node's mode says; a top-level
// declaration's mode is settled here, its file being known by now.
func (rd *reader) innerField(n *Node, depth int, m *mode) error {
	child := modeSkip
	switch *m {
	case modeRoot:
		child = modeTop
	case modeTop:
		// clang prints loc and range before inner: the declaration's file is known here.
		if rd.kept(n) {
			*m, child = modeKeep, modeKeep
		} else {
			*m = modeSkip
		}
	case modeKeep:
		child = modeKeep
	}
	return rd.inner(n, depth+1, child)
}

// keptField reads a field of a kept node into it; a field the tree does not keep is skipped.
func (rd *reader) keptField(n *Node, key string, depth int) error {
	s := rd.s
	switch key {
	case "id":
		b, err := s.str()
		if err != nil {
			return err
		}
		n.ID = parseID(b)
	case "kind":
		b, err := s.str()
		if err != nil {
			return err
		}
		n.Kind = intern(rd.kinds, b)
	case "name", "opcode", "castKind", "value":
		return rd.stringField(n, key, depth)
	case "type":
		t, d, err := rd.qualType(depth + 1)
		n.Type, n.Desugared = t, d
		return err
	case "argType":
		t, d, err := rd.qualType(depth + 1)
		n.ArgType = t
		if d != "" {
			n.ArgType = d
		}
		return err
	case "referencedDecl":
		return rd.refField(n, depth)
	case "referencedMemberDecl":
		b, err := s.str()
		if err != nil {
			return err
		}
		n.Member = parseID(b)
	case "isArrow", "isArray", "isPostfix", "isInvalid":
		return rd.flagField(n, key)
	default:
		return rd.value(depth + 1)
	}
	return nil
}

// stringField reads name, opcode, castKind or value.
func (rd *reader) stringField(n *Node, key string, depth int) error {
	s := rd.s
	if c, err := s.peek(); err != nil || c != '"' {
		if err != nil {
			return err
		}
		return rd.value(depth + 1) // an IntegerLiteral's value may be a bare number
	}
	b, err := s.str()
	if err != nil {
		return err
	}
	v := string(b)
	switch key {
	case "name":
		n.Name = v
	case "opcode":
		n.Opcode = v
	case "castKind":
		n.CastKind = intern(rd.kinds, b)
	case "value":
		n.Value = v
	}

	return nil
}

// refField reads the declaration a reference names.
func (rd *reader) refField(n *Node, depth int) error {
	s := rd.s
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c != '{' {
		return rd.value(depth + 1)
	}
	d, err := rd.node(depth+1, modeKeep)
	if err != nil {
		return err
	}
	n.Ref = &Ref{ID: d.ID, Kind: d.Kind, Name: d.Name, Type: d.Type}

	return nil
}

// flagField reads one of the boolean fields.
func (rd *reader) flagField(n *Node, key string) error {
	s := rd.s
	b, err := s.literal()
	if err != nil {
		return err
	}
	v := string(b) == "true"
	switch key {
	case "isArrow":
		n.IsArrow = v
	case "isArray":
		n.IsArray = v
	case "isPostfix":
		n.Postfix = v
	case "isInvalid":
		n.Invalid = v
	}

	return nil
}

// value reads a value nobody keeps, following any locations inside it.
func (rd *reader) value(depth int) error {
	s := rd.s
	c, err := s.peekValue(depth)
	if err != nil {
		return err
	}
	switch c {
	case '{':
		_, err := rd.node(depth, modeSkip)
		return err
	case '[':
		s.readByte()
		if done, err := s.empty(']'); done || err != nil {
			return err
		}
		for {
			if err := rd.value(depth + 1); err != nil {
				return err
			}
			more, err := s.more(']')
			if err != nil || !more {
				return err
			}
		}
	}
	return s.skip(depth)
}

// open consumes the '{' or '[' (open) that starts the object or array a field holds; a value
// of another kind is read as one nobody keeps. done: there is nothing more to read of it (it
// was of another kind, or it is empty), or err.
func (rd *reader) open(open byte, depth int) (done bool, err error) {
	s := rd.s
	c, err := s.peek()
	if err != nil {
		return true, err
	}
	if c != open {
		return true, rd.value(depth)
	}
	s.readByte()
	if open == '[' {
		return s.empty(']')
	}
	return s.empty('}')
}

func (rd *reader) inner(n *Node, depth int, m mode) error {
	s := rd.s
	if done, err := rd.open('[', depth); done || err != nil {
		return err
	}
	for {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c == '{' {
			child, err := rd.node(depth+1, m)
			if err != nil {
				return err
			}
			if child != nil && m != modeSkip {
				n.Inner = append(n.Inner, child)
			}
		} else if err := rd.value(depth + 1); err != nil {
			return err
		}
		more, err := s.more(']')
		if err != nil || !more {
			return err
		}
	}
}

// qualType reads a type object and returns its qualType and desugaredQualType ("" when
// clang printed none: the type has no sugar at its top level).
func (rd *reader) qualType(depth int) (string, string, error) {
	s := rd.s
	if done, err := rd.open('{', depth); done || err != nil {
		return "", "", err
	}
	var t, d string
	for {
		key, err := s.key()
		if err != nil {
			return "", "", err
		}
		if k := string(key); k == "qualType" || k == "desugaredQualType" {
			if c, err := s.peek(); err != nil {
				return "", "", err
			} else if c == '"' {
				b, err := s.str()
				if err != nil {
					return "", "", err
				}
				if k == "qualType" {
					t = string(b)
				} else {
					d = string(b)
				}
			} else if err := rd.value(depth + 1); err != nil {
				return "", "", err
			}
		} else if err := rd.value(depth + 1); err != nil {
			return "", "", err
		}
		more, err := s.more('}')
		if err != nil {
			return "", "", err
		}
		if !more {
			return t, d, nil
		}
	}
}

func (rd *reader) rangeOf(r *Range, depth int) error {
	s := rd.s
	if done, err := rd.open('{', depth); done || err != nil {
		return err
	}
	for {
		key, err := s.key()
		if err != nil {
			return err
		}
		switch string(key) {
		case "begin":
			r.Begin, err = rd.loc(depth + 1)
		case "end":
			r.End, err = rd.loc(depth + 1)
		default:
			err = rd.value(depth + 1)
		}
		if err != nil {
			return err
		}
		more, err := s.more('}')
		if err != nil || !more {
			return err
		}
	}
}

// loc reads a location: a bare one, or a macro's spellingLoc and expansionLoc, each bare.
// Every bare location updates the carried file and line in the order clang printed them.
func (rd *reader) loc(depth int) (Loc, error) {
	s := rd.s
	if done, err := rd.open('{', depth); done || err != nil {
		return Loc{}, err
	}
	var bare bareLoc
	var spelling, expansion *Loc
	for {
		key, err := s.key()
		if err != nil {
			return Loc{}, err
		}
		switch k := string(key); k {
		case "spellingLoc", "expansionLoc":
			l, err := rd.loc(depth + 1)
			if err != nil {
				return Loc{}, err
			}
			if k == "spellingLoc" {
				spelling = &l
			} else {
				expansion = &l
			}
		default:
			if err := rd.bareField(&bare, k, depth); err != nil {
				return Loc{}, err
			}
		}
		more, err := s.more('}')
		if err != nil {
			return Loc{}, err
		}
		if !more {
			break
		}
	}
	if spelling != nil || expansion != nil {
		var l Loc
		if expansion != nil {
			l = *expansion
		}
		l.Spelling = spelling
		return l, nil
	}
	return rd.finish(bare), nil
}

// bareLoc is a bare location's fields as printed, before elided ones are filled in.
type bareLoc struct {
	offset, line, col, tokLen   int
	file                        string
	hasOffset, hasFile, hasLine bool
}

func (rd *reader) bareField(b *bareLoc, key string, depth int) error {
	s := rd.s
	var err error
	switch key {
	case "offset":
		b.offset, err = s.integer()
		b.hasOffset = true
	case "line":
		b.line, err = s.integer()
		b.hasLine = true
	case "col":
		b.col, err = s.integer()
	case "tokLen":
		b.tokLen, err = s.integer()
	case "file":
		var f []byte
		f, err = s.str()
		b.file, b.hasFile = intern(rd.files, f), true
	default: // includedFrom, presumedFile, isMacroArgExpansion: their files are not locations
		err = rd.value(depth + 1)
	}
	return err
}

// finish fills in what clang elided and moves the carried state on, as clang's
// JSONNodeDumper::writeBareSourceLocation does: an invalid location prints nothing (no
// offset) and leaves the state alone.
func (rd *reader) finish(b bareLoc) Loc {
	if !b.hasOffset {
		return Loc{}
	}
	if b.hasFile {
		rd.lastFile = b.file
	}
	if b.hasLine {
		rd.lastLine = b.line
	}
	return Loc{File: rd.lastFile, Offset: b.offset, Line: rd.lastLine, Col: b.col, TokLen: b.tokLen}
}

// parseID reads clang's "0x…" pointer; anything else is 0 (no identity).
func parseID(b []byte) DeclID {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') {
		return 0
	}
	v, err := strconv.ParseUint(string(b[2:]), 16, 64)
	if err != nil {
		return 0
	}
	return DeclID(v)
}
