package units

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes a size flag accepts, powers of 1024.
var sizeUnits = map[string]uint64{"": 1, "K": 1 << 10, "KI": 1 << 10, "KIB": 1 << 10, "M": 1 << 20,
	"MI": 1 << 20, "MIB": 1 << 20, "G": 1 << 30, "GI": 1 << 30, "GIB": 1 << 30}

// ParseSize reads a size as a flag gives it: 65536, 64K, 16M, 16MiB, 2G (case ignored).
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	n, err := strconv.ParseUint(t[:i], 10, 64)
	unit, ok := sizeUnits[strings.ToUpper(strings.TrimSpace(t[i:]))]
	if err != nil || !ok || n > ^uint64(0)/unit {
		return 0, fmt.Errorf("%q is not a size in bytes (like 65536, 64K or 16M)", s)
	}
	return n * unit, nil
}

// Size writes a size exactly, in the form ParseSize reads back: 64K, 16M, 1536. Bytes
// rounds, so a flag's default shown in --help could not be typed back; this does not.
func Size(n uint64) string {
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
