package main

import (
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
)

// TestStrategyFlag: a --strategy Echo does not know is one clear line and exit 1, before
// anything runs (managed, which it knows and no pair allows, runs the program as written:
// calibrate's TestStrategiesFollowTheDevice), where it used to be dropped without a word (calibrate tried nothing and
// enabled nothing; run --force served nothing).
func TestStrategyFlag(t *testing.T) {
	for _, args := range [][]string{
		{"calibrate", "--strategy", "bogus", "x.plan", "--", "true"},
		{"run", "--force", "--strategy", "bogus", "x.plan", "--", "true"},
	} {
		res := testenv.Echoctl(t, nil, args...)
		want := `--strategy: unknown strategy "bogus": give mapped, system or pinned`
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, want) || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 {
			t.Errorf("echoctl %s: exit %d, stderr %q; want exit 1 and one line saying %q", strings.Join(args, " "), res.ExitCode, res.Stderr, want)
		}
	}
}
