// Package corpus holds the tests of the CUDA runtime emulator and the workload corpus in
// testdata/: the emulator's semantics, baseline against hand-merged checksums, proof that
// each unsafe case really changes its output when merged naively, and the demo's table.
package corpus
