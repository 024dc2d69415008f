package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag value in bytes that accepts K, M and G suffixes (powers of 1024).
type byteSize uint64

func (b *byteSize) String() string { return formatBytes(uint64(*b)) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	units := map[string]uint64{"": 1, "K": 1 << 10, "KI": 1 << 10, "KIB": 1 << 10, "M": 1 << 20,
		"MI": 1 << 20, "MIB": 1 << 20, "G": 1 << 30, "GI": 1 << 30, "GIB": 1 << 30}
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	n, err := strconv.ParseUint(t[:i], 10, 64)
	unit, ok := units[strings.ToUpper(strings.TrimSpace(t[i:]))]
	if err != nil || !ok || n > ^uint64(0)/unit {
		return fmt.Errorf("%q is not a size in bytes (like 65536, 64K or 16M)", s)
	}
	*b = byteSize(n * unit)
	return nil
}

// formatBytes prints a size the way a user reads it: 64K, 16M, 1536.
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
