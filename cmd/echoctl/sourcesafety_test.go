package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
)

// The source path's commands, through the built echoctl, never lose a user's file (issue 46).

// An edit made to a file while rewrite -w works on the next one is kept: that file is left
// and named, the other written, exit 1. Before, the edit was overwritten without a word. The
// edit is made by a clang first on PATH, as the next file's parse starts.
func TestRewriteKeepsAnEditMadeDuringTheRun(t *testing.T) {
	testenv.NeedClang(t)
	real, _ := exec.LookPath("clang")
	dir := t.TempDir()
	a := testenv.SourceFixture(t, "scan/safe.cu", dir, "a.cu")
	b := testenv.SourceFixture(t, "scan/safe.cu", dir, "b.cu")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "clang"), []byte("#!/bin/sh\ncase \"$*\" in *b.cu*) echo '// the user edit' >> "+a+";; esac\nexec "+real+" \"$@\"\n"), 0o755)
	res := testenv.Echoctl(t, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, "rewrite", "-w", a, b)
	after, _ := os.ReadFile(a)
	if !strings.HasSuffix(string(after), "// the user edit\n") || strings.Contains(string(after), "echo: ") {
		t.Errorf("a.cu after the run:\n%s\nwant the user's edit kept, not rewritten", after)
	}
	if bb, _ := os.ReadFile(b); !strings.Contains(string(bb), "echo: h_in/d_in merged") {
		t.Error("b.cu was not rewritten")
	}
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, a+": left as it was: writing "+a+": it changed since echoctl read it") ||
		!strings.Contains(res.Stderr, "wrote "+b) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming a.cu left and b.cu written", res.ExitCode, res.Stderr)
	}
}

// rewrite -w as root keeps another user's file theirs, writes through a link to a file in the
// project (which stays a link), and leaves a link out of the project and a file with hard
// links as they were, saying so. Before, the file became root's and links became plain files.
func TestRewriteOwnersAndLinks(t *testing.T) {
	testenv.NeedClang(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	proj, outside := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	theirs := testenv.SourceFixture(t, "scan/safe.cu", proj, "theirs.cu")
	os.Chown(theirs, 65534, 65534)
	testenv.SourceFixture(t, "scan/safe.cu", proj, "common/k.cu")
	inLink := filepath.Join(proj, "in.cu")
	os.Symlink("common/k.cu", inLink)
	far := testenv.SourceFixture(t, "scan/safe.cu", outside, "far.cu")
	outLink := filepath.Join(proj, "out.cu")
	os.Symlink(far, outLink)
	linked := testenv.SourceFixture(t, "scan/safe.cu", proj, "linked.cu")
	os.Link(linked, filepath.Join(proj, "other-name.cu"))

	res := testenv.Echoctl(t, nil, "rewrite", "-w", theirs, inLink, outLink, linked)
	st, _ := os.Stat(theirs)
	if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 65534 || sys.Gid != 65534 {
		t.Errorf("theirs.cu now belongs to %d:%d, want 65534:65534", sys.Uid, sys.Gid)
	}
	if b, _ := os.ReadFile(theirs); !strings.Contains(string(b), "echo: ") {
		t.Error("theirs.cu was not rewritten")
	}
	if lst, _ := os.Lstat(inLink); lst.Mode()&os.ModeSymlink == 0 {
		t.Error("in.cu is no longer a link")
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "common/k.cu")); !strings.Contains(string(b), "echo: ") {
		t.Error("the link in the project was not written through")
	}
	for _, f := range []string{far, linked} {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "echo: ") {
			t.Errorf("%s was written", f)
		}
	}
	if lst, _ := os.Lstat(outLink); lst.Mode()&os.ModeSymlink == 0 {
		t.Error("out.cu is no longer a link")
	}
	for _, w := range []string{outLink + ": left as it was: writing " + outLink + ": it is a link to a file outside the project",
		linked + ": left as it was: writing " + linked + ": it has other hard links (2 names)"} {
		if !strings.Contains(res.Stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.Stderr)
		}
	}
	if res.ExitCode != 1 {
		t.Errorf("exit %d, want 1: two files were left", res.ExitCode)
	}
}

// blockedOnFIFO starts cmd, whose clang includes fifo, and returns once clang is blocked
// reading it (the FIFO has a reader); the returned function lets clang go on.
func blockedOnFIFO(t *testing.T, cmd *exec.Cmd, fifo string) (release func()) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(20 * time.Millisecond) {
		// A non-blocking open for writing succeeds once a reader has the FIFO open; holding
		// it open without writing keeps clang waiting in read(2).
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			return func() { syscall.Close(fd) }
		}
	}
	cmd.Process.Kill()
	t.Fatal("clang never opened the FIFO")
	return nil
}

// SIGINT, SIGTERM and SIGHUP end rewrite, scan and plan --source while clang runs, with 130,
// 143 and 129 and a line saying what was written (nothing); scan prints the files it had
// done; no temporary file is left. Before, rewrite exited 1 with "context canceled", an
// interrupted scan printed nothing, and plan --source ran on.
func TestSourceCommandsInterrupted(t *testing.T) {
	testenv.NeedClang(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "never.h")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	good := testenv.SourceFixture(t, "scan/safe.cu", dir, "tree/a.cu")
	// scan parses a.cu, a2.cu and b.cu in one clang process (parse.Session.ParseAll), which
	// holds up to 1 MiB of what it wrote in its output buffer (libechoclangout's block) while it
	// waits on the FIFO: a2.cu, whose dump is longer than that, pushes all of a.cu's out and
	// has its own end held. The interrupt loses a2.cu, and a.cu is done.
	a2 := testenv.SourceFixture(t, "scan/safe.cu", dir, "tree/a2.cu")
	padding := new(strings.Builder)
	for i := range 200 {
		fmt.Fprintf(padding, "static float pad%d(float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i] * %d.5f; return s; }\n", i, i)
	}
	if f, err := os.OpenFile(a2, os.O_APPEND|os.O_WRONLY, 0); err != nil {
		t.Fatal(err)
	} else {
		f.WriteString(padding.String())
		f.Close()
	}
	blocked := filepath.Join(dir, "tree", "b.cu") // CUDA: its prelude is a temporary file
	// It copies, or scan would not parse it (it cannot hold a copy).
	os.WriteFile(blocked, []byte("#include \""+fifo+"\"\nint main(void) { return cudaMemcpy(0, 0, 0, cudaMemcpyHostToDevice); }\n"), 0o644)
	trace := streamTrace(t)
	for _, c := range []struct {
		args []string
		sig  syscall.Signal
		want []string // on stdout and stderr
	}{
		{[]string{"rewrite", "-w", good, blocked}, syscall.SIGTERM, []string{"interrupted by SIGTERM: nothing was written"}},
		{[]string{"rewrite", "-w", good, blocked}, syscall.SIGHUP, []string{"interrupted by SIGHUP: nothing was written"}},
		{[]string{"scan", "-j", "1", filepath.Dir(good)}, syscall.SIGINT, []string{"a.cu  ", "interrupted: 1 of 3 files scanned",
			"interrupted by SIGINT: 1 of 3 files scanned, the rest not"}},
		{[]string{"plan", "-o", filepath.Join(dir, "app.plan"), "--source", blocked, trace}, syscall.SIGTERM,
			[]string{"interrupted by SIGTERM: nothing was written"}},
	} {
		tmp := t.TempDir()
		cmd := exec.Command(testenv.Built(t, "bin/echoctl"), c.args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		release := blockedOnFIFO(t, cmd, fifo)
		cmd.Process.Signal(c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute): // ends the old hang, so the test can say so
			cmd.Process.Kill()
			err = <-done
		}
		release()
		code := cmd.ProcessState.ExitCode()
		if code != 128+int(c.sig) {
			t.Errorf("%s, %v: exit %d (%v), want %d\n%s", c.args[0], c.sig, code, err, 128+int(c.sig), out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s, %v: output does not say %q:\n%s", c.args[0], c.sig, w, out.String())
			}
		}
		if b, _ := os.ReadFile(good); strings.Contains(string(b), "echo: ") {
			t.Errorf("%s, %v: a.cu was written", c.args[0], c.sig)
		}
		if _, err := os.Stat(filepath.Join(dir, "app.plan")); err == nil {
			t.Errorf("%s, %v: the plan was written", c.args[0], c.sig)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%s, %v: %d temporary files left in TMPDIR", c.args[0], c.sig, len(left))
		}
	}
}

// plan -o naming one of the --source files is refused before anything is written. Before,
// the plan replaced the program's source.
func TestPlanSourceOutputIsASource(t *testing.T) {
	testenv.NeedClang(t)
	src := testenv.SourceFixture(t, "scan/safe.cu", t.TempDir(), "app.cu")
	before, _ := os.ReadFile(src)
	res := testenv.Echoctl(t, nil, "plan", "--source", src, streamTrace(t), "-o", src)
	if after, _ := os.ReadFile(src); string(after) != string(before) {
		t.Fatalf("app.cu was replaced by:\n%.200s", after)
	}
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "is the source file "+src+" itself") {
		t.Errorf("exit %d, stderr %q: want a refusal naming the source", res.ExitCode, res.Stderr)
	}
}

// A compile database in a parent directory that others may write is ignored, saying so, and
// the pair its -DQUIET hid is refused; every proof says the flags it assumed, in text and
// JSON. Before, the unsafe pair was "merged (mapped): S1-S4 hold".
func TestRewriteUntrustedDatabase(t *testing.T) {
	testenv.NeedClang(t)
	parent := t.TempDir()
	proj := filepath.Join(parent, "proj")
	src := testenv.SourceFixture(t, "hostile/quiet.cu", proj, "quiet.cu")
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	db := filepath.Join(parent, "compile_commands.json")
	os.WriteFile(db, []byte(`[{"directory": "`+proj+`", "file": "quiet.cu", "command": "nvcc -DQUIET -c quiet.cu"}]`), 0o666)
	os.Chmod(db, 0o666)
	// --strategy mapped: the question is whether the pair is merged (pinned, which keeps the
	// copies, may serve a refused pair).
	res := testenv.Echoctl(t, nil, "rewrite", "--strategy", "mapped", src)
	if !strings.Contains(res.Stderr, "main h_in/d_in: left as written: not merged (--strategy mapped): not proved safe: S1 refused") ||
		strings.Contains(res.Stderr, "h_in/d_in: merged") {
		t.Errorf("the pair -DQUIET hid was not refused:\n%s", res.Stderr)
	}
	for _, w := range []string{"ignoring " + db + ": it is outside " + proj + " and others may write it (mode 0666)",
		"proved for a build with no defines (no compile command names it)"} {
		if !strings.Contains(res.Stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, res.Stderr)
		}
	}
	res = testenv.Echoctl(t, nil, "rewrite", "--strategy", "mapped", "--compile-commands", db, src)
	if !strings.Contains(res.Stderr, "main h_in/d_in: merged") || !strings.Contains(res.Stderr, "proved for a build with -DQUIET (flags from "+db+")") {
		t.Errorf("named with --compile-commands, the database's build is proved and said:\n%s", res.Stderr)
	}
	res = testenv.Echoctl(t, nil, "--json", "rewrite", "--compile-commands", db, src)
	if !strings.Contains(res.Stdout, `"assumed_flags": [`) || !strings.Contains(res.Stdout, `"-DQUIET"`) {
		t.Errorf("--json does not carry the assumed flags:\n%s", res.Stdout)
	}
}
