package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
)

func proveFile(t *testing.T, name string) []Proof {
	t.Helper()
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs(filepath.Join("../../testdata/workloads", name))
	tu := sourcetest.Parse(t, f)
	ps := Prove(tu)
	for _, p := range ps {
		t.Logf("%s %s/%s copies=%+v", p.Function, p.Host, p.Device, len(p.Copies))
		for _, v := range p.Verdicts {
			t.Logf("  %s %s line %d: %s", v.Cond, v.Status, v.At.Line, v.Reason)
		}
	}
	return ps
}

// lineOf is the line of the first line in a workload containing text.
func lineOf(t *testing.T, name, text string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/workloads", name))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", name, text)
	return 0
}

func pairOf(t *testing.T, ps []Proof, host string) Proof {
	t.Helper()
	for _, p := range ps {
		if p.Host == host {
			return p
		}
	}
	t.Fatalf("no pair with host side %s among %d", host, len(ps))
	return Proof{}
}

// The corpus decides each pair the way its comments say: stream's two pairs are safe, with
// the D2H copy's wait kept; each unsafe twin is refused (or told to keep its wait) by the
// right condition at the line that shows it.
func TestProveCorpus(t *testing.T) {
	cases := []struct {
		file, host string
		cond       int // 1..4; 0: every condition holds
		status     plan.Condition
		line       string // text on the deciding line
		safe       bool
	}{
		{"stream.cu", "h_in", 0, plan.ConditionHolds, "", true},
		{"stream.cu", "h_out", 2, plan.ConditionKeepWait, "cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost)", true},
		{"unsafe_live_value.cu", "h_in", 1, plan.ConditionRefused, "fill_batch(h_in, n, it + 1)", false},
		{"unsafe_ptr_identity.cu", "h_in", 3, plan.ConditionRefused, "if (tags[i].ptr == p)", false},
		// The host side's free before the kernel could move after the GPU work (host_free
		// only frees), but every iteration allocates a new host buffer for the one device
		// buffer: one merged buffer cannot be both.
		{"unsafe_lifetime.cu", "h_in", 4, plan.ConditionRefused, "float *h_in = (float *)host_alloc(o.host, o.size);", false},
		{"unsafe_sync_wait.cu", "h_out", 2, plan.ConditionKeepWait, "CHECK(cudaMemcpy(h_out, d_out", true},
		// cudaMemset writes the device side whole and reads none of it: the host write before
		// it does not reach the kernel, and the D2H copy after the kernel brings the values
		// back; only the wait is kept.
		{"memset.cu", "h_out", 2, plan.ConditionKeepWait, "CHECK(cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost));", true},
		{"unsafe_memset_read.cu", "h_out", 1, plan.ConditionRefused, "sum = fnv1a_pages(sum, h_out, n);", false},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.host, func(t *testing.T) {
			p := pairOf(t, proveFile(t, c.file), c.host)
			if p.Safe() != c.safe {
				t.Errorf("safe = %v, want %v", p.Safe(), c.safe)
			}
			for i, v := range p.Verdicts {
				if i+1 == c.cond {
					continue
				}
				if v.Status != plan.ConditionHolds && c.safe {
					t.Errorf("%s: %s at line %d (%s), want holds", v.Cond, v.Status, v.At.Line, v.Reason)
				}
			}
			if c.cond == 0 {
				for _, cp := range p.Copies {
					if !cp.Full {
						t.Errorf("the copy at line %d is not full-buffer", cp.At.Line)
					}
				}
				return
			}
			v := p.Verdicts[c.cond-1]
			if want := lineOf(t, c.file, c.line); v.Status != c.status || v.At.Line != want {
				t.Errorf("%s: %s at line %d (%s), want %s at line %d", v.Cond, v.Status, v.At.Line, v.Reason, c.status, want)
			}
		})
	}
}

// What the analysis cannot follow declines the pair as undecidable, never safe: a goto, and a
// pointer whose address is taken.
func TestProveUndecidable(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	srcs := map[string]string{
		"goto.cu": `#include <cuda_runtime.h>
#include <stdlib.h>
int main(void) {
	float *h = (float *)malloc(64), *d;
	cudaMalloc((void **)&d, 64);
	cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice);
	goto out;
out:
	cudaFree(d);
	free(h);
	return 0;
}
`,
		"addr.cu": `#include <cuda_runtime.h>
#include <stdlib.h>
int main(void) {
	float *h = (float *)malloc(64), *d;
	float **alias = &h;
	cudaMalloc((void **)&d, 64);
	cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice);
	(*alias)[0] = 1;
	cudaFree(d);
	free(h);
	return 0;
}
`,
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			ps := proveOnePair(t, filepath.Join(dir, name), src)
			if ps[0].Safe() {
				t.Fatalf("proved safe: %+v", ps[0].Verdicts)
			}
			undecided := false
			for _, v := range ps[0].Verdicts {
				undecided = undecided || v.Status == plan.ConditionUndecidable
				if v.Status == plan.ConditionRefused {
					t.Errorf("%s refused (%s): nothing here is known to be unsafe", v.Cond, v.Reason)
				}
			}
			if !undecided {
				t.Errorf("no verdict is undecidable: %+v", ps[0].Verdicts)
			}
		})
	}
}

// A cudaMemset of the whole device side ends a host write before it, as the D2H copy after
// the kernel would have as written; one of part of it (a shorter size, or from a pointer into
// the buffer) does not: the host's value reaches the kernel through the rest, merged, and S1
// refuses it at the write.
func TestProveMemsetFill(t *testing.T) {
	sourcetest.NeedClang(t)
	src := func(fill string) string {
		return `#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void add(float *d) { d[threadIdx.x] += 1.0f; }
int main(void) {
	float *h = (float *)malloc(64), *d;
	cudaMalloc((void **)&d, 64);
	for (int i = 0; i < 16; i++)
		h[i] = 0;
	cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice);
	for (int it = 0; it < 4; it++) {
		h[12] = 5.0f;
		cudaMemset(` + fill + `);
		add<<<1, 16>>>(d);
		cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost);
	}
	cudaFree(d);
	free(h);
	return 0;
}
`
	}
	dir := t.TempDir()
	for _, c := range []struct {
		fill string // the memset's pointer and size
		safe bool
	}{{"d, 0, 64", true}, {"d, 0, 32", false}, {"d + 8, 0, 32", false}} {
		t.Run(c.fill, func(t *testing.T) {
			f := filepath.Join(dir, strings.NewReplacer(" ", "", ",", "_", "+", "p").Replace(c.fill)+".cu")
			v := proveOnePair(t, f, src(c.fill))[0].Verdicts
			s1, s3 := v[0], v[2]
			if s3.Status != plan.ConditionHolds {
				t.Errorf("S3 %s at line %d (%s): cudaMemset is understood, not a call into an unknown body",
					s3.Status, s3.At.Line, s3.Reason)
			}
			if c.safe && s1.Status != plan.ConditionHolds {
				t.Errorf("whole fill: S1 %s at line %d (%s); want it to hold", s1.Status, s1.At.Line, s1.Reason)
			}
			if !c.safe && (s1.Status != plan.ConditionRefused || s1.At.Line != 11) {
				t.Errorf("part fill: S1 %s at line %d (%s); want refused at the host write, line 11",
					s1.Status, s1.At.Line, s1.Reason)
			}
		})
	}
}

// proveOnePair writes src to the file f, parses it with the emulator's headers and proves it:
// one pair, or the test fails.
func proveOnePair(t *testing.T, f, src string) []Proof {
	t.Helper()
	ps := Prove(sourcetest.ParseSource(t, f, src))
	if len(ps) != 1 {
		t.Fatalf("%d pairs, want 1", len(ps))
	}
	return ps
}
