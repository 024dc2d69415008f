package rewrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
	"github.com/echo-uma/echo/source/rules"
)

// TestChoose is the choice rule with given facts and numbers: per device, per --strategy, and
// with a traced pair's copies and kernel time priced on a discrete GPU.
func TestChoose(t *testing.T) {
	one := rules.Access{OnePass: true, Why: "one pass: k(in[i]), once per copy"}
	reread := rules.Access{Why: "not one pass: the launch at line 9 uses it again with no copy since the last"}
	safe := rules.Facts{Access: one}
	safeReread := rules.Facts{Access: reread}
	unsafe := rules.Facts{Merge: "not proved safe: S1 refused at line 4: …", Access: one}
	neither := rules.Facts{Merge: "not proved safe: S3 refused at line 5: …", Pin: "the host pointer is passed to consume …", Access: one}
	noPin := rules.Facts{Pin: "the asynchronous copy at line 7 …", Access: reread}
	// 64 MiB copied 10 times: 640 MiB, 13.4 ms at 50 GB/s; page-locking it once 3.5 ms.
	traced := func(f rules.Facts, ms, kernelMS float64) rules.Facts {
		f.Measured = &rules.Measured{NS: uint64(ms * 1e6), Count: 10, Bytes: 10 << 26, WaitNS: uint64(kernelMS * 1e6)}
		return f
	}
	cases := []struct {
		name   string
		d      rules.Device
		asked  plan.Strategy
		f      rules.Facts
		want   plan.Strategy
		saying string
	}{
		{"discrete, one pass", rules.Discrete, plan.StrategyAuto, safe, plan.StrategyMapped, "link carries each byte once"},
		{"discrete, re-read", rules.Discrete, plan.StrategyAuto, safeReread, plan.StrategyPinned, "cross the link on every read"},
		{"discrete, merge refused", rules.Discrete, plan.StrategyAuto, unsafe, plan.StrategyPinned, "not merged (not proved safe: S1 refused"},
		{"discrete, nothing serves", rules.Discrete, plan.StrategyAuto, neither, "", "not pinned (the host pointer"},
		{"discrete, re-read, not pinnable", rules.Discrete, plan.StrategyAuto, noPin, "", "a mapped buffer would cross the link"},
		{"integrated, re-read", rules.Integrated, plan.StrategyAuto, safeReread, plan.StrategyMapped, "one DRAM"},
		{"integrated, merge refused", rules.Integrated, plan.StrategyAuto, unsafe, plan.StrategyPinned, "not merged"},
		{"grace hopper, one pass", rules.GraceHopper, plan.StrategyAuto, safe, plan.StrategyMapped, "coherent link"},
		{"grace hopper, re-read", rules.GraceHopper, plan.StrategyAuto, safeReread, plan.StrategyManaged, "migrates"},
		{"asked mapped, re-read", rules.Discrete, plan.StrategyMapped, safeReread, plan.StrategyMapped, "--strategy mapped"},
		{"asked managed, refused", rules.Discrete, plan.StrategyManaged, unsafe, "", "not merged (--strategy managed)"},
		{"asked pinned, one pass", rules.Discrete, plan.StrategyPinned, safe, plan.StrategyPinned, "--strategy pinned"},
		{"asked pinned, not pinnable", rules.Integrated, plan.StrategyPinned, noPin, "", "not pinned (--strategy pinned): the asynchronous copy"},
		// Traced: as written 20 ms of copies + 5 ms of kernels; pinned 13.4 + 5, mapped
		// max(5, 13.4): mapped for one pass, pinned for a re-read.
		{"traced one pass", rules.Discrete, plan.StrategyAuto, traced(safe, 20, 5), plan.StrategyMapped, "mapped 13.422 ms against 25.000 ms as written, pinned 18.422 ms"},
		{"traced re-read", rules.Discrete, plan.StrategyAuto, traced(safeReread, 20, 5), plan.StrategyPinned, "pinned 18.422 ms against 25.000 ms as written"},
		// Copies already near the link's rate: pinned would save 1.6 ms, less than 3.5 ms of
		// page-locking.
		{"traced, not worth it", rules.Discrete, plan.StrategyAuto, traced(safeReread, 15, 5), "", "saving less than page-locking the buffer once (3.520 ms)"},
		// Integrated GPUs are not priced: the copies are all a merge costs there.
		{"traced integrated", rules.Integrated, plan.StrategyAuto, traced(safeReread, 15, 5), plan.StrategyMapped, "one DRAM"},
	}
	for _, c := range cases {
		got := rules.Choose(c.d, c.asked, c.f, rules.DiscreteCosts)
		if got.Strategy != c.want || !strings.Contains(got.Why, c.saying) {
			t.Errorf("%s: %q (%s); want %q saying %q", c.name, got.Strategy, got.Why, c.want, c.saying)
		}
	}
}

// TestStrategyCases: each function of testdata/source/rewrite/strategy.cu gets the strategy
// its kernels' access, the host side's lifetime and its frees call for, and says why.
func TestStrategyCases(t *testing.T) {
	sourcetest.NeedClang(t)
	f, _ := filepath.Abs("../../testdata/source/rewrite/strategy.cu")
	tu := sourcetest.Parse(t, f)
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	proofs := rules.Prove(tu)
	type want struct {
		strategy plan.Strategy
		saying   string // in the reason, the choice or the access
	}
	for _, target := range []struct {
		t    Target
		want map[string]want // by function (its first pair, the host side h)
	}{
		{Target{Device: rules.Discrete}, map[string]want{
			"one_pass":         {plan.StrategyMapped, "one pass: scale(in[i]), once per copy"},
			"strided":          {plan.StrategyMapped, "one pass: scale_strided(in[i])"},
			"relaunched":       {plan.StrategyPinned, "the launch at line 100 uses it again with no copy since the last"},
			"neighbours":       {"", "stencil indexes in by something other than the thread's global index"},
			"kernel_loop":      {"", "row_sums indexes in by something other than the thread's global index"},
			"two_dims":         {"", "tile indexes in more than one dimension"},
			"early_return":     {plan.StrategyMapped, "S1-S4 hold"},
			"used_after":       {plan.StrategyPinned, "a path frees only the device side"},
			"either_order":     {plan.StrategyPinned, "comes before the other side's on some paths and after it on others"},
			"handed_on":        {"", "not pinned (the host pointer is passed to consume"},
			"resized":          {"", "not pinned (the host pointer is passed to realloc"},
			"kept_global":      {"", "not pinned (the host pointer is stored"},
			"async_copy":       {"", "not pinned (the asynchronous copy at line 255"},
			"reset_while_used": {"", "the device may be reset at line 273 while the buffer is used"},
			"read_from_file":   {plan.StrategyPinned, "the launch at line 290 uses it again with no copy since the last"}, // fread is the host write it is (a merge is proved too), and pinning follows it
			"noisy_free":       {"", "calls release, which also calls printf"},
		}},
		{Target{Device: rules.Integrated}, map[string]want{
			"relaunched": {plan.StrategyMapped, "one DRAM"},
			"used_after": {plan.StrategyPinned, "a path frees only the device side"},
		}},
		{Target{Device: rules.GraceHopper}, map[string]want{
			"one_pass":   {plan.StrategyMapped, "coherent link"},
			"relaunched": {plan.StrategyManaged, "migrates"},
		}},
		{Target{Device: rules.Discrete, Strategy: plan.StrategyPinned}, map[string]want{
			"one_pass": {plan.StrategyPinned, "--strategy pinned"},
		}},
		{Target{Device: rules.Discrete, Strategy: plan.StrategyMapped}, map[string]want{
			"relaunched": {plan.StrategyMapped, "--strategy mapped"},
			"used_after": {"", "not merged (--strategy mapped)"},
		}},
	} {
		_, cs := Rewrite(tu, src, proofs, nil, target.t)
		seen := map[string]bool{}
		for _, c := range cs {
			w, ok := target.want[c.Function]
			if !ok || c.Host != "h" || seen[c.Function] {
				continue
			}
			seen[c.Function] = true
			all := c.Reason + " | " + c.Choice + " | " + c.Access.Why
			if c.Strategy != w.strategy || c.Changed != (w.strategy != "") || !strings.Contains(all, w.saying) {
				t.Errorf("%s, %s: %q (%s); want %q saying %q", target.t.Device, c.Function, c.Strategy, all, w.strategy, w.saying)
			}
		}
		for fn := range target.want {
			if !seen[fn] {
				t.Errorf("%s: no pair of %s", target.t.Device, fn)
			}
		}
	}
}

// TestRewritePinnedEdits: pinned keeps the device buffer and the copies, allocates the host
// side page-locked (a new[] of floats by its bytes) and frees it with the matching free, and
// adds the helpers once, before the first function that calls them.
func TestRewritePinnedEdits(t *testing.T) {
	src, after, cs := rewriteFile(t, "pipeline.cu", plan.StrategyPinned)
	var pinned []string
	for _, c := range cs {
		if c.Strategy == plan.StrategyPinned {
			pinned = append(pinned, c.Host)
		}
	}
	diff := UnifiedDiff("pipeline.cu", src, after)
	for _, want := range []string{
		"h_params = (float *)echo_pinned_alloc((size_t)(16384) * sizeof(float)) /* echo: h_params/d_params pinned",
		"+		echo_pinned_free(h_params) /* echo: h_params/d_params pinned",
		"+		echo_pinned_free(h_frame) /* echo: h_frame/d_frame pinned",
	} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff has no %q:\n%s", want, diff)
		}
	}
	if strings.Count(string(after), "static inline void *echo_pinned_alloc") != 1 || strings.Contains(diff, "-		CHECK(cudaMemcpy") ||
		strings.Contains(diff, "-		CHECK(cudaMalloc") {
		t.Errorf("pinned %v: the helper not once, or a copy or device allocation edited:\n%s", pinned, diff)
	}
}
