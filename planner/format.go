package planner

import (
	"fmt"
	"path/filepath"
	"strings"
)

// human prints a byte count the way a user reads it.
func human(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<20) == 0:
		return fmt.Sprintf("%.4g GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.4g KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

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
