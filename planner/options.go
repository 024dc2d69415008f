package planner

// Options tunes the analysis.
type Options struct {
	MinIterations int    // a pair must recur in at least this many iterations
	MinBytes      uint64 // linking copies smaller than this are refused as too small to pay
}

// DefaultOptions are the thresholds `echoctl plan` uses unless told otherwise.
func DefaultOptions() Options {
	return Options{MinIterations: 5, MinBytes: 64 << 10}
}
