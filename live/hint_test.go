package live

import (
	"os"
	"path/filepath"
	"testing"
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
		want    string
	}{
		{"a long loop made seconds long", []string{"/opt/app", "--size", "64M", "--iters", "100000000"}, "", 2,
			"sudo echoctl optimize -- /opt/app --size 64M --iters 1500"},
		{"the = form", []string{"/opt/app", "--num_steps=5000000"}, "", 30, "sudo echoctl optimize -- /opt/app --num_steps=100"},
		{"at least 10 iterations", []string{"/opt/app", "--epochs", "1000"}, "", 60000, "sudo echoctl optimize -- /opt/app --epochs 10"},
		{"never more than the program's own", []string{"/opt/app", "--iters", "7"}, "", 1, "sudo echoctl optimize -- /opt/app --iters 7"},
		{"no period known: as it ran", []string{"/opt/app", "--iters", "100000000"}, "", 0,
			"sudo echoctl optimize -- /opt/app --iters 100000000"},
		{"not a count", []string{"/opt/app", "--size", "100000000"}, "", 2, "sudo echoctl optimize -- /opt/app --size 100000000"},
		{"a file beside it: from its directory", []string{"/usr/bin/python3", "infer.py=x", "--model", "weights.bin"}, dir, 2,
			"cd " + dir + " && sudo echoctl optimize -- /usr/bin/python3 infer.py=x --model weights.bin"},
		{"no file there: from anywhere", []string{"/opt/app", "other.bin"}, dir, 2, "sudo echoctl optimize -- /opt/app other.bin"},
		{"quoted for the shell", []string{"/opt/my app/run", "--name", "it's"}, "", 2, `sudo echoctl optimize -- '/opt/my app/run' --name 'it'\''s'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := optimizeHint(c.command, c.cwd, c.iterMS); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
