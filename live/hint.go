package live

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/echo-uma/echo/internal/shell"
)

// hintRunSeconds is about how long each run of the optimize hint's command should take:
// optimize runs the program several times (trace, validate, calibration rounds), so a
// command copied from a process that loops for hours must loop for seconds instead.
const hintRunSeconds = 3

// countFlag names the arguments that say how many times a program loops.
var countFlag = regexp.MustCompile(`(?i)^--?(iters?|iterations|n_?iters?|num_?iters?|num_?iterations|steps|num_?steps|epochs|loops|reps|repeat|repetitions)$`)

// optimizeHint is the command that traces, plans, validates and calibrates the program, to
// paste into a shell: run again from its start, since a plan needs the allocations an
// attached trace misses; from the process's directory where an argument names a file
// there; and with a loop count that keeps each run to seconds, from the loop's period the
// live planner measured (iterMS, 0: unknown), where an argument says how many times it
// loops. Counts are not rewritten where no period is known. ignore is --ignore's regexp
// for the program's timing lines (timingIgnore), "" for none.
func optimizeHint(command []string, cwd string, iterMS float64, ignore string) string {
	if len(command) == 0 {
		return ""
	}
	args := append([]string(nil), command...)
	for i := 1; i < len(args); i++ {
		name, value, inline := strings.Cut(args[i], "=")
		if !countFlag.MatchString(name) {
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i]
		}
		if n, err := strconv.ParseInt(value, 10, 64); err == nil && iterMS > 0 {
			short := strconv.FormatInt(shortCount(n, iterMS), 10)
			if inline {
				args[i] = name + "=" + short
			} else {
				args[i] = short
			}
		}
	}
	hint := "sudo echoctl optimize -- " + shell.Join(args)
	if ignore != "" {
		hint = "sudo echoctl optimize --ignore " + shell.Quote(ignore) + " -- " + shell.Join(args)
	}
	if needsDir(args[1:], cwd) {
		hint = "cd " + shell.Quote(cwd) + " && " + hint
	}
	return hint
}

// shortCount is a loop count that lasts about hintRunSeconds at iterMS per iteration: at
// least 10 (a plan needs a loop to see), never more than the program's own.
func shortCount(n int64, iterMS float64) int64 {
	want := int64(math.Ceil(hintRunSeconds * 1000 / iterMS))
	return min(n, max(want, 10))
}

// needsDir is whether an argument is a relative path to something in dir, the process's
// working directory: the command only runs from there.
func needsDir(args []string, dir string) bool {
	if dir == "" {
		return false
	}
	for _, a := range args {
		_, value, _ := strings.Cut(a, "=")
		for _, p := range []string{a, value} {
			if p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "-") {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					return true
				}
			}
		}
	}
	return false
}
