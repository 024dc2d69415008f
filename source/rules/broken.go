package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/facts"
	"github.com/echo-uma/echo/source/parse"
)

// Which parts of a translation unit with errors the proofs may still read. clang recovers
// from an error by leaving something out or putting a RecoveryExpr in its place, so what a
// function with an error in it does is not what its source says: a write, a free or an escape
// of a buffer may be exactly what was left out. A pair is therefore undecidable, with the
// error as its reason, where its function has an error in it, refers to a declaration clang
// marked invalid, or calls or launches (through any number of calls) a function of the file
// that does. The rest of the file is analysed as if it had none. An error the file's own code
// cannot be told apart from (one inside a system or library header with no note pointing
// into a function of the file) makes every pair of the file undecidable.

// ConstructParseError names the undecidable verdicts declineBroken gives: the pair's function
// (or one it calls) has an error clang recovered from.
const ConstructParseError Construct = "parse error"

// brokenFn is why one function's AST is not its source.
type brokenFn struct {
	at  parse.Loc
	why string
}

// fnBody is a function of the translation unit with a body.
type fnBody struct {
	node *parse.Node
	name string
}

// brokenFunctions returns the functions of tu, by name, whose pairs are undecidable, and a
// reason when every pair of the file is.
func brokenFunctions(tu *parse.TU) (map[string]brokenFn, *brokenFn) {
	if tu.ErrorsCut {
		return nil, &brokenFn{why: "clang reported more errors than Echo keeps: nothing in the file is decided"}
	}
	if len(tu.Errors) == 0 && !hasInvalid(tu.Root) {
		return nil, nil
	}
	t := walkBroken(tu)
	direct, attributed := t.directlyBroken(tu.Errors)
	for j, d := range tu.Errors {
		if !attributed[j] && !t.ownFile[d.File] {
			return nil, &brokenFn{at: parse.Loc{File: d.File, Line: d.Line, Col: d.Col},
				why: "clang reported an error outside the file's own code, which could be anywhere in it: " + d.String()}
		}
	}
	if len(direct) == 0 {
		return nil, nil
	}
	return t.spreadBroken(direct), nil
}

// brokenTU is what brokenFunctions gathers from a translation unit: its functions with a
// body, the declarations clang marked invalid, and the files of its top-level declarations.
type brokenTU struct {
	fns          []fnBody
	invalidIDs   map[parse.DeclID]bool
	invalidTypes map[string]bool
	ownFile      map[string]bool
}

func walkBroken(tu *parse.TU) *brokenTU {
	t := &brokenTU{invalidIDs: map[parse.DeclID]bool{}, invalidTypes: map[string]bool{},
		ownFile: map[string]bool{tu.File: true}}
	var walk func(n *parse.Node, top bool)
	walk = func(n *parse.Node, top bool) {
		if top && n.Loc.File != "" {
			t.ownFile[n.Loc.File] = true
		}
		if n.Invalid {
			t.invalidIDs[n.ID] = true
			if n.Name != "" && (strings.HasSuffix(n.Kind, "RecordDecl") || n.Kind == "TypedefDecl" || n.Kind == "EnumDecl" || n.Kind == "TypeAliasDecl") {
				t.invalidTypes[n.Name] = true
			}
		}
		switch n.Kind {
		case "FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl", "CXXConversionDecl":
			if facts.FuncBody(n) != nil {
				t.fns = append(t.fns, fnBody{node: n, name: n.Name})
			}
		}
		for _, c := range n.Inner {
			walk(c, false)
		}
	}
	for _, n := range tu.Root.Inner {
		walk(n, true)
	}
	return t
}

// typeWord matches a use of a type clang could not parse; nil when there is none.
func (t *brokenTU) typeWord() *regexp.Regexp {
	if len(t.invalidTypes) == 0 {
		return nil
	}
	var names []string
	for n := range t.invalidTypes {
		names = append(names, regexp.QuoteMeta(n))
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}

// directlyBroken are the functions (by index) holding one of clang's errors or something it
// could not parse, and which of errs fell inside one.
func (t *brokenTU) directlyBroken(errs []parse.Diag) (map[int]brokenFn, []bool) {
	typeWord := t.typeWord()
	direct := map[int]brokenFn{}
	attributed := make([]bool, len(errs))
	for i, f := range t.fns {
		r := f.node.Range
		in := func(file string, line int) bool {
			return file == r.Begin.File && line >= r.Begin.Line && line <= r.End.Line
		}
		for j, d := range errs {
			hit := in(d.File, d.Line)
			for _, n := range d.Notes {
				hit = hit || in(n.File, n.Line)
			}
			if hit {
				attributed[j] = true
				if _, ok := direct[i]; !ok {
					direct[i] = brokenFn{at: parse.Loc{File: d.File, Line: d.Line, Col: d.Col}, why: fmt.Sprintf("clang reported an error in %s at line %d: %s", f.name, d.Line, d.Msg)}
				}
			}
		}
		if _, ok := direct[i]; ok {
			continue
		}
		f.node.Walk(func(n *parse.Node) bool {
			if _, ok := direct[i]; ok {
				return false
			}
			switch {
			case n.Kind == "RecoveryExpr":
				direct[i] = brokenFn{at: n.Range.Begin, why: fmt.Sprintf("clang could not make sense of an expression in %s at line %d", f.name, n.Range.Begin.Line)}
			case n.Invalid && n != f.node || n.Ref != nil && t.invalidIDs[n.Ref.ID] || n.Member != 0 && t.invalidIDs[n.Member]:
				direct[i] = brokenFn{at: n.Range.Begin, why: fmt.Sprintf("%s uses a declaration clang could not parse, at line %d", f.name, n.Range.Begin.Line)}
			case n == f.node && n.Invalid:
				direct[i] = brokenFn{at: n.Loc, why: fmt.Sprintf("clang could not parse the declaration of %s", f.name)}
			case typeWord != nil && (typeWord.MatchString(n.Type) || typeWord.MatchString(n.Desugared)):
				direct[i] = brokenFn{at: n.Range.Begin, why: fmt.Sprintf("%s uses a type clang could not parse, at line %d", f.name, n.Range.Begin.Line)}
			}
			return true
		})
	}
	return direct, attributed
}

// callees are, for each function, the functions it calls or launches, by index.
func (t *brokenTU) callees() [][]int {
	byName := map[string][]int{}
	byID := map[parse.DeclID]int{}
	for i, f := range t.fns {
		byName[f.name] = append(byName[f.name], i)
		byID[f.node.ID] = i
	}
	callees := make([][]int, len(t.fns))
	for i, f := range t.fns {
		f.node.Walk(func(n *parse.Node) bool {
			if n.Ref != nil {
				switch n.Ref.Kind {
				case "FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl", "CXXConversionDecl", "FunctionTemplateDecl":
					callees[i] = append(callees[i], byName[n.Ref.Name]...)
					if j, ok := byID[n.Ref.ID]; ok {
						callees[i] = append(callees[i], j)
					}
				}
			}
			if j, ok := byID[n.Member]; ok && n.Member != 0 {
				callees[i] = append(callees[i], j)
			}
			return true
		})
	}
	return callees
}

// spreadBroken is the broken functions by name: those directly broken, and what calls or
// launches a broken function, which is broken too.
func (t *brokenTU) spreadBroken(direct map[int]brokenFn) map[string]brokenFn {
	callees := t.callees()
	out := map[string]brokenFn{}
	for i, f := range t.fns {
		if b, ok := direct[i]; ok {
			out[f.name] = b
		}
	}
	for changed := true; changed; {
		changed = false
		for i, f := range t.fns {
			if _, ok := out[f.name]; ok {
				continue
			}
			for _, j := range callees[i] {
				if b, ok := out[t.fns[j].name]; ok {
					out[f.name] = brokenFn{at: b.at, why: fmt.Sprintf("%s calls %s, where %s", f.name, t.fns[j].name, b.why)}
					changed = true
					break
				}
			}
		}
	}
	return out
}

func hasInvalid(root *parse.Node) bool {
	found := false
	root.Walk(func(n *parse.Node) bool {
		found = found || n.Invalid
		return !found
	})
	return found
}

// declineBroken makes undecidable every pair whose function brokenFunctions names (or all of
// them, for an error that could be anywhere), with clang's error as the reason.
func declineBroken(tu *parse.TU, proofs []Proof) []Proof {
	broken, all := brokenFunctions(tu)
	for i := range proofs {
		b, ok := brokenFn{}, false
		if all != nil {
			b, ok = *all, true
		} else {
			b, ok = brokenFor(broken, proofs[i].Function)
		}
		if !ok {
			continue
		}
		for c := range proofs[i].Verdicts {
			proofs[i].Verdicts[c] = Verdict{Cond: fmt.Sprintf("S%d", c+1), Status: plan.ConditionUndecidable, At: b.at, Reason: b.why,
				Construct: ConstructParseError}
		}
	}
	return proofs
}

// brokenFor finds a function's entry by the name a proof gives it, which may be qualified
// (ns::f, C::m) or an instantiation's (f<float>).
func brokenFor(broken map[string]brokenFn, fn string) (brokenFn, bool) {
	if b, ok := broken[fn]; ok {
		return b, true
	}
	base := fn
	if i := strings.IndexByte(base, '<'); i > 0 {
		base = base[:i]
	}
	if i := strings.LastIndex(base, "::"); i >= 0 {
		base = base[i+2:]
	}
	b, ok := broken[base]
	return b, ok
}
