package live

import (
	"bytes"
	"debug/elf"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The optimize hint's --ignore. optimize compares what the program prints as written and
// merged, and a line that carries a timing differs between any two runs: unnamed, it costs
// a validated pair whenever the runs as written happen to print the same figure and a merged
// one does not. attach sees no output, but the executable's read-only data holds its printf
// formats, and a format that prints a floating-point number beside a word or unit of time
// ("iter_ms=%.4f\n", "Kernel time: %f ms\n") says what the timing lines start with.

// floatConversion is a printf conversion of a floating-point number.
var floatConversion = regexp.MustCompile(`%[-+ #0]*[0-9]*(\.[0-9]+)?[lL]?[fFeEgG]`)

// timeWord is a word or unit of time, standing alone or as part of a name (iter_ms).
var timeWord = regexp.MustCompile(`(?i)(^|[^a-z])(ms|msec|us|usec|ns|nsec|s|sec|secs|seconds?|time|elapsed|latency|duration)([^a-z]|$)`)

// maxTimingLines keeps the hint short: a program with more timing formats than this gets
// the first ones (sorted), and optimize says which other lines varied.
const maxTimingLines = 4

// maxRodata bounds what is read of an executable's read-only data.
const maxRodata = 32 << 20

// printfLine is one line of a printf format as a program's text holds it: printable ASCII,
// starting with a letter (read-only data holds binary tables too, and a compiler's spec
// strings start with blanks).
var printfLine = regexp.MustCompile(`^[A-Za-z][ -~\t]{0,200}$`)

// interpreter names the executables whose own formats say nothing of what the program they
// run prints: python3 running a PyTorch script prints the script's timings, not python's.
var interpreter = regexp.MustCompile(`^(python|pypy|perl|ruby|node|java|lua|julia|R|Rscript|bash|sh|dash|zsh)[0-9.]*$`)

// timingPrefix is the literal text that a line printed by one line of a printf format
// starts with, when that line carries a timing; ok is false for other formats, and for one
// that starts with a conversion (nothing literal to match its lines by).
func timingPrefix(format string) (prefix string, ok bool) {
	if !printfLine.MatchString(format) || !floatConversion.MatchString(format) ||
		!timeWord.MatchString(floatConversion.ReplaceAllString(format, " ")) {
		return "", false
	}
	prefix, _, _ = strings.Cut(format, "%")
	if len(strings.TrimSpace(prefix)) < 2 {
		return "", false
	}
	return prefix, true
}

// timingIgnore is the --ignore regexp for the timing lines the executable at path prints,
// as far as its printf formats say: "^iter_ms=" for the workloads here, "" when none is
// found, the file cannot be read, or name (argv[0]'s) is an interpreter's.
func timingIgnore(path, name string) string {
	if interpreter.MatchString(filepath.Base(name)) {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var prefixes []string
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || !strings.HasPrefix(s.Name, ".rodata") {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(s.Open(), maxRodata))
		if err != nil {
			continue
		}
		for str := range bytes.SplitSeq(data, []byte{0}) {
			for line := range strings.SplitSeq(string(str), "\n") {
				if p, ok := timingPrefix(line); ok && !slices.Contains(prefixes, p) {
					prefixes = append(prefixes, p)
				}
			}
		}
	}
	if len(prefixes) == 0 {
		return ""
	}
	slices.Sort(prefixes)
	quoted := make([]string, 0, maxTimingLines)
	for _, p := range prefixes[:min(len(prefixes), maxTimingLines)] {
		quoted = append(quoted, regexp.QuoteMeta(p))
	}
	if len(quoted) == 1 {
		return "^" + quoted[0]
	}
	return "^(" + strings.Join(quoted, "|") + ")"
}
