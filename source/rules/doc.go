// Package rules proves S1–S4 for each candidate pair of a translation unit (Prove; proofs.go,
// candidates.go, verdicts.go, broken.go), over the facts package's events, and chooses a
// strategy for a pair on a device (Choose, strategy.go; profile.go reads the measured
// copies). It owns the verdict's vocabulary (Status, Construct, Verdict, Proof), the
// path-sensitive flow the rewrite reuses (pathflow.go) and the copy sites a report lists
// (copysites.go). parse's doc.go describes the whole path.
package rules
