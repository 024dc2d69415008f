package outfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func write(t *testing.T, path, data string, stdout io.Writer) {
	t.Helper()
	if err := WriteFile(path, []byte(data), stdout); err != nil {
		t.Fatal(err)
	}
}

func contents(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers fails unless dir holds exactly the files want names, in ReadDir's (sorted)
// order: no temporary file is left behind.
func leftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, want) {
		t.Errorf("%s holds %v, want %v", dir, names, want)
	}
}

// Errors name the output, not the temporary file beside it.
func TestErrorNamesTheOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "app.plan")
	err := WriteFile(path, nil, nil)
	if err == nil || err.Error() != "writing "+path+": no such file or directory" {
		t.Errorf("WriteFile into a missing directory: %v", err)
	}
}

func TestStdout(t *testing.T) {
	var out bytes.Buffer
	write(t, "-", "plan", &out)
	if out.String() != "plan" {
		t.Errorf("stdout got %q", out.String())
	}
}

func TestRegularFileReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.plan")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("half"))
	if got := contents(t, path); got != "old" {
		t.Errorf("before Commit the file holds %q, want the old contents", got)
	}
	o.Abort()
	if got := contents(t, path); got != "old" {
		t.Errorf("after Abort the file holds %q, want the old contents", got)
	}
	leftovers(t, dir, "app.plan")
	write(t, path, "new", nil)
	st, _ := os.Stat(path)
	if got := contents(t, path); got != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("after Commit: %q, mode %v; want new, 0600 kept", got, st.Mode().Perm())
	}
	leftovers(t, dir, "app.plan")
	fresh := filepath.Join(dir, "fresh.plan")
	write(t, fresh, "x", nil)
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v, want 0644", st.Mode().Perm())
	}
}

func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.plan")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.plan")
	os.Symlink("real.plan", link)
	write(t, link, "new", nil)
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got := contents(t, target); got != "new" {
		t.Errorf("the link's target holds %q, want new", got)
	}
	dangling := filepath.Join(dir, "dangling.plan")
	os.Symlink("made.plan", dangling)
	write(t, dangling, "made", nil)
	if got := contents(t, filepath.Join(dir, "made.plan")); got != "made" {
		t.Errorf("a dangling link's target holds %q", got)
	}
}

func TestFIFOWrittenInPlace(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	write(t, fifo, "through the pipe", nil)
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// A device node stays a device node (as root, `-o /dev/null` replaced /dev/null). The test
// makes its own null device rather than risk the machine's.
func TestDeviceWrittenInPlace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node needs root (CI runs as root)")
	}
	null := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	write(t, null, "gone", nil)
	if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device node was replaced by %v (%v)", st.Mode(), err)
	}
	leftovers(t, filepath.Dir(null), "null")
}

func TestNotAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.bin")
	os.WriteFile(in, nil, 0o644)
	link := filepath.Join(dir, "alias")
	os.Symlink(in, link)
	if err := NotAnInput(link, "the trace", in); err == nil || err.Error() != "-o "+link+" is the trace itself: give another output file" {
		t.Errorf("an output that is the input through a link: %v", err)
	}
	if err := NotAnInput(filepath.Join(dir, "out"), "the trace", in); err != nil {
		t.Error(err)
	}
	if err := NotAnInput("-", "the trace", in); err != nil {
		t.Error(err)
	}
}

// A descriptor's name (/dev/stdout, /dev/fd/N, /proc/self/fd/N) that stands for a pipe is
// written in place: its link's text, "pipe:[…]", is no path to make a file beside.
func TestDescriptorPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	err = WriteFile(path, []byte("plan"), nil)
	w.Close()
	got, _ := io.ReadAll(r)
	if err != nil || string(got) != "plan" {
		t.Errorf("WriteFile(%s) of a pipe: %v; the reader got %q", path, err, got)
	}
}
