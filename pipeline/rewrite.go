package pipeline

import (
	"context"
	"fmt"
	"os"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/source/rules"
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// RewriteDevice is the device rewrite's --device names, or for auto the GPU of this machine,
// as echoctl check finds it; how says where it came from. Without a GPU to ask (a machine
// that only builds) it is discrete: pinned, what a discrete GPU gets, is the safe default
// anywhere.
func RewriteDevice(ctx context.Context, flag string) (rules.Device, string, error) {
	if flag != "auto" {
		d, err := rules.ParseDevice(flag)
		if err != nil {
			return "", "", fmt.Errorf("--device: %w", err)
		}
		return d, "--device", nil
	}
	gpu, err := check.FindGPU(ctx, os.Getenv("LD_LIBRARY_PATH"))
	if err != nil {
		return rules.Discrete, "no GPU here to ask: " + err.Error() + "; give --device for another machine", nil
	}
	return rules.DeviceOf(gpu.Integrated, gpu.HostPageTables), "this machine's " + gpu.Name, nil
}

// LoadProfile is the copy time by source line of the trace at path (rewrite --trace): its
// copy sites named by file and line from the traced binary's debug information.
func LoadProfile(path string) (*rules.Profile, error) {
	tf, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	st, err := trace.SummarizeEstimating(tf.Reader, planner.NewTransferTimer(tf.Header()))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	NameCopySites(symbols.NewResolver(), st.TopSites)
	return rules.NewProfile(st.TopSites), nil
}

// NameCopySites adds to each copy site the function and source line its module names, for
// stats' table and JSON and rewrite --trace; a site whose module cannot be named (gone,
// rebuilt, stripped) keeps module+offset alone.
func NameCopySites(names *symbols.Resolver, sites []trace.SiteStats) {
	for i := range sites {
		s := &sites[i]
		m := symbols.Module{Path: s.Module, BuildID: s.BuildID, Size: s.ModuleSize}
		if sym, ok := names.Return(m, s.Offset); ok {
			s.Function, s.File, s.Line = sym.Function, sym.File, sym.Line
		}
	}
}
