// Package gofiles walks a tree's Go files for the lint checks under tests/ (funclen,
// plantypes): one walk, one idea of which directories hold no code of the project's own.
package gofiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one parsed Go file: its path relative to the root (slashes), its bytes and syntax.
type File struct {
	Rel  string
	Src  []byte
	Fset *token.FileSet
	AST  *ast.File
}

// Walk parses every Go file under root, with its comments, and calls visit with it, leaving
// out testdata, build outputs, vendored code and hidden directories. A file that does not
// parse, or an error from visit, ends the walk with that error.
func Walk(root string, visit func(File) error) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "build", "node_modules", "vendor":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return visit(File{Rel: filepath.ToSlash(rel), Src: src, Fset: fset, AST: f})
	})
}
