// Package calibrate decides a plan by measurement (paper §3.3.2): the program as written
// (baseline, the shim only timing its loop) and merged with each applicable strategy run
// in turn for several rounds, each run timed whole as well as per iteration; a strategy is
// enabled only if its rounds, paired with the baseline's, show it faster by MinGain or more,
// Confidence sure (paired.go), by no more than the copies the trace saw can explain, only if
// the complete run pays for the strategy's set-up (setup.go), and only if the program
// printed and returned exactly what the baseline did. While a strategy that could still win
// is undecided, calibration runs more rounds, for as long as its budget allows.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
)

// Options tunes a calibration.
type Options struct {
	Rounds int // runs of every variant at least (DefaultRounds)
	// Budget is how long calibration may go on adding rounds beyond Rounds while a strategy
	// that could still win is undecided (DefaultBudget when 0; negative: no more rounds).
	// Rounds up to DefaultRounds, the fewest that can show a gain, run whatever the budget.
	Budget     time.Duration
	Ignore     *regexp.Regexp  // output lines that differ between runs by nature (timings)
	Strategies []plan.Strategy // to try; default mapped, system where the device allows, and pinned
	Stderr     io.Writer       // where the program's stderr goes (its stdout is captured)
	Progress   func(format string, args ...any)
}

// Variant is one way of running the program and what the runs showed.
type Variant struct {
	Strategy plan.Strategy `json:"strategy"` // "" for the baseline
	RoundMS  []float64     `json:"round_ms"` // median iteration of each round
	MedianMS float64       `json:"median_ms"`
	SpreadMS float64       `json:"spread_ms"` // 2 × the median absolute deviation of RoundMS
	// RunMS is the complete run of each round, start to exit, as the user waits for it:
	// set-up (page-locking, pools, first touch) and all, which RoundMS leaves out.
	RunMS       []float64 `json:"run_ms,omitempty"`
	RunMedianMS float64   `json:"run_median_ms,omitempty"`
	RunSpreadMS float64   `json:"run_spread_ms,omitempty"`
	Iterations  int       `json:"iterations,omitempty"` // the loop's iterations in a run
	// SetupMS is what the variant adds to the complete run beyond what its iterations save
	// (page-locking, pool growth, first touch): what the shim timed of its own set-up in each
	// run (ShimSetupMS) where the complete runs do not show the run slower, else what they
	// show.
	SetupMS     float64   `json:"setup_ms,omitempty"`
	ShimSetupMS []float64 `json:"shim_setup_ms,omitempty"`
	// Paired is the sign test of the variant's iterations against the baseline's, round by
	// round, and RunPaired the same of the complete runs (paired.go): what the verdict rests
	// on and how sure it is. Absent where the verdict needed no timing (the output differed,
	// nothing was served).
	Paired    *Paired `json:"paired,omitempty"`
	RunPaired *Paired `json:"run_paired,omitempty"`
	// Verdict says why the variant was enabled or not: "output differs: …", "slower: …",
	// "not faster: …", "undecided after N rounds: …", "not believed: …", "set-up not
	// repaid: …", or what won.
	Verdict    string `json:"verdict,omitempty"`
	Enabled    bool   `json:"enabled,omitempty"`
	OutputDiff string `json:"output_diff,omitempty"`
	Untouched  string `json:"untouched,omitempty"` // the shim ran the program untouched: why
	Served     int    `json:"merged"`              // pairs served (copies elided, host side pinned), in the last run
	// Fallbacks are the pairs some of whose allocations the last run made as written: why,
	// and the copies that cost.
	Fallbacks []runner.Fallback `json:"fallbacks,omitempty"`
	// Unexplained: the variant saves more per iteration than the trace's copies can
	// explain, so the difference is something else on the machine, not the merge.
	Unexplained string `json:"unexplained,omitempty"`
	// EnergyMJ is a marked iteration's energy in each round where the machine measures it
	// (Result.Device.EnergySource says how), EnergyMedianMJ their median.
	EnergyMJ       []float64 `json:"energy_mj,omitempty"`
	EnergyMedianMJ float64   `json:"energy_median_mj,omitempty"`
	lastReport     runner.Report
	outputs        []runOutput // every run's, told against the reference (output.go)
}

// Result is the calibration's outcome.
type Result struct {
	Baseline Variant       `json:"baseline"`
	Variants []Variant     `json:"variants"`
	Chosen   plan.Strategy `json:"chosen,omitempty"` // the winning strategy, if any
	// CopyMS is the time per iteration the calibrated pairs' copies take (explainableMS):
	// the most a merge can save, give or take what the trace could not time exactly.
	CopyMS float64 `json:"copy_ms"`
	// Varying are the output lines that differ between runs of the program as written in
	// their numbers alone (a timing --ignore did not name): compared by their words only.
	Varying []string `json:"varying,omitempty"`
	// Rounds is how many rounds ran: the rounds asked for, and the more rounds run while a
	// strategy that could win was undecided; Stopped says why no more ran.
	Rounds  int    `json:"rounds"`
	Stopped string `json:"stopped,omitempty"`
	Device  runner.Report
}

// asyncBytesPerMS is the rate at which an asynchronous copy's bytes are assumed to move when
// the trace timed only its issue: 8 GiB/s, slower than any link a GPU has to host memory
// (PCIe 3 x16 moves about 12), so that the bound it gives is generous, never tight.
const asyncBytesPerMS = float64(8<<30) / 1000

// explainableMS is the copy time per iteration a merge of pair may save: what the trace saw,
// where an asynchronous copy that returned without waiting (repair none) counts at least its
// bytes at asyncBytesPerMS, as its transfer ran on its stream, unseen.
func explainableMS(pair plan.Pair) float64 {
	ms := 0.0
	for _, c := range pair.Copies {
		each := c.MS
		if c.Repair == plan.RepairNone {
			each = max(each, float64(c.Site.Bytes)/asyncBytesPerMS)
		}
		ms += each * c.PerIteration
	}
	return max(ms, pair.CopyMSPerIteration)
}

// DefaultRounds is how many runs of every variant calibration makes at least unless told
// (echoctl calibrate and optimize --rounds): seven, the fewest in which the sign test can be
// 99 % sure (a variant faster in all seven: a chance of 1 in 128 for one that is not).
const DefaultRounds = 7

// DefaultBudget is how long calibration goes on adding rounds while a strategy that could win
// is undecided, unless told (--budget): half a minute, a few dozen rounds of a loop that runs
// in a second, a few of one that runs in ten.
const DefaultBudget = 30 * time.Second

// Calibrate runs the comparison for the plan's pairs that are not refused.
func Calibrate(ctx context.Context, p *plan.Plan, pairs []plan.Pair, argv []string, o Options) (*Result, error) {
	if o.Rounds < 1 {
		o.Rounds = DefaultRounds
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	base, err := plan.Compact(p, nil, plan.StrategyMapped, plan.ModeMeasure)
	if err != nil {
		return nil, err
	}
	res := &Result{Baseline: Variant{}}
	for _, pair := range pairs {
		res.CopyMS += explainableMS(pair)
	}
	strategies := o.Strategies
	var composed map[plan.Strategy]string // each variant's deployment, by strategy
	said := 0                             // the varying lines said so far
	ref := &reference{ignore: o.Ignore}   // the baseline's first output, which every run is told against
	var more budget                       // the rounds beyond o.Rounds
	for r := 0; ; r++ {
		began := time.Now()
		if err := res.Baseline.run(ctx, argv, base, o, ref); err != nil {
			return nil, fmt.Errorf("baseline run %d: %w", r+1, err)
		}
		if r == 0 {
			res.Device = res.Baseline.lastReport
			if strategies == nil {
				strategies = applicable(res.Device)
			}
			if composed, err = res.compose(p, pairs, strategies); err != nil {
				return nil, err
			}
		}
		for i := range res.Variants {
			v := &res.Variants[i]
			if err := v.run(ctx, argv, composed[v.Strategy], o, ref); err != nil {
				return nil, fmt.Errorf("%s run %d: %w", v.Strategy, r+1, err)
			}
		}
		res.compareOutputs(ref)
		if r+1 == o.Rounds && len(res.Baseline.outputs) == 1 && res.outputsDiffer() {
			// One run as written cannot tell a timing from a result: one more, for its output.
			if err := res.Baseline.rerun(ctx, argv, base, o, ref); err != nil {
				return nil, fmt.Errorf("baseline run %d: %w", r+2, err)
			}
			res.compareOutputs(ref)
		}
		for ; said < len(res.Varying); said++ {
			o.Progress("not comparing %s: it differs between runs of the program as written in its numbers alone "+
				"(--ignore names such lines)", res.Varying[said])
		}
		res.Rounds = r + 1
		if r+1 <= o.Rounds {
			o.Progress("round %d/%d: %s", r+1, o.Rounds, res.roundLine(r))
		} else {
			o.Progress("round %d (more while %s): %s", r+1, res.undecided(), res.roundLine(r))
		}
		if r+1 < o.Rounds {
			continue
		}
		if r+1 == o.Rounds {
			more = budget{start: time.Now(), limit: o.Budget}
		}
		more.round(time.Since(began))
		left := more.left()
		if o.Budget >= 0 {
			// Fewer rounds than DefaultRounds cannot show a strategy faster at all: they run
			// whatever the budget, where one could still be (--budget 0 runs none beyond --rounds).
			left = max(left, DefaultRounds-res.Rounds)
		}
		if !res.decide(left) { // with no round left, nothing undecided can still win
			res.Stopped = res.stopped(o, left)
			return res, nil
		}
	}
}

// compose adds to res a variant for each strategy that serves some of pairs, and returns
// each one's deployment of p, by strategy.
func (res *Result) compose(p *plan.Plan, pairs []plan.Pair, strategies []plan.Strategy) (map[plan.Strategy]string, error) {
	composed := map[plan.Strategy]string{}
	for _, s := range strategies {
		served := plan.PairsFor(pairs, s)
		if len(served) == 0 {
			continue
		}
		c, err := plan.Compact(p, served, s, plan.ModeCalibrate)
		if err != nil {
			return nil, err
		}
		composed[s] = c
		res.Variants = append(res.Variants, Variant{Strategy: s})
	}
	return composed, nil
}

// budget tracks the time calibration may still spend on rounds beyond those asked for.
type budget struct {
	start   time.Time
	limit   time.Duration
	longest time.Duration // the longest round so far, what the next one may take
}

func (b *budget) round(took time.Duration) { b.longest = max(b.longest, took) }

// left is how many more rounds fit in the budget, each as long as the longest so far.
func (b *budget) left() int {
	rest := b.limit - time.Since(b.start)
	if rest <= 0 || b.longest <= 0 {
		return 0
	}
	return int(rest / b.longest)
}

// undecided names the strategies the rounds have not decided: "pinned", "mapped and pinned".
func (r *Result) undecided() string {
	var names []string
	for _, v := range r.Variants {
		if v.Paired != nil && v.Paired.Outcome == OutcomeUndecided {
			names = append(names, string(v.Strategy))
		}
	}
	switch len(names) {
	case 0:
		return "a strategy undecided"
	case 1:
		return names[0] + " undecided"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " undecided"
}

// stopped says why calibration ran no more rounds, where it ran more than asked or could not
// decide: every strategy decided, or those undecided cannot change the verdict in the rounds
// the budget allows.
func (r *Result) stopped(o Options, left int) string {
	undecided := false
	for _, v := range r.Variants {
		undecided = undecided || v.Paired != nil && v.Paired.Outcome == OutcomeUndecided
	}
	switch {
	case !undecided && r.Rounds == o.Rounds:
		return ""
	case !undecided:
		return "every strategy decided"
	case o.Budget < 0:
		return fmt.Sprintf("%s, and no budget for more rounds (--budget 0)", r.undecided())
	case r.Chosen != "":
		return fmt.Sprintf("%s: none could beat %s in the rounds the budget (%s) allows", r.undecided(), r.Chosen, o.Budget)
	case left == 0:
		return fmt.Sprintf("the budget (%s) allows no more rounds with %s", o.Budget, r.undecided())
	}
	return fmt.Sprintf("%s: the %d more rounds the budget (%s) allows could not show it faster %s sure", r.undecided(),
		left, o.Budget, percent(Confidence))
}

// Energy is a marked iteration's median energy as written and served with strategy (the
// baseline's again when strategy is "", nothing served), where the machine measured both.
func (r *Result) Energy(strategy plan.Strategy) plan.Energy {
	e := plan.Energy{Source: r.Device.EnergySource, BeforeMJ: r.Baseline.EnergyMedianMJ, AfterMJ: r.Baseline.EnergyMedianMJ}
	for _, v := range r.Variants {
		if v.Strategy == strategy {
			e.AfterMJ = v.EnergyMedianMJ
		}
	}
	if e.BeforeMJ == 0 || e.AfterMJ == 0 {
		return plan.Energy{}
	}
	return e
}

// applicable strategies: system only where the device reaches pageable memory. (Managed is
// no merge strategy any more: plan.MergeStrategies.)
func applicable(device runner.Report) []plan.Strategy {
	s := []plan.Strategy{plan.StrategyMapped}
	if device.Pageable {
		s = append(s, plan.StrategySystem)
	}
	return append(s, plan.StrategyPinned)
}

func (v *Variant) run(ctx context.Context, argv []string, compact string, o Options, ref *reference) error {
	res, err := v.runOnce(ctx, argv, compact, o)
	if err != nil {
		return err
	}
	if len(res.Report.IterationNS) == 0 {
		return fmt.Errorf("the run timed no iteration: the plan's loop marker was never reached")
	}
	ms := make([]float64, len(res.Report.IterationNS))
	for i, ns := range res.Report.IterationNS {
		ms[i] = float64(ns) / 1e6
	}
	v.RoundMS = append(v.RoundMS, median(ms))
	v.RunMS = append(v.RunMS, float64(res.Wall.Nanoseconds())/1e6)
	if v.Strategy != "" {
		v.ShimSetupMS = append(v.ShimSetupMS, float64(res.Report.SetupNS)/1e6)
	}
	v.Iterations = len(ms) + 1 // the shim times the gaps between the marker's copies, one per iteration
	if res.Report.IterationEnergyMJ > 0 {
		v.EnergyMJ = append(v.EnergyMJ, res.Report.IterationEnergyMJ)
		v.EnergyMedianMJ = median(v.EnergyMJ)
	}
	v.lastReport = res.Report
	v.Served = res.Report.Served
	v.Fallbacks = res.Report.FallbackPairs()
	if !res.Report.Active && v.Strategy != "" && v.Untouched == "" {
		v.Untouched = res.Report.Reason
	}
	v.outputs = append(v.outputs, ref.take(res.Stdout, res.ExitCode))
	return nil
}

// rerun runs the variant once more for its output alone: its timings are not the rounds'.
func (v *Variant) rerun(ctx context.Context, argv []string, compact string, o Options, ref *reference) error {
	res, err := v.runOnce(ctx, argv, compact, o)
	if err == nil {
		v.outputs = append(v.outputs, ref.take(res.Stdout, res.ExitCode))
	}
	return err
}

// runOnce runs the program on compact; the program as written must exit 0.
func (v *Variant) runOnce(ctx context.Context, argv []string, compact string, o Options) (runner.Result, error) {
	tail := runner.NewTail(4 << 10)
	stderr := io.Writer(tail)
	if o.Stderr != nil {
		stderr = io.MultiWriter(o.Stderr, tail)
	}
	res, err := runner.Run(ctx, argv, compact, runner.IO{Stderr: stderr})
	if errors.Is(err, runner.ErrNoReport) {
		// No report: the shim never ran, so neither did the program (the dynamic loader
		// refused it, say); the loader's own words are in its stderr.
		return res, tail.Explain(fmt.Sprintf("%s did not start (exit status %d, and the shim left no report)",
			argv[0], res.ExitCode))
	}
	if err != nil {
		return res, err
	}
	if v.Strategy == "" && res.ExitCode != 0 {
		// Nothing merged fails here: the program itself does, and no comparison means anything.
		return res, tail.Explain(fmt.Sprintf("the program as written exited with status %d", res.ExitCode))
	}
	return res, nil
}

func (r *Result) roundLine(round int) string {
	line := fmt.Sprintf("baseline %.3f ms (run %.0f ms)", r.Baseline.RoundMS[round], r.Baseline.RunMS[round])
	for _, v := range r.Variants {
		line += fmt.Sprintf(", %s %.3f ms (run %.0f ms)", v.Strategy, v.RoundMS[round], v.RunMS[round])
	}
	return line
}
