package plan

// The words the binary path (trace, plan, validate, calibrate, deploy) and the source path
// (scan, rewrite, plan --source) share. Strategy and Status are in plan.go beside the pair
// they describe.

// StrategyAuto is not a strategy but the request to choose one per pair: the source path's
// default (echoctl rewrite --strategy auto). No plan file names it.
const StrategyAuto Strategy = "auto"

// Which way a copy moves data, as trace.Direction names the runtime's copy kinds.
const (
	CopyH2D     CopyDirection = "h2d"
	CopyD2H     CopyDirection = "d2h"
	CopyD2D     CopyDirection = "d2d"
	CopyH2H     CopyDirection = "h2h"
	CopyDefault CopyDirection = "default" // cudaMemcpyDefault: the runtime infers it
)

// Which way a pair's linking copies go.
const (
	PairInput  PairDirection = "input"  // host to device
	PairOutput PairDirection = "output" // device to host
	PairBoth   PairDirection = "both"
)

// Condition is how one of the safety conditions S1–S4 (DESIGN.md) stands for a pair, as the
// source path proves them: a pair whose condition is refused or undecidable is not rewritten,
// as a binary pair a validate run saw a conflicting access in is refused (StatusRefused).
type Condition string

// The conditions' outcomes.
const (
	ConditionHolds       Condition = "holds"
	ConditionKeepWait    Condition = "keep wait" // S2: holds if the rewrite keeps a synchronize at the verdict's line
	ConditionRefused     Condition = "refused"
	ConditionUndecidable Condition = "undecidable"
)
