package tracer

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/procfs"
	"github.com/echo-uma/echo/trace"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		path string
		want kind
		ok   bool
	}{
		{"/usr/local/cuda/lib64/libcudart.so.12.4.127", kindRuntime, true},
		{"/opt/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", kindRuntime, true},
		{"/opt/venv/lib/python3.11/site-packages/torch/lib/libcudart-1a2b3c4d.so.12", kindRuntime, true},
		{"/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", kindDriver, true},
		{"/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1", kindDriver, true},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", kindLibc, true},
		{"/lib/libc-2.31.so", kindLibc, true},
		{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", kindLibstdcxx, true},
		{"/lib64/ld-linux-x86-64.so.2", kindLoader, true},
		{"/lib/ld-linux-aarch64.so.1", kindLoader, true},
		{"/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0, false},
		{"/usr/lib/x86_64-linux-gnu/libcublas.so.12", 0, false},
		{"/usr/lib/x86_64-linux-gnu/libcrypto.so.3", 0, false},
	}
	for _, c := range cases {
		got, ok := classify(c.path)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("classify(%s) = %v, %v; want %v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

// The tracer probes files it can open by path: a library under a directory with spaces is
// one, a deleted file or anonymous memory is none.
func TestFileMappings(t *testing.T) {
	cases := []struct {
		line string
		want []mapping
	}{
		{"7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1835245                    /usr/lib/x86_64-linux-gnu/libc.so.6",
			[]mapping{{0x7f1c2a000000, 0x7f1c2a028000, 0, "08:01", 1835245, "/usr/lib/x86_64-linux-gnu/libc.so.6", false}}},
		{"7f1c2a028000-7f1c2a1bd000 r-xp 00028000 08:01 1835245 /usr/lib/x86_64-linux-gnu/libc.so.6",
			[]mapping{{0x7f1c2a028000, 0x7f1c2a1bd000, 0x28000, "08:01", 1835245, "/usr/lib/x86_64-linux-gnu/libc.so.6", true}}},
		{"7f00a0000000-7f00a0100000 r-xp 00001000 fd:00 42                         /opt/my cuda/lib/libcudart.so.12",
			[]mapping{{0x7f00a0000000, 0x7f00a0100000, 0x1000, "fd:00", 42, "/opt/my cuda/lib/libcudart.so.12", true}}},
		{"7f0000000000-7f0000001000 rw-s 00000000 00:05 1120 /dev/nvidiactl",
			[]mapping{{0x7f0000000000, 0x7f0000001000, 0, "00:05", 1120, "/dev/nvidiactl", false}}},
		{"55d4c1a00000-55d4c1a21000 rw-p 00000000 00:00 0                          [heap]", nil},
		{"7ffd3b1f0000-7ffd3b1f2000 r-xp 00000000 00:00 0                          [vdso]", nil},
		{"7f1c2a400000-7f1c2a401000 r--p 00000000 08:01 99 /tmp/gone.so (deleted)", nil},
		{"7f1c2a400000-7f1c2a401000 rw-p 00000000 00:00 0", nil},
	}
	for _, c := range cases {
		all, err := procfs.ParseMaps(strings.NewReader(c.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := fileMappings(all); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fileMappings(%q) = %+v; want %+v", c.line, got, c.want)
		}
	}
}

// A file mapped without execute permission is no module, wherever its mappings lie: the
// driver's /dev/nvidia* mappings around a library once hid it, and its sites became raw
// addresses.
func TestModulesSkipDataMappings(t *testing.T) {
	const lib, dev = "/usr/lib/libtorch_cuda.so", "/dev/nvidia-uvm"
	maps := []mapping{
		{0x7f0000000000, 0x7f0000001000, 0, "00:05", 7, dev, false},
		{0x7f1000000000, 0x7f1000100000, 0, "08:01", 9, lib, false},
		{0x7f1000100000, 0x7f1000900000, 0x100000, "08:01", 9, lib, true},
		{0x7f2000000000, 0x7f2000001000, 0, "00:05", 7, dev, false},
	}
	mods := newModules().of(os.Getpid(), maps)
	if len(mods) != 1 || mods[0].Path != lib || mods[0].Start != 0x7f1000000000 || mods[0].End != 0x7f1000900000 {
		t.Fatalf("modules %+v; want the library alone", mods)
	}
	table := trace.NewModules(mods)
	if site, ok := table.Resolve(os.Getpid(), 0x7f1000100010); !ok || site.Offset != 0x100010 {
		t.Errorf("a return address in the library resolves to %+v, %v", site, ok)
	}
}

func TestParseForkFormat(t *testing.T) {
	format := `name: sched_process_fork
ID: 313
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:__data_loc char[] parent_comm;	offset:8;	size:4;	signed:0;
	field:pid_t parent_pid;	offset:12;	size:4;	signed:1;
	field:__data_loc char[] child_comm;	offset:16;	size:4;	signed:0;
	field:pid_t child_pid;	offset:20;	size:4;	signed:1;
`
	parent, child, err := parseForkFormat(format)
	if err != nil || parent != 12 || child != 20 {
		t.Errorf("parseForkFormat = %d, %d, %v; want 12, 20 (newer kernels moved the fields)", parent, child, err)
	}
	if _, _, err := parseForkFormat("name: sched_process_fork\nformat:\n"); err == nil {
		t.Error("a format without the pid fields was accepted")
	}
}
