package tracer

import (
	"debug/elf"

	"github.com/echo-uma/echo/trace"
)

// buildID returns the hex GNU build-id of the ELF file at path, or "" when it has none or
// cannot be read. Sites are keyed by it, so they match across runs and rebuilt paths.
func buildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	id, _ := trace.BuildID(f)
	return id
}
