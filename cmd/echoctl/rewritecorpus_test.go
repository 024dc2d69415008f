package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// rewriteVerdicts is what the round trip reads of `rewrite --json`: which pairs were changed,
// and how.
type rewriteVerdicts struct {
	Files []struct {
		Pairs []struct {
			Host, Device string
			Changed      bool
			Strategy     string
		}
	}
}

// memcpyCalls traces exe with args and counts its cudaMemcpy calls.
func memcpyCalls(t *testing.T, exe string, args []string) int {
	t.Helper()
	tr := filepath.Join(t.TempDir(), "trace.bin")
	if res := testenv.Echoctl(t, nil, append([]string{"trace", "-o", tr, "--", exe}, args...)...); res.ExitCode != 0 {
		t.Fatalf("trace %s: exit %d: %s", exe, res.ExitCode, res.Stderr)
	}
	res := testenv.Echoctl(t, nil, "stats", "--json", tr)
	var st struct{ Calls map[string]int }
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, res.Stdout)
	}
	return st.Calls["cudaMemcpy"]
}

// TestRewriteCorpusRoundTrip is the source path over the corpus (issue 28): every workload
// where rewrite proves a pair is rewritten in place (-w), built for the emulator as the
// Makefile builds workloads, and run with kernels slowed (an ordering the rewrite lost would
// show): it prints the checksum it printed as written. Traced, the rewritten program makes no
// linking copy where every pair was merged, and fewer, but the other pairs' copies, where
// some pair was pinned (its copies kept) or left as written. The unsafe twins' unsafe pairs
// are not merged (TestRewriteUnsafeUntouched, source's TestProveCorpus); their safe pairs are
// merged here, and pinned pairs keep their copies.
func TestRewriteCorpusRoundTrip(t *testing.T) {
	testenv.Long(t)
	testenv.NeedClang(t)
	testenv.RequireRoot(t)
	args := []string{"--size", "1M", "--iters", "5", "--warmup", "1"}
	for _, name := range []string{"stream", "compute", "memset", "pipeline",
		"unsafe_sync_wait", "unsafe_live_value", "unsafe_lifetime", "unsafe_memset_read"} {
		t.Run(name, func(t *testing.T) {
			rel := "testdata/workloads/" + name + ".cu"
			dir := workdir(t, name+".cu")
			written := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), written)
			out, notes, err := runRewriteCLI(t, dir, "--json", rel)
			if err != nil {
				t.Fatalf("rewrite --json: %v\n%s", err, notes)
			}
			var doc rewriteVerdicts
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 {
				t.Fatalf("rewrite --json: %v\n%s", err, out)
			}
			changed, merged := 0, 0
			for _, p := range doc.Files[0].Pairs {
				if p.Changed {
					changed++
				}
				if p.Strategy == "mapped" || p.Strategy == "managed" {
					merged++
				}
			}
			if changed == 0 {
				t.Fatalf("rewrite proved no pair of %s:\n%s", name, out)
			}
			if _, notes, err := runRewriteCLI(t, dir, "-w", rel); err != nil {
				t.Fatalf("rewrite -w: %v\n%s", err, notes)
			}
			src, _ := os.ReadFile(filepath.Join(dir, rel))
			if !strings.Contains(string(src), "echo: ") {
				t.Fatalf("rewrite -w left %s without its comments:\n%s", rel, src)
			}
			rewritten := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), rewritten)
			if got, want := checksum(t, rewritten), checksum(t, written); got != want {
				t.Errorf("rewritten prints %s, as written %s", got, want)
			}
			before, after := memcpyCalls(t, written, args), memcpyCalls(t, rewritten, args)
			pairs := len(doc.Files[0].Pairs)
			if all := merged == pairs; all && after != 0 || !all && merged > 0 && (after == 0 || after >= before) || merged == 0 && after != before {
				t.Errorf("traced: %d cudaMemcpy calls as written, %d rewritten, with %d of %d pairs merged; want none left "+
					"when every pair is merged, else fewer but the other pairs' copies", before, after, merged, pairs)
			}
		})
	}
}
