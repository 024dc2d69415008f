package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/echo-uma/echo/internal/units"
)

// Mode is what the shim does with a compact plan.
type Mode string

const (
	ModeDeploy    Mode = "deploy"    // merge the pairs
	ModeCalibrate Mode = "calibrate" // merge the pairs and time the loop
	ModeMeasure   Mode = "measure"   // merge nothing; time the loop
	// ModeValidate merges nothing either: it watches each pair's host buffer in the windows
	// where merging would change what the program reads or writes.
	ModeValidate Mode = "validate"
	// ModeResolve changes nothing: it finds where the buffers of pairs whose sites the trace
	// lacked were allocated, from the pointers their linking copies pass.
	ModeResolve Mode = "resolve"
)

// Deployment is the compact plan the shim deploys: p's pairs served with strategy, as echoctl
// run, run --print-env, a plan directory and the deployment cache hand it to the shim. Every
// deployment's text comes from here; validate, resolve and calibrate ask Compact for their
// modes.
func Deployment(p *Plan, pairs []Pair, strategy Strategy) (string, error) {
	return Compact(p, pairs, strategy, ModeDeploy)
}

// Compact derives the form the shim reads (shim/plan.c): the executable, the device context
// where calibration recorded one, and the sites of each pair to merge.
func Compact(p *Plan, pairs []Pair, strategy Strategy, mode Mode) (string, error) {
	if p.Context.Executable.BuildID == "" && p.Context.Executable.Size == 0 {
		return "", fmt.Errorf("the plan names its executable by neither build-id nor size")
	}
	if !slices.Contains(strategies, strategy) {
		return "", fmt.Errorf("unknown strategy %q: use %s", strategy, list(strategies))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "echo-plan 1\nexe %s\n", moduleID(p.Context.Executable.Path, p.Context.Executable.BuildID, p.Context.Executable.Size))
	// The file name lets the shim tell a rebuilt program (worth a word) from another program
	// that only inherited the environment (a child, a launcher, a shell: silence).
	if name := filepath.Base(p.Context.Executable.Path); p.Context.Executable.Path != "" && !strings.ContainsRune(name, '\n') {
		fmt.Fprintf(&b, "name %s\n", name)
	}
	if c := p.Context; c.GPU != "" {
		fmt.Fprintf(&b, "gpu %s\n", c.GPU)
	}
	if cc := p.Context.ComputeCapability; cc != "" {
		fmt.Fprintf(&b, "cc %s\n", cc)
	}
	if p.Context.Driver > 0 {
		fmt.Fprintf(&b, "driver %d\n", p.Context.Driver)
	}
	if p.Context.Runtime > 0 {
		fmt.Fprintf(&b, "runtime %d\n", p.Context.Runtime)
	}
	shimMode := mode
	if mode == ModeCalibrate {
		shimMode = ModeDeploy
	}
	fmt.Fprintf(&b, "strategy %s\nmode %s\n", strategy, shimMode)
	// The loop marker has the shim time each iteration: a clock read per iteration, and a
	// site lookup per copy of the marker's size, which a plain deploy does without. A resolve
	// run times its iterations where the plan has a loop (Loop.RestMS).
	if m := p.Loop.Marker; mode == ModeMeasure || mode == ModeCalibrate || mode == ModeResolve && m != nil {
		if m == nil {
			return "", fmt.Errorf("the plan found no loop to time")
		}
		fmt.Fprintf(&b, "marker %s %x %s %d", siteModule(*m), m.Offset, shimCall(m.Call), m.Bytes)
		if p.Loop.MarkerEvery > 1 {
			fmt.Fprintf(&b, " %d", p.Loop.MarkerEvery)
		}
		b.WriteString("\n")
	}
	lines, err := pairLines(pairs, strategy)
	if mode == ModeResolve {
		lines, err = resolveLines(pairs)
	}
	if err != nil {
		return "", err
	}
	// The shim merges nothing from a deployment without a digest, so that one whose digest
	// line was deleted along with an edit is not deployed: calibration's, which the shim checks
	// the lines against; or, for what echoctl deploys unmeasured (calibration's own runs,
	// run --force), the lines' own, which still tells an edit of the file.
	if mode == ModeDeploy || mode == ModeCalibrate {
		digest := p.Context.PairsDigest
		if digest == "" || mode == ModeCalibrate {
			digest = linesDigest(lines)
		}
		fmt.Fprintf(&b, "digest %s\n", digest)
	}
	b.WriteString(lines)
	b.WriteString("end\n")
	if b.Len() > MaxCompactBytes {
		return "", fmt.Errorf("the plan's %s form for the shim is %s, more than the %s the shim reads: "+
			"deploy fewer pairs", mode, units.Bytes(uint64(b.Len())), units.Bytes(MaxCompactBytes))
	}
	return b.String(), nil
}

// MaxCompactBytes is the largest compact plan the shim reads (SHIM_MAX_PLAN_BYTES): a larger
// one is refused here, naming the plan, rather than by the shim, which could only name the
// temporary file it was handed.
const MaxCompactBytes = 1 << 20

// pairLines are the pairs as the shim reads them: what a pair is, to the shim and to the
// digest that calibration records. A merge needs both sides' sites; pinned serves the host
// allocation alone, at its site whatever the ordinal, and one line a site is enough.
func pairLines(pairs []Pair, strategy Strategy) (string, error) {
	var b strings.Builder
	pinned := map[Site]bool{}
	for _, pair := range pairs {
		if !pair.Allows(strategy) {
			return "", fmt.Errorf("pair %s: %s cannot serve it (it allows %s)", pair.ID, strategy, list(pair.Strategies))
		}
		sides := []struct {
			name string
			buf  Buffer
		}{{"host", pair.Host}, {"device", pair.Device}}
		if strategy == StrategyPinned {
			k := pair.Host.Site.AnyOrdinal()
			if pinned[k] {
				continue
			}
			pinned[k] = true
			sides = sides[:1]
		}
		fmt.Fprintf(&b, "pair %s %d %s\n", pair.ID, pair.Bytes, pair.Direction)
		for _, side := range sides {
			if side.buf.Unresolved {
				return "", fmt.Errorf("pair %s: its %s allocation site is unresolved (the trace did not see it); validate resolves it", pair.ID, side.name)
			}
			fmt.Fprintf(&b, "%s %s\n", side.name, shimSite(side.buf))
		}
		if strategy != StrategyPinned {
			b.WriteString(chunkLines(pair))
			b.WriteString(copyLines(pair))
		}
	}
	return b.String(), nil
}

// resolveLines are the pairs as a resolve run needs them: their linking-copy sites, in the
// order ResolveSites gives, which the run's report follows, and whether their host side is
// to be found behind a framework's staging buffer (staging.go).
func resolveLines(pairs []Pair) (string, error) {
	var b strings.Builder
	for _, pair := range pairs {
		if len(pair.Copies) == 0 {
			return "", fmt.Errorf("pair %s: no linking copy to resolve its buffers from", pair.ID)
		}
		fmt.Fprintf(&b, "pair %s %d %s\n", pair.ID, pair.Bytes, pair.Direction)
		if pair.Pending() {
			b.WriteString("staged\n") // its host side is behind the framework's buffer
		}
		for _, i := range ResolveSites(pair) {
			c := pair.Copies[i]
			s := c.Site
			fmt.Fprintf(&b, "copy %s %x %s %d %s\n", siteModule(s), s.Offset, shimCall(s.Call), s.Bytes, c.Direction)
		}
	}
	return b.String(), nil
}

// ResolveSites are the linking-copy sites a resolve run names for pair, each once (a
// chunked pair's chunks share one), as the index of the first of pair.Copies at it; no more
// than the shim takes.
func ResolveSites(pair Pair) []int {
	var out []int
	for i, c := range pair.Copies {
		if len(out) < maxShimCopies && !slices.ContainsFunc(out, func(j int) bool { return pair.Copies[j].Site == c.Site }) {
			out = append(out, i)
		}
	}
	return out
}

// copyLines are a merged pair's linking-copy sites, each once a direction: the shim binds the
// pair's two buffers only at a copy made at one of them (shim/bind.c). A pair with more
// sites than the shim takes names none, and is bound at its allocations' identity alone.
func copyLines(pair Pair) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range pair.Copies {
		s := c.Site
		line := fmt.Sprintf("copy %s %x %s %d %s\n", siteModule(s), s.Offset, shimCall(s.Call), s.Bytes, c.Direction)
		if !seen[line] {
			seen[line] = true
			b.WriteString(line)
		}
	}
	if len(seen) > maxShimCopies {
		return ""
	}
	return b.String()
}

// maxShimCopies is how many copy sites of a pair the shim takes (MAX_COPIES).
const maxShimCopies = 8

// moduleID names a module the way the shim does: its build-id, or size:N:BASENAME.
func moduleID(path, buildID string, size int64) string {
	if buildID != "" {
		return buildID
	}
	return fmt.Sprintf("size:%d:%s", size, filepath.Base(path))
}

func siteModule(s Site) string { return moduleID(s.Module, s.BuildID, s.ModuleSize) }

// shimCall is the call's name without spaces (the shim names operator new[] so too).
func shimCall(call string) string { return strings.ReplaceAll(call, " ", "") }

// chunkLines are the pieces a merged pair's chunked copies move, one line each, so the shim
// elides them (and validate mode watches them) as it does a whole-buffer copy.
func chunkLines(pair Pair) string {
	var b strings.Builder
	seen := map[[2]uint64]bool{}
	for _, c := range pair.Copies {
		k := [2]uint64{c.Offset, c.Site.Bytes}
		if c.Site.Bytes == pair.Bytes || seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(&b, "chunk %d %d\n", c.Offset, c.Site.Bytes)
	}
	return b.String()
}
