package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/sourcereport"
)

// A tree from anywhere, scanned as an ordinary user would (as root, the scan runs as nobody,
// so that the unreadable directory is one): FIFOs and a device named like sources, link
// loops, links out of the tree, a database that forces /etc/shadow in and loads a plugin,
// a directory nobody may read, a path longer than PATH_MAX, names that are not UTF-8 or hold
// a newline, a 3 MB generated file and an #include of a FIFO. The scan ends (the bound below
// only ends a hang, so that the test can say so), names each of them, proves the files that
// can be proved, and stays within bounded memory. Before, it hung on the FIFO include, failed
// whole on the unreadable directory, and parsed the huge file for minutes.
func TestScanHostileTree(t *testing.T) {
	testenv.NeedClang(t)
	var run func(args ...string) *exec.Cmd
	work := t.TempDir()
	headers := filepath.Join(testenv.Root(t), "testdata", "emulator", "include")
	if os.Geteuid() == 0 {
		u := testenv.NewUnprivileged(t)
		work = filepath.Join(u.Dir, "work")
		os.MkdirAll(work, 0o755)
		// nobody cannot read the checkout (CI's is under /root): a copy of the headers.
		copyTree(t, headers, filepath.Join(u.Dir, "include"))
		headers = filepath.Join(u.Dir, "include")
		run = func(args ...string) *exec.Cmd { return u.Command(nil, nil, u.Echoctl, args...) }
	} else {
		run = func(args ...string) *exec.Cmd { return exec.Command(testenv.Built(t, "bin/echoctl"), args...) }
	}
	tree := filepath.Join(work, "tree")
	testenv.SourceFixture(t, "scan/safe.cu", tree, "safe.cu")
	testenv.SourceFixture(t, "scan/safe.cu", tree, "odd/b\xffd.cu")
	testenv.SourceFixture(t, "scan/safe.cu", tree, "odd/new\nline.cu")
	testenv.SourceFixture(t, "scan/plain.c", tree, "locked/hidden.c")
	fifo := filepath.Join(work, "fifo.h")
	for _, f := range []string{filepath.Join(tree, "fifo.cu"), fifo} {
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// waits.cu copies, or the scan would not parse it (it cannot hold a copy).
	os.WriteFile(filepath.Join(tree, "waits.cu"), []byte("#include \""+fifo+"\"\nint main(void) { return cudaMemcpy(0, 0, 0, cudaMemcpyHostToDevice); }\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "generated.c"), []byte("float t[] = {"+strings.Repeat("1.5f, 2.5f, 3.5f, 4.5f,\n", 128<<10)+"0};\n"), 0o644)
	for link, target := range map[string]string{"zero.cu": "/dev/zero", "loop": ".", "ab": "ba", "ba": "ab", "etc": "/etc"} {
		os.Symlink(target, filepath.Join(tree, link))
	}
	os.WriteFile(filepath.Join(tree, "compile_commands.json"), []byte(`[{"directory": "`+tree+`", "file": "safe.cu",
	  "arguments": ["nvcc", "-include", "/etc/shadow", "-Xclang", "-load", "-Xclang", "/tmp/evil.so", "-DHOSTILE", "-c", "safe.cu"]}]`), 0o644)
	deep := testenv.DeepDir(t, tree)
	for _, d := range []string{work, tree} {
		os.Chmod(d, 0o755)
	}
	locked := filepath.Join(tree, "locked")
	os.Chmod(locked, 0o700)
	if os.Geteuid() != 0 {
		os.Chmod(locked, 0)
		t.Cleanup(func() { os.Chmod(locked, 0o755) })
	}

	cmd := run("scan", "--file-timeout", "3s", "--runtime-headers", headers, tree)
	res := testenv.Within(t, time.Minute, cmd)
	if res.TimedOut {
		t.Fatalf("the scan hung:\n%s\n%s", res.Stdout, res.Stderr)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	var lines []string
	for _, l := range strings.Split(res.Stdout, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	out := strings.Join(lines, "\n")
	for _, w := range []string{
		"safe.cu compile command ok match 2 2 2",
		`"odd/b\377d.cu" defaults ok match 2 2 2`,
		`"odd/new\nline.cu" defaults ok match 2 2 2`,
		"generated.c defaults skipped - - - - - - larger than 2.0 MiB",
		"waits.cu defaults skipped - - - - - - clang ran past 3s",
		"-DHOSTILE safe.cu",
		"fifo.cu not a regular file (a FIFO)",
		"zero.cu a link out of the tree (/dev/zero)",
		"loop a link loop",
		"ab a link: a link loop",
		"etc a link out of the tree (/etc)",
		"locked permission denied",
		"path too long for the system (PATH_MAX)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the scan does not say %q:\n%s", w, res.Stdout)
		}
	}
	if !strings.Contains(out, deep[:40]+"…"+deep[len(deep)-40:]+" (") {
		t.Errorf("the over-long path is not named:\n%s", res.Stdout)
	}
	for _, w := range []string{"dropped -include /etc/shadow from " + filepath.Join(tree, "compile_commands.json") + ": it reads outside the project",
		"dropped -Xclang from", "dropped -load from"} {
		if !strings.Contains(res.Stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.Stderr)
		}
	}
	if kb := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; kb > 600<<10 {
		t.Errorf("the scan took %d MB at its peak, want a bounded few hundred", kb>>10)
	}

	// The same tree with its database a link to /dev/zero: ignored, saying so, in JSON too,
	// where the name that is not UTF-8 comes back byte for byte.
	db := filepath.Join(tree, "compile_commands.json")
	os.Remove(db)
	os.Symlink("/dev/zero", db)
	res = testenv.Within(t, time.Minute, run("--json", "scan", "--file-timeout", "3s", "--runtime-headers", headers, tree))
	if res.TimedOut || res.ExitCode != 0 || !strings.Contains(res.Stderr, "ignoring "+db+": it is not a regular file (a character device)") {
		t.Fatalf("a database linked to /dev/zero: exit %d (hung: %v)\n%s", res.ExitCode, res.TimedOut, res.Stderr)
	}
	var doc sourcereport.ScanDoc
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range doc.Files {
		if string(f.PathBytes) == "odd/b\xffd.cu" {
			found = len(f.Pairs) == 2
		}
	}
	if !found || doc.Totals.Skipped != 2 || len(doc.Unwalked) < 7 {
		t.Errorf("JSON: the odd name found %v, %d skipped, %d not walked", found, doc.Totals.Skipped, len(doc.Unwalked))
	}
}

// copyTree copies the regular files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
