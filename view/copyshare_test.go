package view

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// COPY% means one thing: the help legend's words are the README's and docs/metrics.md's,
// and none of them calls it the time inside copy calls (stats' copy share, which counts a
// synchronous copy's wait for kernels).
func TestCopyShareMeansOneThing(t *testing.T) {
	legend := strings.Join(Model{help: true}.helpLines(), "\n")
	if !strings.Contains(legend, "COPY%  "+CopyShareMeaning) {
		t.Fatalf("the help legend does not define COPY%% as %q:\n%s", CopyShareMeaning, legend)
	}
	for _, doc := range []string{"README.md", "docs/metrics.md", "docs/json.md"} {
		b, err := os.ReadFile(filepath.Join("..", doc))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ") // a sentence may wrap anywhere
		if !strings.Contains(text, CopyShareMeaning) {
			t.Errorf("%s does not define COPY%% as the help legend does: %q", doc, CopyShareMeaning)
		}
		for _, other := range []string{"COPY%, the share of wall time inside", "COPY% share of wall time with a thread inside"} {
			if strings.Contains(text, other) {
				t.Errorf("%s gives COPY%% another meaning: %q", doc, other)
			}
		}
	}
}
