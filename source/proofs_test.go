package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func proveFile(t *testing.T, name string) []Proof {
	t.Helper()
	needClang(t)
	f, _ := filepath.Abs(filepath.Join("../testdata/workloads", name))
	tu, err := Parse(context.Background(), Command{File: f}, Options{RuntimeHeaders: emulatorHeaders(t)})
	if err != nil {
		t.Fatal(err)
	}
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
	b, err := os.ReadFile(filepath.Join("../testdata/workloads", name))
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
		status     Status
		line       string // text on the deciding line
		safe       bool
	}{
		{"stream.cu", "h_in", 0, Holds, "", true},
		{"stream.cu", "h_out", 2, KeepWait, "cudaMemcpy(h_out, d_out, o.size, cudaMemcpyDeviceToHost)", true},
		{"unsafe_live_value.cu", "h_in", 1, Refused, "fill_batch(h_in, n, it + 1)", false},
		{"unsafe_ptr_identity.cu", "h_in", 3, Refused, "if (tags[i].ptr == p)", false},
		{"unsafe_lifetime.cu", "h_in", 4, Refused, "host_free(o.host, h_in);", false},
		{"unsafe_sync_wait.cu", "h_out", 2, KeepWait, "CHECK(cudaMemcpy(h_out, d_out", true},
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
				if v.Status != Holds && c.safe {
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
	needClang(t)
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
			f := filepath.Join(dir, name)
			if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			tu, err := Parse(context.Background(), Command{File: f}, Options{RuntimeHeaders: emulatorHeaders(t)})
			if err != nil {
				t.Fatal(err)
			}
			ps := Prove(tu)
			if len(ps) != 1 {
				t.Fatalf("%d pairs, want 1", len(ps))
			}
			if ps[0].Safe() {
				t.Fatalf("proved safe: %+v", ps[0].Verdicts)
			}
			undecided := false
			for _, v := range ps[0].Verdicts {
				undecided = undecided || v.Status == Undecidable
				if v.Status == Refused {
					t.Errorf("%s refused (%s): nothing here is known to be unsafe", v.Cond, v.Reason)
				}
			}
			if !undecided {
				t.Errorf("no verdict is undecidable: %+v", ps[0].Verdicts)
			}
		})
	}
}
