// Command plantypes fails when a package other than plan/ declares one of the plan's types
// (issue 42: the plan's data model and its words live in one package that both the binary
// and the source paths import): a type of one of the names below, or an alias to any type of
// package plan. tests/lint.sh runs it. A type that only shares a name with a plan type, and
// means something else, is listed in allowed with the reason.
package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/tests/internal/gofiles"
)

const planImport = "github.com/echo-uma/echo/plan"

// planTypes are the plan's types whose names say plan: the data model and its vocabulary.
var planTypes = []string{
	"Plan", "Pair", "Status", "Strategy", "Direction", "CopyDirection", "PairDirection",
	"Condition", "MemKind", "Repair", "Stage", "Staging", "Estimate", "Savings", "Rejection",
	"Loop", "LoopSpan", "FirstTouch", "Buffer", "Copy", "Identity", "Mode",
}

// allowed are declarations that share a name with a plan type and are not one, with why,
// keyed by the package's directory (its sub-packages too) and the type's name.
var allowed = map[string]string{
	"source Pair":  "a candidate pair in source code: two variables of one function, not a plan pair",
	"live Pair":    "a row of the live view, whose fields are plan's words",
	"check Status": "the verdict of one item of echoctl check, not a pair's status",
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var problems []string
	err := gofiles.Walk(root, func(f gofiles.File) error {
		if f.Rel == "plan" || strings.HasPrefix(f.Rel, "plan/") {
			return nil
		}
		problems = append(problems, declarations(f)...)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "plantypes:", err)
		os.Exit(2)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		fmt.Fprintln(os.Stderr, "plantypes: the plan's types are declared in plan/ alone: use plan's (or, for a type that only shares the name, add it to tests/plantypes's allowed with the reason)")
		os.Exit(1)
	}
}

// declarations are the problems in one Go file: each type of a plan type's name not allowed,
// and each alias to a type of package plan.
func declarations(f gofiles.File) []string {
	planName := ""
	for _, imp := range f.AST.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == planImport {
			planName = "plan"
			if imp.Name != nil {
				planName = imp.Name.Name
			}
		}
	}
	var out []string
	for _, decl := range f.AST.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			at := f.Fset.Position(ts.Pos())
			if ts.Assign.IsValid() && planName != "" && refersTo(ts.Type, planName) {
				out = append(out, fmt.Sprintf("%s: type %s is an alias to a type of package plan", at, ts.Name.Name))
				continue
			}
			if slices.Contains(planTypes, ts.Name.Name) && !isAllowed(f.Rel, ts.Name.Name) {
				out = append(out, fmt.Sprintf("%s: type %s is one of the plan's types: use plan.%s", at, ts.Name.Name, ts.Name.Name))
			}
		}
	}
	return out
}

// refersTo reports whether the type expression names a type of the package imported as pkg.
func refersTo(expr ast.Expr, pkg string) bool {
	found := false
	ast.Inspect(expr, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := se.X.(*ast.Ident); ok && x.Name == pkg {
				found = true
			}
		}
		return !found
	})
	return found
}

// isAllowed reports whether allowed lists the type name in the package of the file rel (a
// path from the root) or a directory above it (source's sub-packages are source's).
func isAllowed(rel, name string) bool {
	for dir := pathpkg.Dir(rel); dir != "." && dir != "/" && dir != ""; dir = pathpkg.Dir(dir) {
		if allowed[dir+" "+name] != "" {
			return true
		}
	}
	return false
}
