package parse

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/embedshim"
	"github.com/echo-uma/echo/internal/testenv"
)

// libechoclangout gives standard output 1 MiB blocks where it is a pipe, and leaves a file's,
// and every fstat without it, as the kernel says.
func TestClangOutWidensPipes(t *testing.T) {
	lib := testenv.Built(t, "lib/libechoclangout.so")
	prog := testenv.Built(t, "tests/blksize")
	blksize := func(preload string, toFile bool) string {
		t.Helper()
		cmd := exec.Command(prog)
		cmd.Env = embedshim.Preloaded(os.Environ(), preload)
		var out []byte
		var err error
		if toFile {
			path := filepath.Join(t.TempDir(), "out")
			f, ferr := os.Create(path)
			if ferr != nil {
				t.Fatal(ferr)
			}
			cmd.Stdout = f
			err = cmd.Run()
			f.Close()
			out, _ = os.ReadFile(path)
		} else {
			out, err = cmd.Output()
		}
		if err != nil {
			t.Fatalf("%s (preload %q): %v", prog, preload, err)
		}
		return strings.TrimSpace(string(out))
	}
	const mib = "1048576"
	if got := blksize(lib, false); got != mib {
		t.Errorf("a pipe under libechoclangout: st_blksize %s, want %s", got, mib)
	}
	if got := blksize("", false); got == mib || got == "" {
		t.Errorf("a pipe without it: st_blksize %q, want the kernel's own", got)
	}
	if got := blksize(lib, true); got == mib || got == "" {
		t.Errorf("a file under libechoclangout: st_blksize %q, want the kernel's own", got)
	}
}

// A parse with libechoclangout in clang gives the TU one without it gives, for a dump of many
// of its 1 MiB blocks, alone and in a batch.
func TestParseWithClangOut(t *testing.T) {
	testenv.NeedClang(t)
	lib := testenv.Built(t, "lib/libechoclangout.so")
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("#include <cuda_runtime.h>\n")
	for i := range 1500 {
		fmt.Fprintf(&src, "float f%d(float *h, float *d, int n) { cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice); return h[%d] * %d.5f; }\n", i, i%7, i)
	}
	var cmds []Command
	for _, name := range []string{"a.cu", "b.cu"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, Command{File: path})
	}
	parseAll := func(o Options) []Parsed {
		t.Helper()
		s, err := NewSession(o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		alone, err := s.Parse(context.Background(), cmds[0])
		if err != nil {
			t.Fatal(err)
		}
		return append([]Parsed{{TU: alone}}, s.ParseAll(context.Background(), cmds)...)
	}
	// The widened session's clang is a script that notes what it was preloaded with.
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Fatal(err)
	}
	noted := filepath.Join(dir, "preloaded")
	wrapper := filepath.Join(dir, "clang")
	// The session's own trial run (--version, preload.go) is not noted: only the parses.
	script := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in --version) ;; *) echo \"$LD_PRELOAD\" >> %s ;; esac\nexec %s \"$@\"\n", noted, clang)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	plain, widened := parseAll(Options{}), parseAll(Options{Clang: wrapper, Preload: lib})
	// Under the arm64 suite the library is not clang's machine's, and the session leaves it out.
	b, _ := os.ReadFile(noted)
	if ours := elfMachine(t, lib) == elfMachine(t, clang); strings.Contains(string(b), lib) != ours {
		t.Errorf("clang's dump runs were preloaded with %q; with %s: %v", b, lib, ours)
	}
	nodes := 0
	plain[0].TU.Root.Walk(func(*Node) bool { nodes++; return true })
	if nodes < 40_000 { // 28 a function: tens of megabytes of dump
		t.Fatalf("%d nodes: the dump is too small to fill many 1 MiB blocks", nodes)
	}
	for i := range plain {
		if plain[i].Err != nil || widened[i].Err != nil {
			t.Fatalf("parse %d: %v, under libechoclangout %v", i, plain[i].Err, widened[i].Err)
		}
		renumber(plain[i].TU.Root)
		renumber(widened[i].TU.Root)
		if !reflect.DeepEqual(plain[i].TU, widened[i].TU) {
			t.Errorf("parse %d differs under libechoclangout", i)
		}
	}
}

// A libechoclangout clang cannot load (another machine's: an arm64 echoctl under qemu runs an
// x86 clang) is left out, and the batches run as without it. Before, the loader's complaint
// came ahead of each batch's first marker, every file was parsed again alone, and an
// interrupted scan lost the files its batch had done (CI's arm64 stage, stop 54).
func TestClangOutOfAnotherMachine(t *testing.T) {
	testenv.NeedClang(t)
	lib := testenv.Built(t, "lib/libechoclangout.so")
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Fatal(err)
	}
	clangs, ours := elfMachine(t, clang), elfMachine(t, lib)
	b, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(b[18:], clangs+1) // e_machine
	foreign := filepath.Join(t.TempDir(), "libechoclangout.so")
	if err := os.WriteFile(foreign, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var cmds []Command
	for _, name := range []string{"a.cu", "b.cu"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("#include <cuda_runtime.h>\nvoid f(float *h, float *d) { cudaMemcpy(d, h, 4, cudaMemcpyHostToDevice); }\n"), 0o644)
		cmds = append(cmds, Command{File: path})
	}
	session := func(preload string) *Session {
		t.Helper()
		s, err := NewSession(Options{Preload: preload})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	// The user's own LD_PRELOAD, which the loader cannot find either, does not count against ours.
	t.Setenv("LD_PRELOAD", filepath.Join(dir, "missing.so"))
	switch s := session(lib); {
	case ours != clangs: // the arm64 suite under qemu: an x86 clang
		t.Logf("libechoclangout is for machine %d, clang for %d: only the foreign library is tried", ours, clangs)
	case s.o.Preload != lib:
		t.Errorf("libechoclangout of clang's machine: preloaded %q, want %s", s.o.Preload, lib)
	}
	s := session(foreign)
	if s.o.Preload != "" {
		t.Errorf("a library of another machine: preloaded %q, want none", s.o.Preload)
	}
	t.Setenv("LD_PRELOAD", "")
	for i, p := range s.ParseAll(context.Background(), cmds) {
		if p.Err != nil {
			t.Fatalf("%s: %v", cmds[i].File, p.Err)
		}
	}
	if n := s.batched.Load(); n != 2 {
		t.Errorf("%d of 2 files given by their batch, want 2", n)
	}
}

// elfMachine is the e_machine of the ELF file at path.
func elfMachine(t *testing.T, path string) uint16 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return uint16(f.Machine)
}
