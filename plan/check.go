package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Tolerances for the figures a plan derives from others, which went through float64
// arithmetic (and JSON) once: the speed-up from f_copy, and the totals from the pairs.
const (
	speedupTolerance = 1e-6 // relative
	sumTolerance     = 1e-9 // absolute, on f_copy
)

var (
	pairIDPattern  = regexp.MustCompile(`^p[1-9][0-9]*$`)
	buildIDPattern = regexp.MustCompile(`^([0-9a-f]{2})+$`)
	ccPattern      = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
	digestPattern  = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// A copy kind the runtime rejects, as trace.Direction names it.
	unknownKindPattern = regexp.MustCompile(`^kind\([0-9]+\)$`)

	statuses        = []Status{StatusCandidate, StatusRefused, StatusValidated, StatusCalibrated, StatusEnabled}
	pairDirections  = []PairDirection{PairInput, PairOutput, PairBoth}
	copyDirections  = []CopyDirection{CopyH2D, CopyD2H}
	siteDirections  = []CopyDirection{CopyH2D, CopyD2H, CopyD2D, CopyH2H, CopyDefault}
	hostKinds       = []MemKind{KindPageable, KindPinned, KindRegistered, KindManaged}
	deviceKinds     = []MemKind{KindDevice, KindManaged}
	strategies      = []Strategy{StrategyManaged, StrategyMapped, StrategySystem, StrategyPinned}
	statusEvidenced = []Status{StatusValidated, StatusCalibrated, StatusEnabled}
)

// Known reports whether s is one of the statuses PLAN.md defines.
func (s Status) Known() bool { return slices.Contains(statuses, s) }

// Counted reports whether a pair in status s still counts toward the plan's predicted gain:
// every known status but refused.
func (s Status) Counted() bool { return s.Known() && s != StatusRefused }

// Check checks everything a hand-edited, truncated or buggy plan could get wrong (PLAN.md
// "What the parser checks"). The error lists every problem, one a line, each saying where:
// `plan: pairs[2] (p3): status "merged" is not one of candidate, refused, …`.
func (p *Plan) Check() error {
	var ps problems
	if p.Version != Version {
		ps.addf("", "version %d, not %d", p.Version, Version)
	}
	if p.Created.IsZero() {
		ps.addf("", "no created time")
	}
	if strings.TrimSpace(p.Tool) == "" {
		ps.addf("", "no tool (the echoctl that wrote it)")
	}
	p.Trace.check(&ps)
	p.Context.check(&ps)
	p.Loop.check(&ps)

	seen := map[string]int{}
	var fCopy, copyMS float64
	enabled := false
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		where := fmt.Sprintf("pairs[%d]", i)
		if pair.ID != "" {
			where += " (" + pair.ID + ")"
		}
		if j, dup := seen[pair.ID]; dup && pair.ID != "" {
			ps.addf(where, "id %s is also the id of pairs[%d]", pair.ID, j)
		} else {
			seen[pair.ID] = i
		}
		pair.check(&ps, where, &p.Loop)
		if pair.Status.Counted() {
			fCopy += pair.FCopy
			copyMS += pair.CopyMSPerIteration
		}
		enabled = enabled || pair.Status == StatusEnabled
	}
	checkGain(&ps, "", p.FCopy, p.PredictedSpeedup)
	// Estimates can add up to the whole loop; Analyze caps the total at MaxFCopy.
	if !(math.Abs(p.FCopy-min(fCopy, MaxFCopy)) <= sumTolerance) {
		ps.addf("", "f_copy %v is not the sum over the pairs not refused (%v)", p.FCopy, fCopy)
	}
	if !(math.Abs(p.Loop.CopyMS-copyMS) <= speedupTolerance*copyMS+sumTolerance) {
		ps.addf("loop", "copy_ms_per_iteration %v is not the sum over the pairs not refused (%v)", p.Loop.CopyMS, copyMS)
	}
	if d := p.Context.PairsDigest; d != "" && !digestPattern.MatchString(d) {
		ps.addf("context", "pairs_digest %q is not 64 lowercase hex digits", d)
	}
	if enabled && p.Context.Strategy == "" {
		ps.addf("context", "no strategy, but pairs are enabled: calibration records the strategy it measured")
	}
	for i, r := range p.Rejected {
		r.check(&ps, fmt.Sprintf("rejected[%d]", i))
	}
	for i, n := range p.Notes {
		if strings.TrimSpace(n) == "" {
			ps.addf(fmt.Sprintf("notes[%d]", i), "empty")
		}
	}
	return ps.err()
}

func (s *Source) check(ps *problems) {
	if s.Path == "" {
		ps.addf("trace", "no path")
	}
	if len(s.Command) == 0 || s.Command[0] == "" {
		ps.addf("trace", "no command")
	}
	if s.PID < 0 {
		ps.addf("trace", "pid %d", s.PID)
	}
}

func (c *Context) check(ps *problems) {
	if c.Executable != (Module{}) {
		checkModule(ps, "context.executable", c.Executable)
	}
	for i, m := range c.Libraries {
		checkModule(ps, fmt.Sprintf("context.libraries[%d]", i), m)
	}
	if c.ComputeCapability != "" && !ccPattern.MatchString(c.ComputeCapability) {
		ps.addf("context", "compute_capability %q is not like 9.0", c.ComputeCapability)
	}
	if c.Driver < 0 || c.Runtime < 0 {
		ps.addf("context", "driver %d, runtime %d: versions are not negative", c.Driver, c.Runtime)
	}
	if c.Strategy != "" && !slices.Contains(strategies, c.Strategy) {
		ps.addf("context", "strategy %q is not one of %s", c.Strategy, list(strategies))
	}
}

// checkModule checks a file the plan depends on. Its build-id and size may both be missing
// (a trace without them cannot tell; CheckExecutable then refuses the plan), but a module
// without a path names nothing.
func checkModule(ps *problems, where string, m Module) {
	if m.Path == "" {
		ps.addf(where, "no path")
	}
	if m.BuildID != "" && !buildIDPattern.MatchString(m.BuildID) {
		ps.addf(where, "build_id %q is not lowercase hex", m.BuildID)
	}
	if m.Size < 0 {
		ps.addf(where, "size %d", m.Size)
	}
}

func (l *Loop) check(ps *problems) {
	if l.Iterations < 0 {
		ps.addf("loop", "iterations %d", l.Iterations)
	}
	if !nonNegative(l.MS) || !nonNegative(l.CopyMS) {
		ps.addf("loop", "ms_per_iteration %v, copy_ms_per_iteration %v: times are finite and not negative", l.MS, l.CopyMS)
	}
	if l.Marker != nil {
		if l.Iterations == 0 {
			ps.addf("loop", "a marker but no iterations")
		}
		checkSite(ps, "loop.marker", *l.Marker, true)
	}
	if l.MarkerEvery < 0 || l.MarkerEvery == 1 || (l.MarkerEvery > 0 && l.Marker == nil) {
		ps.addf("loop", "marker_every %d: more than one call per iteration at a marker, or absent", l.MarkerEvery)
	}
	if !(l.Confidence >= 0 && l.Confidence <= 1) || (l.Confidence > 0 && l.Iterations == 0) {
		ps.addf("loop", "confidence %v: from 0 to 1, and only with iterations", l.Confidence)
	}
	if s := l.Span; s != nil && (l.Iterations == 0 || s.Repeats < 2 || s.Calls < 1 ||
		s.FirstEvent >= s.LastEvent || s.FirstNS > s.LastNS) {
		ps.addf("loop", "span %+v: only with iterations, 2 or more repeats of 1 or more calls, the first before the last", *s)
	}
}

func (p *Pair) check(ps *problems, where string, loop *Loop) {
	switch {
	case p.ID == "":
		ps.addf(where, "no id")
	case !pairIDPattern.MatchString(p.ID):
		ps.addf(where, "id %q is not p1, p2, …", p.ID)
	}
	if !slices.Contains(pairDirections, p.Direction) {
		ps.addf(where, "direction %q is not one of %s", p.Direction, list(pairDirections))
	}
	if p.Bytes == 0 {
		ps.addf(where, "bytes 0")
	}
	p.checkStatus(ps, where)
	for i, e := range p.Evidence {
		if strings.TrimSpace(e) == "" {
			ps.addf(fmt.Sprintf("%s.evidence[%d]", where, i), "empty")
		}
	}
	counted := p.Status.Counted()
	if counted && loop.Iterations == 0 {
		ps.addf(where, "status %s, but the plan found no loop to share", p.Status)
	}

	checkBuffer(ps, where+".host", p.Host, hostKinds)
	checkBuffer(ps, where+".device", p.Device, deviceKinds)
	if counted && (p.Host.Site.Bytes != p.Bytes || (!p.Device.Block && p.Device.Site.Bytes != p.Bytes)) {
		ps.addf(where, "bytes %d, host %d, device %d: the buffers of a pair are the same size",
			p.Bytes, p.Host.Site.Bytes, p.Device.Site.Bytes)
	}
	if p.Device.Block && p.Device.Offset+p.Bytes > p.Device.Site.Bytes && !p.Device.Unresolved {
		ps.addf(where+".device", "a %d-byte block at offset %d does not fit its %d-byte allocation", p.Bytes, p.Device.Offset, p.Device.Site.Bytes)
	}
	p.checkStrategies(ps, where, counted)
	p.checkStaging(ps, where+".staging")

	if len(p.Copies) == 0 && counted { // a refused pair may have none: all its copies were partial
		ps.addf(where, "no copies")
	}
	directions, estimated := p.checkCopies(ps, where, counted)
	if counted {
		if gap := chunkGap(p.Copies, p.Bytes); gap != "" {
			ps.addf(where, "%s", gap)
		}
	}
	if p.Direction == "both" && len(p.Copies) > 0 && !(directions["h2d"] && directions["d2h"]) {
		ps.addf(where, "direction both, but the copies do not go both ways")
	}
	switch {
	case p.Estimated && !estimated:
		ps.addf(where, "estimated, but none of its copies is")
	case !p.Estimated && estimated:
		ps.addf(where, "not estimated, but some of its copies are")
	}

	if counted && p.BytesPerIteration == 0 {
		ps.addf(where, "bytes_per_iteration 0")
	}
	if !nonNegative(p.CopyMSPerIteration) {
		ps.addf(where, "copy_ms_per_iteration %v", p.CopyMSPerIteration)
	}
	checkGain(ps, where, p.FCopy, p.PredictedSpeedup)
}

// checkStatus: a status known, a reason where refused and only there, evidence where the
// status needs it, and a refusing stage (and the status it refused from) only where refused.
func (p *Pair) checkStatus(ps *problems, where string) {
	switch {
	case p.Status == "":
		ps.addf(where, "no status")
	case !p.Status.Known():
		ps.addf(where, "status %q is not one of %s", p.Status, list(statuses))
	case p.Status == StatusRefused && strings.TrimSpace(p.Reason) == "":
		ps.addf(where, "refused without a reason")
	case p.Status != StatusRefused && p.Reason != "":
		ps.addf(where, "status %s with a reason (%q): only a refused pair has one", p.Status, p.Reason)
	case slices.Contains(statusEvidenced, p.Status) && len(p.Evidence) == 0:
		ps.addf(where, "status %s without evidence", p.Status)
	}
	switch {
	case p.RefusedAt != "" && p.Status != StatusRefused:
		ps.addf(where, "status %s, refused at %s: only a refused pair has a refusing stage", p.Status, p.RefusedAt)
	case p.RefusedAt != "" && !slices.Contains(stages, p.RefusedAt):
		ps.addf(where, "refused_at %q is not one of %s", p.RefusedAt, list(stages))
	case p.RefusedFrom != "" && p.RefusedAt != StageCalibrate:
		ps.addf(where, "refused_from %s, but refused at %q: only calibration's refusal keeps the status it took", p.RefusedFrom, p.RefusedAt)
	case p.RefusedFrom != "" && !p.RefusedFrom.Counted():
		ps.addf(where, "refused_from %q: a status a pair counts in (candidate, validated, calibrated, enabled)", p.RefusedFrom)
	}
}

// checkCopies checks each of the pair's copies, and returns the directions they go and
// whether any is estimated.
func (p *Pair) checkCopies(ps *problems, where string, counted bool) (directions map[CopyDirection]bool, estimated bool) {
	directions = map[CopyDirection]bool{}
	for i, c := range p.Copies {
		at := fmt.Sprintf("%s.copies[%d]", where, i)
		c.check(ps, at, counted)
		directions[c.Direction] = true
		estimated = estimated || c.Estimated
		if c.Offset+c.Site.Bytes > p.Bytes {
			ps.addf(at, "copies %d bytes at offset %d of a %d-byte pair", c.Site.Bytes, c.Offset, p.Bytes)
		}
		switch {
		case p.Direction == "input" && c.Direction == "d2h", p.Direction == "output" && c.Direction == "h2d":
			ps.addf(at, "direction %s in an %s pair", c.Direction, p.Direction)
		}
	}
	return directions, estimated
}

// checkStrategies: known names, each once; a pair that counts allows one at least, a refused
// pair none; what only pinned can serve (a device block, a fresh host buffer every iteration)
// allows no merge, and a merge refusal is said only where pinned is all that is left.
func (p *Pair) checkStrategies(ps *problems, where string, counted bool) {
	seen := map[Strategy]bool{}
	for _, s := range p.Strategies {
		if !slices.Contains(strategies, s) || seen[s] {
			ps.addf(where, "strategies %v: each one of %s, once", p.Strategies, list(strategies))
			break
		}
		seen[s] = true
	}
	switch {
	case len(p.Strategies) == 0 && counted:
		ps.addf(where, "status %s, but no strategy may serve it", p.Status)
	case len(p.Strategies) > 0 && !counted && p.RefusedFrom == "":
		ps.addf(where, "refused, yet strategies %v may serve it", p.Strategies)
	case p.Merges() && counted && (p.Device.Block || p.Host.Allocations > 1 || p.Device.Allocations > 1):
		ps.addf(where, "a merge strategy for a device block or a buffer allocated afresh each iteration: only pinned serves those")
	case p.MergeRefused != "" && !slices.Equal(p.Strategies, []Strategy{StrategyPinned}):
		ps.addf(where, "merge_refused, but strategies are %v, not pinned alone", p.Strategies)
	}
}

// checkStaging: a staged pair names the framework's buffer; what a resolve run found of the
// copy through it comes together (its site, its counts and time); pinned alone serves it.
func (p *Pair) checkStaging(ps *problems, where string) {
	s := p.Staging
	if s == nil {
		return
	}
	checkSite(ps, where+".via", s.Via, true)
	if s.Copy != nil {
		checkSite(ps, where+".copy", *s.Copy, true)
	}
	switch {
	case !nonNegative(s.MS) || !nonNegative(s.PerIteration) || s.Copies < 0 || s.Linked < 0:
		ps.addf(where, "ms %v, per_iteration %v, copies %d, linked %d: none negative", s.MS, s.PerIteration, s.Copies, s.Linked)
	case s.Copy == nil && (s.MS != 0 || s.PerIteration != 0 || s.Copies != 0 || s.Linked != 0):
		ps.addf(where, "counts and times of a staging copy it names no site of")
	case p.Merges():
		ps.addf(where, "a merge strategy for a staged pair: only pinned serves it")
	}
}

func checkBuffer(ps *problems, where string, b Buffer, kinds []MemKind) {
	switch {
	case b.Kind == "" && !b.Unresolved:
		ps.addf(where, "no kind")
	case b.Kind != "" && !slices.Contains(kinds, b.Kind):
		ps.addf(where, "kind %q is not one of %s", b.Kind, list(kinds))
	}
	// An unresolved buffer knows only its size, from the copies.
	checkSite(ps, where+".site", b.Site, !b.Unresolved)
	if b.Identity != nil {
		if err := b.Identity.check(); err != nil {
			ps.addf(where+".identity", "%v", err)
		}
	}
}

func (c *Copy) check(ps *problems, where string, counted bool) {
	checkSite(ps, where+".site", c.Site, true)
	if !slices.Contains(copyDirections, c.Direction) {
		ps.addf(where, "direction %q is not one of %s", c.Direction, list(copyDirections))
	}
	if c.Stream == "" {
		ps.addf(where, "no stream")
	}
	if c.Repair != "" && !slices.Contains(repairs, c.Repair) {
		ps.addf(where, "repair %q is not one of %s", c.Repair, list(repairs))
	}
	if c.Count < 1 {
		ps.addf(where, "count %d", c.Count)
	}
	if !nonNegative(c.PerIteration) || counted && c.PerIteration == 0 {
		ps.addf(where, "per_iteration %v", c.PerIteration)
	}
	if !nonNegative(c.MS) {
		ps.addf(where, "ms %v", c.MS)
	}
}

func (r *Rejection) check(ps *problems, where string) {
	site := r.Site
	if site.Bytes == 0 {
		site.Bytes = 1 // a zero-byte copy is a site like any other, and rejected
	}
	checkSite(ps, where+".site", site, true)
	if !slices.Contains(siteDirections, r.Direction) && !unknownKindPattern.MatchString(string(r.Direction)) {
		ps.addf(where, "direction %q is not one of %s or kind(N)", r.Direction, list(siteDirections))
	}
	if r.Count < 1 {
		ps.addf(where, "count %d", r.Count)
	}
	if strings.TrimSpace(r.Reason) == "" {
		ps.addf(where, "no reason")
	}
}

func checkSite(ps *problems, where string, s Site, needCall bool) {
	if needCall && s.Call == "" {
		ps.addf(where, "no call")
	}
	if s.Bytes == 0 {
		ps.addf(where, "bytes 0")
	}
	if s.Ordinal < 0 {
		ps.addf(where, "ordinal %d", s.Ordinal)
	}
	if s.ModuleSize < 0 {
		ps.addf(where, "module_size %d", s.ModuleSize)
	}
	if s.BuildID != "" && !buildIDPattern.MatchString(s.BuildID) {
		ps.addf(where, "build_id %q is not lowercase hex", s.BuildID)
	}
	if s.Module == "" && (s.BuildID != "" || s.ModuleSize != 0) {
		ps.addf(where, "a build_id or module_size without a module")
	}
}

// checkGain checks a copy share and the Amdahl bound derived from it.
func checkGain(ps *problems, where string, f, speedup float64) {
	if !(f >= 0 && f < 1) {
		ps.addf(where, "f_copy %v is not in [0, 1)", f)
		return
	}
	want := 1 / (1 - f)
	switch {
	case !(speedup >= 1):
		ps.addf(where, "predicted_speedup %v is below 1", speedup)
	case !(math.Abs(speedup-want) <= speedupTolerance*want):
		ps.addf(where, "predicted_speedup %v is not 1/(1-f_copy) = %v", speedup, want)
	}
}

func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

func list[T any](set []T) string {
	words := make([]string, len(set))
	for i, s := range set {
		words[i] = fmt.Sprint(s)
	}
	return strings.Join(words, ", ")
}

// maxProblems bounds an error message: past a few, the plan is not a hand edit gone wrong.
const maxProblems = 10

// problems collects what is wrong with a plan, each with where it is.
type problems struct {
	errs []error
	more int
}

func (ps *problems) addf(where, format string, args ...any) {
	if len(ps.errs) == maxProblems {
		ps.more++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	ps.errs = append(ps.errs, errors.New("plan: "+msg))
}

func (ps *problems) err() error {
	if ps.more > 0 {
		return errors.Join(append(ps.errs, fmt.Errorf("plan: and %d more problems", ps.more))...)
	}
	return errors.Join(ps.errs...)
}

// chunkGap is why a pair's copies in some direction do not cover it as one copy: a linking
// copy copies the whole buffer, or is one of chunks that together cover it exactly.
func chunkGap(copies []Copy, bytes uint64) string {
	for _, dir := range []CopyDirection{"h2d", "d2h"} {
		var pieces [][2]uint64
		for _, c := range copies {
			if c.Direction == dir && c.Site.Bytes != bytes {
				pieces = append(pieces, [2]uint64{c.Offset, c.Site.Bytes})
			}
		}
		if _, end, ok := Tiling(pieces, bytes); len(pieces) > 0 && !ok {
			return fmt.Sprintf("the %s copies do not cover the %d-byte pair from offset %d: a linking copy "+
				"copies the whole buffer, or chunks that together do, without overlapping", dir, bytes, end)
		}
	}
	return ""
}

// Tiling is whether pieces (offset, bytes; repeats count once) cover [0, size) exactly, how
// many distinct pieces there are, and how far from 0 they cover it without a gap or an
// overlap.
func Tiling(pieces [][2]uint64, size uint64) (n int, end uint64, ok bool) {
	pieces = slices.Clone(pieces)
	slices.SortFunc(pieces, func(a, b [2]uint64) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	pieces = slices.Compact(pieces)
	for _, pc := range pieces {
		if pc[0] != end {
			return len(pieces), end, false
		}
		end += pc[1]
	}
	return len(pieces), end, end == size
}
