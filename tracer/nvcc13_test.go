package tracer_test

import (
	"errors"
	"io"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/trace"
)

// nvcc 13 compiles <<<>>> into __cudaLaunchKernel, never cudaLaunchKernel: with --launches
// the trace has every launch a program makes that way.
func TestTracesNvcc13Launches(t *testing.T) {
	testenv.RequireRoot(t)
	const iters = 6
	_, path := testenv.TraceOK(t, "--launches", "--", testenv.Built(t, "tests/library_launch"), "6", "65536", "after", "nvcc13")
	f, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	launches := 0
	for {
		rec, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Event != nil && rec.Event.Type == trace.EventCUDALaunchKernel {
			launches++
		}
	}
	if launches != iters {
		t.Errorf("%d launches traced; want %d", launches, iters)
	}
}
