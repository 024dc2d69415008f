// Package sourcetest holds what the tests of the source path's rooms share: skipping without
// clang, the emulator's headers, and finding nodes in a parsed tree.
package sourcetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/source/parse"
)

// NeedClang skips a test that runs clang when there is none (testenv.NeedClang, given here
// beside the rooms' other helpers).
var NeedClang = testenv.NeedClang

// EmulatorHeaders is testdata/emulator/include, found from this file so that a test of any
// room gets the same directory.
func EmulatorHeaders(t *testing.T) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot tell where sourcetest is")
	}
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "emulator", "include")
}

// Parse parses file with the emulator's headers, failing the test where it cannot.
func Parse(t *testing.T, file string) *parse.TU {
	t.Helper()
	tu, err := parse.Parse(context.Background(), parse.Command{File: file}, parse.Options{RuntimeHeaders: EmulatorHeaders(t)})
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// ParseSource writes src to file and parses it as Parse does.
func ParseSource(t *testing.T, file, src string) *parse.TU {
	t.Helper()
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Parse(t, file)
}

// Function is the top-level function with a body of that name.
func Function(tu *parse.TU, name string) *parse.Node {
	for _, n := range tu.Root.Inner {
		if n.Kind == "FunctionDecl" && n.Name == name && len(n.Inner) > 0 {
			return n
		}
	}
	return nil
}

// Calls are the calls below n to the named function.
func Calls(n *parse.Node, name string) []*parse.Node {
	var out []*parse.Node
	n.Walk(func(c *parse.Node) bool {
		if parse.IsCall(c.Kind) && c.Callee() == name {
			out = append(out, c)
		}
		return true
	})
	return out
}

// VarDecls maps each variable declared below n to its declaration id.
func VarDecls(n *parse.Node) map[string]parse.DeclID {
	out := map[string]parse.DeclID{}
	n.Walk(func(c *parse.Node) bool {
		if c.Kind == "VarDecl" || c.Kind == "ParmVarDecl" {
			out[c.Name] = c.ID
		}
		return true
	})
	return out
}

// Pointee is the variable an argument names: d in `d`, `(void **)&d`, `(float *)d`.
func Pointee(arg *parse.Node) *parse.Ref {
	a := parse.Unwrap(arg)
	if a.Kind == "UnaryOperator" && a.Opcode == "&" && len(a.Inner) == 1 {
		a = parse.Unwrap(a.Inner[0])
	}
	if a.Kind == "DeclRefExpr" {
		return a.Ref
	}
	return nil
}
