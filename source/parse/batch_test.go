package parse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The files of one batch, in order: a clean one after which a template is instantiated, one
// with an error clang recovers from, one after that error, one whose missing header stops the
// parse (a fatal error, parsed alone with a stub), a clean one after it, and two that include
// the same missing header (stubbed before the parse, the batch's stand-ins shared).
var batchFiles = []struct{ name, text string }{
	{"a.cu", "#include <vector>\ntemplate <class T> T twice(T x) { return x + x; }\n__global__ void k(float *p) { p[0] = twice(p[0]); }\nint main() { std::vector<int> v(3); float *d; cudaMalloc(&d, 4); return twice(v[0]); }\n"},
	{"b.cu", "int f() { return undeclared; }\nint g(int *p) { cudaMemcpy(p, p, 4, cudaMemcpyHostToDevice); return 0; }\n"},
	{"c.cu", "template <class T> struct box { T v; T get() { return v; } };\nint h() { box<int> b{1}; return b.get(); }\n"},
	{"d.cu", "#define HDR <missing_header_of_a_library.h>\n#include HDR\nint m() { return 1; }\n"},
	{"e.cu", "#include \"own.h\"\nint n() { return own(2); }\n"},
	{"f.cu", "#include <a_missing_library.h>\nint p() { return 3; }\n"},
	{"g.cu", "#include <a_missing_library.h>\nint q() { return LIBRARY_MACRO; }\n"},
}

// TestParseAllIsParse: each file's TU from a batch is the one Parse gives it alone, with the
// same errors, stubs and directories found (declaration ids aside: clang's addresses).
func TestParseAllIsParse(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	dir := t.TempDir()
	var cmds []Command
	for _, f := range batchFiles {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: filepath.Join(dir, f.name)})
	}
	if err := os.WriteFile(filepath.Join(dir, "own.h"), []byte("static inline int own(int x) { return x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batched := s.ParseAll(ctx, cmds)
	sameAsAlone(t, s, cmds, batched, true)
	if n := s.batched.Load(); n != 5 {
		t.Errorf("batches gave %d files whole, want 5 (a, b and c; d stops at its fatal error, e is left alone; f and g)", n)
	}
	if len(batched[1].TU.Errors) == 0 || len(batched[3].TU.Stubbed) == 0 || len(batched[0].TU.Root.Inner) == 0 ||
		len(batched[6].TU.Stubbed) == 0 || len(batched[6].TU.Errors) == 0 {
		t.Fatalf("the files do not test what they are for: errors %v, stubbed %v", batched[1].TU.Errors, batched[3].TU.Stubbed)
	}
}

// sameAsAlone: each of cmds' results from a batch is the TU Parse gives the file alone
// (declaration ids aside: clang's addresses). Where mayFail, a file may fail, alone and in the
// batch alike; else every file must parse.
func sameAsAlone(t *testing.T, s *Session, cmds []Command, batched []Parsed, mayFail bool) {
	t.Helper()
	for i, c := range cmds {
		alone, err := s.Parse(context.Background(), c)
		if (err == nil) != (batched[i].Err == nil) || !mayFail && err != nil {
			t.Fatalf("%s: alone %v, in a batch %v", c.File, err, batched[i].Err)
		}
		if err != nil {
			continue
		}
		renumber(alone.Root)
		renumber(batched[i].TU.Root)
		if !reflect.DeepEqual(alone, batched[i].TU) {
			t.Errorf("%s: in a batch\n%+v\nalone\n%+v", c.File, batched[i].TU, alone)
		}
	}
}

// renumber replaces clang's addresses by their order of first appearance.
func renumber(root *Node) {
	ids := map[DeclID]DeclID{}
	num := func(id *DeclID) {
		if *id == 0 {
			return
		}
		if _, ok := ids[*id]; !ok {
			ids[*id] = DeclID(len(ids) + 1)
		}
		*id = ids[*id]
	}
	root.Walk(func(n *Node) bool {
		num(&n.ID)
		num(&n.Member)
		if n.Ref != nil {
			num(&n.Ref.ID)
		}
		return true
	})
}

// TestParseAllLimit: a batch's first file past a limit gets Parse's LimitError, and the files
// after it are still parsed in a batch, each as Parse parses it.
func TestParseAllLimit(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	dir := t.TempDir()
	big := "int big(int x) {\n"
	for i := 0; i < 400; i++ {
		big += "  x = x * 3 + 1;\n"
	}
	big += "  return x;\n}\n"
	texts := map[string]string{"a_big.cu": big, "b.cu": "int b() { return 1; }\n", "c.cu": "int c() { return 2; }\n"}
	var cmds []Command
	for _, name := range []string{"a_big.cu", "b.cu", "c.cu"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(texts[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: filepath.Join(dir, name)})
	}
	ctx := context.Background()
	s, err := NewSession(Options{Limits: Limits{Nodes: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batched := s.ParseAll(ctx, cmds)
	var le *LimitError
	if !errors.As(batched[0].Err, &le) {
		t.Fatalf("a_big.cu in a batch: %v, want a LimitError", batched[0].Err)
	}
	if _, err := s.Parse(ctx, cmds[0]); !reflect.DeepEqual(err, batched[0].Err) {
		t.Errorf("a_big.cu: in a batch %v, alone %v", batched[0].Err, err)
	}
	sameAsAlone(t, s, cmds[1:], batched[1:], false)
	if n := s.batched.Load(); n != 2 {
		t.Errorf("batches gave %d files whole, want 2 (b and c)", n)
	}
}

// TestParseAllOutputLimitPerFile: the output limit is each file's, as alone: files whose dumps
// add up past it are given from one batch, and a file past it in the middle of a batch gets
// Parse's LimitError without a clang run of its own.
func TestParseAllOutputLimitPerFile(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	dir := t.TempDir()
	big := "int big(int x) {\n" + strings.Repeat("  x = x * 3 + 1;\n", 50) + "  return x;\n}\n"
	var cmds []Command
	for i := range 11 {
		name, text := fmt.Sprintf("s%02d.cu", i), fmt.Sprintf("int f%d() { return %d; }\n", i, i)
		if i == 5 {
			name, text = "big.cu", big
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: filepath.Join(dir, name)})
	}
	ctx := context.Background()
	// A small file's dump is about 2 KiB, the big one's about 300 KiB.
	s, err := NewSession(Options{Limits: Limits{Output: 16 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	batched := s.ParseAll(ctx, cmds)
	if n, alone := s.batched.Load(), s.alone.Load(); n != 10 || alone != 0 {
		t.Errorf("batches gave %d files whole and %d were parsed alone, want 10 and none", n, alone)
	}
	var le *LimitError
	if !errors.As(batched[5].Err, &le) {
		t.Fatalf("big.cu in a batch: %v, want a LimitError", batched[5].Err)
	}
	if _, err := s.Parse(ctx, cmds[5]); !reflect.DeepEqual(err, batched[5].Err) {
		t.Errorf("big.cu: in a batch %v, alone %v", batched[5].Err, err)
	}
	sameAsAlone(t, s, append(cmds[:5:5], cmds[6:]...), append(batched[:5:5], batched[6:]...), false)
}

// TestParseAllSharesStubs: files that differ only in which missing headers they include share
// one clang process, each parsed as Parse parses it, except a file that asks __has_include,
// which keeps its own stand-ins: the other file's would make its missing header exist.
func TestParseAllSharesStubs(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	dir := t.TempDir()
	texts := []struct{ name, text string }{
		{"a.cu", "#include <missing_window_system.h>\nint a() { return 1; }\n"},
		{"b.cu", "#include <missing_graphics_api.h>\nint b() { return 2; }\n"},
		{"c.cu", "#include <missing_math_library.h>\nint c() { return 3; }\n"},
		{"d.cu", "#include <missing_audio_library.h>\n#if __has_include(<missing_window_system.h>)\nint window_found;\n#endif\nint d() { return 4; }\n"},
	}
	var cmds []Command
	for _, f := range texts {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: filepath.Join(dir, f.name)})
	}
	ctx := context.Background()
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := map[string]bool{}
	for _, c := range cmds {
		keys[s.BatchKey(ctx, c)] = true
	}
	if len(keys) != 1 {
		t.Errorf("%d batch keys, want 1: the files differ only in their missing headers", len(keys))
	}
	batched := s.ParseAll(ctx, cmds)
	sameAsAlone(t, s, cmds, batched, false)
	if n := s.batched.Load(); n != 3 {
		t.Errorf("batches gave %d files whole, want 3 (a, b and c; d alone with its own stand-ins)", n)
	}
	for _, d := range batched[3].TU.Root.Inner {
		if d.Name == "window_found" {
			t.Errorf("d.cu saw a.cu's stand-in through __has_include")
		}
	}
}

// TestParseAllTakesBatchKeysPreparation: ParseAll takes the prepared parses BatchKey made
// rather than preparing the files again, and parses each file as Parse does.
func TestParseAllTakesBatchKeysPreparation(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	dir := t.TempDir()
	var cmds []Command
	for i, text := range []string{"#include <missing_window_system.h>\nint a() { return 1; }\n", "int b() { return 2; }\n"} {
		name := filepath.Join(dir, fmt.Sprintf("f%d.cu", i))
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: name})
	}
	ctx := context.Background()
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range cmds {
		if s.BatchKey(ctx, c) == "" {
			t.Fatalf("%s: no batch key", c.File)
		}
	}
	batched := s.ParseAll(ctx, cmds)
	if n := s.prepares.Load(); n != 2 {
		t.Errorf("%d files prepared for batches, want 2 (each once, by BatchKey)", n)
	}
	sameAsAlone(t, s, cmds, batched, false)
}

// TestPrepareWritesNoStubs: preparing a file notes the stand-ins it needs without writing
// them: a file of a batch runs with the batch's, and only a parse of its own writes its own.
func TestPrepareWritesNoStubs(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed")
	}
	file := filepath.Join(t.TempDir(), "a.cu")
	if err := os.WriteFile(file, []byte("#include <missing_window_system.h>\nint a() { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.prepare(context.Background(), Command{File: file})
	if err != nil {
		t.Fatal(err)
	}
	defer p.remove()
	if len(p.stubs.names) != 1 || p.stubs.dir != "" {
		t.Errorf("prepared with stand-ins %v in %q, want one noted and none written", p.stubs.names, p.stubs.dir)
	}
	tu, err := s.Parse(context.Background(), Command{File: file})
	if err != nil || len(tu.Stubbed) != 1 {
		t.Fatalf("parsed alone: %v, stubbed %v; want it parsed with its stand-in", err, tu)
	}
}
