package procfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseMapsLine(t *testing.T) {
	const lib = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	cases := []struct {
		name string
		line string
		want Mapping
		err  bool
	}{
		{"padded path", "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1835245                    " + lib,
			Mapping{Start: 0x7f1c2a000000, End: 0x7f1c2a028000, Perms: "r--p", Dev: "08:01", Inode: 1835245, Path: lib}, false},
		{"executable", "7f1c2a028000-7f1c2a1bd000 r-xp 00028000 08:01 1835245 " + lib,
			Mapping{Start: 0x7f1c2a028000, End: 0x7f1c2a1bd000, Perms: "r-xp", Offset: 0x28000, Dev: "08:01", Inode: 1835245, Path: lib}, false},
		{"space in a directory", "7f00a0000000-7f00a0100000 r-xp 00001000 fd:00 42                         /opt/my cuda/lib/libcudart.so.12",
			Mapping{Start: 0x7f00a0000000, End: 0x7f00a0100000, Perms: "r-xp", Offset: 0x1000, Dev: "fd:00", Inode: 42, Path: "/opt/my cuda/lib/libcudart.so.12"}, false},
		{"two spaces in a row and one at the end", "1000-2000 r-xp 00000000 fd:00 43 /opt/a  b/lib x.so ",
			Mapping{Start: 0x1000, End: 0x2000, Perms: "r-xp", Dev: "fd:00", Inode: 43, Path: "/opt/a  b/lib x.so "}, false},
		{"deleted", "7f1c2a400000-7f1c2a401000 r--p 00000000 08:01 99 /tmp/gone lib.so (deleted)",
			Mapping{Start: 0x7f1c2a400000, End: 0x7f1c2a401000, Perms: "r--p", Dev: "08:01", Inode: 99, Path: "/tmp/gone lib.so", Deleted: true}, false},
		{"escaped newline", `1000-2000 r-xp 00000000 fd:00 44 /tmp/a\012b.so`,
			Mapping{Start: 0x1000, End: 0x2000, Perms: "r-xp", Dev: "fd:00", Inode: 44, Path: "/tmp/a\nb.so"}, false},
		{"device file", "7f0000000000-7f0000001000 rw-s 00000000 00:05 1120 /dev/nvidiactl",
			Mapping{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "rw-s", Dev: "00:05", Inode: 1120, Path: "/dev/nvidiactl"}, false},
		{"heap", "55d4c1a00000-55d4c1a21000 rw-p 00000000 00:00 0                          [heap]",
			Mapping{Start: 0x55d4c1a00000, End: 0x55d4c1a21000, Perms: "rw-p", Dev: "00:00", Path: "[heap]"}, false},
		{"named anonymous", "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 [anon:my (deleted)]",
			Mapping{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "rw-p", Dev: "00:00", Path: "[anon:my (deleted)]"}, false},
		{"anonymous, trailing space", "7f1c2a400000-7f1c2a401000 rw-p 00000000 00:00 0 ",
			Mapping{Start: 0x7f1c2a400000, End: 0x7f1c2a401000, Perms: "rw-p", Dev: "00:00"}, false},
		{"anonymous", "7f1c2a400000-7f1c2a401000 rw-p 00000000 00:00 0",
			Mapping{Start: 0x7f1c2a400000, End: 0x7f1c2a401000, Perms: "rw-p", Dev: "00:00"}, false},
		{"too few fields", "7f1c2a400000-7f1c2a401000 rw-p 00000000 00:00", Mapping{}, true},
		{"no range", "7f1c2a400000 rw-p 00000000 00:00 0", Mapping{}, true},
		{"bad inode", "1000-2000 rw-p 00000000 00:00 x /a", Mapping{}, true},
		{"bad device", "1000-2000 rw-p 00000000 0000 1 /a", Mapping{}, true},
		{"garbage", "garbage", Mapping{}, true},
		{"empty", "", Mapping{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseMapsLine(c.line)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("ParseMapsLine(%q) = %+v, %v; want %+v, error %v", c.line, got, err, c.want, c.err)
			}
		})
	}
}

func TestMappingKinds(t *testing.T) {
	cases := []struct {
		line       string
		exec, file bool
	}{
		{"1000-2000 r-xp 00000000 fd:00 43 /opt/a b/x.so", true, true},
		{"1000-2000 r--p 00000000 fd:00 43 /opt/a b/x.so", false, true},
		{"1000-2000 r-xp 00000000 00:00 0 [vdso]", true, false},
		{"1000-2000 rw-p 00000000 00:00 0", false, false},
	}
	for _, c := range cases {
		m, err := ParseMapsLine(c.line)
		if err != nil || m.Exec() != c.exec || m.File() != c.file {
			t.Errorf("%q: Exec %v File %v (%v); want %v %v", c.line, m.Exec(), m.File(), err, c.exec, c.file)
		}
	}
}

// A line the parser cannot read costs that line only, not the libraries after it.
func TestParseMapsSkipsBadLines(t *testing.T) {
	text := "1000-2000 r-xp 00000000 fd:00 1 /a b.so\nnonsense\n3000-4000 r-xp 00000000 fd:00 2 /c.so\n"
	maps, err := ParseMaps(strings.NewReader(text))
	if err != nil || len(maps) != 2 || maps[0].Path != "/a b.so" || maps[1].Path != "/c.so" {
		t.Fatalf("ParseMaps = %+v, %v; want /a b.so and /c.so", maps, err)
	}
}

// The kernel's own text: a real process that maps a file whose directory has spaces in its
// name (a copy of this test's executable, run from there) is seen to map it by that path.
func TestMapsOfProcessUnderPathWithSpaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my  cuda dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "sleep copy")
	data, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skipf("no /bin/sleep to copy: %v", err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid

	// exec is seen in steps: the exe link names the copy first, the image is mapped and the
	// arguments written a moment later. Poll until the arguments are there (exec has finished
	// with the new mm by then) or time runs out, then read the maps.
	var args []string
	for range 300 {
		if path, _, err := Exe(pid); err == nil && path == exe {
			if args, err = Cmdline(pid); err == nil && len(args) > 0 {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(args) != 2 || args[0] != exe || args[1] != "30" {
		t.Errorf("Cmdline = %q; want [%q 30]", args, exe)
	}
	maps, err := Maps(pid)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range maps {
		if m.Path == exe && m.Exec() && m.File() {
			found = true
		}
	}
	if !found {
		t.Fatalf("process %d's maps have no executable mapping of %q: %+v", pid, exe, maps)
	}
	if st, err := State(pid); err != nil || st == 'Z' || st == 'X' {
		t.Errorf("State = %c, %v; want a live state", st, err)
	}
}
