//go:build !race

package export

// raceDetector: see race_test.go.
const raceDetector = false
