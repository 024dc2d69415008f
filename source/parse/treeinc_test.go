package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSourceBytes: a unit's bytes with those of every tree file it reaches through its
// includes, found beside the includer or by name elsewhere in the tree, each once (a cycle
// and a header included twice count once), and nothing for a header the tree lacks.
func TestSourceBytes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"app/main.cu":          "#include \"a.h\"\n#include \"helper_cuda.h\"\n#include <vector>\n#include \"a.h\"\n",
		"app/a.h":              "#include \"b.h\"\nint a;\n",
		"app/b.h":              "#include \"a.h\"\nint b;\n",
		"common/helper_cuda.h": "int helper;\n",
		"common/unused.h":      "int unused;\n",
	}
	writeTree(t, root, files)
	unit := filepath.Join(root, "app/main.cu")
	idx := IndexTree(root, []string{unit}, Limits{})
	want := int64(0)
	for _, name := range []string{"app/main.cu", "app/a.h", "app/b.h", "common/helper_cuda.h"} {
		want += int64(len(files[name]))
	}
	if got := idx.SourceBytes(unit); got != want {
		t.Errorf("SourceBytes = %d, want %d", got, want)
	}
}

// writeTree writes files, by their paths under root, with their directories.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
