package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile profiles echoctl itself (the hidden --cpuprofile flag), to find where the
// tracer's event loop spends its time under load, or a scan outside clang.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting the CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
