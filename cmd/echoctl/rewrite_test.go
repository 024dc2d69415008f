package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/sourcereport"
)

// The source path's round trip through the CLI: rewrite a workload, apply the diff, build
// the result for the emulator as the Makefile builds workloads, and run both.

// runRewriteCLI runs echoctl rewrite in dir, standard output and error apart, for a discrete
// GPU unless args say otherwise (auto would ask this machine's).
func runRewriteCLI(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	headers, _ := filepath.Abs(filepath.Join(wd, "../../testdata/emulator/include"))
	cmd.SetArgs(append([]string{"rewrite", "--runtime-headers", headers, "--device", "discrete"}, args...))
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

// workdir copies the workloads' sources into a temporary tree laid out as the repository's.
func workdir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	wl := filepath.Join(dir, "testdata", "workloads")
	if err := os.MkdirAll(wl, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, "workload.h", "kernel.h") {
		b, err := os.ReadFile(filepath.Join("../../testdata/workloads", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wl, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildWorkload compiles a workload source for the emulator with the Makefile's flags.
func buildWorkload(t *testing.T, src, exe string) {
	t.Helper()
	root, _ := filepath.Abs("../..")
	lib := filepath.Dir(testenv.Built(t, "lib/libcudart.so"))
	cmd := exec.Command(testCXX(), "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-x", "c++",
		"-I"+filepath.Join(root, "testdata", "emulator", "include"), src, "-o", exe,
		"-L"+lib, "-lcudart", "-lpthread", "-Wl,-rpath,"+lib)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
}

// testCXX is the C++ compiler for this test binary's machine: under qemu's user mode
// (tests/arm64.sh) the arm64 tests link against build/arm64's libcudart, which the host's
// g++ cannot, so the cross compiler make cross used builds them.
func testCXX() string {
	if runtime.GOARCH == "arm64" {
		if cross, err := exec.LookPath("aarch64-linux-gnu-g++"); err == nil {
			return cross
		}
	}
	return "g++"
}

func checksum(t *testing.T, exe string) string {
	t.Helper()
	cmd := exec.Command(exe, "--size", "1M", "--iters", "5", "--warmup", "1")
	cmd.Env = append(os.Environ(), "CUDA_EMU_KERNEL_DELAY_US=2000")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running %s: %v\n%s", exe, err, out)
	}
	m := regexp.MustCompile(`checksum=\S+`).FindString(string(out))
	if m == "" {
		t.Fatalf("%s printed no checksum= line:\n%s", exe, out)
	}
	return m
}

// stream.cu rewritten (each strategy) and applied with git apply builds and prints the
// checksum the program prints as written: merged, with the linking copies gone; pinned, with
// the copies kept and the host buffers from echo_pinned_alloc.
func TestRewriteStreamRoundTrip(t *testing.T) {
	testenv.NeedClang(t)
	const rel = "testdata/workloads/stream.cu"
	orig := workdir(t, "stream.cu")
	buildWorkload(t, filepath.Join(orig, rel), filepath.Join(orig, "stream"))
	want := checksum(t, filepath.Join(orig, "stream"))
	for _, strategy := range []string{"mapped", "managed", "pinned"} {
		t.Run(strategy, func(t *testing.T) {
			dir := workdir(t, "stream.cu")
			diff, notes, err := runRewriteCLI(t, dir, "--strategy", strategy, rel)
			if err != nil {
				t.Fatalf("rewrite: %v\n%s", err, notes)
			}
			for _, pair := range []string{"h_in/d_in", "h_out/d_out"} {
				if want := "echo: " + pair + " merged (" + strategy + ")"; strategy != "pinned" && !strings.Contains(diff, want) ||
					strategy == "pinned" && !strings.Contains(diff, "echo: "+pair+" pinned") {
					t.Errorf("the diff does not serve %s with %s:\n%s", pair, strategy, diff)
				}
			}
			apply := exec.Command("git", "apply", "-")
			apply.Dir, apply.Stdin = dir, strings.NewReader(diff)
			if out, err := apply.CombinedOutput(); err != nil {
				t.Fatalf("git apply: %v\n%s\n%s", err, out, diff)
			}
			b, _ := os.ReadFile(filepath.Join(dir, rel))
			merged := !strings.Contains(string(b), "cudaMemcpy(") && !strings.Contains(string(b), "cudaMalloc(")
			if pinned := strategy == "pinned"; merged == pinned || pinned && strings.Count(string(b), "echo_pinned_free(h_") != 2 {
				t.Errorf("%s: the rewritten source copies and allocates the device side: %v, want %v; or the host sides' frees are not the pinned free:\n%s",
					strategy, !merged, pinned, diff)
			}
			buildWorkload(t, filepath.Join(dir, rel), filepath.Join(dir, "stream"))
			if got := checksum(t, filepath.Join(dir, "stream")); got != want {
				t.Errorf("rewritten: %s, as written: %s\n%s", got, want, diff)
			}
		})
	}
}

// Refused pairs are never merged: no edit merges them, and the reason names the refusal; pinned,
// which keeps the copies and needs only the host side's lifetime, may still serve them.
func TestRewriteUnsafeUntouched(t *testing.T) {
	testenv.NeedClang(t)
	cases := []struct{ file, pair string }{
		{"unsafe_live_value.cu", "h_in/d_in"},
		{"unsafe_ptr_identity.cu", "h_in/d_in"},
		{"unsafe_lifetime.cu", "h_in/d_in"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			dir := workdir(t, c.file)
			rel := "testdata/workloads/" + c.file
			diff, notes, err := runRewriteCLI(t, dir, rel)
			if err != nil {
				t.Fatalf("rewrite: %v\n%s", err, notes)
			}
			if strings.Contains(diff, "echo: "+c.pair+" merged") {
				t.Errorf("the refused pair %s is merged:\n%s", c.pair, diff)
			}
			if !regexp.MustCompile(regexp.QuoteMeta(c.pair) + `: .*not proved safe: S\d (refused|undecidable)`).MatchString(notes) {
				t.Errorf("no reason given for %s:\n%s", c.pair, notes)
			}
			js, _, err := runRewriteCLI(t, dir, "--json", rel)
			if err != nil {
				t.Fatal(err)
			}
			var doc sourcereport.RewriteDoc
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			host := strings.Split(c.pair, "/")[0]
			for _, p := range doc.Files[0].Pairs {
				if p.Host == host && (p.Strategy == "mapped" || p.Strategy == "managed" || p.Reason == "") {
					t.Errorf("refused pair in JSON: %+v", p)
				}
			}
		})
	}
}

// --json carries each pair's verdicts with their lines; -w edits the file in place.
func TestRewriteJSONAndWrite(t *testing.T) {
	testenv.NeedClang(t)
	dir := workdir(t, "stream.cu")
	rel := "testdata/workloads/stream.cu"
	before, _ := os.ReadFile(filepath.Join(dir, rel))
	js, _, err := runRewriteCLI(t, dir, "--json", rel)
	if err != nil {
		t.Fatal(err)
	}
	var doc sourcereport.RewriteDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if doc.Schema != "echo.rewrite/2" || doc.Device != "discrete" || len(doc.Files) != 1 || len(doc.Files[0].Pairs) != 2 {
		t.Fatalf("document: %s", js)
	}
	for _, p := range doc.Files[0].Pairs {
		if !p.Changed || p.Strategy != "mapped" || !p.OnePass || !strings.Contains(p.Choice, "one pass") {
			t.Errorf("%s/%s not merged mapped as one pass: %+v", p.Host, p.Device, p)
		}
		for _, s := range []string{"S1", "S2", "S3", "S4"} {
			if v, ok := p.Verdicts[s]; !ok || !v.Holds {
				t.Errorf("%s/%s %s: %+v", p.Host, p.Device, s, v)
			}
		}
		if p.Host == "h_out" {
			if v := p.Verdicts["S2"]; v.Status != "keep wait" || v.Line == 0 || !strings.Contains(lineText(before, v.Line), "cudaMemcpy(h_out, d_out") {
				t.Errorf("h_out's S2: %+v, want keep wait at the D2H copy's line", v)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, rel)); !bytes.Equal(after, before) {
		t.Error("--json without -w changed the file")
	}
	out, _, err := runRewriteCLI(t, dir, "-w", rel)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, rel))
	if out != "" || bytes.Equal(after, before) || !strings.Contains(string(after), "cudaHostGetDevicePointer((void **)&d_in, h_in, 0)") {
		t.Errorf("-w: printed %q; file now:\n%s", out, after)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "testdata/workloads/.*echo-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// An unparsable file is one error naming the file, never a crash or a partial diff.
func TestRewriteBadInput(t *testing.T) {
	testenv.NeedClang(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.cu")
	os.WriteFile(bad, []byte("int main( {\n"), 0o644)
	out, _, err := runRewriteCLI(t, dir, "bad.cu")
	if err == nil || out != "" || !strings.Contains(err.Error(), "bad.cu") || !strings.Contains(err.Error(), "no host/device pair") {
		t.Errorf("bad input: out %q, err %v", out, err)
	}
	// Errors clang recovers from in a function of their own leave the file's other pairs to
	// the analysis, and rewrite says so.
	partly := filepath.Join(dir, "partly.cu")
	os.WriteFile(partly, []byte(`#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void scale(float *p) { p[threadIdx.x] *= 2; }
int broken(void) { return undeclared_thing + 1; }
int main(void)
{
	float *h = (float *)malloc(64 * sizeof(float)), *d;
	for (int i = 0; i < 64; i++)
		h[i] = i;
	cudaMalloc((void **)&d, 64 * sizeof(float));
	cudaMemcpy(d, h, 64 * sizeof(float), cudaMemcpyHostToDevice);
	scale<<<1, 64>>>(d);
	cudaMemcpy(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(d);
	int r = (int)h[0];
	free(h);
	return r;
}
`), 0o644)
	_, stderr, err := runRewriteCLI(t, dir, "partly.cu")
	if err != nil || !strings.Contains(stderr, "partly.cu: clang recovered from 1 errors") ||
		!strings.Contains(stderr, "undeclared_thing") || !strings.Contains(stderr, "main h/d:") {
		t.Errorf("a file with an error outside the pair's function: err %v, stderr:\n%s", err, stderr)
	}
	if _, _, err := runRewriteCLI(t, dir, "--strategy", "zero-copy", "bad.cu"); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Errorf("bad strategy: %v", err)
	}
	if _, _, err := runRewriteCLI(t, dir, "--device", "jetson", "bad.cu"); err == nil || !strings.Contains(err.Error(), "--device") {
		t.Errorf("bad device: %v", err)
	}
}

func lineText(b []byte, n int) string {
	ls := strings.Split(string(b), "\n")
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}
