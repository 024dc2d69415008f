package scan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// A program written against nvcc's headers parses with the prelude and the emulator's
// headers: the template cudaMalloc(&d, bytes) is still a device allocation of d, a buffer
// handed to a runtime call the proofs do not model stays unproven, and the stream-ordered
// and pinned allocations through the templates are recognised.
func TestPreludeParsesRealPrograms(t *testing.T) {
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs("../../testdata/source/frontend/runtime_names.cu")
	tu := sourcetest.Parse(t, f)
	main := sourcetest.Function(tu, "main")
	if main == nil {
		t.Fatal("no main")
	}
	ids := sourcetest.VarDecls(main)
	allocs := sourcetest.Calls(main, "cudaMalloc")
	if len(allocs) != 2 {
		t.Fatalf("%d calls to cudaMalloc in main, want 2", len(allocs))
	}
	if r := sourcetest.Pointee(allocs[0].Args()[0]); r == nil || r.ID != ids["d_in"] {
		t.Errorf("cudaMalloc(&d_in, …) names %+v, want d_in", r)
	}
	byFn := map[string]rules.Proof{}
	for _, p := range rules.Prove(tu) {
		byFn[p.Function+" "+p.Host+"/"+p.Device] = p
	}
	if p, ok := byFn["main h_in/d_in"]; !ok || !p.Safe() {
		t.Errorf("main h_in/d_in: found %v, verdicts %+v; want proven", ok, p.Verdicts)
	}
	if p, ok := byFn["to_symbol h/d"]; !ok || p.Safe() || p.Verdicts[2].Status != plan.ConditionUndecidable || !strings.Contains(p.Verdicts[2].Reason, "cudaMemcpyToSymbol") {
		t.Errorf("to_symbol h/d: found %v, verdicts %+v; want S3 undecidable at cudaMemcpyToSymbol", ok, p.Verdicts)
	}
	if _, ok := byFn["stream_ordered h/d"]; !ok {
		t.Errorf("stream_ordered h/d: no pair; the pairs are %v", keys(byFn))
	}
}

func keys(m map[string]rules.Proof) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every common device function, intrinsic and atomic overload, texture and surface fetches,
// cooperative groups, half and bfloat16, wmma and curand parse with the prelude alone, without
// one error: a kernel file's functions are analysed, not declined for a declaration the
// prelude lacks. main's pair is proven.
func TestPreludeIntrinsics(t *testing.T) {
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs("../../testdata/source/frontend/intrinsics.cu")
	tu, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Errors) != 0 || len(tu.Stubbed) != 0 {
		t.Fatalf("errors %v, stubbed headers %v; want none", tu.Errors, tu.Stubbed)
	}
	for _, k := range []string{"math", "atomics", "warps", "objects", "groups", "halves", "tensor_cores"} {
		if sourcetest.Function(tu, k) == nil {
			t.Errorf("kernel %s is missing from the AST", k)
		}
	}
	proofs := rules.Prove(tu)
	if len(proofs) != 1 || !proofs[0].Safe() {
		t.Errorf("proofs %+v, want main's h/d proven", proofs)
	}
}

// A file that includes the CUDA samples' helpers where its tree has none parses with the
// prelude's fallback copies: checkCudaErrors, findCudaDevice and the timers are declared.
func TestPreludeHelperFallback(t *testing.T) {
	sourcetest.NeedClang(t)
	f := filepath.Join(t.TempDir(), "sample.cu")
	os.WriteFile(f, []byte(`#include <helper_cuda.h>
#include <helper_functions.h>
int main(int argc, char **argv)
{
	int dev = findCudaDevice(argc, (const char **)argv);
	StopWatchInterface *timer = 0;
	sdkCreateTimer(&timer);
	float *d;
	checkCudaErrors(cudaMalloc((void **)&d, 64));
	getLastCudaError("malloc");
	return dev + (checkCmdLineFlag(argc, (const char **)argv, "quick") ? 1 : 0);
}
`), 0o644)
	tu, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Errors) != 0 || len(tu.Stubbed) != 0 {
		t.Errorf("errors %v, stubbed %v; want the fallback helpers to declare everything", tu.Errors, tu.Stubbed)
	}
}

// A samples-style tree (testdata/source/samples_style): helper_cuda.h by its bare name, held in
// the tree's Common/ and declaring its checks only under __DRIVER_TYPES_H__. Without a compile
// database the scan finds Common/ for it (the tree's copy, not the fallback), the prelude's
// driver_types.h opens the guard, and the sample's pairs are proven without an error.
func TestScanSamplesStyle(t *testing.T) {
	sourcetest.NeedClang(t)
	s, err := Scan(context.Background(), "../../testdata/source/samples_style", ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 1 {
		t.Fatalf("files %+v, want the one sample", s.Files)
	}
	f := s.Files[0]
	if f.Errors != 0 || len(f.Stubbed) != 0 || strings.Join(f.Guessed, " ") != "-ICommon" {
		t.Errorf("errors %d (%s), stubbed %v, include dirs %v; want none, none, -ICommon", f.Errors, f.FirstError, f.Stubbed, f.Guessed)
	}
	if len(f.Proofs) != 2 || f.Proven() != 2 {
		t.Errorf("%d pairs, %d proven; want 2 and 2", len(f.Proofs), f.Proven())
	}
}

// A third-party header this machine lacks is stood in for by an empty one: the function using
// its names is declined with clang's error as the reason, and the file's other pair is still
// proven. A function that calls one with an error is declined as well, with why.
func TestParseMissingThirdPartyHeader(t *testing.T) {
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs("../../testdata/source/scan/thirdparty.cu")
	tu, err := parse.Parse(context.Background(), parse.Command{File: f}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tu.Stubbed, " ") != "NvInferStandIn.h" {
		t.Errorf("stubbed %v, want NvInferStandIn.h", tu.Stubbed)
	}
	byFn := map[string]rules.Proof{}
	for _, p := range rules.Prove(tu) {
		byFn[p.Function] = p
	}
	if p := byFn["main"]; !p.Safe() {
		t.Errorf("main's pair: %+v, want proven", p.Verdicts)
	}
	if v, ok := rules.Declined(byFn["infer"]); !ok || v.Status != plan.ConditionUndecidable || v.At.Line != 24 || !strings.Contains(v.Reason, "'standin'") {
		t.Errorf("infer's pair declined by %+v, want undecidable at line 24 with clang's error", v)
	}

	g := filepath.Join(t.TempDir(), "callee.cu")
	os.WriteFile(g, []byte(`#include <cuda_runtime.h>
#include <stdlib.h>
void fill(float *d, int n) { undeclared_fill(d, n); }
int main(void)
{
	float *h = (float *)malloc(64), *d;
	cudaMalloc((void **)&d, 64);
	cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice);
	fill(d, 16);
	cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost);
	return (int)h[0];
}
`), 0o644)
	tu, err = parse.Parse(context.Background(), parse.Command{File: g}, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proofs := rules.Prove(tu)
	if len(proofs) != 1 {
		t.Fatalf("%d pairs, want main's", len(proofs))
	}
	if v, ok := rules.Declined(proofs[0]); !ok || v.Status != plan.ConditionUndecidable || !strings.Contains(v.Reason, "main calls fill") {
		t.Errorf("main's pair declined by %+v, want undecidable because it calls fill, which has an error", v)
	}
}
