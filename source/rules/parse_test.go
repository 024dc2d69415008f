package rules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/parse"
)

// tokenAt is the text of the file at a location: where a macro argument was written, if the
// location comes from one.
func tokenAt(t *testing.T, l parse.Loc) string {
	t.Helper()
	if l.Spelling != nil {
		l = *l.Spelling
	}
	b, err := os.ReadFile(l.File)
	if err != nil {
		t.Fatalf("reading the file a location names: %v", err)
	}
	if l.Offset+l.TokLen > len(b) {
		t.Fatalf("location %+v is past the end of %s", l, l.File)
	}
	lines := strings.Split(string(b), "\n")
	if l.Line < 1 || l.Line > len(lines) || l.Col < 1 || l.Col > len(lines[l.Line-1])+1 {
		t.Fatalf("location %+v has no line %d column %d in %s", l, l.Line, l.Col, l.File)
	}
	line := lines[l.Line-1]
	tok := string(b[l.Offset : l.Offset+l.TokLen])
	if !strings.HasPrefix(line[l.Col-1:], tok) {
		t.Errorf("offset %d (%q) and line %d column %d (%q) disagree", l.Offset, tok, l.Line, l.Col, line[l.Col-1:])
	}
	return tok
}

// Every workload parses in CUDA host-only mode with the prelude and the emulator's headers,
// and in each of its functions the reader finds each runtime call at the line it is written on, with the
// declaration ids of the pointer variables it is given.
func TestParseWorkloads(t *testing.T) {
	sourcetest.NeedClang(t)
	files, err := filepath.Glob("../../testdata/workloads/*.cu")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workloads found: %v", err)
	}
	o := parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tu, err := parse.Parse(context.Background(), parse.Command{File: f}, o)
			if err != nil {
				t.Fatal(err)
			}
			if sourcetest.Function(tu, "main") == nil {
				t.Fatal("no main with a body in the dump")
			}
			found := 0
			// Each function of the workload's own file, with the variables it declares.
			for _, fn := range tu.Root.Inner {
				abs, _ := filepath.Abs(f)
				if fn.Kind != "FunctionDecl" || len(fn.Inner) == 0 || fn.Loc.File != abs {
					continue
				}
				vars := sourcetest.VarDecls(fn)
				for _, name := range []string{"cudaMalloc", "cudaMemcpy", "cudaMemcpyAsync", "malloc", "cudaFree"} {
					for _, c := range sourcetest.Calls(fn, name) {
						found++
						callee := parse.Unwrap(c.Inner[0])
						if got := tokenAt(t, callee.Range.Begin); got != name {
							t.Errorf("%s call at line %d: the file has %q there", name, callee.Range.Begin.Line, got)
						}
						if len(c.Args()) == 0 {
							t.Errorf("%s call at line %d has no arguments", name, callee.Range.Begin.Line)
							continue
						}
						ref := sourcetest.Pointee(c.Args()[0])
						if name == "malloc" || ref == nil {
							continue
						}
						if id, ok := vars[ref.Name]; ok && id != ref.ID {
							t.Errorf("%s(%s) at line %d refers to declaration %#x, main declares %s as %#x",
								name, ref.Name, callee.Range.Begin.Line, ref.ID, ref.Name, id)
						}
					}
				}
			}
			if found == 0 {
				t.Error("found no runtime or allocation call in the file")
			}
		})
	}
}

// compute.cu in detail: three device buffers, each cudaMalloc'd through its own variable, and
// the copies that link them, at their lines.
func TestParseComputeCalls(t *testing.T) {
	sourcetest.NeedClang(t)
	f := "../../testdata/workloads/compute.cu"
	tu := sourcetest.Parse(t, f)
	main := sourcetest.Function(tu, "main")
	vars := sourcetest.VarDecls(main)
	src, _ := os.ReadFile(f)
	lineOf := func(text string) int {
		i := strings.Index(string(src), text)
		if i < 0 {
			t.Fatalf("compute.cu no longer has %q", text)
		}
		return strings.Count(string(src[:i]), "\n") + 1
	}
	var mallocs []string
	for _, c := range sourcetest.Calls(main, "cudaMalloc") {
		r := sourcetest.Pointee(c.Args()[0])
		if r == nil || r.ID != vars[r.Name] || r.ID == 0 {
			t.Fatalf("cudaMalloc's argument is not a variable of main: %+v", r)
		}
		if want := lineOf("cudaMalloc((void **)&" + r.Name); c.Range.Begin.Line != want && spellLine(c) != want {
			t.Errorf("cudaMalloc(&%s) at line %d, want %d", r.Name, spellLine(c), want)
		}
		mallocs = append(mallocs, r.Name)
	}
	if strings.Join(mallocs, ",") != "d_a,d_b,d_c" {
		t.Errorf("cudaMalloc'd %v, want d_a, d_b, d_c", mallocs)
	}
	var copies []string
	for _, c := range sourcetest.Calls(main, "cudaMemcpy") {
		dst, src := sourcetest.Pointee(c.Args()[0]), sourcetest.Pointee(c.Args()[1])
		if dst.ID != vars[dst.Name] || src.ID != vars[src.Name] {
			t.Errorf("cudaMemcpy(%s, %s): ids %#x, %#x; main declares %#x, %#x", dst.Name, src.Name, dst.ID, src.ID, vars[dst.Name], vars[src.Name])
		}
		if want := lineOf("cudaMemcpy(" + dst.Name + ", " + src.Name); spellLine(c) != want {
			t.Errorf("cudaMemcpy(%s, %s) at line %d, want %d", dst.Name, src.Name, spellLine(c), want)
		}
		copies = append(copies, dst.Name+"<-"+src.Name)
	}
	if strings.Join(copies, ",") != "d_b<-h_b,d_a<-h_a,h_c<-d_c" {
		t.Errorf("copies %v", copies)
	}
	// Under __CUDACC__ the kernel is a real __global__ function.
	if k := sourcetest.Function(tu, "matmul"); k == nil {
		t.Error("no kernel matmul")
	}
}

func spellLine(n *parse.Node) int {
	if s := n.Range.Begin.Spelling; s != nil {
		return s.Line
	}
	return n.Range.Begin.Line
}

// A plain CUDA program: a __global__ kernel and a <<<…>>> launch, parsed with the prelude.
func TestParseKernelLaunch(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "scale.cu")
	src := `#include <stdlib.h>
__global__ void scale(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] *= 2;
}

int main()
{
	float *h = (float *)malloc(4096), *d;
	cudaMalloc((void **)&d, 4096);
	cudaMemcpy(d, h, 4096, cudaMemcpyHostToDevice);
	scale<<<4, 256>>>(d, 1024);
	cudaMemcpy(h, d, 4096, cudaMemcpyDeviceToHost);
	cudaFree(d);
	free(h);
	return 0;
}
`
	tu := sourcetest.ParseSource(t, f, src)
	main := sourcetest.Function(tu, "main")
	vars := sourcetest.VarDecls(main)
	launches := sourcetest.Calls(main, "scale")
	if len(launches) != 1 || launches[0].Kind != "CUDAKernelCallExpr" {
		t.Fatalf("launches of scale: %d, want one CUDAKernelCallExpr", len(launches))
	}
	l := launches[0]
	if l.Range.Begin.Line != 14 || l.Config() == nil || len(l.Args()) != 2 {
		t.Errorf("launch at line %d with config %v and %d arguments", l.Range.Begin.Line, l.Config() != nil, len(l.Args()))
	}
	if r := sourcetest.Pointee(l.Args()[0]); r == nil || r.ID != vars["d"] {
		t.Errorf("the launch's first argument is not d (%#x): %+v", vars["d"], r)
	}
	if m := sourcetest.Calls(main, "malloc"); len(m) != 1 || m[0].Range.Begin.Line != 11 {
		t.Errorf("malloc calls: %d", len(m))
	}
	for _, name := range []string{"cudaMalloc", "cudaFree", "free"} {
		c := sourcetest.Calls(main, name)
		if len(c) != 1 {
			t.Fatalf("%s calls: %d, want 1", name, len(c))
		}
		want := vars["d"]
		if name == "free" {
			want = vars["h"]
		}
		if r := sourcetest.Pointee(c[0].Args()[0]); r == nil || r.ID != want {
			t.Errorf("%s's argument: %+v, want declaration %#x", name, r, want)
		}
	}
}

// A file with an error clang recovers from parses, the error kept with its line (its pairs
// are declined, broken.go); one whose parse stops short (an include no stand-in can replace)
// is a ParseError with clang's first error line, not a crash.
func TestParseBrokenFile(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "broken.cu")
	os.WriteFile(f, []byte("int main() {\n\tfloat *d;\n\tcudaMalloc(&d, 16)\n\treturn undeclared;\n}\n"), 0o644)
	tu, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{})
	if err != nil {
		t.Fatalf("a recoverable error: %v, want a TU with the error kept", err)
	}
	if len(tu.Errors) == 0 || tu.Errors[0].File != f || tu.Errors[0].Line != 3 {
		t.Errorf("errors %v, want the first at %s:3", tu.Errors, f)
	}

	fatal := filepath.Join(dir, "fatal.cu")
	missing := filepath.Join(dir, "no", "such.h")
	os.WriteFile(fatal, []byte("#include \""+missing+"\"\nint main() { return 0; }\n"), 0o644)
	_, err = parse.Parse(context.Background(), parse.Command{File: fatal}, parse.Options{})
	var pe *parse.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a ParseError", err)
	}
	if !strings.Contains(pe.Reason, "fatal.cu:1:") || !strings.Contains(pe.Reason, "file not found") {
		t.Errorf("reason %q is not clang's fatal error (line 1)", pe.Reason)
	}
	if pe.File != fatal {
		t.Errorf("file %q, want %q", pe.File, fatal)
	}
}

// Flags come from compile_commands.json: relative -I and -D in the "command" form, relative
// to the entry's directory; without them the file does not parse.
func TestParseCompileCommands(t *testing.T) {
	sourcetest.NeedClang(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.MkdirAll(filepath.Join(root, "include"), 0o755)
	os.WriteFile(filepath.Join(root, "include", "sizes.h"), []byte("#define N (ECHO_SCALE * 256)\nstatic inline float *grab(void) { return (float *)0; }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "src", "app.c"), []byte("#include \"sizes.h\"\n#include <cuda_runtime.h>\nint main(void) {\n\tfloat *d;\n\tcudaMalloc((void **)&d, N);\n\treturn grab() != 0;\n}\n"), 0o644)
	db := `[{"directory": "` + root + `", "file": "src/app.c",
	  "command": "gcc -c -o app.o -I include '-DECHO_SCALE=4' -O2 -Wall src/app.c"},
	 {"directory": "` + root + `", "file": "src/other.cpp",
	  "arguments": ["nvcc", "-x", "cu", "-arch=sm_90", "--include-path", "include", "-std=c++17", "src/other.cpp"]}]`
	os.WriteFile(filepath.Join(root, "compile_commands.json"), []byte(db), 0o644)

	cdb, err := parse.LoadCompileDB(filepath.Join(root, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}
	// Without the database's -I the header is stood in for by an empty one, and N is an error.
	if tu, err := parse.Parse(context.Background(), parse.Command{File: filepath.Join(root, "src", "app.c")}, o); err != nil ||
		len(tu.Stubbed) != 1 || tu.Stubbed[0] != "sizes.h" || len(tu.Errors) == 0 {
		t.Fatalf("without the database's -I: %v, stubbed %v, %d errors; want sizes.h stubbed and N an error", err, tu.Stubbed, len(tu.Errors))
	}
	cmd, ok := cdb.Lookup(filepath.Join(root, "src", "app.c"))
	if !ok {
		t.Fatalf("no entry for src/app.c among %v", cdb.Files())
	}
	tu, err := parse.Parse(context.Background(), cmd, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Stubbed) != 0 || len(tu.Errors) != 0 {
		t.Errorf("with the database's flags: stubbed %v, errors %v", tu.Stubbed, tu.Errors)
	}
	// The project's own header (an -I directory) is kept in full; the runtime's is not.
	if sourcetest.Function(tu, "grab") == nil {
		t.Error("the project's header include/sizes.h was read past")
	}
	if sourcetest.Function(tu, "cudaMalloc") != nil {
		t.Error("a runtime header's declaration was kept")
	}
	c := sourcetest.Calls(sourcetest.Function(tu, "main"), "cudaMalloc")
	if len(c) != 1 || c[0].Range.Begin.Line != 5 {
		t.Fatalf("cudaMalloc calls: %d", len(c))
	}
	other, ok := cdb.Lookup(filepath.Join(root, "src", "other.cpp"))
	if !ok {
		t.Fatal("no entry for src/other.cpp")
	}
	want := []string{"-I" + filepath.Join(root, "include"), "-std=c++17"}
	if got := parse.CompileFlags(other.Args, other.Dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("nvcc's flags became %q, want %q", got, want)
	}
}

// Host functions written inside extern "C" (Rodinia's habit, one declaration or a block) are
// top-level functions like any other: their pairs are found.
func TestParseExternC(t *testing.T) {
	sourcetest.NeedClang(t)
	f := filepath.Join(t.TempDir(), "externc.cu")
	os.WriteFile(f, []byte(`#include <cuda_runtime.h>
#include <stdlib.h>
extern "C" void one(int n)
{
	float *h = (float *)malloc(n * sizeof(float)), *d;
	cudaMalloc((void **)&d, n * sizeof(float));
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaFree(d);
	free(h);
}
extern "C" {
void two(int n)
{
	float *h = (float *)malloc(n * sizeof(float)), *d;
	cudaMalloc((void **)&d, n * sizeof(float));
	cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(d);
	free(h);
}
}
`), 0o644)
	tu, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var fns []string
	for _, p := range Prove(tu) {
		fns = append(fns, p.Function)
	}
	if strings.Join(fns, " ") != "one two" {
		t.Errorf("pairs in %v, want one in each of one and two", fns)
	}
}
