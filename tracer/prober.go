package tracer

import (
	"fmt"
	"log/slog"

	"github.com/echo-uma/echo/trace"
)

// prober keeps one trace's view of the libraries of its processes: the modules already
// handed on, the CUDA libraries probed, the files searched for one. A recorder has one for
// its trace; the shared tracer one per watched process, over one Tracer and one module cache.
type prober struct {
	t        *Tracer
	mods     *modules
	written  map[trace.Module]bool
	cudaLibs map[string]bool
	searched map[string]bool
	progress func(format string, args ...any)
	log      *slog.Logger
}

func newProber(t *Tracer, mods *modules, progress func(string, ...any), log *slog.Logger) *prober {
	return &prober{t: t, mods: mods, written: map[trace.Module]bool{}, cudaLibs: map[string]bool{},
		searched: map[string]bool{}, progress: progress, log: log}
}

// rescan reads pid's libraries again: it returns the modules not handed on before, and new
// CUDA libraries (and libc, libstdc++, the loader) get their probes. A process already gone
// is not an error.
func (r *prober) rescan(pid int) ([]trace.Module, error) {
	maps, err := readMaps(pid)
	if err != nil {
		r.log.Debug("process gone before its libraries were read", "pid", pid, "err", err)
		return nil, nil
	}
	mods := r.mods.of(pid, maps)
	var fresh []trace.Module
	for _, m := range mods {
		r.searched[m.Path] = true
		if !r.written[m] {
			r.written[m] = true
			fresh = append(fresh, m)
		}
		k, ok := classify(m.Path)
		if !ok {
			continue
		}
		n, err := r.t.Attach(hostPath(pid, m.Path), k, pid)
		if err != nil && !alive(pid) {
			// Killed while its libraries were probed (its /proc entries go with it): the
			// trace ends as the process did.
			r.log.Debug("process gone while its libraries were probed", "pid", pid, "err", err)
			return fresh, nil
		}
		if err != nil {
			return fresh, err
		}
		if n > 0 && (k == kindRuntime || k == kindDriver) && !r.cudaLibs[m.Path] {
			r.cudaLibs[m.Path] = true
			r.progress("probing %s (%s, %d functions)", m.Path, k, n)
		}
	}
	return fresh, nil
}

// attachStatic probes what an executable carries inside itself (a static CUDA runtime or libc).
func (r *prober) attachStatic(exe string, pid int) error {
	kinds, err := staticKinds(exe)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		n, err := r.t.Attach(exe, k, pid)
		if err != nil {
			return err
		}
		if k == kindRuntime || k == kindDriver {
			r.cudaLibs[exe] = true
			r.progress("probing %s (statically linked %s, %d functions)", exe, k, n)
		}
	}
	return nil
}

// noCUDA says that no CUDA runtime or driver was found, and where it was looked for.
func (r *prober) noCUDA() error {
	n := len(r.searched)
	return fmt.Errorf("%w: searched the %d files the process mapped for libcudart* and libcuda.so*, "+
		"and the executable for a statically linked runtime (cudaMalloc, cudaMemcpy); "+
		"the trace holds host allocations only", ErrNoCUDA, n)
}
