package live

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

func TestOptimizeHint(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		command []string
		cwd     string
		iterMS  float64
		ignore  string
		want    string
	}{
		{"a long loop made seconds long", []string{"/opt/app", "--size", "64M", "--iters", "100000000"}, "", 2, "",
			"sudo echoctl optimize -- /opt/app --size 64M --iters 1500"},
		{"the = form", []string{"/opt/app", "--num_steps=5000000"}, "", 30, "", "sudo echoctl optimize -- /opt/app --num_steps=100"},
		{"at least 10 iterations", []string{"/opt/app", "--epochs", "1000"}, "", 60000, "", "sudo echoctl optimize -- /opt/app --epochs 10"},
		{"never more than the program's own", []string{"/opt/app", "--iters", "7"}, "", 1, "", "sudo echoctl optimize -- /opt/app --iters 7"},
		{"no period known: as it ran", []string{"/opt/app", "--iters", "100000000"}, "", 0, "",
			"sudo echoctl optimize -- /opt/app --iters 100000000"},
		{"not a count", []string{"/opt/app", "--size", "100000000"}, "", 2, "", "sudo echoctl optimize -- /opt/app --size 100000000"},
		{"a file beside it: from its directory", []string{"/usr/bin/python3", "infer.py=x", "--model", "weights.bin"}, dir, 2, "",
			"cd " + dir + " && sudo echoctl optimize -- /usr/bin/python3 infer.py=x --model weights.bin"},
		{"no file there: from anywhere", []string{"/opt/app", "other.bin"}, dir, 2, "", "sudo echoctl optimize -- /opt/app other.bin"},
		{"the program's timing lines left out of the comparison", []string{"/opt/app", "--iters", "5"}, "", 2, "^iter_ms=",
			"sudo echoctl optimize --ignore '^iter_ms=' -- /opt/app --iters 5"},
		{"quoted for the shell", []string{"/opt/my app/run", "--name", "it's"}, "", 2, "", `sudo echoctl optimize -- '/opt/my app/run' --name 'it'\''s'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := optimizeHint(c.command, c.cwd, c.iterMS, c.ignore); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A format that prints a timing gives the literal text its lines start with; others none.
func TestTimingPrefix(t *testing.T) {
	cases := []struct {
		format, want string
	}{
		{"iter_ms=%.4f", "iter_ms="},
		{"Kernel time: %f ms", "Kernel time: "},
		{"elapsed %8.3lf s", "elapsed "},
		{"Processing time (s): %e", "Processing time (s): "},
		{"iter %d: %.3f us", "iter "},
		{"checksum=%016llx", ""},      // no floating-point number
		{"size=%.1f MiB", ""},         // no word of time
		{"%.3f ms per iteration", ""}, // nothing literal before it
		{"items=%f", ""},              // "s" inside a word is no unit
		{"timeout", ""},
		{"\t    cc1 -fpreprocessed %f s", ""}, // a compiler's spec string, not a line
		{"Z\x1cZWZ time %f", ""},              // binary data that happens to hold a %f
	}
	for _, c := range cases {
		got, ok := timingPrefix(c.format)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("timingPrefix(%q) = %q, %v; want %q", c.format, got, ok, c.want)
		}
	}
}

// The workloads print their timing as iter_ms=: the hint for one of them carries
// --ignore '^iter_ms=', as the README's optimize commands do. A file that is no ELF gives none.
func TestTimingIgnoreOfAWorkload(t *testing.T) {
	stream := testenv.Built(t, "workloads/stream")
	if got := timingIgnore(stream, stream); got != "^iter_ms=" {
		t.Errorf("timingIgnore(stream) = %q, want ^iter_ms=", got)
	}
	// An interpreter's formats are its own, not its script's.
	if got := timingIgnore(stream, "/usr/bin/python3.11"); got != "" {
		t.Errorf("timingIgnore of an interpreter = %q, want none", got)
	}
	script := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'time=%f ms'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := timingIgnore(script, script); got != "" {
		t.Errorf("timingIgnore(a script) = %q, want none", got)
	}
}
