package report

import (
	"fmt"
	"strconv"
)

// formatBytes prints a size the way the other commands print a copy's: 64K, 16M, 1536.
// (cmd/echoctl has the same rule; the report cannot import a main package.)
func formatBytes(n uint64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return strconv.FormatUint(n, 10)
}

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
