package parse

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// clang elides a location's file and line when they repeat the location printed just before,
// even when that one was in a declaration the reader skips, and a header's includedFrom names
// a file that is not a location. The dump below has all three.
func TestReadASTCarriesElidedLocations(t *testing.T) {
	root, err := ReadAST(strings.NewReader(elidedDump), func(f string) bool { return f == "main.c" })
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Inner) != 1 {
		t.Fatalf("kept %d top-level declarations, want only f", len(root.Inner))
	}
	f := root.Inner[0]
	// f's location prints neither file nor line: both come from the skipped sys's last
	// location (the expansion at main.c:8), not from its includedFrom.
	if f.Name != "f" || f.Loc.File != "main.c" || f.Loc.Line != 8 || f.Loc.Col != 5 || f.Loc.Offset != 70 {
		t.Fatalf("f at %+v, want main.c:8:5 offset 70", f.Loc)
	}
	if f.Range.End.Line != 10 {
		t.Errorf("f ends at line %d, want 10", f.Range.End.Line)
	}
	call := f.Inner[1].Inner[0]
	if call.Callee() != "free" || call.Range.Begin.Line != 9 || call.Range.End.Line != 9 {
		t.Errorf("call to %q at lines %d-%d, want free at 9", call.Callee(), call.Range.Begin.Line, call.Range.End.Line)
	}
	arg := Unwrap(call.Args()[0])
	if arg.Ref == nil || arg.Ref.ID != f.Inner[0].ID || arg.Ref.ID != 0xa1 || call.Args()[0].CastKind != "BitCast" {
		t.Errorf("free's argument refers to %+v, want p (0xa1)", arg.Ref)
	}
}

// elidedDump has a location whose file and line are elided after a skipped declaration's,
// and a header's includedFrom (TestReadASTCarriesElidedLocations).
const elidedDump = `{"id":"0x1","kind":"TranslationUnitDecl","loc":{},"range":{"begin":{},"end":{}},"inner":[
	  {"id":"0x2","kind":"TypedefDecl","loc":{},"range":{"begin":{},"end":{}},"isImplicit":true,"name":"__int128_t"},
	  {"id":"0x3","kind":"FunctionDecl","loc":{"offset":4,"file":"sys.h","line":3,"col":5,"tokLen":3,
	      "includedFrom":{"file":"main.c"}},
	    "range":{"begin":{"offset":0,"col":1,"tokLen":3,"includedFrom":{"file":"main.c"}},
	             "end":{"offset":30,"line":4,"col":1,"tokLen":1,"includedFrom":{"file":"main.c"}}},
	    "name":"sys","inner":[{"id":"0x4","kind":"CompoundStmt","range":{
	      "begin":{"spellingLoc":{"offset":50,"file":"main.c","line":7,"col":3,"tokLen":2},
	               "expansionLoc":{"offset":60,"line":8,"col":1,"tokLen":4}},
	      "end":{"offset":61,"col":2,"tokLen":1}}}]},
	  {"id":"0xa0","kind":"FunctionDecl","loc":{"offset":70,"col":5,"tokLen":1},
	    "range":{"begin":{"offset":66,"col":1,"tokLen":3},"end":{"offset":90,"line":10,"col":1,"tokLen":1}},
	    "name":"f","type":{"qualType":"int (int *)"},"inner":[
	      {"id":"0xa1","kind":"ParmVarDecl","loc":{"offset":77,"col":12,"tokLen":1},"range":{"begin":{"offset":72,"col":7,"tokLen":3},"end":{"offset":77,"col":12,"tokLen":1}},"name":"p","type":{"qualType":"int *"}},
	      {"id":"0xa2","kind":"CompoundStmt","range":{"begin":{"offset":80,"col":15,"tokLen":1},"end":{"offset":90,"col":1,"tokLen":1}},"inner":[
	        {"id":"0xa3","kind":"CallExpr","range":{"begin":{"offset":82,"line":9,"col":2,"tokLen":4},"end":{"offset":88,"col":8,"tokLen":1}},"type":{"qualType":"void"},"inner":[
	          {"id":"0xa4","kind":"ImplicitCastExpr","castKind":"FunctionToPointerDecay","range":{"begin":{"offset":82,"col":2,"tokLen":4},"end":{"offset":82,"col":2,"tokLen":4}},"inner":[
	            {"id":"0xa5","kind":"DeclRefExpr","range":{"begin":{"offset":82,"col":2,"tokLen":4},"end":{"offset":82,"col":2,"tokLen":4}},
	             "referencedDecl":{"id":"0xb0","kind":"FunctionDecl","name":"free","type":{"qualType":"void (void *)"}}}]},
	          {"id":"0xa6","kind":"ImplicitCastExpr","castKind":"BitCast","range":{"begin":{"offset":87,"col":7,"tokLen":1},"end":{"offset":87,"col":7,"tokLen":1}},"inner":[
	            {"id":"0xa7","kind":"DeclRefExpr","range":{"begin":{"offset":87,"col":7,"tokLen":1},"end":{"offset":87,"col":7,"tokLen":1}},
	             "referencedDecl":{"id":"0xa1","kind":"ParmVarDecl","name":"p","type":{"qualType":"int *"}}}]}]}]}]}]}`

// The reader gives the same tree whether keys and strings lie whole in its buffer or are cut
// by its reads (one byte a read, or a read ending before each ':', so that a key's ':' comes
// in the next read, which replaces the buffer the key lay in), and whether keys are written
// plainly or with escapes and white space before their ':'.
func TestReadASTKeysAnyWay(t *testing.T) {
	keep := func(f string) bool { return f == "main.c" }
	want, err := ReadAST(strings.NewReader(elidedDump), keep)
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.NewReplacer(`"kind":`, `"k\u0069nd" :`, `"name":`, `"n\u0061me"`+"\n:").Replace(elidedDump)
	for name, r := range map[string]io.Reader{
		"a byte a read":           iotest.OneByteReader(strings.NewReader(elidedDump)),
		"reads end before colons": &colonReader{s: elidedDump},
		"escaped keys":            strings.NewReader(escaped),
		"both":                    iotest.OneByteReader(strings.NewReader(escaped)),
	} {
		got, err := ReadAST(r, keep)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the tree differs from the one read plainly", name)
		}
	}
}

// colonReader gives s a read at a time, each ending before a ':'.
type colonReader struct{ s string }

func (c *colonReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := len(c.s)
	if i := strings.IndexByte(c.s[1:], ':'); i >= 0 {
		n = i + 1
	}
	n = copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

// A macro location is where the macro is expanded, with where the token was written beside it.
func TestReadASTMacroLocations(t *testing.T) {
	dump := `{"kind":"TranslationUnitDecl","inner":[{"kind":"VarDecl","name":"x",
	  "loc":{"spellingLoc":{"offset":9,"file":"a.c","line":1,"col":10,"tokLen":1},
	         "expansionLoc":{"offset":40,"line":3,"col":1,"tokLen":5,"isMacroArgExpansion":true}},
	  "range":{"begin":{"offset":41,"col":2,"tokLen":1},"end":{"offset":42,"col":3,"tokLen":1}}}]}`
	root, err := ReadAST(strings.NewReader(dump), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := root.Inner[0].Loc
	if l.File != "a.c" || l.Line != 3 || l.Offset != 40 || l.Spelling == nil || l.Spelling.Line != 1 || l.Spelling.Offset != 9 {
		t.Errorf("macro location %+v (spelling %+v)", l, l.Spelling)
	}
	if b := root.Inner[0].Range.Begin; b.Line != 3 || b.Spelling != nil {
		t.Errorf("the location after a macro one: %+v, want line 3", b)
	}
}

func TestReadASTRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `{`, `[]`, `{"kind":"VarDecl"}`, `{"kind":"TranslationUnitDecl","inner":[}`,
		`{"kind":"TranslationUnitDecl"} {}`, `{"kind":"TranslationUnitDecl","loc":{"offset":"x"}}`,
		strings.Repeat("[", maxDepth+10)} {
		if _, err := ReadAST(strings.NewReader(in), nil); err == nil {
			t.Errorf("%.40q read without an error", in)
		}
	}
}

// FuzzReadAST: whatever the bytes, the reader returns a tree or an error, never a panic, and
// a tree is a translation unit.
func FuzzReadAST(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"TranslationUnitDecl","inner":[{"loc":{"offset":1,"file":"a","line":2}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, keep := range []func(string) bool{nil, func(f string) bool { return strings.HasSuffix(f, ".cu") }} {
			root, err := ReadAST(bytes.NewReader(b), keep)
			if err == nil && (root == nil || root.Kind != "TranslationUnitDecl") {
				t.Fatalf("read %+v without an error", root)
			}
			if err == nil {
				root.Walk(func(n *Node) bool { n.Callee(); n.Args(); n.Config(); return true })
			}
		}
	})
}

// BenchmarkReadAST reads the dump of a workload that includes the emulator's headers and libc's
// (tens of MB for compute.cu): the throughput is in MB/s.
func BenchmarkReadAST(b *testing.B) {
	if _, err := exec.LookPath("clang"); err != nil {
		b.Skip("clang is not installed (apt-get install clang)")
	}
	file, _ := filepath.Abs("../../testdata/workloads/compute.cu")
	prelude, err := writePrelude(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	// The prelude itself, not precompiled: the dump holds the system headers' declarations
	// too, the reader's worst case.
	args := clangArgs(Command{File: file}, LangCUDA, Options{}, parseEnv{prelude: prelude})
	dump, err := exec.CommandContext(context.Background(), "clang", args...).Output()
	if err != nil {
		b.Fatal(err)
	}
	keep := ownFiles(Command{File: file})
	b.SetBytes(int64(len(dump)))
	b.ResetTimer()
	for b.Loop() {
		root, err := ReadAST(bytes.NewReader(dump), keep)
		if err != nil || len(root.Inner) == 0 {
			b.Fatalf("%v, %d declarations", err, len(root.Inner))
		}
	}
}
