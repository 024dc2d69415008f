package symbols_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// site is one line of build/tests/sites: a marked call and where it returns to.
type site struct {
	tag    string // the function that made the call, as its marker names it
	module string
	offset uint64
}

// runSites runs a build of testdata/symbols/sites.c and reads the sites it prints.
func runSites(t *testing.T, rel string) map[string]site {
	t.Helper()
	res := testenv.Run(t, testenv.Built(t, rel), nil)
	if res.ExitCode != 0 {
		t.Fatalf("%s: exit %d: %s", rel, res.ExitCode, res.Stderr)
	}
	sites := map[string]site{}
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] == "?" {
			t.Fatalf("%s printed %q: want TAG MODULE OFFSET", rel, line)
		}
		off, err := strconv.ParseUint(f[2], 0, 64)
		if err != nil {
			t.Fatalf("%s printed %q: %v", rel, line, err)
		}
		sites[f[0]] = site{tag: f[0], module: f[1], offset: off}
	}
	return sites
}

// markerLine is the line of testdata/symbols/FILE that carries the comment /* site: TAG */.
func markerLine(t *testing.T, file, tag string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testenv.Root(t), "testdata", "symbols", file))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "/* site: "+tag+" */") {
			return i + 1
		}
	}
	t.Fatalf("%s has no marker for %s", file, tag)
	return 0
}

// traced is a module as the tracer records it: its path, build-id and size.
func traced(t *testing.T, path string) symbols.Module {
	t.Helper()
	id, err := trace.FileBuildID(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return symbols.Module{Path: path, BuildID: id, Size: st.Size()}
}

// TestSitesHaveSymbols resolves the sites a real program reports of itself, in a PIE, a
// non-PIE executable and a shared library, to the function and the source line of each call.
func TestSitesHaveSymbols(t *testing.T) {
	for _, rel := range []string{"tests/sites", "tests/sites-nopie"} {
		sites := runSites(t, rel)
		for _, c := range []struct{ tag, file string }{
			{"main", "sites.c"},
			{"helper", "sites.c"}, // a local function: only .symtab names it
			{"lib_call", "libsites.c"},
		} {
			t.Run(filepath.Base(rel)+"/"+c.tag, func(t *testing.T) {
				s, ok := sites[c.tag]
				if !ok {
					t.Fatalf("%s printed no site for %s", rel, c.tag)
				}
				r := symbols.NewResolver()
				got, ok := r.Return(traced(t, s.module), s.offset)
				want := markerLine(t, c.file, c.tag)
				if !ok || got.Function != c.tag || filepath.Base(got.File) != c.file || got.Line != want {
					t.Fatalf("%s+%#x: got %+v (ok %v), want %s at %s:%d", s.module, s.offset, got, ok, c.tag, c.file, want)
				}
				if !filepath.IsAbs(got.File) {
					t.Errorf("file %q: want the path joined to the compilation directory", got.File)
				}
			})
		}
	}
}

// copyModule copies a built module into a temporary directory, through objcopy with args
// when there are any.
func copyModule(t *testing.T, path string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if len(args) == 0 {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if _, err := exec.LookPath("objcopy"); err != nil {
		t.Skip("needs objcopy (binutils) to strip a copy of a module")
	}
	if b, err := exec.Command("objcopy", append(args, path, out)...).CombinedOutput(); err != nil {
		t.Fatalf("objcopy %v: %v: %s", args, err, b)
	}
	return out
}

// TestSymbolsFromWhatTheModuleHas: a stripped module names nothing or only what .dynsym
// exports, and a module without DWARF names functions without lines.
func TestSymbolsFromWhatTheModuleHas(t *testing.T) {
	sites := runSites(t, "tests/sites")
	tests := []struct {
		name     string
		tag      string
		objcopy  []string
		wantFunc string // "": the site keeps module+offset
		wantLine bool
	}{
		{"executable stripped", "main", []string{"--strip-all"}, "", false},
		{"local function stripped", "helper", []string{"--strip-all"}, "", false},
		{"library stripped keeps its exports", "lib_call", []string{"--strip-all"}, "lib_call", false},
		{"executable without DWARF", "main", []string{"--strip-debug"}, "main", false},
		{"library without DWARF", "lib_call", []string{"--strip-debug"}, "lib_call", false},
		{"copied whole", "main", nil, "main", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sites[tc.tag]
			path := copyModule(t, s.module, tc.objcopy...)
			m := traced(t, path)
			if orig := traced(t, s.module); m.BuildID != orig.BuildID || m.BuildID == "" {
				t.Fatalf("objcopy changed the build-id (%q, was %q): the case would test the wrong thing", m.BuildID, orig.BuildID)
			}
			got, ok := symbols.NewResolver().Return(m, s.offset)
			if ok != (tc.wantFunc != "") || got.Function != tc.wantFunc || (got.Line != 0) != tc.wantLine {
				t.Fatalf("got %+v (ok %v), want function %q, a line: %v", got, ok, tc.wantFunc, tc.wantLine)
			}
			if !ok && symbols.Label("sites+0x10", got) != "sites+0x10" {
				t.Errorf("an unnamed site reads %q, want it unchanged", symbols.Label("sites+0x10", got))
			}
		})
	}
}

// TestRebuiltModuleIsNotNamed: a file that is not the one traced, by build-id or, without
// one, by size, gives no names (they would be another build's).
func TestRebuiltModuleIsNotNamed(t *testing.T) {
	sites := runSites(t, "tests/sites")
	s := sites["main"]
	exe := traced(t, s.module)
	other := traced(t, testenv.Built(t, "tests/sites-nopie"))
	noID := traced(t, copyModule(t, s.module, "--remove-section", ".note.gnu.build-id"))
	if noID.BuildID != "" {
		t.Fatalf("the copy still has build-id %s", noID.BuildID)
	}
	tests := []struct {
		name string
		m    symbols.Module
		want bool
	}{
		{"same build-id", exe, true},
		{"another build-id", symbols.Module{Path: exe.Path, BuildID: other.BuildID, Size: exe.Size}, false},
		{"traced without a build-id, now with one", symbols.Module{Path: exe.Path, Size: exe.Size}, false},
		{"no build-id, same size", noID, true},
		{"no build-id, another size", symbols.Module{Path: noID.Path, Size: noID.Size + 1}, false},
		{"gone", symbols.Module{Path: filepath.Join(t.TempDir(), "gone"), BuildID: exe.BuildID}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := symbols.NewResolver().Return(tc.m, s.offset)
			if ok != tc.want || (ok && got.Function != "main") {
				t.Fatalf("got %+v (ok %v), want named: %v", got, ok, tc.want)
			}
		})
	}
}

func TestLabel(t *testing.T) {
	tests := []struct {
		sym  symbols.Symbol
		want string
	}{
		{symbols.Symbol{Function: "main", File: "/src/stream.cu", Line: 60}, "stream+0x1746 main (stream.cu:60)"},
		{symbols.Symbol{Function: "foo_bar"}, "stream+0x1746 foo_bar"},
		{symbols.Symbol{}, "stream+0x1746"},
		// C++ names read as c++filt prints them, in every view that labels a site.
		{symbols.Symbol{Function: "_ZN2ns6Loader4copyEPfm", File: "/src/load.cu", Line: 12},
			"stream+0x1746 ns::Loader::copy(float*, unsigned long) (load.cu:12)"},
		{symbols.Symbol{Function: "_ZL12alloc_or_diem"}, "stream+0x1746 alloc_or_die(unsigned long)"},
		// A name that only looks mangled stays as the module has it.
		{symbols.Symbol{Function: "_Zoops"}, "stream+0x1746 _Zoops"},
	}
	for _, tc := range tests {
		if got := symbols.Label("stream+0x1746", tc.sym); got != tc.want {
			t.Errorf("Label(%+v) = %q, want %q", tc.sym, got, tc.want)
		}
	}
}

// TestCxxNamesDemangled: a C++ module's function is named as its source reads, the module's
// own (mangled) name kept beside it. The workloads are built as C++ (the Makefile's -x c++):
// helper_alloc's allocation helper is a static C++ function, mangled _ZL12alloc_or_diem.
func TestCxxNamesDemangled(t *testing.T) {
	path := testenv.Built(t, "workloads/helper_alloc")
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var fn elf.Symbol
	for _, s := range syms {
		if strings.HasPrefix(s.Name, "_Z") && strings.Contains(s.Name, "alloc_or_die") {
			fn = s
		}
	}
	if fn.Name == "" {
		t.Fatalf("%s has no mangled alloc_or_die: is it still built as C++?", path)
	}
	// A site's offset counts from the address of the module's file offset 0 (the first
	// loadable segment's address less its file offset).
	var shift uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			shift = p.Vaddr - p.Off
			break
		}
	}
	got, ok := symbols.NewResolver().At(traced(t, path), fn.Value-shift)
	if !ok || got.Function != fn.Name {
		t.Fatalf("got %+v (ok %v), want the module's own name %s", got, ok, fn.Name)
	}
	if name := got.Name(); name != "alloc_or_die(unsigned long)" {
		t.Errorf("Name() = %q, want alloc_or_die(unsigned long)", name)
	}
	if label := symbols.Label("helper_alloc+0x10", got); !strings.HasPrefix(label, "helper_alloc+0x10 alloc_or_die(unsigned long) (helper_alloc.cu:") {
		t.Errorf("Label = %q, want the demangled name and its source line", label)
	}
}
