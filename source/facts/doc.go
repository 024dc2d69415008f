// Package facts is what the source path reads from a parsed translation unit (parse.TU) before
// any rule is applied: a function's control-flow graph (cfg.go), the events of its statements
// — allocations, copies, launches, frees, reads and writes of each tracked pointer
// (effects.go) — with calls into functions with a body followed through per-parameter
// summaries (calls.go), what a kernel may write (kernels.go), sizes in canonical form
// (sizes.go, stable.go) and helpers that only free (freewrap.go). The rules (package rules)
// prove S1–S4 over these facts; parse's doc.go describes the whole path.
package facts
