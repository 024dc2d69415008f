package tracer

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// Each way a module may reach the driver outside the shared runtime is seen, and a program
// that calls only the runtime is not taken for one.
func TestDriverCaller(t *testing.T) {
	cases := []struct {
		file, want string // want: a word of the reason, "" for none
	}{
		{"workloads/stream", ""},
		{"workloads/pipeline", ""},
		{"lib/libcudart.so.12", ""},
		{"lib/libcuda.so.1", ""},
		{"tests/driver_api", "imports cu"},
		{"workloads/framework", "imports cu"},
		{"tests/dlopen_driver", "looks up the driver"},
		{"workloads/stream-static", "statically linked"},
	}
	for _, c := range cases {
		got := driverCaller(testenv.Built(t, c.file))
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.file, got, c.want)
		}
	}
	if got := driverCaller("/nonexistent"); got == "" {
		t.Errorf("a file that cannot be read: no reason, want the driver probed")
	}
}

// What an nvcc-built program imports (CUDA 13's stubs add __cudaGetKernel) needs no driver
// probes; a runtime call that may reach the driver outside the probed ones does.
func TestImportReason(t *testing.T) {
	for name, want := range map[string]string{
		"__cudaGetKernel":        "",
		"__cudaRegisterFunction": "",
		"cudaMemcpy":             "",
		"cudaLaunchKernel":       "",
		"cudaGetErrorString":     "",
		"malloc":                 "",
		"cudaMemcpyToSymbol":     "may serve through the driver",
		"__cudaLaunchKernel":     "",
		"cuMemcpyHtoD_v2":        "imports cuMemcpyHtoD_v2",
		"ffi_call":               "libffi",
	} {
		got := importReason(name)
		if (got == "") != (want == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
