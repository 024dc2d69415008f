package main

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/echo-uma/echo/internal/testenv"
)

// The command writes PLAN.html by default, the page to stdout with -o -, its JSON with
// --json, and refuses to write over its plan or the trace it draws.
func TestReportCommand(t *testing.T) {
	tracePath := streamTrace(t)
	planPath := tracePath + ".plan"
	if out, err := execute(t, "plan", tracePath); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	out, err := execute(t, "report", planPath)
	page, rerr := os.ReadFile(planPath + ".html")
	if err != nil || rerr != nil || out != "wrote "+planPath+".html\n" {
		t.Fatalf("report: %v, %v: %q", err, rerr, out)
	}
	if !strings.Contains(string(page), `<tr data-pair="p1">`) || !strings.Contains(string(page), "Iteration ") {
		t.Errorf("the page lacks the pair or the iteration: %.500s", page)
	}
	out, err = execute(t, "report", "-o", "-", planPath)
	if err != nil || !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(out), "</html>") {
		t.Errorf("report -o -: %v: %.200s", err, out)
	}
	out, err = execute(t, "report", "--json", "-o", filepath.Join(t.TempDir(), "r.html"), planPath)
	var doc reportJSON
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || doc.Schema != "echo.report/1" || doc.Trace != tracePath ||
		!doc.Timeline || doc.Calibration || doc.Pairs != 2 {
		t.Errorf("report --json: %v: %s", err, out)
	}
	before, _ := os.ReadFile(planPath)
	if _, err := execute(t, "report", "-o", planPath, planPath); err == nil || !strings.Contains(err.Error(), "is the plan itself") {
		t.Errorf("report -o PLAN: %v, want a refusal", err)
	}
	if after, _ := os.ReadFile(planPath); string(after) != string(before) {
		t.Error("report -o PLAN changed the plan")
	}
	// The trace the report found by itself (not named with --trace) is an input too.
	before, _ = os.ReadFile(tracePath)
	if _, err := execute(t, "report", "-o", tracePath, planPath); err == nil || !strings.Contains(err.Error(), "is the plan's trace itself") {
		t.Errorf("report -o TRACE: %v, want a refusal", err)
	}
	if after, _ := os.ReadFile(tracePath); string(after) != string(before) {
		t.Error("report -o TRACE changed the plan's trace")
	}
}

// runChromium loads page headless with extra flags and returns its stdout and its log. A
// chromium that has not finished in 2 minutes is killed with its renderers and started once
// more, saying so: a browser stalled on a loaded machine is not the page's failure, and left
// alone, its renderers kept the pipes open and the test waiting until go test's deadline.
func runChromium(t *testing.T, bin, page string, flags ...string) (stdout, log string) {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-extensions", "--no-first-run", "--enable-logging=stderr", "--v=0"}, flags...)
	for attempt := 1; ; attempt++ {
		cmd := exec.Command(bin, append(args, "--user-data-dir="+t.TempDir(), "file://"+page)...)
		res := testenv.Within(t, 2*time.Minute, cmd)
		switch {
		case res.TimedOut && attempt == 1:
			t.Logf("chromium %s did not finish in 2 minutes; killed, starting it again", strings.Join(flags, " "))
			continue
		case res.TimedOut:
			t.Fatalf("chromium %s did not finish in 2 minutes, twice\n%s", strings.Join(flags, " "), res.Stderr)
		case res.ExitCode != 0:
			t.Fatalf("chromium %s: exit %d\n%s", strings.Join(flags, " "), res.ExitCode, res.Stderr)
		}
		return res.Stdout, res.Stderr
	}
}

// What chromium logs when a page's script fails, logs to the console, or tries a load its
// Content-Security-Policy blocks.
var pageErrors = regexp.MustCompile(`(?m)^.*(:CONSOLE|Uncaught|Refused to|violates the following Content Security Policy).*$`)

// The report of a real, calibrated plan (optimize on the emulator's stream workload) loads
// in a real browser: its script runs to the end, nothing is logged or blocked, and what it
// draws shows.
func TestReportInChromium(t *testing.T) {
	testenv.RequireRoot(t) // optimize traces (first: the arm64 runs, without BPF, have no chromium either)
	bin := testenv.Tool(t, "chromium", "to load the report")
	dir := t.TempDir()
	planPath := filepath.Join(dir, "stream.plan")
	res := testenv.EchoctlOK(t, nil, "optimize", "--ignore", "^iter_ms=", "--rounds", "2", "-o", planPath, "--",
		testenv.Built(t, "workloads/stream"), "--size", "4M", "--iters", "6", "--warmup", "2")
	res = testenv.Echoctl(t, nil, "report", "--json", planPath)
	var doc reportJSON
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 0 {
		t.Fatalf("report --json: exit %d, %v: %s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	if doc.Schema != "echo.report/1" || doc.Output != planPath+".html" || doc.Trace != planPath+".trace" ||
		!doc.Timeline || !doc.Calibration || doc.Pairs == 0 {
		t.Fatalf("report --json: %+v: want the page at PLAN.html, drawn from PLAN.trace with a timeline and calibration", doc)
	}

	dom, log := runChromium(t, bin, doc.Output, "--dump-dom")
	if bad := pageErrors.FindAllString(log, -1); len(bad) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(bad, "\n"))
	}
	if !strings.Contains(dom, `data-report="rendered"`) || !regexp.MustCompile(`rendered: [1-9]\d* calls drawn`).MatchString(dom) {
		t.Errorf("the page's script did not finish (no rendered marker): %.2000s", dom)
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	_, log = runChromium(t, bin, doc.Output, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars")
	if bad := pageErrors.FindAllString(log, -1); len(bad) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(bad, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, log)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	colours, drawn := paint(img)
	if colours < 16 {
		t.Errorf("the screenshot has %d colours: blank", colours)
	}
	// The bars are drawn: the copies' and the kernels' fills are on the picture.
	for name, rgb := range map[string][3]uint8{"copy": {0xe4, 0x57, 0x2e}, "kernel launch": {0x3a, 0x7b, 0xd5}} {
		if drawn[rgb] < 20 {
			t.Errorf("%d pixels of the %s colour #%02x%02x%02x: its bars are not drawn", drawn[rgb], name, rgb[0], rgb[1], rgb[2])
		}
	}
}

// paint counts an image's distinct colours and the pixels of each.
func paint(img image.Image) (int, map[[3]uint8]int) {
	n := map[[3]uint8]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			n[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}]++
		}
	}
	return len(n), n
}

// Through the real CLI: a workload traced as by default (no launch probed) gets a report whose
// timeline says kernel launches were not traced and draws none; traced with --launches, its
// lanes draw them.
func TestReportLaunchesNotTraced(t *testing.T) {
	testenv.RequireRoot(t)
	args := []string{"--host-allocs", "--", testenv.Built(t, "workloads/stream"), "--size", "256K", "--iters", "4", "--warmup", "1"}
	for _, c := range []struct {
		flags    []string
		untraced bool
	}{{nil, true}, {[]string{"--launches"}, false}} {
		res, tracePath := testenv.Trace(t, append(c.flags, args...)...)
		if res.ExitCode != 0 {
			t.Fatalf("echoctl trace %v: exit %d: %s", c.flags, res.ExitCode, res.Stderr)
		}
		if out, err := execute(t, "plan", tracePath); err != nil {
			t.Fatalf("plan: %v\n%s", err, out)
		}
		page, err := execute(t, "report", "-o", "-", tracePath+".plan")
		if err != nil || !strings.Contains(page, "Iteration ") {
			t.Fatalf("report of the trace %v: %v, or no iteration drawn", c.flags, err)
		}
		said, drawn := strings.Contains(page, "kernel launch: not traced"), strings.Contains(page, `class="bar kernel"`)
		if said != c.untraced || drawn == c.untraced {
			t.Errorf("trace %v: the page says launches not traced %v and draws kernel bars %v; want %v and %v",
				c.flags, said, drawn, c.untraced, !c.untraced)
		}
	}
}
