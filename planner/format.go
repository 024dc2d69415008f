package planner

import (
	"fmt"
	"path/filepath"
	"strings"
)

func msDuration(ns uint64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }

// siteName is a site as a user reads it: module+offset.
// Name is how a site reads to a person: module+offset (the raw address where no module
// maps it).
func (s Site) Name() string {
	if s.Module == "" {
		return fmt.Sprintf("%#x", s.Offset)
	}
	return fmt.Sprintf("%s+%#x", filepath.Base(s.Module), s.Offset)
}

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
