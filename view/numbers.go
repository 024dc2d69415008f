package view

import (
	"fmt"
	"math"
)

// count renders a count or rate with k/M/G suffixes: "7", "950", "12.3k", "4.1M".
func count(v float64) string {
	suffix := []string{"", "k", "M", "G", "T"}
	i := 0
	for math.Abs(v) >= 1000 && i < len(suffix)-1 {
		v /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f", v)
	}
	return sig(v) + suffix[i]
}

// sig keeps one decimal below 100 and none above, which is all a glance needs.
func sig(v float64) string {
	if math.Abs(v) < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func percent(share float64) string {
	return fmt.Sprintf("%.1f%%", share*100)
}

func speedup(x float64) string {
	return fmt.Sprintf("%.2f×", x)
}
