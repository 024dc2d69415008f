package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// runTarget runs the target once, calling sym calls times, and returns its ns per call.
// The target times its own loop, so process start and the probes' attach are not counted.
func runTarget(ctx context.Context, target, sym string, calls int) (float64, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, target, strconv.Itoa(calls), sym)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("running %s: %w: %s", target, err, strings.TrimSpace(stderr.String()))
	}
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ns_per_call="); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("running %s: no ns_per_call= line in %q", target, out)
}
