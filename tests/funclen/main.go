// Command funclen checks the shape of the code for make lint (tests/lint.sh): no Go function
// outside tests and generated files is longer than -max lines, and cmd/echoctl, the CLI that
// only parses flags and prints, holds at most -cli non-test lines (issue 42). It lists each
// offender as file:line and its length, and exits 1 when there is any.
//
// Usage: go run ./tests/funclen [-max 80] [-cli 2600] [ROOT]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/echo-uma/echo/tests/internal/gofiles"
)

// offender is one function over the limit.
type offender struct {
	where string // file:line
	name  string
	lines int
}

func main() {
	maxLines := flag.Int("max", 80, "the longest a function may be, in lines")
	cliLines := flag.Int("cli", 2600, "the most non-test Go lines cmd/echoctl may hold")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	long, cli, err := measure(root, *maxLines)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	failed := false
	if cli > *cliLines {
		fmt.Fprintf(os.Stderr, "lint: cmd/echoctl holds %d non-test Go lines, more than %d: the CLI parses flags and prints; move what it decides into a package of its own\n", cli, *cliLines)
		failed = true
	}
	if len(long) > 0 {
		for _, o := range long {
			fmt.Fprintf(os.Stderr, "%s: %s is %d lines\n", o.where, o.name, o.lines)
		}
		fmt.Fprintf(os.Stderr, "lint: %d functions longer than %d lines (above): split them\n", len(long), *maxLines)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}

// measure walks the Go files under root, leaving out tests and generated files, and returns
// the functions longer than maxLines and cmd/echoctl's line count.
func measure(root string, maxLines int) ([]offender, int, error) {
	var long []offender
	cli := 0
	err := gofiles.Walk(root, func(f gofiles.File) error {
		if strings.HasSuffix(f.Rel, "_test.go") {
			return nil
		}
		if path.Dir(f.Rel) == "cmd/echoctl" {
			cli += bytes.Count(f.Src, []byte("\n"))
		}
		if ast.IsGenerated(f.AST) {
			return nil
		}
		for _, decl := range f.AST.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := f.Fset.Position(fn.Pos()), f.Fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > maxLines {
				long = append(long, offender{where: fmt.Sprintf("%s:%d", f.Rel, start.Line), name: funcName(fn), lines: n})
			}
		}
		return nil
	})
	sort.Slice(long, func(i, j int) bool { return long[i].where < long[j].where })
	return long, cli, err
}

// funcName is fn's name as a reader looks for it: Recv.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
