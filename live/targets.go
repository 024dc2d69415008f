package live

import (
	"errors"
	"fmt"
	"strings"

	"github.com/echo-uma/echo/tracer"
)

// ErrNothingTraced is returned when attach could trace none of the processes it was given
// or found; the error says, per process, why.
var ErrNothingTraced = errors.New("could not attach to any process")

// checkTargets splits the processes given with -p into those the shared tracer can watch and
// the reasons the others cannot (gone, not ours to read, no CUDA library).
func checkTargets(pids []int) (ok []int, refused map[int]error) {
	refused = map[int]error{}
	for _, pid := range pids {
		if err := tracer.CheckTarget(pid); err != nil {
			refused[pid] = err
			continue
		}
		ok = append(ok, pid)
	}
	return ok, refused
}

// sortedErrors lists the refusals in the order the PIDs were given.
func sortedErrors(pids []int, refused map[int]error) []error {
	var why []error
	for _, pid := range pids {
		if err, ok := refused[pid]; ok {
			why = append(why, err)
		}
	}
	return why
}

// nothingTraced says that none of n processes could be traced and why each could not. It
// matches ErrNothingTraced, and tracer.ErrPrivileges when privileges were a reason.
func nothingTraced(n int, why []error) error { return &nothingTracedError{n, why} }

type nothingTracedError struct {
	n   int
	why []error
}

func (e *nothingTracedError) Error() string {
	if len(e.why) == 1 {
		return "could not attach: " + e.why[0].Error()
	}
	texts := make([]string, len(e.why))
	for i, err := range e.why {
		texts[i] = err.Error()
	}
	return fmt.Sprintf("could not attach to any of the %d processes: %s", e.n, strings.Join(texts, "; "))
}

func (e *nothingTracedError) Unwrap() []error { return append([]error{ErrNothingTraced}, e.why...) }

// failure names the process that could not be watched.
func failure(pid int, comm string, err error) error {
	return fmt.Errorf("process %d (%s): %w", pid, comm, err)
}
