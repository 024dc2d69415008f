// Package plantest tests the preload library's compact-plan parser (shim/plan.c) alone,
// through testdata/plan_stdin.c, which it builds with the C compiler (no cgo: the library
// is C, and its own directory can hold no Go package).
package plantest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The parser's refusals, as plan.c words them: a refused plan must give one of these, so a
// change to what the shim refuses, or how it says so, shows here.
var refusals = []string{
	"too long",
	"text after end",
	"no keyword",
	"not a compact Echo plan of version 1",
	"exe needs a module",
	"a version must be a positive number",
	"unknown strategy",
	"unknown mode",
	"a digest is 64 lowercase hex digits",
	"marker needs MODULE OFFSET CALL BYTES [EVERY]",
	"the previous pair lacks the lines its mode and strategy need",
	"too many pairs",
	"pair needs ID BYTES DIRECTION",
	"a pair's direction is input, output or both",
	"a host or device line outside a pair, or twice",
	"a side needs MODULE OFFSET CALL BYTES ORDINAL of the pair's size",
	"a chunk line outside a pair, or too many",
	"a chunk needs OFFSET BYTES inside the pair",
	"a copy line outside a pair, or too many",
	"a copy needs MODULE OFFSET CALL BYTES h2d|d2h within the pair's size",
	"unknown keyword",
	"no end line: the plan was cut short",
	"exe, strategy and mode are required",
	"a pair lacks the lines its mode and strategy need",
	"measure mode needs a marker",
}

var refusal = regexp.MustCompile(`^refused: plan line [0-9]+: (.*)\n$`)

var harness struct {
	once      sync.Once
	path, why string
	sanitized bool
}

// parser builds the parser's harness once per test binary, with AddressSanitizer and
// UBSan where the compiler has them (a sanitizer's report fails the run), plainly where not.
func parser(t testing.TB) string {
	harness.once.Do(func() {
		cc := os.Getenv("CC")
		if cc == "" {
			cc = "cc"
		}
		if _, err := exec.LookPath(cc); err != nil {
			harness.why = fmt.Sprintf("no C compiler (%s) to build the plan parser's harness: install gcc or set CC", cc)
			return
		}
		dir, err := os.MkdirTemp("", "echo-shim-plan-")
		if err != nil {
			harness.why = err.Error()
			return
		}
		out := filepath.Join(dir, "plan_stdin")
		args := []string{"-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
			"testdata/plan_stdin.c", "../plan.c", "../sha256.c", "-o", out}
		san := []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}
		if exec.Command(cc, append(san, args...)...).Run() == nil {
			harness.path, harness.sanitized = out, true
			return
		}
		if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			harness.why = fmt.Sprintf("building the plan parser's harness: %v\n%s", err, msg)
			return
		}
		harness.path = out
	})
	if harness.path == "" {
		t.Skip(harness.why)
	}
	return harness.path
}

// parse runs the harness on text: what it read, or the refusal's reason.
func parse(t testing.TB, text []byte) (read string, refused string) {
	cmd := exec.Command(parser(t))
	cmd.Stdin = bytes.NewReader(text)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) || stderr.Len() > 0 {
		t.Fatalf("the plan parser failed on %q: %v\n%s", text, err, stderr.String())
	} else if err != nil {
		t.Fatalf("running the plan parser's harness: %v", err)
	}
	if m := refusal.FindStringSubmatch(stdout.String()); m != nil {
		return "", m[1]
	}
	if !strings.HasPrefix(stdout.String(), "exe ") {
		t.Fatalf("the harness printed %q for %q", stdout.String(), text)
	}
	return stdout.String(), ""
}

// realPlans are compact plans as echoctl writes them for the shim (plan.Compact over
// plans that optimize made of the corpus's stream, helper_alloc, chunked and pipeline, with
// the digest of their own lines, as --force deploys them): every mode, both kinds of
// strategy, call chains, chunks, copy sites. They are kept in the repository (.gitignore
// names them), since *.plan is ignored elsewhere.
func realPlans(t testing.TB) map[string][]byte {
	files, err := filepath.Glob("testdata/plans/*.plan")
	if err != nil || len(files) == 0 {
		t.Fatalf("no plans in testdata/plans: %v", err)
	}
	plans := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		plans[filepath.Base(f)] = b
	}
	return plans
}

func TestShimReadsRealPlans(t *testing.T) {
	parser(t)
	if !harness.sanitized {
		t.Log("the compiler has no AddressSanitizer or UBSan: the parser runs unchecked")
	}
	for name, text := range realPlans(t) {
		read, refused := parse(t, text)
		if refused != "" {
			t.Errorf("%s: refused: %s", name, refused)
		} else if strings.Contains(string(text), "\ndigest ") && !strings.Contains(read, " ok 1\n") {
			t.Errorf("%s: its pairs do not hash to its digest:\n%s", name, read)
		}
	}
}

// One plan per refusal, each a real plan with one line changed: the reason the shim gives.
func TestShimPlanRefusals(t *testing.T) {
	good := string(realPlans(t)["deploy-chains.plan"])
	resolve := string(realPlans(t)["resolve.plan"])
	line := func(text, prefix, with string) string {
		var out []string
		for _, l := range strings.SplitAfter(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				out = append(out, with)
				with = ""
				continue
			}
			out = append(out, l)
		}
		return strings.Join(out, "")
	}
	cases := []struct{ name, text, want string }{
		{"long line", line(good, "name ", "name "+strings.Repeat("x", 600)+"\n"), "too long"},
		{"after end", good + "exe x\n", "text after end"},
		{"blank line", line(good, "name ", " \t\n"), "no keyword"},
		{"other version", line(good, "echo-plan", "echo-plan 2\n"), "not a compact Echo plan of version 1"},
		{"exe without module", line(good, "exe ", "exe\n"), "exe needs a module"},
		{"version", line(good, "name ", "driver 12.8\n"), "a version must be a positive number"},
		{"strategy", line(good, "strategy ", "strategy fast\n"), "unknown strategy"},
		{"mode", line(good, "mode ", "mode fast\n"), "unknown mode"},
		{"digest", line(good, "digest ", "digest ABC\n"), "a digest is 64 lowercase hex digits"},
		{"marker", line(good, "name ", "marker m 1a cudaMemcpy 0\n"), "marker needs MODULE OFFSET CALL BYTES [EVERY]"},
		{"pair without bytes", line(good, "pair p2", "pair p2 x output\n"), "pair needs ID BYTES DIRECTION"},
		{"pair direction", line(good, "pair p2", "pair p2 1048576 sideways\n"), "a pair's direction is input, output or both"},
		{"host twice", line(good, "device ", "host m 1 malloc 1048576 0\n"), "a host or device line outside a pair, or twice"},
		{"side size", line(good, "device ", "device m 1 cudaMalloc 4 0\n"), "a side needs MODULE OFFSET CALL BYTES ORDINAL of the pair's size"},
		{"previous pair", line(good, "device ", ""), "the previous pair lacks the lines its mode and strategy need"},
		{"chunk outside", line(good, "pair p1", "chunk 0 1\n"), "a chunk line outside a pair, or too many"},
		{"chunk outside the pair", line(good, "copy ", "chunk 1048575 2\n"), "a chunk needs OFFSET BYTES inside the pair"},
		{"copy outside", line(good, "pair p1", "copy m 1 cudaMemcpy 1 h2d\n"), "a copy line outside a pair, or too many"},
		{"copy direction", line(good, "copy ", "copy m 1 cudaMemcpy 1 sideways\n"), "a copy needs MODULE OFFSET CALL BYTES h2d|d2h within the pair's size"},
		{"keyword", line(good, "name ", "colour blue\n"), "unknown keyword"},
		{"cut short", strings.TrimSuffix(good, "end\n"), "no end line: the plan was cut short"},
		{"no mode", line(good, "mode ", ""), "exe, strategy and mode are required"},
		{"too many pairs", strings.Replace(string(realPlans(t)["pinned.plan"]), "end\n",
			strings.Repeat("pair p 8 both\nhost m 1 malloc 8 0\n", 65)+"end\n", 1), "too many pairs"},
		{"resolve pair without copies", strings.Replace(line(resolve, "copy ", ""), "end\n", "pair p9 4096 both\ncopy m 1 cudaMemcpy 4096 h2d\nend\n", 1),
			"the previous pair lacks the lines its mode and strategy need"},
		{"pair lacks lines", lastPairWithout(good, "device ", "copy "), "a pair lacks the lines its mode and strategy need"},
		{"measure without marker", line(string(realPlans(t)["measure.plan"]), "marker ", ""), "measure mode needs a marker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, refused := parse(t, []byte(c.text)); refused != c.want {
				t.Errorf("refused with %q; want %q\n%s", refused, c.want, c.text)
			}
		})
	}
}

// FuzzShimPlan feeds the shim's plan parser mutated plans: it must never crash, trip a
// sanitizer, or refuse with a reason plan.c does not give. The real plans and the refusal
// cases are its seeds, which plain `go test` runs.
func FuzzShimPlan(f *testing.F) {
	plans := realPlans(f)
	for _, name := range slices.Sorted(maps.Keys(plans)) {
		f.Add(plans[name])
	}
	f.Add([]byte("echo-plan 1\nexe m\nstrategy pinned\nmode deploy\npair p 8 both\nhost m 1 malloc 8 0 a:1 b:2 c:3\nend\n"))
	f.Add([]byte("echo-plan 1\nexe " + strings.Repeat("m", 200) + " 1 x\nend"))
	f.Fuzz(func(t *testing.T, text []byte) {
		if _, refused := parse(t, text); refused != "" && !known(refused) {
			t.Errorf("refused with %q, which plan.c does not say", refused)
		}
	})
}

// lastPairWithout is text with the last pair's lines of the given prefixes left out: a
// plan whose last pair lacks them, which only the end of the plan can tell.
func lastPairWithout(text string, prefixes ...string) string {
	lines := strings.SplitAfter(text, "\n")
	last := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "pair ") {
			last = i
		}
	}
	var out []string
	for i, l := range lines {
		if i > last && slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

func known(reason string) bool {
	for _, r := range refusals {
		if r == reason {
			return true
		}
	}
	return false
}
