package rewrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A diff of a file with any name applies with git apply: names with spaces, tabs, newlines,
// quotes, backslashes, non-ASCII UTF-8 and bytes that are not UTF-8 (git's own quoting rules).
// Before, the header was written raw: a newline in the name broke the patch in two, and git
// apply took a quote or a backslash as the start of a quoted name.
func TestUnifiedDiffOddNamesApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, name := range []string{"plain.cu", "with space.cu", "tab\there.cu", "new\nline.cu", `quo"te.cu`,
		`back\slash.cu`, "café.cu", "bad\xff\xfe.cu", "\x01ctl.cu", "sub dir/x.cu"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		before, after := "int a;\nint b;\n", "int a;\nint c;\n"
		if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "apply", "-")
		cmd.Dir = dir
		diff := UnifiedDiff(name, []byte(before), []byte(after))
		cmd.Stdin = strings.NewReader(diff)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%q: git apply: %v\n%s\n%s", name, err, out, diff)
			continue
		}
		if b, _ := os.ReadFile(path); string(b) != after {
			t.Errorf("%q: after git apply the file holds %q", name, b)
		}
	}
}
