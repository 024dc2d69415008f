package calibrate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
)

// rounds7 is seven rounds around ms, as a quiet machine gives them.
func rounds7(ms float64) []float64 {
	return []float64{ms, ms * 1.01, ms * 0.99, ms * 1.005, ms, ms * 0.995, ms * 1.002}
}

func TestDecide(t *testing.T) {
	quiet := rounds7(1)
	slowed := []float64{1.00, 1.02, 0.98, 2.90, 1.01, 1.00, 0.99} // one round slowed by the machine
	cases := []struct {
		name     string
		base     []float64
		copyMS   float64 // the calibrated pairs' copies per iteration, as the trace saw them
		variants []Variant
		want     string
		verdict  string // the first variant's verdict begins so
	}{
		{"a clear win despite one slow baseline round", slowed, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.5), Served: 2},
		}, "mapped", "2.01× (1.98–5.77×, each bound 99% sure) faster by 2% or more in 7 of 7 paired rounds, 99.2% sure"},
		{"the fastest of two wins", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.5), Served: 2},
			{Strategy: "system", RoundMS: rounds7(0.4), Served: 2},
		}, "system", "passed over: system is faster per iteration"},
		// The framework workload's case (validate's TestOptimizeFrameworkPins): no merge
		// serves it, and pinned, which keeps the copies but makes them faster, wins as any.
		{"pinned where no merge serves", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(1)},
			{Strategy: "pinned", RoundMS: rounds7(0.7), Served: 2},
		}, "pinned", "nothing served"},
		{"a gain under 2% is not faster", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.99), Served: 2},
		}, "", "not faster: 1.01× (1.01–1.01×, each bound 99% sure) faster by 2% or more in only 0 of 7 paired rounds: 99.2% sure it is not"},
		// The slowed round is the one the variant lost: 6 of 7 is not 99% sure.
		{"one round lost", slowed, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(1.5), Served: 2},
		}, "", "undecided after 7 rounds: 0.67× (0.66–1.92×, each bound 99% sure) faster by 2% or more in 1 of 7 paired rounds, where 99% sure needs 7"},
		{"a variant too noisy to tell", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: []float64{0.30, 1.60, 0.90, 0.20, 1.50, 0.95, 1.2}, Served: 2},
		}, "", "undecided after 7 rounds"},
		{"five rounds cannot be 99% sure", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.5)[:5], Served: 2},
		}, "", "undecided after 5 rounds: 2.00× (too few rounds to bound it 99% sure) faster by 2% or more in 5 of 5 paired rounds; 5 rounds cannot show a gain 99% sure (7 can)"},
		{"slower", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(1.5), Served: 2},
		}, "", "slower: 0.67× (0.67–0.67×, each bound 99% sure) slower in 7 of 7 paired rounds, 99.2% sure"},
		{"different output", quiet, 0.4, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.5), Served: 2, OutputDiff: "printed x"},
		}, "", "output differs: the program printed x"},
		// Copies of 0.05 ms per iteration cannot save 0.5 ms, nor even the low bound's.
		{"a gain the copies cannot explain", quiet, 0.05, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.5), Served: 2},
		}, "", "not believed: it saves 0.500 ms per iteration or more"},
		// An explained win is taken over a faster unexplained one.
		{"the explained win", quiet, 0.3, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(0.75), Served: 2},
			{Strategy: "system", RoundMS: rounds7(0.10), Served: 2},
		}, "mapped", "1.33×"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Baseline: Variant{RoundMS: c.base}, Variants: c.variants, CopyMS: c.copyMS}
			r.decide(0)
			if string(r.Chosen) != c.want || !strings.HasPrefix(r.Variants[0].Verdict, c.verdict) {
				t.Errorf("chose %q, verdict %q; want %q, a verdict beginning %q", r.Chosen, r.Variants[0].Verdict, c.want, c.verdict)
			}
		})
	}
}

// particlefilter on the H200: enabled at a measured 1.26× where the trace bounded the gain at
// 1.01× (0.45 ms of copies in a 44 ms iteration), and the deployed plan ran slower than the
// program. The gain is not the merge's: refused.
func TestDecideRefusesParticlefilter(t *testing.T) {
	r := &Result{
		Baseline: Variant{RoundMS: []float64{44.1, 43.8, 44.3, 44.0, 43.9, 44.2, 44.0}},
		Variants: []Variant{{Strategy: "mapped", RoundMS: []float64{35.0, 34.8, 35.3, 35.1, 34.9, 35.2, 35.0}, Served: 1}},
		CopyMS:   0.45,
	}
	if r.decide(10) || r.Chosen != "" || r.Variants[0].Unexplained == "" {
		t.Errorf("chose %q (%q); want nothing chosen, the gain unexplained, no more rounds", r.Chosen, r.Variants[0].Unexplained)
	}
}

// The case (issue 41): pinned about 1.09× faster (6.18 against 5.66 ms), on a loaded
// machine whose runs move by more than the gain. The medians and the baseline's spread
// refused it ("within the spread"); paired round by round it is faster in 7 of 7.
func TestDecidePairsTheRounds(t *testing.T) {
	r := &Result{
		Baseline: Variant{RoundMS: []float64{6.18, 7.40, 5.90, 6.90, 6.10, 8.00, 6.30}},
		Variants: []Variant{{Strategy: "pinned", RoundMS: []float64{5.66, 6.70, 5.40, 6.35, 5.60, 7.30, 5.75}, Served: 1}},
		CopyMS:   1,
	}
	if r.decide(0); r.Chosen != "pinned" {
		t.Errorf("chose %q (%s); want pinned, faster in every round", r.Chosen, r.Variants[0].Verdict)
	}
	if p := r.Variants[0].Paired; p == nil || p.Outcome != OutcomeFaster || p.Faster != 7 || p.Low < 1.08 {
		t.Errorf("paired %+v; want faster in 7 of 7, at least 1.08×", p)
	}
}

// More rounds run only while they could change what is enabled: an undecided variant that
// could still be shown faster in the rounds left, and could then beat the one chosen.
func TestDecideWantsMoreRounds(t *testing.T) {
	base := rounds7(10)
	undecided := []float64{9.0, 9.1, 10.5, 9.0, 9.2, 9.1, 9.0} // 6 of 7 won
	cases := []struct {
		name     string
		left     int
		variants []Variant
		more     bool
	}{
		{"undecided, rounds left", 5, []Variant{{Strategy: "pinned", RoundMS: undecided, Served: 1}}, true},
		{"undecided, no round left", 0, []Variant{{Strategy: "pinned", RoundMS: undecided, Served: 1}}, false},
		// 6 of 7 won: 8 of 8 rounds cannot be reached (7 of 8 needs one more), 9 of 9 can.
		{"one round cannot decide it", 1, []Variant{{Strategy: "pinned", RoundMS: undecided, Served: 1}}, false},
		{"decided", 5, []Variant{{Strategy: "pinned", RoundMS: rounds7(9), Served: 1}}, false},
		{"undecided, but it cannot beat the chosen", 5, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(2), Served: 2},
			{Strategy: "pinned", RoundMS: undecided, Served: 1}}, false},
		{"undecided, and it could beat the chosen", 5, []Variant{
			{Strategy: "mapped", RoundMS: rounds7(9.5), Served: 2},
			{Strategy: "pinned", RoundMS: undecided, Served: 1}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Baseline: Variant{RoundMS: base}, Variants: c.variants, CopyMS: 5}
			if more := r.decide(c.left); more != c.more {
				t.Errorf("more %v, want %v: %+v", more, c.more, r.Variants)
			}
		})
	}
}

// The sign test itself, with given rounds: its counts, bounds and outcomes.
func TestPairedTest(t *testing.T) {
	cases := []struct {
		name            string
		base, variant   []float64
		outcome         Outcome
		faster, slower  int
		low, high       float64
		confidenceAbove float64
	}{
		{"seven won", rounds7(10), rounds7(9), OutcomeFaster, 7, 0, 1.111, 1.111, 0.99},
		// A round slowed threefold counts once, as any round lost.
		{"one round slowed by the machine", []float64{10, 10, 30, 10, 10, 10, 10, 10, 10, 10},
			[]float64{9, 9, 9, 9, 9, 27, 9, 9, 9, 9}, OutcomeUndecided, 9, 1, 0.370, 3.333, 0.98},
		{"eleven rounds, ten won", []float64{10, 10, 30, 10, 10, 10, 10, 10, 10, 10, 10},
			[]float64{9, 9, 9, 9, 9, 27, 9, 9, 9, 9, 9}, OutcomeFaster, 10, 1, 1.111, 1.111, 0.99},
		{"nothing gained", rounds7(10), rounds7(10), OutcomeNotFaster, 0, 0, 0.99, 1.01, 0.99},
		{"slower", rounds7(10), rounds7(11), OutcomeSlower, 0, 7, 0.909, 0.909, 0.99},
		{"too few rounds", rounds7(10)[:6], rounds7(9)[:6], OutcomeUndecided, 6, 0, 0, 0, 0.98},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := pairedTest(c.base, c.variant, 1+MinGain)
			if p.Outcome != c.outcome || p.Faster != c.faster || p.Slower != c.slower || math.Abs(p.Low-c.low) > 0.02 ||
				math.Abs(p.High-c.high) > 0.02 || p.Confidence < c.confidenceAbove {
				t.Errorf("%+v; want %s, %d faster, %d slower, bounds %.3f–%.3f, confidence above %.2f", p, c.outcome, c.faster,
					c.slower, c.low, c.high, c.confidenceAbove)
			}
		})
	}
}

// The rule's statistics, by simulation with a fixed seed (STYLE.md 15: the numbers are given,
// not timed): calibrations of a strategy 1.09× faster and of one that gains nothing, each
// round's speed-up moved by log-normal noise and a fifth of the rounds by five times as much
// (a run slowed or sped by the machine), both runs of a round moved together by 10 % more,
// running seven rounds and then more while decide asks for them, up to forty. The issue's
// bar is the same verdict in 19 of 20 optimizes; on noise of 5 % a round the gain is enabled
// in 98 % or more and the no-gain strategy in 1 % or less (1000 calibrations: 99.8 % and
// 0.1 %); on 10 %, about as much as the gain, the gain is still enabled in most (67 %); on
// 20 % the no-gain strategy in under 4 % (1.2 %): each extra round is another look.
func TestDecideSimulated(t *testing.T) {
	const runs, maxRounds = 200, 40
	rng := rand.New(rand.NewPCG(41, 9))
	calibrate := func(gain, sigma float64) (enabled bool) {
		r := &Result{CopyMS: 2, Variants: []Variant{{Strategy: "pinned", Served: 1, Iterations: 100}}}
		v := &r.Variants[0]
		for n := 1; ; n++ {
			s := sigma
			if rng.Float64() < 0.2 {
				s *= 5
			}
			base := 10 * math.Exp(rng.NormFloat64()*0.1) // the machine moves both runs of a round
			r.Baseline.RoundMS = append(r.Baseline.RoundMS, base)
			r.Baseline.RunMS = append(r.Baseline.RunMS, 100*base)
			v.RoundMS = append(v.RoundMS, base/gain*math.Exp(rng.NormFloat64()*s))
			v.RunMS = append(v.RunMS, 100*v.RoundMS[n-1])
			if n < DefaultRounds {
				continue
			}
			if !r.decide(maxRounds - n) {
				return r.Chosen == "pinned"
			}
		}
	}
	for _, c := range []struct {
		gain, sigma float64
		least, most int // enabled in this many of runs
	}{
		{1.09, 0.05, runs * 98 / 100, runs},
		{1.00, 0.05, 0, runs / 100},
		{1.09, 0.10, runs * 6 / 10, runs},
		{1.00, 0.20, 0, runs * 4 / 100},
	} {
		enabled := 0
		for range runs {
			if calibrate(c.gain, c.sigma) {
				enabled++
			}
		}
		if enabled < c.least || enabled > c.most {
			t.Errorf("%.2f× gain, noise %.0f %%: enabled in %d of %d calibrations; want %d to %d", c.gain, 100*c.sigma,
				enabled, runs, c.least, c.most)
		}
		t.Logf("%.2f× gain, noise %.0f %%: enabled in %d of %d", c.gain, 100*c.sigma, enabled, runs)
	}
}

// An asynchronous copy that returned without waiting was timed only as issued: the time a
// merge may save counts its bytes moving at no more than asyncBytesPerMS, so a multi-stream
// program's real gain is not taken for noise; a synchronous copy counts as the trace timed it.
func TestExplainableMS(t *testing.T) {
	const mib8 = 8 << 20
	pair := func(repair plan.Repair) plan.Pair {
		return plan.Pair{CopyMSPerIteration: 0.002, Copies: []plan.Copy{{
			Site: plan.Site{Bytes: mib8}, PerIteration: 2, MS: 0.001, Repair: repair}}}
	}
	if got, want := explainableMS(pair(plan.RepairNone)), 2*float64(mib8)/asyncBytesPerMS; math.Abs(got-want) > 1e-9 {
		t.Errorf("asynchronous, unwaited: %v ms, want %v (its bytes at the slow link rate, twice)", got, want)
	}
	for _, repair := range []plan.Repair{plan.RepairEventWait, plan.RepairDeviceSync, plan.RepairStreamSync} {
		if got := explainableMS(pair(repair)); got != 0.002 {
			t.Errorf("%s: %v ms, want the traced 0.002", repair, got)
		}
	}
}

// The complete-run rule, with given numbers: a strategy faster per iteration is enabled only
// where the user's whole run gains, shown by the paired complete runs or by iterations that
// repay its set-up; streamcluster on the H200 ran 0.83× deployed after a per-iteration 1.33×.
// No verdict states a break-even: the plan's one is its savings'.
func TestDecideSetup(t *testing.T) {
	base := Variant{RoundMS: rounds7(10), Iterations: 5}
	rounds := func(ms ...float64) []float64 { return ms }
	cases := []struct {
		name     string
		baseRun  []float64
		variants []Variant
		want     string
		verdicts []string // each variant's verdict contains so
		setupMS  float64  // the first variant's
	}{
		// 2 ms saved in each of 5 iterations against a run 30 ms longer: 40 ms of set-up.
		{"a short run does not repay the set-up", rounds7(100), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds7(130), Iterations: 5, Served: 1},
		}, "", []string{"set-up not repaid: complete run slower: 130.0 ms against 100.0 ms as written, slower in 7 of 7 paired rounds"}, 40},
		{"a long run is faster whole", rounds7(1100), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds7(930), Iterations: 100, Served: 1},
		}, "pinned", []string{"complete run faster: 930.0 ms against 1100.0 ms as written, faster in 7 of 7 paired rounds"}, 30},
		// Neither faster nor slower whole (4 of 7 rounds faster), the iterations' saving (200 ms)
		// beats the set-up the runs show (190 ms: the median of the rounds' differences, -10 ms,
		// and the 200 ms the iterations saved).
		{"repaid within the noise", rounds(1000, 1040, 960, 1020, 980, 1000, 1010), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds(990, 1050, 950, 1030, 970, 1005, 1000), Iterations: 100, Served: 1},
		}, "pinned", []string{"set-up repaid: 190.0 ms of set-up (from the complete runs) against 200.0 ms its 100 iterations save"}, 190},
		{"slower whole within the noise is not repaid", rounds(1000, 1040, 960, 1020, 980, 1000, 1010), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds(1010, 1050, 970, 1030, 970, 1005, 1020), Iterations: 100, Served: 1},
		}, "", []string{"set-up not repaid: 210.0 ms of set-up (from the complete runs) against 200.0 ms its 100 iterations save"}, 210},
		// As FCN on the H200 (77.5 ms saved in each of 30 iterations, complete runs a second
		// apart from round to round): the runs "show" set-up, but are not slower; the shim
		// timed its page-locking at 50 ms, repaid by the iterations.
		{"the shim's set-up within the runs' noise", rounds(13484, 11692, 14099, 13300, 12900, 12000, 13000), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds(11833, 14103, 13897, 13400, 12000, 12500, 12800),
				ShimSetupMS: rounds(50, 40, 60, 50, 50, 50, 50), Iterations: 100, Served: 1},
		}, "pinned", []string{"set-up repaid: 50.0 ms of set-up (page-locking and mapping, timed by the shim) against 200.0 ms"}, 50},
		// A complete run slower in every round is refused whatever the shim timed: something
		// it did not time costs the user.
		{"slower whole, whatever the shim timed", rounds7(100), []Variant{
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds7(130), ShimSetupMS: rounds7(1), Iterations: 5, Served: 1},
		}, "", []string{"set-up not repaid: complete run slower"}, 40},
		// The faster strategy per iteration loses the user's run; the one that repays wins,
		// and the other rows say why they were not taken.
		{"the strategy that repays", rounds7(100), []Variant{
			{Strategy: "mapped", RoundMS: rounds7(6), RunMS: rounds7(160), Iterations: 5, Served: 2},
			{Strategy: "pinned", RoundMS: rounds7(8), RunMS: rounds7(90), Iterations: 5, Served: 1},
			{Strategy: "system", RoundMS: rounds7(1), RunMS: rounds7(50), Iterations: 5, Served: 2},
			{Strategy: "managed", RoundMS: rounds7(7), RunMS: rounds7(80), Iterations: 5, Served: 2,
				OutputDiff: "printed \"x\""},
		}, "pinned", []string{"set-up not repaid: complete run slower", "complete run faster", "not believed: it saves",
			"output differs: the program printed \"x\""}, 80},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base
			b.RunMS = c.baseRun
			r := &Result{Baseline: b, Variants: c.variants, CopyMS: 2.5}
			r.decide(0)
			if string(r.Chosen) != c.want {
				t.Errorf("chose %q; want %q", r.Chosen, c.want)
			}
			for i, v := range r.Variants {
				if !strings.Contains(v.Verdict, c.verdicts[i]) || v.Enabled != (string(v.Strategy) == c.want) {
					t.Errorf("%s: verdict %q, enabled %v; want it to contain %q", v.Strategy, v.Verdict, v.Enabled, c.verdicts[i])
				}
				if strings.Contains(v.Verdict, "after") && strings.Contains(v.Verdict, "iterations") {
					t.Errorf("%s: verdict %q states a break-even", v.Strategy, v.Verdict)
				}
			}
			if got := r.Variants[0].SetupMS; math.Abs(got-c.setupMS) > 0.5 {
				t.Errorf("set-up %.1f ms; want %.1f", got, c.setupMS)
			}
		})
	}
}

// A long budget may run thousands of rounds: the test's chances stay numbers (a 2^n would
// overflow past 1023 rounds), and its bounds tighten around the speed-up.
func TestPairedTestManyRounds(t *testing.T) {
	base, variant := make([]float64, 3000), make([]float64, 3000)
	for i := range base {
		base[i], variant[i] = 10+float64(i%7), (10+float64(i%7))/1.05*(1+0.01*float64(i%3-1))
	}
	p := pairedTest(base, variant, 1+MinGain)
	if p.Outcome != OutcomeFaster || math.IsNaN(p.Confidence) || p.Low < 1.03 || p.High > 1.07 {
		t.Errorf("%+v; want faster, bounds about 1.05×", p)
	}
	if !(Paired{Rounds: 3000, Faster: 1600}).couldWin(10) || (Paired{Rounds: 3000, Faster: 1000}).couldWin(10) {
		t.Error("couldWin: a clear lead can win in 10 more rounds, a clear loss cannot")
	}
}
