package planner

import (
	"fmt"
	"strings"
)

func msDuration(ns uint64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }

func idsOf(ps []*pairAcc) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.id()
	}
	return strings.Join(ids, ", ")
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
