package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/sourcereport"
)

// runWorkload runs exe with args and extra environment and returns its checksum= line; the
// test fails where it exits other than 0.
func runWorkload(t *testing.T, exe string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %s %s with %v: %v\n%s", exe, strings.Join(args, " "), env, err, out)
	}
	m := regexp.MustCompile(`checksum=\S+`).FindString(string(out))
	if m == "" {
		t.Fatalf("%s printed no checksum= line:\n%s", exe, out)
	}
	return m
}

// copyInto copies the repository's files rel (paths from its root) into a tree at dir.
func copyInto(t *testing.T, dir string, rel ...string) {
	t.Helper()
	for _, r := range rel {
		b, err := os.ReadFile(filepath.Join("../..", r))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(r)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rewriteInPlace rewrites rel in dir with args (-w) and returns what --json said of each pair.
func rewriteInPlace(t *testing.T, dir, rel string, args ...string) sourcereport.RewriteDoc {
	t.Helper()
	js, notes, err := runRewriteCLI(t, dir, append(append([]string{"--json"}, args...), rel)...)
	if err != nil {
		t.Fatalf("rewrite --json %v: %v\n%s", args, err, notes)
	}
	var doc sourcereport.RewriteDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Files) != 1 {
		t.Fatalf("rewrite --json: %v\n%s", err, js)
	}
	if _, notes, err := runRewriteCLI(t, dir, append(append([]string{"-w"}, args...), rel)...); err != nil {
		t.Fatalf("rewrite -w %v: %v\n%s", args, err, notes)
	}
	return doc
}

// TestRewriteFreesWhatTheOriginalFreed (issue 39, the leak): repeated_solve, in the shape of
// Rodinia's hotspot, leaks its host power map and frees the device's, once per solve. Merged,
// the one buffer must be freed where the device side was: run with the emulator's memory
// limit at four buffers, a rewrite that leaks it (as the rewrite did before) runs out by the
// third solve and the program stops with "out of host memory". Pinned leaks the page-locked
// map as the original leaked the pageable one (nothing freed it), and prints the same; it runs
// without the limit, since the emulator counts page-locked memory against it, as a GPU with
// memory of its own would not.
func TestRewriteFreesWhatTheOriginalFreed(t *testing.T) {
	testenv.NeedClang(t)
	const rel = "testdata/source/rewrite/repeated_solve.cu"
	files := []string{rel, "testdata/workloads/workload.h", "testdata/workloads/kernel.h"}
	orig := t.TempDir()
	copyInto(t, orig, files...)
	buildWorkload(t, filepath.Join(orig, rel), filepath.Join(orig, "solve"))
	env := []string{"CUDA_EMU_MEM_LIMIT=4M"}
	args := []string{"--size", "1M", "--iters", "4", "--warmup", "0"}
	want := runWorkload(t, filepath.Join(orig, "solve"), env, args...)
	for _, c := range []struct{ ask, want string }{{"mapped", "mapped"}, {"managed", "managed"}, {"pinned", "pinned"}, {"auto", "pinned"}} {
		t.Run(c.ask, func(t *testing.T) {
			dir := t.TempDir()
			copyInto(t, dir, files...)
			doc := rewriteInPlace(t, dir, rel, "--strategy", c.ask)
			// power/d_power is the pair; temp's device side is an array element, a pair
			// declined by its construct and left as written.
			served := 0
			for _, p := range doc.Files[0].Pairs {
				switch {
				case p.Host == "power" && p.Strategy == c.want:
					served++
				case p.Changed:
					t.Errorf("--strategy %s: %s/%s rewritten (%s), want only power/d_power", c.ask, p.Host, p.Device, p.Strategy)
				}
			}
			if served != 1 {
				t.Fatalf("--strategy %s: pairs %+v, want power/d_power %s", c.ask, doc.Files[0].Pairs, c.want)
			}
			src, _ := os.ReadFile(filepath.Join(dir, rel))
			if c.want != "pinned" && !regexp.MustCompile(`cudaDeviceSynchronize\(\), cudaFree(Host)?\(d_power\)`).Match(src) {
				t.Errorf("the device side's free does not free the merged buffer:\n%s", src)
			}
			if c.want == "pinned" && strings.Contains(string(src), "echo_pinned_free(power") {
				t.Errorf("pinned frees the power map the original never freed:\n%s", src)
			}
			exe := filepath.Join(dir, "solve")
			buildWorkload(t, filepath.Join(dir, rel), exe)
			limit := env
			if c.want == "pinned" {
				limit = nil
			}
			if got := runWorkload(t, exe, limit, args...); got != want {
				t.Errorf("rewritten (%s) prints %s, as written %s", c.ask, got, want)
			}
		})
	}
}

// TestRewritePinnedRoundTrip: every corpus workload with a pair pinned (--strategy pinned)
// builds and prints the checksum it prints as written, its kernels slowed so that a copy that
// returned before its data moved would show; and with the first runtime allocation failing
// (CUDA_EMU_FAIL_ALLOC=1: page-locked memory exhausted at once), echo_pinned_alloc falls back
// to malloc and clears the error, and stream still prints what it printed.
func TestRewritePinnedRoundTrip(t *testing.T) {
	testenv.Long(t)
	testenv.NeedClang(t)
	pinned := 0
	for _, name := range []string{"stream", "compute", "memset", "pipeline", "unsafe_live_value", "unsafe_ptr_identity"} {
		t.Run(name, func(t *testing.T) {
			rel := "testdata/workloads/" + name + ".cu"
			dir := workdir(t, name+".cu")
			written := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), written)
			doc := rewriteInPlace(t, dir, rel, "--strategy", "pinned")
			n := 0
			for _, p := range doc.Files[0].Pairs {
				switch {
				case p.Strategy == "pinned":
					n++
				case p.Changed:
					t.Errorf("%s/%s changed with %q under --strategy pinned", p.Host, p.Device, p.Strategy)
				}
			}
			if n == 0 {
				return
			}
			pinned += n
			rewritten := filepath.Join(t.TempDir(), name)
			buildWorkload(t, filepath.Join(dir, rel), rewritten)
			if got, want := checksum(t, rewritten), checksum(t, written); got != want {
				t.Errorf("pinned prints %s, as written %s", got, want)
			}
			if name == "stream" {
				args := []string{"--size", "1M", "--iters", "3", "--warmup", "0"}
				want := runWorkload(t, written, nil, args...)
				if got := runWorkload(t, rewritten, []string{"CUDA_EMU_FAIL_ALLOC=1"}, args...); got != want {
					t.Errorf("pinned, page-locked memory exhausted: prints %s, as written %s", got, want)
				}
			}
		})
	}
	if pinned < 4 {
		t.Errorf("%d pairs pinned over the corpus, want at least 4 (stream's two, pipeline's, the unsafe twins')", pinned)
	}
}
