package tracer

import (
	"fmt"
	"strconv"
	"strings"
)

// parseForkFormat finds the offsets of parent_pid and child_pid in a tracepoint format file:
//
//	field:pid_t parent_pid;	offset:24;	size:4;	signed:1;
func parseForkFormat(format string) (parent, child uint32, err error) {
	offsets := map[string]uint32{}
	for _, line := range strings.Split(format, "\n") {
		fields := strings.Split(strings.TrimSpace(line), ";")
		if len(fields) < 3 || !strings.HasPrefix(fields[0], "field:") {
			continue
		}
		decl := strings.Fields(strings.TrimPrefix(fields[0], "field:"))
		off, ok := strings.CutPrefix(strings.TrimSpace(fields[1]), "offset:")
		size, ok2 := strings.CutPrefix(strings.TrimSpace(fields[2]), "size:")
		if len(decl) == 0 || !ok || !ok2 || strings.TrimSpace(size) != "4" {
			continue
		}
		if n, err := strconv.ParseUint(off, 10, 32); err == nil {
			offsets[decl[len(decl)-1]] = uint32(n)
		}
	}
	p, ok1 := offsets["parent_pid"]
	c, ok2 := offsets["child_pid"]
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("the format names no 4-byte parent_pid and child_pid fields")
	}
	return p, c, nil
}
