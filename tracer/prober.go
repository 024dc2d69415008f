package tracer

import (
	"fmt"
	"log/slog"
	"path/filepath"

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
	unprobed map[string]bool // drivers left unprobed, said once
	progress func(format string, args ...any)
	log      *slog.Logger
}

func newProber(t *Tracer, mods *modules, progress func(string, ...any), log *slog.Logger) *prober {
	return &prober{t: t, mods: mods, written: map[trace.Module]bool{}, cudaLibs: map[string]bool{},
		searched: map[string]bool{}, unprobed: map[string]bool{}, progress: progress, log: log}
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
	var drivers []trace.Module // probed last, once every module says whether it calls the driver
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
		if k == kindDriver {
			drivers = append(drivers, m)
			continue
		}
		if gone, err := r.probe(pid, m, k, ""); gone || err != nil {
			return fresh, err
		}
	}
	if len(drivers) == 0 {
		return fresh, nil
	}
	why := r.driverCallers(pid, maps)
	for _, m := range drivers {
		if why == "" {
			if !r.unprobed[m.Path] {
				r.unprobed[m.Path] = true
				r.progress("not probing %s (%s): only the CUDA runtime calls it here, inside calls probed already",
					m.Path, kindDriver)
			}
			continue
		}
		if gone, err := r.probe(pid, m, kindDriver, why); gone || err != nil {
			return fresh, err
		}
	}
	return fresh, nil
}

// probe attaches the probes for a library of kind k that pid maps, and says so once; why is
// the reason a driver is probed. gone is true when the process died meanwhile.
func (r *prober) probe(pid int, m trace.Module, k kind, why string) (gone bool, err error) {
	n, err := r.t.Probe(hostPath(pid, m.Path), k, pid)
	if err != nil && !alive(pid) {
		// Killed while its libraries were probed (its /proc entries go with it): the
		// trace ends as the process did.
		r.log.Debug("process gone while its libraries were probed", "pid", pid, "err", err)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if n > 0 && (k == kindRuntime || k == kindDriver) && !r.cudaLibs[m.Path] {
		r.cudaLibs[m.Path] = true
		if why != "" {
			r.progress("probing %s (%s, %d functions): %s", m.Path, k, n, why)
		} else {
			r.progress("probing %s (%s, %d functions)", m.Path, k, n)
		}
	}
	return false, nil
}

// driverCallers tells why process pid needs the driver's probes (drivercallers.go), or ""
// when only the shared runtime calls the driver there, each call inside a probed one.
func (r *prober) driverCallers(pid int, maps []mapping) string {
	if r.t.cfg.AllDriverProbes {
		return "--all-driver-probes"
	}
	runtime := false
	for _, m := range maps {
		if k, ok := classify(m.path); ok && k == kindRuntime {
			runtime = true
		}
	}
	seen := map[moduleKey]bool{}
	for _, m := range maps {
		key := moduleKey{m.dev, m.inode, m.path}
		if !m.exec || seen[key] {
			continue
		}
		seen[key] = true
		if why := r.mods.driverCaller(pid, key); why != "" {
			return filepath.Base(m.path) + " may call it: " + why
		}
	}
	if !runtime {
		return "no CUDA runtime is mapped beside it, so the program calls it"
	}
	return ""
}

// attachStatic probes what an executable carries inside itself (a static CUDA runtime or libc).
func (r *prober) attachStatic(exe string, pid int) error {
	kinds, err := staticKinds(exe)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		n, err := r.t.Probe(exe, k, pid)
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
