//go:build race

package export

// raceDetector: this test binary runs under -race, whose runtime allocates on its own, so
// allocation counts measure it rather than the export (make test runs them without -race).
const raceDetector = true
