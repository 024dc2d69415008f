// Command gotest runs the module's Go tests for make test: each package's test binary as
// its own `go test -json` (a package whose tests took long last time split by test name
// into shards), several at a time, the slowest first, so that the run is as long as its
// longest shard rather than its longest package. A fresh clone orders and shards by -seed
// (tests/gotest/times.json, a run's durations on a 2-core machine, committed). It prints a go test line for each package
// or shard as it ends, a line naming the tests still running whenever it has printed
// nothing for -heartbeat, what failed with its output, the slowest tests, and a closing
// count ("gotest: N passed, N failed, N skipped"). The whole output of every test binary
// goes to -log; the durations go to -times, which the next run orders and shards by.
//
// Usage: go run ./tests/gotest [-p N] [-log FILE] [-times FILE] [-seed FILE] [-shard D] [-flags "-race"] [PACKAGES]
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	o := options{}
	flag.IntVar(&o.parallel, "p", runtime.NumCPU(), "test binaries run at a time")
	flag.StringVar(&o.log, "log", "", "file for the whole output of every test binary")
	flag.StringVar(&o.times, "times", "", "file of the last run's durations: read to order and shard, written after")
	flag.StringVar(&o.seed, "seed", "", "durations to start from where -times has none yet (a fresh clone's)")
	flag.DurationVar(&o.shard, "shard", 90*time.Second, "a package whose tests took longer than this last time runs in shards of about this much")
	flag.DurationVar(&o.heartbeat, "heartbeat", 20*time.Second, "longest silence: then a line says what is running")
	flag.StringVar(&o.flags, "flags", "", "more go test flags, space-separated (-race)")
	flag.Parse()
	o.packages = flag.Args()
	if len(o.packages) == 0 {
		o.packages = []string{"./..."}
	}
	ok, err := run(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gotest: %v\n", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

type options struct {
	parallel  int
	log       string
	times     string
	seed      string
	shard     time.Duration
	heartbeat time.Duration
	flags     string
	packages  []string
}

// times is what -times keeps: seconds per package and per top-level test.
type times struct {
	Packages map[string]float64            `json:"packages"`
	Tests    map[string]map[string]float64 `json:"tests"`
}

// job is one go test process: a package, or a shard of its tests.
type job struct {
	pkg   string
	tests []string // the shard's tests; nil: the whole package
	shard string   // "2/3" for a shard, "" for a whole package
	guess float64  // seconds it took last time
}

func (j *job) name() string {
	if j.shard == "" {
		return j.pkg
	}
	return j.pkg + " [" + j.shard + "]"
}

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func run(o options) (bool, error) {
	start := time.Now()
	last := readTimes(o.times)
	if len(last.Packages) == 0 {
		last = readTimes(o.seed)
	}
	pkgs, err := testedPackages(o.packages)
	if err != nil {
		return false, err
	}
	jobs, err := plan(pkgs, last, o.shard)
	if err != nil {
		return false, err
	}
	var logf io.Writer = io.Discard
	if o.log != "" {
		f, err := os.Create(o.log)
		if err != nil {
			return false, err
		}
		defer f.Close()
		logf = f
	}
	r := &runner{o: o, start: start, log: logf, running: map[*job]map[string]time.Time{},
		now: times{Packages: map[string]float64{}, Tests: map[string]map[string]float64{}}}
	sharded := 0
	for _, j := range jobs {
		if j.shard != "" {
			sharded++
		}
	}
	r.say("gotest: %d packages, %d test binaries (%d shards of long packages), %d at a time, the longest first",
		len(pkgs), len(jobs), sharded, o.parallel)

	done := make(chan struct{})
	go r.beat(done)
	queue := make(chan *job)
	var wg sync.WaitGroup
	for range o.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				r.runJob(j)
			}
		}()
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	close(done)
	if o.times != "" {
		if b, err := json.MarshalIndent(r.merged(last), "", "\t"); err == nil {
			os.WriteFile(o.times, append(b, '\n'), 0o644)
		}
	}
	r.report()
	return r.failed == 0 && len(r.broken) == 0, nil
}

// testedPackages are the packages among patterns that have test files.
func testedPackages(patterns []string) ([]string, error) {
	args := append([]string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}"}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("go list: %v\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// plan makes the jobs: a package that took longer than shard last time is split by test
// name into about that much each (its tests dealt, longest first, to the shard with the
// least so far); the jobs run longest first. A package never timed runs whole, first.
func plan(pkgs []string, last times, shard time.Duration) ([]*job, error) {
	var jobs []*job
	for _, p := range pkgs {
		took, seen := last.Packages[p]
		if !seen {
			took = 1e9 // unknown: start it early
		}
		n := int(took / shard.Seconds())
		tests := last.Tests[p]
		if !seen || n < 2 || len(tests) < 2 {
			jobs = append(jobs, &job{pkg: p, guess: took})
			continue
		}
		names, err := listTests(p)
		if err != nil {
			return nil, err
		}
		n = min(n, len(names))
		slices.SortFunc(names, func(a, b string) int { return cmp.Compare(tests[b], tests[a]) })
		shards := make([]*job, n)
		for i := range shards {
			shards[i] = &job{pkg: p, shard: fmt.Sprintf("%d/%d", i+1, n)}
		}
		for _, name := range names {
			least := slices.MinFunc(shards, func(a, b *job) int { return cmp.Compare(a.guess, b.guess) })
			least.tests = append(least.tests, name)
			least.guess += max(tests[name], 0.5) // a new test: a little
		}
		jobs = append(jobs, shards...)
	}
	slices.SortStableFunc(jobs, func(a, b *job) int { return cmp.Compare(b.guess, a.guess) })
	return jobs, nil
}

// listTests is the package's top-level tests (go test -list), what shards divide.
func listTests(pkg string) ([]string, error) {
	out, err := exec.Command("go", "test", "-list", "^Test", pkg).Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %w", pkg, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") {
			names = append(names, strings.TrimSpace(l))
		}
	}
	return names, nil
}

func readTimes(path string) times {
	t := times{Packages: map[string]float64{}, Tests: map[string]map[string]float64{}}
	if path == "" {
		return t
	}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &t)
	}
	if t.Packages == nil || t.Tests == nil {
		return times{Packages: map[string]float64{}, Tests: map[string]map[string]float64{}}
	}
	return t
}

type runner struct {
	o     options
	start time.Time
	log   io.Writer

	mu       sync.Mutex
	lastSaid time.Time
	running  map[*job]map[string]time.Time // top-level tests running, by job
	now      times
	passed   int
	failed   int
	skipped  int
	slow     []slowTest
	failures []string // what each failed test printed
	broken   []string // jobs that failed outside any test (build errors, timeouts, panics)
}

type slowTest struct {
	name string
	secs float64
}

// say prints a line now and notes when.
func (r *runner) say(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sayLocked(format, args...)
}

func (r *runner) sayLocked(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	r.lastSaid = time.Now()
}

// beat says what is running whenever nothing was said for the heartbeat.
func (r *runner) beat(done chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		r.mu.Lock()
		if time.Since(r.lastSaid) >= r.o.heartbeat {
			var parts []string
			for j, tests := range r.running {
				if len(tests) == 0 {
					parts = append(parts, j.name()+" (building or starting)")
				}
				for name, since := range tests {
					parts = append(parts, fmt.Sprintf("%s %s (%s)", short(j.pkg), name, time.Since(since).Round(time.Second)))
				}
			}
			slices.Sort(parts)
			r.sayLocked("gotest: %s: running %s", clock(time.Since(r.start)), strings.Join(parts, ", "))
		}
		r.mu.Unlock()
	}
}

func (r *runner) runJob(j *job) {
	args := []string{"test", "-count=1", "-json"}
	args = append(args, strings.Fields(r.o.flags)...)
	if j.tests != nil {
		args = append(args, "-run", "^("+strings.Join(quoteAll(j.tests), "|")+")$")
	}
	args = append(args, j.pkg)
	cmd := exec.Command("go", args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.fail(j, err.Error())
		return
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	r.mu.Lock()
	r.running[j] = map[string]time.Time{}
	r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		r.fail(j, err.Error())
		return
	}
	var out strings.Builder                  // the binary's whole output, for the log
	perTest := map[string]*strings.Builder{} // each test's output, for its failure
	result, elapsed, testsFailed := "", 0.0, 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			out.WriteString(sc.Text() + "\n")
			continue
		}
		out.WriteString(e.Output)
		if e.Test != "" && e.Output != "" {
			b := perTest[e.Test]
			if b == nil {
				b = &strings.Builder{}
				perTest[e.Test] = b
			}
			b.WriteString(e.Output)
		}
		r.mu.Lock()
		switch {
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			result, elapsed = e.Action, e.Elapsed
		case e.Test != "" && e.Action == "run" && !strings.Contains(e.Test, "/"):
			r.running[j][e.Test] = time.Now()
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			if r.testEndedLocked(j, e, perTest[e.Test]) {
				testsFailed++
			}
		}
		r.mu.Unlock()
	}
	waitErr := cmd.Wait()
	out.WriteString(stderr.String())
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, j)
	fmt.Fprintf(r.log, "=== gotest: %s\n%s", j.name(), out.String())
	r.now.Packages[j.pkg] += elapsed
	status := "ok  "
	if result != "pass" && result != "skip" || waitErr != nil {
		status = "FAIL"
		if testsFailed == 0 {
			r.broken = append(r.broken, "--- "+j.name()+" (no test failed: the test binary did, or did not build)\n"+lastLines(out.String(), 60))
		}
	}
	shard := ""
	if j.shard != "" {
		shard = "\t(shard " + j.shard + ")"
	}
	r.sayLocked("%s\t%s\t%.1fs%s", status, j.pkg, elapsed, shard)
}

// testEndedLocked counts a test of j that passed, failed (keeping its output, out, for the
// failures) or was skipped, and records a top-level test's time; it says whether it failed.
// r.mu is held.
func (r *runner) testEndedLocked(j *job, e event, out *strings.Builder) (failed bool) {
	switch e.Action {
	case "pass":
		r.passed++
	case "fail":
		r.failed++
		failed = true
		if out != nil {
			r.failures = append(r.failures, "--- "+short(j.pkg)+" "+e.Test+"\n"+lastLines(out.String(), 60))
		}
	case "skip":
		r.skipped++
	}
	if !strings.Contains(e.Test, "/") {
		delete(r.running[j], e.Test)
		if r.now.Tests[j.pkg] == nil {
			r.now.Tests[j.pkg] = map[string]float64{}
		}
		r.now.Tests[j.pkg][e.Test] = e.Elapsed
		r.slow = append(r.slow, slowTest{short(j.pkg) + " " + e.Test, e.Elapsed})
	}
	return failed
}

func (r *runner) fail(j *job, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, j)
	r.broken = append(r.broken, "--- "+j.name()+": "+why)
	r.sayLocked("FAIL\t%s\t%s", j.pkg, why)
}

// merged is this run's durations over the last run's: a shard's package is the sum of its
// shards, and a test that did not run now keeps its last figure.
func (r *runner) merged(last times) times {
	for p, s := range r.now.Packages {
		last.Packages[p] = s
	}
	for p, tests := range r.now.Tests {
		if last.Tests[p] == nil {
			last.Tests[p] = map[string]float64{}
		}
		for n, s := range tests {
			last.Tests[p][n] = s
		}
	}
	return last
}

// report says what failed, the slowest tests and the count.
func (r *runner) report() {
	if len(r.failures)+len(r.broken) > 0 {
		fmt.Println("gotest: what failed (the whole output:", cmp.Or(r.o.log, "not kept: -log"), ")")
		for _, f := range append(r.broken, r.failures...) {
			fmt.Println(f)
		}
	}
	slices.SortFunc(r.slow, func(a, b slowTest) int { return cmp.Compare(b.secs, a.secs) })
	var top []string
	for _, s := range r.slow[:min(8, len(r.slow))] {
		top = append(top, fmt.Sprintf("%s %.0fs", s.name, s.secs))
	}
	fmt.Printf("gotest: slowest: %s\n", strings.Join(top, ", "))
	fmt.Printf("gotest: %d passed, %d failed, %d skipped\n", r.passed, r.failed+len(r.broken), r.skipped)
	fmt.Printf("gotest: %s in all\n", clock(time.Since(r.start)))
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = regexp.QuoteMeta(n)
	}
	return out
}

// short is a package path without the module's.
func short(pkg string) string {
	return strings.TrimPrefix(pkg, "github.com/echo-uma/echo/")
}

func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
