package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestSourceCorpusRoundTrip runs the source path's verdict corpus (testdata/source/corpus,
// README.md there) on the emulator: every program whose .expect says `emulator` is built as
// written and after `rewrite -w --strategy mapped` (a merge: the device side is the host
// side's memory, so a merged pair whose kernel writes what the host reads changes the output),
// and run with kernels slowed (an ordering the rewrite lost would show). Both print the
// checksum the .expect records. A pair the .expect declines is never changed.
func TestSourceCorpusRoundTrip(t *testing.T) {
	testenv.Long(t)
	testenv.NeedClang(t)
	root, _ := filepath.Abs("../..")
	corpus := filepath.Join(root, "testdata", "source", "corpus")
	files, _ := filepath.Glob(filepath.Join(corpus, "*.cu"))
	ran := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".cu")
		expect, err := os.ReadFile(filepath.Join(corpus, name+".expect"))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^emulator\s*$`).Match(expect) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			want := regexp.MustCompile(`(?m)^checksum (\S+)\s*$`).FindSubmatch(expect)
			if want == nil {
				t.Fatalf("%s.expect records no checksum", name)
			}
			dir := corpusWorkdir(t, name+".cu")
			rel := "testdata/source/corpus/" + name + ".cu"
			written := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), written)
			if got := checksum(t, written); got != "checksum="+string(want[1]) {
				t.Fatalf("as written it prints %s, the .expect records checksum=%s", got, want[1])
			}
			out, notes, err := runRewriteCLI(t, dir, "-w", "--json", "--strategy", "mapped", rel)
			if err != nil {
				t.Fatalf("rewrite -w --json: %v\n%s", err, notes)
			}
			var doc rewriteVerdicts
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 {
				t.Fatalf("rewrite --json: %v\n%s", err, out)
			}
			changed := 0
			for _, p := range doc.Files[0].Pairs {
				declined := regexp.MustCompile(`(?m)^pair (\S+:)?` + regexp.QuoteMeta(p.Host+"/"+p.Device) + ` declined`).Match(expect)
				if p.Changed && declined {
					t.Errorf("%s/%s is declined in %s.expect, and the rewrite changed it", p.Host, p.Device, name)
				}
				if p.Changed {
					changed++
				}
			}
			rewritten := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), rewritten)
			if got := checksum(t, rewritten); got != "checksum="+string(want[1]) {
				src, _ := os.ReadFile(filepath.Join(dir, rel))
				t.Errorf("rewritten (%d pairs merged) it prints %s, as written checksum=%s:\n%s", changed, got, want[1], src)
			}
			t.Logf("%d of %d pairs merged", changed, len(doc.Files[0].Pairs))
		})
	}
	if ran < 10 {
		t.Errorf("%d corpus programs run on the emulator, want every one the corpus marks", ran)
	}
}

// corpusWorkdir copies a corpus program, the corpus header and the workloads' kernel.h into a
// temporary tree laid out as the repository's.
func corpusWorkdir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	copyInto(t, dir, "testdata/source/corpus/"+name, "testdata/source/corpus/corpus.h", "testdata/workloads/kernel.h")
	return dir
}
