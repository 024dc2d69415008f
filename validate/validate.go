// Package validate runs a program as written, with the preload library in it, up to twice,
// and folds what each run saw into the plan: where the trace did not see a pair's buffer
// allocated, a first run finds its allocation site (resolve.go, shim/resolve.c); then a run
// watches each candidate pair's host buffer in the windows where merging would change what
// the program reads or writes (shim/validate.c).
package validate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/runner"
)

// Candidates are the pairs a validate run watches.
func Candidates(p *plan.Plan) []plan.Pair {
	return p.PairsIn(plan.StatusCandidate)
}

// Run validates the plan's candidates. Where the trace did not see a side allocated (host
// allocators not traced, or an attached trace), or saw an asynchronous copy return before
// it ran, a first run finds where and times the copies (resolve.go) and updates the plan;
// pairs only pinned may serve are then done. A second run watches the
// pairs a merge may serve; its result is what Run returns, for Apply (without one, the
// first run's, with no pairs in its report).
func Run(ctx context.Context, p *plan.Plan, argv []string, stdio runner.IO) (runner.Result, error) {
	if len(Candidates(p)) == 0 {
		return runner.Result{}, errors.New("the plan has no candidate pair to validate")
	}
	var res runner.Result
	if pending := toResolve(p); len(pending) > 0 {
		var err error
		if res, err = resolve(ctx, p, pending, argv, stdio); err != nil {
			return res, err
		}
		res.Report.Pairs = nil
	}
	var pairs []plan.Pair
	for _, pair := range Candidates(p) {
		if pair.Merges() && !pair.Host.Unresolved && !pair.Device.Unresolved {
			pairs = append(pairs, pair)
		}
	}
	if len(pairs) == 0 {
		return res, nil
	}
	// A run that failed may have stopped before it reached a window: it proves nothing.
	return shimRun(ctx, p, pairs, plan.ModeValidate, argv, stdio, "during validation, so it proves nothing", "validation")
}

// shimRun runs argv once with the preload library serving pairs in mode (merged, so that it
// watches them). A run that failed, or in which the library did not act, is an error: during
// says when the program failed ("during validation"), what names the run ("validation").
func shimRun(ctx context.Context, p *plan.Plan, pairs []plan.Pair, mode plan.Mode, argv []string, stdio runner.IO, during, what string) (runner.Result, error) {
	compact, err := plan.Compact(p, pairs, plan.StrategyMapped, mode)
	if err != nil {
		return runner.Result{}, err
	}
	res, err := runner.Run(ctx, argv, compact, stdio)
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, fmt.Errorf("%s exited with status %d %s: fix the run first", argv[0], res.ExitCode, during)
	}
	if !res.Report.Active {
		return res, fmt.Errorf("%s did not run: %s", what, res.Report.Reason)
	}
	return res, nil
}

// Apply folds a validate run into the plan: a pair with an access in a window is refused, a
// pair whose copies were all watched without one is validated, and one the run never
// reached stays a candidate.
func Apply(p *plan.Plan, report runner.Report) {
	seen := map[string]runner.PairReport{}
	for _, r := range report.Pairs {
		seen[r.ID] = r
	}
	stamp := time.Now().UTC().Format(time.RFC3339)
	for i := range p.Pairs {
		pair := &p.Pairs[i]
		r, ok := seen[pair.ID]
		if pair.Status != plan.StatusCandidate || !ok {
			continue
		}
		watched := r.Seen && r.Copies > 0
		threads := interleaved(r)
		switch {
		case r.Refused && pair.Allows(plan.StrategyPinned):
			// What a merge would change, pinned does not: it keeps the copies.
			pair.ValidateForPinnedOnly("validation: "+r.Reason+at(p, r), fmt.Sprintf("validated %s for pinned only: "+
				"a merge would change what the program reads (%s); pinned keeps every copy", stamp, r.Reason))
		case r.Refused:
			pair.Refuse(plan.StageValidate, "validation: "+r.Reason+at(p, r))
		case watched && threads != "" && pair.Allows(plan.StrategyPinned):
			pair.ValidateForPinnedOnly("validation: "+threads, fmt.Sprintf("validated %s for pinned only: %s; pinned "+
				"serves the host allocation site whichever call it is", stamp, threads))
		case watched && threads != "":
			pair.Refuse(plan.StageValidate, "validation: "+threads)
		case watched:
			pair.Validate(fmt.Sprintf("validated %s: %d linking copies watched, no host access "+
				"in a window where merging would change what is read or written%s", stamp, r.Copies, identify(pair, r)))
		default:
			pair.Evidence = append(pair.Evidence, fmt.Sprintf("not validated %s: the run never allocated and linked this pair", stamp))
		}
	}
	planner.Recount(p)
}

// interleaved says why a merge cannot name the pair's buffers where the run saw a side's call
// chain allocate from several threads: which of its calls is which then depends on how the
// threads interleave, so neither the site nor the chain names one buffer; "" otherwise.
func interleaved(r runner.PairReport) string {
	for i, id := range r.Identity {
		if id.Known && id.Threads {
			return fmt.Sprintf("its %s buffer's call chain allocates from several threads, whose calls interleave as they "+
				"run: no site, chain or ordinal names one buffer", []string{"host", "device"}[min(i, 1)])
		}
	}
	return ""
}

// identify records who took each side's slot in the run (plan.Identity), by their call
// chains, and says so for the evidence.
func identify(pair *plan.Pair, r runner.PairReport) string {
	sides := []*plan.Buffer{&pair.Host, &pair.Device}
	named := 0
	for i, id := range r.Identity {
		if i >= len(sides) || !id.Known || len(id.Chain) == 0 || id.Count < 1 || id.Ordinal >= id.Count {
			continue
		}
		got := &plan.Identity{Ordinal: id.Ordinal, Calls: id.Count}
		for _, f := range id.Chain {
			got.Chain = append(got.Chain, plan.Frame{Module: f.Module, Offset: f.Offset})
		}
		sides[i].Identity = got
		named++
	}
	why := fmt.Sprintf("; %d of its 2 buffers named by their call chains", named)
	for _, s := range []string{pair.Host.Shared("host"), pair.Device.Shared("device")} {
		if s != "" {
			why += "; " + s
		}
	}
	return why
}

// at names the instruction that made the access, as module+offset, and when: how far into
// the run, after how many of the pair's linking copies (a conflict in the first iteration
// reads differently from one in the last).
func at(p *plan.Plan, r runner.PairReport) string {
	if r.AtModule == "" {
		return ""
	}
	when := fmt.Sprintf(", %.1f ms into the run, after %d of its linking copies", float64(r.AtNS)/1e6, r.AtCopy)
	name := r.AtModule
	if exe := p.Context.Executable; exe.BuildID != "" && exe.BuildID == r.AtModule {
		name = filepath.Base(exe.Path)
	} else if len(name) > 12 && !strings.Contains(name, ":") {
		name = name[:12] + "…"
	}
	return fmt.Sprintf(" (at %s+%#x%s)", name, r.AtOffset, when)
}
