package source

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A program written against nvcc's headers parses with the prelude and the emulator's
// headers: the template cudaMalloc(&d, bytes) is still a device allocation of d, a buffer
// handed to a runtime call the proofs do not model stays unproven, and the stream-ordered
// and pinned allocations through the templates are recognised.
func TestPreludeParsesRealPrograms(t *testing.T) {
	needClang(t)
	f, _ := filepath.Abs("../testdata/source/frontend/runtime_names.cu")
	tu, err := Parse(context.Background(), Command{File: f}, Options{RuntimeHeaders: emulatorHeaders(t)})
	if err != nil {
		t.Fatal(err)
	}
	main := function(tu, "main")
	if main == nil {
		t.Fatal("no main")
	}
	ids := varDecls(main)
	allocs := calls(main, "cudaMalloc")
	if len(allocs) != 2 {
		t.Fatalf("%d calls to cudaMalloc in main, want 2", len(allocs))
	}
	if r := pointee(allocs[0].Args()[0]); r == nil || r.ID != ids["d_in"] {
		t.Errorf("cudaMalloc(&d_in, …) names %+v, want d_in", r)
	}
	byFn := map[string]Proof{}
	for _, p := range Prove(tu) {
		byFn[p.Function+" "+p.Host+"/"+p.Device] = p
	}
	if p, ok := byFn["main h_in/d_in"]; !ok || !p.Safe() {
		t.Errorf("main h_in/d_in: found %v, verdicts %+v; want proven", ok, p.Verdicts)
	}
	if p, ok := byFn["to_symbol h/d"]; !ok || p.Safe() || p.Verdicts[2].Status != Undecidable || !strings.Contains(p.Verdicts[2].Reason, "cudaMemcpyToSymbol") {
		t.Errorf("to_symbol h/d: found %v, verdicts %+v; want S3 undecidable at cudaMemcpyToSymbol", ok, p.Verdicts)
	}
	if _, ok := byFn["stream_ordered h/d"]; !ok {
		t.Errorf("stream_ordered h/d: no pair; the pairs are %v", keys(byFn))
	}
}

func keys(m map[string]Proof) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
