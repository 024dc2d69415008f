package report

import "fmt"

// formatMS prints milliseconds with about three significant digits.
func formatMS(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	case ms >= 0.001:
		return fmt.Sprintf("%.0f µs", ms*1000)
	}
	return fmt.Sprintf("%.0f ns", ms*1e6)
}
