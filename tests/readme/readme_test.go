// Package readme runs the README's commands, and those of the reference parts under docs/, as
// a user would type them.
package readme

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// The README's commands run as written: every ```sh block, in the README's order and then in
// each of docs/*.md's (the README's reference parts, which may use what it made), in one
// fresh directory with the source tree's build/ beside it (the workloads they name) and
// echoctl on PATH, as after `make install`. Blocks fenced ```console are for reading only
// (they build, install, attach to a PID or need a launcher). As root, `sudo` is the command
// itself, as on CI.
func TestReadmeCommands(t *testing.T) {
	testenv.Long(t)
	testenv.RequireRoot(t)
	root := testenv.Root(t)
	blocks := shellBlocks(t, root, "README.md")
	if len(blocks) < 8 {
		t.Fatalf("%d sh blocks in README.md: want the pipeline's commands", len(blocks))
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs { // Glob sorts
		blocks = append(blocks, shellBlocks(t, root, filepath.Join("docs", filepath.Base(doc)))...)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Dir(filepath.Dir(testenv.Built(t, "bin/echoctl"))), filepath.Join(dir, "build")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testenv.Built(t, "bin/echoctl"), filepath.Join(bin, "echoctl")); err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", "sudo() { \"$@\"; }\n"+b.text)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s:%d:\n%s\nfailed: %v\n%s", b.file, b.line, b.text, err, out)
		}
	}
}

type block struct {
	file string // relative to the source tree
	line int    // of the opening fence
	text string
}

// shellBlocks are a Markdown file's ```sh blocks in order.
func shellBlocks(t *testing.T, root, rel string) []block {
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &block{file: rel, line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}
