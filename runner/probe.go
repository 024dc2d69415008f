package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/echo-uma/echo/internal/embedshim"
	"github.com/echo-uma/echo/internal/scratch"
)

// probeTimeout bounds a device probe: a real runtime's first call starts the driver, which
// takes seconds on a big GPU, never minutes.
const probeTimeout = time.Minute

// ProbeDevice asks the CUDA runtime library at path what the device is, through the shim's
// device probe (shim/probe.c) preloaded into a trivial program: echoctl itself cannot load
// a C library. The report's GPU is empty, and its Reason says why, when the runtime could
// not be opened or could not tell.
func ProbeDevice(ctx context.Context, runtime string) (Report, error) {
	shim, err := FindShim()
	if err != nil {
		return Report{}, err
	}
	host, err := exec.LookPath("true")
	if err != nil {
		return Report{}, fmt.Errorf("finding a program to load the runtime in: %w", err)
	}
	dir, remove, err := scratch.Dir("echoctl-probe-")
	if err != nil {
		return Report{}, err
	}
	defer remove()
	reportPath := filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, host)
	cmd.Env = append(withoutEnv(embedshim.PreloadedAlone(os.Environ(), shim), "ECHO_PLAN", "ECHO_REPORT", "ECHO_PROBE_RUNTIME"),
		"ECHO_REPORT="+reportPath, "ECHO_PROBE_RUNTIME="+runtime)
	if out, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Report{}, fmt.Errorf("running %s with the shim: %w", host, err)
		}
		return Report{}, fmt.Errorf("probing %s: %s exited with %v: %s", runtime, host, err, out)
	}
	data, err := os.ReadFile(reportPath)
	if err != nil {
		return Report{}, fmt.Errorf("probing %s: the shim left no report: %w", runtime, err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return Report{}, fmt.Errorf("reading the device probe's report: %w", err)
	}
	return rep, nil
}
