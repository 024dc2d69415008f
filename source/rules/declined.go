package rules

import (
	"fmt"

	"github.com/echo-uma/echo/plan"
)

// Declined is the condition that declines a pair — the first one refused or undecidable, in
// S1…S4 order, as the rewrite reports it — or ok=false for a proven pair.
func Declined(p Proof) (v Verdict, ok bool) {
	for _, v := range p.Verdicts {
		if v.Status == plan.ConditionRefused || v.Status == plan.ConditionUndecidable {
			return v, true
		}
	}
	return Verdict{}, false
}

// Declined names the first condition that is refused or undecidable, with its line and
// why; "" for a pair proved safe.
func (p Proof) Declined() string {
	for _, v := range p.Verdicts {
		if v.Status == plan.ConditionRefused || v.Status == plan.ConditionUndecidable {
			return fmt.Sprintf("%s %s at line %d: %s", v.Cond, v.Status, v.At.Line, v.Reason)
		}
	}
	return ""
}
