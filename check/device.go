package check

import (
	"context"
	"fmt"

	"github.com/echo-uma/echo/runner"
)

// GPU is what the CUDA runtime says the device is.
type GPU struct {
	Name     string `json:"name"`
	CC       string `json:"cc"`      // compute capability, "8.7"
	Driver   int    `json:"driver"`  // CUDA version the driver supports, 12080 for 12.8
	Runtime  int    `json:"runtime"` // the runtime's CUDA version
	Pageable bool   `json:"pageable"`
	// ConcurrentManaged: the host may touch managed memory while kernels run.
	ConcurrentManaged bool `json:"concurrent_managed"`
	// Integrated: one DRAM (Jetson); HostPageTables: pageable memory reached through the
	// host's page tables (Grace Hopper).
	Integrated     bool   `json:"integrated"`
	HostPageTables bool   `json:"host_page_tables"`
	Library        string `json:"library"` // the runtime asked
}

// FindGPU asks the first CUDA runtime a program would load (libraryPath searched first, as
// LD_LIBRARY_PATH is) what the device is, as check's GPU item does; an error says why it
// could not tell (no runtime, no preload library, no device). echoctl rewrite --device auto
// uses it.
func FindGPU(ctx context.Context, libraryPath string) (*GPU, error) {
	_, shim := preloadItem()
	it, gpu := deviceItem(ctx, FindLibraries(libraryPath), shim)
	if gpu == nil {
		return nil, fmt.Errorf("%s", it.Detail)
	}
	return gpu, nil
}

// preloadItem finds the shim; without it nothing can be deployed.
func preloadItem() (Item, string) {
	shim, err := runner.FindShim()
	if err != nil {
		return Item{Name: "preload library", Status: StatusMissing, Detail: err.Error(), Disables: disablesDeploy}, ""
	}
	return Item{Name: "preload library", Status: StatusOK, Detail: shim}, shim
}

// deviceItem asks the first runtime found what the device is, through the shim's device probe.
func deviceItem(ctx context.Context, libs []Library, shim string) (Item, *GPU) {
	runtime := ""
	for _, l := range libs {
		if l.Kind == "runtime" {
			runtime = l.Path
			break
		}
	}
	switch {
	case runtime == "":
		return Item{Name: "GPU", Status: StatusWarn, Detail: "not asked: no CUDA runtime found to ask"}, nil
	case shim == "":
		return Item{Name: "GPU", Status: StatusWarn, Detail: "not asked: asking goes through the preload library"}, nil
	}
	rep, err := runner.ProbeDevice(ctx, runtime)
	if err == nil && rep.GPU == "" {
		err = fmt.Errorf("%s", rep.Reason)
	}
	if err != nil {
		return Item{Name: "GPU", Status: StatusMissing, Disables: "merging in echoctl run and calibrate (the program runs untouched)",
			Detail: fmt.Sprintf("%s could not say what the device is: %v", runtime, err)}, nil
	}
	gpu := &GPU{Name: rep.GPU, CC: rep.CC, Driver: rep.Driver, Runtime: rep.Runtime, Pageable: rep.Pageable,
		ConcurrentManaged: rep.ConcurrentManaged, Integrated: rep.Integrated, HostPageTables: rep.HostPageTables, Library: runtime}
	pageable := "no"
	if gpu.Pageable {
		pageable = "yes (the system strategy applies)"
	}
	concurrent := "no (the managed strategy does not apply: the host may not touch managed memory while a kernel runs)"
	if gpu.ConcurrentManaged {
		concurrent = "yes"
	}
	return Item{Name: "GPU", Status: StatusOK, Detail: fmt.Sprintf("%s, compute capability %s, driver %s, runtime %s, pageable memory access %s, concurrent managed access %s",
		gpu.Name, gpu.CC, cudaVersion(gpu.Driver), cudaVersion(gpu.Runtime), pageable, concurrent)}, gpu
}

// cudaVersion formats CUDA's version numbers: 12080 is 12.8.
func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }
