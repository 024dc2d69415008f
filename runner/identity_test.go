package runner_test

import (
	"context"
	"os"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/runner"
	"github.com/echo-uma/echo/validate"
)

// A plan made from helper_alloc's default run, whose host buffers all come from one helper,
// deployed on runs whose options allocate one more buffer of the pairs' size through that
// helper (the "keep a copy to verify" switch; the same before the input; another
// output from the output's own caller), never changes what the program computes or its own
// checks, the kernel delay on. With the call chains validation recorded, every pair is still
// merged. With the ordinal alone (a plan without them), the slot another buffer took is
// never bound to its device buffer (no linking copy joins them), so that pair is left as
// written and the others are merged.
func TestDeployNeverMergesAnotherBuffer(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--size", "256K", "--iters", "5", "--warmup", "1"}
	p, _ := testenv.Plan(t, "helper_alloc", args...)
	argv := append([]string{testenv.Built(t, "workloads/helper_alloc")}, args...)
	t.Setenv("ECHO_SHIM", testenv.Built(t, "lib/libechoshim.so"))
	res, err := validate.Run(context.Background(), p, argv, runner.IO{Stderr: os.Stderr})
	if err != nil {
		t.Fatalf("validating: %v", err)
	}
	validate.Apply(p, res.Report)
	var pairs, plain []plan.Pair
	for _, pair := range p.Pairs {
		if pair.Status != plan.StatusValidated || !pair.Allows(plan.StrategyMapped) {
			t.Fatalf("pair %s: %s %v (%s); want validated for a merge", pair.ID, pair.Status, pair.Strategies, pair.MergeRefused)
		}
		if pair.Host.Identity == nil || pair.Device.Identity == nil {
			t.Fatalf("pair %s: validation recorded no identity: host %+v, device %+v", pair.ID, pair.Host.Identity, pair.Device.Identity)
		}
		pairs = append(pairs, pair)
		pair.Host.Identity, pair.Device.Identity = nil, nil
		plain = append(plain, pair)
	}
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want helper_alloc's input and output", len(pairs))
	}
	cases := []struct {
		option      string
		plainMerged int // pairs merged by the plan without identities
	}{
		{"", 2},
		{"--verify", 1},       // the output's slot holds the saved input
		{"--verify-first", 0}, // every slot shifted by one
		{"--previous", 1},     // the output's slot holds the previous output
	}
	for _, c := range cases {
		t.Run("option="+c.option, func(t *testing.T) {
			run := append(append([]string{}, argv...), c.option)
			if c.option == "" {
				run = argv
			}
			want := testenv.RunWorkload(t, "helper_alloc", nil, run[1:]...).Checksum()
			for _, v := range []struct {
				name   string
				pairs  []plan.Pair
				merged int
			}{{"identity", pairs, 2}, {"ordinal alone", plain, c.plainMerged}} {
				compact := compactPlan(t, p, v.pairs, plan.StrategyMapped, plan.ModeDeploy)
				res := deploy(t, compact, []string{delay}, run...)
				got := testenv.Result{Stdout: string(res.Stdout)}.Checksum()
				if res.ExitCode != 0 || got != want {
					t.Errorf("%s: exit %d, checksum %s; want 0 and %s as written", v.name, res.ExitCode, got, want)
				}
				if res.Report.Served != v.merged {
					t.Errorf("%s: %d pairs merged, want %d (report %+v)", v.name, res.Report.Served, v.merged, res.Report.Pairs)
				}
			}
		})
	}
}
