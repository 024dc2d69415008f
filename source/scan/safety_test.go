package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
	"github.com/echo-uma/echo/source/rules"
)

// The source path against a user's files and a hostile tree (issue 46): rewrites that never
// lose an edit, inputs that are no files, limits on clang, compile databases from elsewhere.

func rewriteOpts(t *testing.T) rewrite.RewriteOptions {
	return rewrite.RewriteOptions{Options: parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}, Target: rewrite.Target{Device: rules.Discrete, Strategy: plan.StrategyMapped}}
}

// An edit made after a file was analysed is kept: that file is left and named, the others are
// written. Before, the rename went ahead and the edit was lost (4 of 5 tries in the issue).
func TestWriteFilesKeepsAnEditMadeMeanwhile(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	a := testenv.SourceFixture(t, "scan/safe.cu", dir, "a.cu")
	b := testenv.SourceFixture(t, "scan/safe.cu", dir, "b.cu")
	var frs []*rewrite.FileRewrite
	for _, f := range []string{a, b} {
		fr, err := rewrite.RewriteFile(context.Background(), f, rewriteOpts(t))
		if err != nil {
			t.Fatal(err)
		}
		frs = append(frs, fr)
	}
	edited := string(frs[0].Before) + "// the user's edit\n"
	os.WriteFile(a, []byte(edited), 0o644)
	w := rewrite.WriteFiles(context.Background(), frs)
	if len(w.Skipped) != 1 || w.Skipped[0].Path != a || len(w.Written) != 1 || w.Written[0] != b || w.OK() {
		t.Errorf("written %v, skipped %v: want a.cu skipped and b.cu written", w.Written, w.Skipped)
	}
	if got, _ := os.ReadFile(a); string(got) != edited {
		t.Error("the edit made after the analysis was overwritten")
	}
	if got, _ := os.ReadFile(b); string(got) != string(frs[1].After) {
		t.Error("b.cu was not written")
	}
}

// A failure mid-run stops it and says which files were written and which were not.
func TestWriteFilesNamesWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	var frs []*rewrite.FileRewrite
	for _, n := range []string{"a.cu", "b.cu", "c.cu"} {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte("old\n"), 0o644)
		frs = append(frs, &rewrite.FileRewrite{Path: p, Before: []byte("old\n"), After: []byte("new\n")})
	}
	os.Remove(frs[1].Path)
	os.Mkdir(frs[1].Path, 0o755) // a directory where b.cu was: no file to write
	w := rewrite.WriteFiles(context.Background(), frs)
	if w.Err == nil || strings.Join(w.Written, " ") != frs[0].Path || strings.Join(w.NotWritten, " ") != frs[1].Path+" "+frs[2].Path {
		t.Errorf("written %v, not written %v, err %v: want a written, b and c not", w.Written, w.NotWritten, w.Err)
	}
	if got, _ := os.ReadFile(frs[2].Path); string(got) != "old\n" {
		t.Error("c.cu was written after the failure")
	}
}

// No file is written when one is another input of the run: the same file named twice (by a
// hard link), or the trace.
func TestWriteFilesRefusesAnInput(t *testing.T) {
	dir := t.TempDir()
	a, alias, tr := filepath.Join(dir, "a.cu"), filepath.Join(dir, "same.cu"), filepath.Join(dir, "trace.bin")
	os.WriteFile(a, []byte("old\n"), 0o644)
	os.WriteFile(tr, []byte("trace\n"), 0o644)
	os.Link(a, alias)
	for _, c := range []struct {
		frs    []*rewrite.FileRewrite
		inputs []string
	}{
		{[]*rewrite.FileRewrite{{Path: a, Before: []byte("old\n"), After: []byte("new\n")}, {Path: alias, Before: []byte("old\n"), After: []byte("new\n")}}, nil},
		{[]*rewrite.FileRewrite{{Path: tr, Before: []byte("trace\n"), After: []byte("new\n")}}, []string{tr}},
	} {
		w := rewrite.WriteFiles(context.Background(), c.frs, c.inputs...)
		if w.Err == nil || len(w.Written) != 0 || !strings.Contains(w.Err.Error(), "it is also") {
			t.Errorf("written %v, err %v: want nothing written, naming the input", w.Written, w.Err)
		}
	}
	if got, _ := os.ReadFile(a); string(got) != "old\n" {
		t.Error("a.cu was written")
	}
}

// A source that is not a regular file — a FIFO, /dev/zero, a .cu link to either — is an
// error at once. Before, rewrite hung on them, ignoring SIGTERM, growing to 1.2 GB in 12 s.
func TestSourcesAreRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.cu")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero, link := filepath.Join(dir, "zero.cu"), filepath.Join(dir, "link.cu")
	os.Symlink("/dev/zero", zero)
	os.Symlink(fifo, link)
	o := rewrite.RewriteOptions{Options: parse.Options{RuntimeHeaders: "/nonexistent"}}
	for _, f := range []string{fifo, zero, link} {
		done := make(chan error, 1)
		go func() { _, err := rewrite.RewriteFile(context.Background(), f, o); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v, want not a regular file", f, err)
			}
		case <-time.After(30 * time.Second): // only ends a hang, so the test can say so
			t.Fatalf("%s: RewriteFile hung", f)
		}
	}
	if _, err := parse.LoadCompileDB(zero); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a compile database linked to /dev/zero: %v", err)
	}
}

// A file larger than the size limit is skipped saying so, before clang runs: a generated
// 50 MB file took 1.8 GB and 1:42.
func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "table.c")
	os.WriteFile(big, []byte("int t[] = {"+strings.Repeat("1,", 4096)+"0};\n"), 0o644)
	_, err := parse.Parse(context.Background(), parse.Command{File: big}, parse.Options{Limits: parse.Limits{FileSize: 4096}})
	var le *parse.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Why, "larger than 4.0 KiB") {
		t.Errorf("Parse of an 8 KiB file with a 4 KiB limit: %v", err)
	}
	if _, err := rewrite.RewriteFile(context.Background(), big, rewrite.RewriteOptions{Options: parse.Options{Limits: parse.Limits{FileSize: 4096}}}); !errors.As(err, &le) {
		t.Errorf("RewriteFile past the limit: %v", err)
	}
}

// clang's dump and the reader's nodes are bounded: past either the file is skipped saying
// which (the dump of a generated table is about 450 times the file).
func TestClangOutputAndNodeLimits(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "table.c")
	os.WriteFile(f, []byte("float t[] = {"+strings.Repeat("1.5f,", 2000)+"0};\nint main(void) { return (int)t[1]; }\n"), 0o644)
	for _, c := range []struct {
		l    parse.Limits
		want string
	}{
		{parse.Limits{Output: 64 << 10}, "clang's AST of it is larger than 64.0 KiB"},
		{parse.Limits{Nodes: 500}, "more than 500 AST nodes"},
	} {
		_, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{Limits: c.l})
		var le *parse.LimitError
		if !errors.As(err, &le) || !strings.Contains(le.Why, c.want) {
			t.Errorf("limits %+v: %v, want %q", c.l, err, c.want)
		}
	}
	if _, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{}); err != nil {
		t.Errorf("with the default limits: %v", err)
	}
}

// An #include of a FIFO blocks clang in open(2); the time limit ends it, and kills everything
// clang's driver started (the process group): here a driver that runs clang as a child, as
// one that does not run cc1 in its own process does.
func TestClangTimeLimitKillsTheGroup(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "never.h")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "inc.c")
	os.WriteFile(src, []byte("#include \"never.h\"\nint main(void) { return 0; }\n"), 0o644)
	pidFile := filepath.Join(dir, "child.pid")
	driver := filepath.Join(dir, "clang-driver")
	os.WriteFile(driver, []byte("#!/bin/sh\nclang \"$@\" &\necho $! > "+pidFile+"\nwait\n"), 0o755)
	_, err := parse.Parse(context.Background(), parse.Command{File: src}, parse.Options{Clang: driver, Limits: parse.Limits{Time: time.Second}})
	var le *parse.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Why, "ran past 1s") {
		t.Fatalf("clang blocked on a FIFO: %v, want the time limit", err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 {
		t.Fatal("the driver did not start clang")
	}
	for range 50 { // the kill is sent; wait for the kernel to reap it
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("clang (pid %d), started by the driver, outlived the time limit", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

// A compile database another user left in a parent directory is ignored, saying so: with its
// -DQUIET the unsafe pair of quiet.cu was proved. Named with --compile-commands it is taken,
// and the proof says it assumed -DQUIET.
func TestCompileDBFromElsewhere(t *testing.T) {
	sourcetest.NeedClang(t)
	parent := t.TempDir()
	proj := filepath.Join(parent, "proj")
	file := testenv.SourceFixture(t, "hostile/quiet.cu", proj, "quiet.cu")
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	db := filepath.Join(parent, "compile_commands.json")
	os.WriteFile(db, []byte(`[{"directory": "`+proj+`", "file": "quiet.cu", "arguments": ["nvcc", "-DQUIET", "-c", "quiet.cu"]}]`), 0o644)
	s1 := func(o rewrite.RewriteOptions) (string, parse.BuildFlags) {
		t.Helper()
		fr, err := rewrite.RewriteFile(context.Background(), file, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range fr.Changes {
			if c.Host == "h_in" {
				return c.Reason, fr.BuildFlags
			}
		}
		t.Fatal("no h_in pair")
		return "", parse.BuildFlags{}
	}
	// Root's own, writable by no one else: the user's (or root's) build.
	if why, bf := s1(rewriteOpts(t)); !strings.Contains(why, "merged") || strings.Join(bf.Defines(), " ") != "-DQUIET" {
		t.Errorf("root's own database: %q, defines %v; want merged, assuming -DQUIET", why, bf.Defines())
	}
	for _, c := range []struct {
		name     string
		set      func()
		wantWhy  string
		ownedBy  string
		needRoot bool
	}{
		{"writable by others", func() { os.Chmod(db, 0o666) }, "others may write it", "", false},
		{"another user's", func() { os.Chmod(db, 0o644); os.Chown(db, 65534, 65534) }, "belongs to user 65534", "", true},
	} {
		if c.needRoot && os.Geteuid() != 0 {
			continue
		}
		c.set()
		why, bf := s1(rewriteOpts(t))
		if !strings.Contains(why, "S1 refused") || bf.CompileDB != "" || len(bf.Notices) != 1 || !strings.Contains(bf.Notices[0], c.wantWhy) {
			t.Errorf("%s: %q, notices %q; want the database ignored, saying %q, and S1 refused", c.name, why, bf.Notices, c.wantWhy)
		}
	}
	o := rewriteOpts(t)
	o.CompileCommands = db
	if why, bf := s1(o); !strings.Contains(why, "merged") || !strings.Contains(strings.Join(bf.Flags, " "), "-DQUIET") {
		t.Errorf("named with --compile-commands: %q, flags %v; want merged, assuming -DQUIET", why, bf.Flags)
	}
}

// A found database's flags that read outside the project are dropped, saying so, and flags
// that load code or read more flags are named; the preprocessor's own are kept.
func TestVetDatabaseFlags(t *testing.T) {
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, "include"), 0o755)
	entry := parse.Command{Dir: proj, File: filepath.Join(proj, "a.c"), Args: []string{"-DKEEP=1", "-Iinclude", "-I/usr/include",
		"-include", "/etc/passwd", "-imacros", "/etc/hostname", "-I/proc/self", "--include-path", "/root/.ssh",
		"-Xclang", "-load", "-Xclang", "/tmp/evil.so", "-fplugin=/tmp/evil.so", "@/tmp/more-flags", "-c", "a.c"}}
	db := filepath.Join(proj, "compile_commands.json")
	cmd, bf := parse.Assume(entry, true, db, false, []string{proj}, []string{"-DUSER"})
	got := strings.Join(cmd.Args, " ")
	want := "-DKEEP=1 -I" + filepath.Join(proj, "include") + " -I/usr/include -DUSER"
	if got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	notices := strings.Join(bf.Notices, "\n")
	for _, w := range []string{"-include /etc/passwd", "-imacros /etc/hostname", "-I/proc/self", "-I/root/.ssh", "-Xclang", "-load", "-fplugin=/tmp/evil.so", "@/tmp/more-flags"} {
		if !strings.Contains(notices, "dropped "+w+" ") {
			t.Errorf("no notice for %s in:\n%s", w, notices)
		}
	}
	// Named, the database is the user's build: its include paths are taken.
	cmd, _ = parse.Assume(entry, true, db, true, []string{proj}, nil)
	if !strings.Contains(strings.Join(cmd.Args, " "), "-include /etc/passwd") {
		t.Errorf("a named database's forced include was dropped: %q", cmd.Args)
	}
}

// A file whose path is not UTF-8 is parsed like any other: before, clang's JSON replaced the
// bytes, no location named the file, and it had "no pattern".
func TestParseNonUTF8Names(t *testing.T) {
	sourcetest.NeedClang(t)
	root := t.TempDir()
	for _, rel := range []string{"b\xffd.cu", "d\xfeir/ok.cu", "d\xfeir/b\xffd.cu"} {
		f := testenv.SourceFixture(t, "scan/safe.cu", root, rel)
		proofs, _, err := rewrite.ProveFile(context.Background(), f, rewriteOpts(t))
		if err != nil {
			t.Fatalf("%q: %v", rel, err)
		}
		if len(proofs) != 2 || !proofs[0].Safe() || !proofs[1].Safe() {
			t.Errorf("%q: %d pairs, want safe.cu's two proven", rel, len(proofs))
		}
		fr, err := rewrite.RewriteFile(context.Background(), f, rewriteOpts(t))
		if err != nil || string(fr.After) == string(fr.Before) {
			t.Errorf("%q: rewrite changed nothing (%v)", rel, err)
		}
	}
	leftover, _ := filepath.Glob(filepath.Join(os.TempDir(), "echo-source-*", "dir"))
	for _, l := range leftover {
		if target, _ := os.Readlink(l); strings.HasPrefix(target, root) {
			t.Errorf("the stand-in %s was left behind", l)
		}
	}
}

// The survey walks any tree: a root that is a link, links in and out of it, loops, FIFOs and
// devices named like sources, a path longer than PATH_MAX; what it cannot walk is named and
// the rest is scanned. Before, a linked root was "0 files scanned", and one bad path ended
// the scan with no table.
func TestScanWalksAHostileTree(t *testing.T) {
	sourcetest.NeedClang(t)
	top := t.TempDir()
	tree := filepath.Join(top, "tree")
	testenv.SourceFixture(t, "scan/safe.cu", tree, "safe.cu")
	testenv.SourceFixture(t, "scan/plain.c", tree, "sub/plain.c")
	outside := testenv.SourceFixture(t, "scan/plain.c", top, "outside/x.c")
	rootLink := filepath.Join(top, "link-to-tree")
	for link, target := range map[string]string{
		rootLink:                         tree,
		filepath.Join(tree, "loop"):      ".",
		filepath.Join(tree, "sub/up"):    "..",
		filepath.Join(tree, "ab"):        "ba",
		filepath.Join(tree, "ba"):        "ab",
		filepath.Join(tree, "again.cu"):  "safe.cu",
		filepath.Join(tree, "out.c"):     outside,
		filepath.Join(tree, "outdir"):    filepath.Dir(outside),
		filepath.Join(tree, "zero.cu"):   "/dev/zero",
		filepath.Join(tree, "nowhere.c"): "missing.c",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo.cu"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := firstTooLong(tree, testenv.DeepDir(t, tree))
	s, err := Scan(context.Background(), rootLink, ScanOptions{Options: parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range s.Files {
		files = append(files, f.Path)
	}
	if got := strings.Join(files, " "); got != "safe.cu sub/plain.c" {
		t.Errorf("scanned %q, want safe.cu and sub/plain.c, each once", got)
	}
	why := map[string]string{}
	for _, u := range s.Unwalked {
		why[u.Path] = u.Why
	}
	for path, want := range map[string]string{
		"loop": "a link loop", "sub/up": "a link loop", "ab": "a link loop",
		"out.c": "out of the tree", "outdir": "out of the tree", "zero.cu": "out of the tree",
		"fifo.cu": "not a regular file (a FIFO)", "nowhere.c": "leads nowhere", deep: "path too long",
	} {
		if !strings.Contains(why[path], want) {
			t.Errorf("%.60s: %q, want %q", path, why[path], want)
		}
	}
}

// firstTooLong is the first path of the chain rel under dir that reaches PATH_MAX: the first
// the walk cannot take, relative to dir.
func firstTooLong(dir, rel string) string {
	first := ""
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		first = filepath.Join(first, name)
		if len(filepath.Join(dir, first)) >= 4096 {
			return first
		}
	}
	return ""
}
