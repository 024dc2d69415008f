package scan

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rules"
)

// The survey's result does not depend on how many files are parsed at once: files come back
// in the walk's order with the same verdicts, and progress counts each file once.
func TestScanJobsAgree(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := filepath.Join("..", "..", "testdata", "source", "scan")
	var runs []*Survey
	for _, jobs := range []int{1, 3} {
		seen := map[string]int{}
		last := 0
		s, err := Scan(context.Background(), dir, ScanOptions{Options: parse.Options{RuntimeHeaders: sourcetest.EmulatorHeaders(t)}, Jobs: jobs,
			Progress: func(done, total int, file string) {
				seen[file]++
				if done != last+1 || total != 10 {
					t.Errorf("jobs %d: progress %d of %d after %d", jobs, done, total, last)
				}
				last = done
			}})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != len(s.Files) || last != len(s.Files) {
			t.Errorf("jobs %d: progress saw %v for %d files", jobs, seen, len(s.Files))
		}
		runs = append(runs, s)
	}
	summary := func(s *Survey) []string {
		var out []string
		for _, f := range s.Files {
			line := f.Path + " " + f.Unparsable
			for _, p := range f.Proofs {
				v, _ := rules.Declined(p)
				line += " " + p.Host + "/" + p.Device + ":" + v.Cond + string(v.Status)
			}
			out = append(out, line)
		}
		return out
	}
	if a, b := summary(runs[0]), summary(runs[1]); !reflect.DeepEqual(a, b) {
		t.Errorf("one job:\n%s\nthree:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// A tree of .cu files parses with the prelude alone: no CUDA installation, no runtime
// headers.
func TestScanWithoutRuntimeHeaders(t *testing.T) {
	sourcetest.NeedClang(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.cu"), []byte("#include <cuda_runtime.h>\nint main(void) { float h, *d; cudaMalloc(&d, 4); cudaMemcpy(d, &h, 4, cudaMemcpyHostToDevice); return 0; }\n"), 0o644)
	s, err := Scan(context.Background(), dir, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 1 || !s.Files[0].Parsed() || s.Files[0].Errors != 0 {
		t.Errorf("files %+v, want a.cu parsed without errors", s.Files)
	}
}
