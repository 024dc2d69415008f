package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// ArgsDiffer names how argv's arguments differ from those of the traced command, or "": the
// plan's sites and sizes are those of the traced run, and other arguments may allocate other
// sizes, elsewhere, so that the plan matches nothing.
func ArgsDiffer(traced, argv []string) string {
	if len(traced) == 0 || slices.Equal(traced[1:], argv[1:]) {
		return ""
	}
	return fmt.Sprintf("the plan was traced with arguments %q, this command has %q: if they change what "+
		"the program allocates, nothing will match and the program runs as written", strings.Join(traced[1:], " "),
		strings.Join(argv[1:], " "))
}
