package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/echo-uma/echo/calibrate"
)

// calibrationFlags are the flags calibrate and optimize share: the rounds calibration runs at
// least, how long it may go on while a strategy is undecided, and the output lines it leaves
// out of the comparison.
type calibrationFlags struct {
	rounds int
	budget time.Duration
	ignore ignoreFlag
}

// defaultCalibrationFlags are calibration's defaults, before the command line.
func defaultCalibrationFlags() calibrationFlags {
	return calibrationFlags{rounds: calibrate.DefaultRounds, budget: calibrate.DefaultBudget}
}

// add binds --rounds, --budget and --ignore on f.
func (c *calibrationFlags) add(f *pflag.FlagSet) {
	f.IntVar(&c.rounds, "rounds", c.rounds, "calibration rounds at least (a run of every variant each; 7 are the fewest that can show a gain 99 % sure)")
	f.DurationVar(&c.budget, "budget", c.budget, "how long calibration may add rounds beyond --rounds (and beyond 7, which run where a strategy could win) while one that could win is undecided (0: no rounds beyond --rounds)")
	addIgnoreFlag(f, &c.ignore)
}

func (c *calibrationFlags) check() error {
	if c.rounds < 1 {
		return fmt.Errorf("--rounds %d: give 1 or more", c.rounds)
	}
	if c.budget < 0 {
		return fmt.Errorf("--budget %s: give a duration of 0 or more", c.budget)
	}
	return nil
}

// budgetOption is --budget as calibrate.Options takes it, where 0 means the default: no
// rounds beyond --rounds is a negative budget there.
func budgetOption(budget time.Duration) time.Duration {
	if budget == 0 {
		return -1
	}
	return budget
}
