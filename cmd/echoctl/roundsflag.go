package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// addRoundsFlags binds --rounds and --budget, which calibrate and optimize share: the rounds
// calibration runs at least, and how long it may go on while a strategy is undecided.
func addRoundsFlags(f *pflag.FlagSet, rounds *int, budget *time.Duration) {
	f.IntVar(rounds, "rounds", *rounds, "calibration rounds at least (a run of every variant each; 7 are the fewest that can show a gain 99 % sure)")
	f.DurationVar(budget, "budget", *budget, "how long calibration may add rounds beyond --rounds (and beyond 7, which run where a strategy could win) while one that could win is undecided (0: no rounds beyond --rounds)")
}

func checkRounds(rounds int, budget time.Duration) error {
	if rounds < 1 {
		return fmt.Errorf("--rounds %d: give 1 or more", rounds)
	}
	if budget < 0 {
		return fmt.Errorf("--budget %s: give a duration of 0 or more", budget)
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
