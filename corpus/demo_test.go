package corpus_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// The demo compares like with like: "as written" is the median of its runs, as the others
// are (so it is 1.00× against itself), and the hand-merged program uses the strategy
// calibration chose. Slow copies make merging pay beyond any noise, and slow page-locked
// memory makes mapped lose where the device reaches pageable memory, so calibration chooses
// system: the demo once printed hand-merged (mapped) whatever was chosen, and a first run's
// time for "as written".
func TestDemoComparesLikeWithLike(t *testing.T) {
	testenv.Long(t)
	testenv.RequireRoot(t)
	cmd := exec.Command("bash", filepath.Join(testenv.Root(t), "bench", "demo.sh"))
	cmd.Env = append(cmd.Environ(), "DEMO_SIZE=8M", "DEMO_ITERS=5", "CUDA_EMU_COPY_DELAY_US=5000", "CUDA_EMU_HOST_SLOWDOWN=20",
		"CUDA_EMU_PAGEABLE_ACCESS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "enabled with the system strategy") {
		t.Fatalf("calibration did not choose system:\n%s", text)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^as written +[0-9.]+ +1\.00x `),
		regexp.MustCompile(`(?m)^echoctl run \(plan, system\) +[0-9.]+ +[0-9.]+x `),
		regexp.MustCompile(`(?m)^hand-merged \(system\) +[0-9.]+ +[0-9.]+x `),
	} {
		if !want.MatchString(text) {
			t.Errorf("the demo's table has no line like %q:\n%s", want, text)
		}
	}
}
