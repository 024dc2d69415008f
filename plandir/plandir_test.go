package plandir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echo-uma/echo/plan"
)

// calibratedPlan is a plan with no pair, as calibration leaves one for the executable (by
// build-id, or path and size without one) on gpu: only its context matters to a directory.
func calibratedPlan(t *testing.T, exe, buildID string, size int64, gpu string) *plan.Plan {
	t.Helper()
	p := &plan.Plan{
		Version: plan.Version, Created: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Tool: "plandir test",
		Trace: plan.Source{Path: "trace.bin", Command: []string{exe}, PID: 4242},
		Context: plan.Context{Executable: plan.Module{Path: exe, BuildID: buildID, Size: size},
			GPU: gpu, ComputeCapability: "9.0", Driver: 12080, Runtime: 12080},
		PredictedSpeedup: 1,
	}
	if err := p.Check(); err != nil {
		t.Fatalf("the test's plan: %v", err)
	}
	return p
}

func planBytes(t *testing.T, p *plan.Plan) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode passes through the umask
		t.Fatal(err)
	}
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

func byName(entries []Entry) map[string]Entry {
	m := map[string]Entry{}
	for _, e := range entries {
		m[e.Name] = e
	}
	return m
}

// Read sees the directory as the shim does: a plan with its deployment, a deployment without
// its plan, and every file the shim would skip as an entry saying why, without following a
// link or waiting on a FIFO; hidden files and subdirectories are not entries.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	good := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	writeFile(t, filepath.Join(dir, "stream.plan"), planBytes(t, good), 0o644)
	writeFile(t, filepath.Join(dir, "stream.plan.shim"), []byte("echo-plan 1\n"), 0o644)
	writeFile(t, filepath.Join(dir, "orphan.plan.shim"), []byte("echo-plan 1\n"), 0o644)
	writeFile(t, filepath.Join(dir, "broken.plan"), []byte("{"), 0o644)
	writeFile(t, filepath.Join(dir, "open.plan.shim"), []byte("echo-plan 1\n"), 0o666)
	writeFile(t, filepath.Join(dir, ".hidden.plan"), planBytes(t, good), 0o644)
	if err := os.Symlink(filepath.Join(dir, "stream.plan.shim"), filepath.Join(dir, "link.plan.shim")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.plan.shim"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.plan"), 0o755); err != nil {
		t.Fatal(err)
	}
	problems := map[string]string{ // name -> what its Err says; "" for none
		"stream": "", "orphan": "", "broken": "broken.plan",
		"open": "writable by others", "link": "symbolic link", "fifo": "not a regular file",
	}
	if os.Geteuid() == 0 {
		writeFile(t, filepath.Join(dir, "foreign.plan.shim"), []byte("echo-plan 1\n"), 0o644)
		if err := os.Chown(filepath.Join(dir, "foreign.plan.shim"), nobody, nobody); err != nil {
			t.Fatal(err)
		}
		problems["foreign"] = "belongs to uid 65534"
	}

	entries, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	for name := range problems {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("entries %q; want %q, in that order", names, want)
	}
	got := byName(entries)
	for name, problem := range problems {
		e := got[name]
		switch {
		case problem == "" && e.Err != nil:
			t.Errorf("%s: %v; want no problem", name, e.Err)
		case problem != "" && (e.Err == nil || !strings.Contains(e.Err.Error(), problem)):
			t.Errorf("%s: error %v; want one saying %q", name, e.Err, problem)
		}
	}
	if e := got["stream"]; e.Plan == nil || Key(e.Plan) != Key(good) || string(e.Deployment) != "echo-plan 1\n" {
		t.Errorf("stream: plan %v, deployment %q; want the plan written and its deployment", e.Plan, e.Deployment)
	}
	if e := got["orphan"]; e.Plan != nil || e.Deployment == nil {
		t.Errorf("orphan: plan %v, deployment %q; want a deployment without a plan", e.Plan, e.Deployment)
	}
	if e := got["link"]; e.Deployment != nil {
		t.Errorf("link: deployment %q read through the link; want none", e.Deployment)
	}
}

// The shim picks a deployment by executable and device: a key tells two plans apart exactly
// when one of those differs, and an executable without a build-id is known by its size and
// file name.
func TestKey(t *testing.T) {
	base := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	same := []*plan.Plan{
		calibratedPlan(t, "/elsewhere/stream-copy", "ab12", 0, "NVIDIA H200"), // the build-id names it
	}
	other := map[string]*plan.Plan{
		"build-id": calibratedPlan(t, "/opt/app/stream", "cd34", 0, "NVIDIA H200"),
		"GPU":      calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA GH200"),
	}
	cc := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	cc.Context.ComputeCapability = "8.7"
	other["compute capability"] = cc
	drv := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	drv.Context.Driver = 12090
	other["driver"] = drv
	rt := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	rt.Context.Runtime = 12090
	other["runtime"] = rt
	for _, p := range same {
		if Key(p) != Key(base) {
			t.Errorf("%s with build-id %s: another key than %s with the same build-id", p.Context.Executable.Path,
				p.Context.Executable.BuildID, base.Context.Executable.Path)
		}
	}
	for what, p := range other {
		if Key(p) == Key(base) {
			t.Errorf("plans differing in their %s: one key", what)
		}
	}

	noID := calibratedPlan(t, "/opt/app/stream", "", 4096, "NVIDIA H200")
	if Key(noID) != Key(calibratedPlan(t, "/other/stream", "", 4096, "NVIDIA H200")) {
		t.Error("an executable without a build-id copied elsewhere: another key; want the same (size and file name)")
	}
	for what, p := range map[string]*plan.Plan{
		"size":      calibratedPlan(t, "/opt/app/stream", "", 8192, "NVIDIA H200"),
		"file name": calibratedPlan(t, "/opt/app/compute", "", 4096, "NVIDIA H200"),
	} {
		if Key(p) == Key(noID) {
			t.Errorf("executables without a build-id differing in their %s: one key", what)
		}
	}
}

// Add makes the directory, writes plan and deployment readable by the fleet's programs,
// replaces an entry of the same name, and refuses a second plan for one executable and
// device (the shim would then run that program untouched) but not one for another GPU.
func TestAdd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	h200 := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	if err := Add(dir, "stream", h200, "echo-plan 1\nfirst\n"); err != nil {
		t.Fatalf("adding into a directory not made yet: %v", err)
	}
	for _, f := range []string{"stream.plan", "stream.plan.shim"} {
		if mode := modeOf(t, filepath.Join(dir, f)); !mode.IsRegular() || mode.Perm() != 0o644 {
			t.Errorf("%s after Add: %v; want a regular file, mode 0644", f, mode)
		}
	}

	if err := Add(dir, "stream", h200, "echo-plan 1\nsecond\n"); err != nil {
		t.Errorf("adding a plan again under its own name: %v; want it replaced", err)
	}
	again := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200")
	err := Add(dir, "again", again, "echo-plan 1\n")
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "stream.plan") {
		t.Errorf("adding a second plan for stream on the H200: %v; want ErrConflict naming stream.plan", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "again.plan")); err == nil {
		t.Error("the refused plan was written")
	}
	gh200 := calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA GH200")
	if err := Add(dir, "stream-gh200", gh200, "echo-plan 1\n"); err != nil {
		t.Errorf("adding stream's plan for another GPU: %v; want it added", err)
	}

	entries, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := byName(entries)
	if len(entries) != 2 || got["stream"].Plan == nil || got["stream-gh200"].Plan == nil {
		t.Errorf("entries after Add: %+v; want stream and stream-gh200 with their plans", entries)
	}
	if d := string(got["stream"].Deployment); d != "echo-plan 1\nsecond\n" {
		t.Errorf("stream's deployment %q; want the second one added", d)
	}
	if c := Conflict(entries, "new", calibratedPlan(t, "/x/stream", "ab12", 0, "NVIDIA GH200")); c != "stream-gh200.plan" {
		t.Errorf("Conflict of a new plan for stream on the GH200: %q; want stream-gh200.plan", c)
	}
	if c := Conflict(entries, "stream", h200); c != "" {
		t.Errorf("Conflict of stream's plan with its own entry: %q; want none", c)
	}
}

// A link in the directory is replaced whole, never written through: as root, Add would
// otherwise write into whatever file the link names.
func TestAddReplacesLink(t *testing.T) {
	dir, target := t.TempDir(), filepath.Join(t.TempDir(), "target")
	writeFile(t, target, []byte("someone else's\n"), 0o600)
	link := filepath.Join(dir, "stream.plan.shim")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Add(dir, "stream", calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200"), "echo-plan 1\n"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "someone else's\n" {
		t.Errorf("the file the link named now holds %q (%v); want it untouched", data, err)
	}
	if mode := modeOf(t, link); !mode.IsRegular() {
		t.Errorf("the deployment after Add over a link: %v; want a regular file", mode)
	}
}

// Add writes nothing into a directory the shim would not trust.
func TestAddUntrusted(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	err := Add(dir, "stream", calibratedPlan(t, "/opt/app/stream", "ab12", 0, "NVIDIA H200"), "echo-plan 1\n")
	if err == nil || !strings.Contains(err.Error(), "not to be trusted") {
		t.Errorf("Add into a world-writable directory: %v; want a refusal", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("Add into an untrusted directory left %d files", len(files))
	}
}

func TestName(t *testing.T) {
	for path, want := range map[string]string{
		"/srv/plans/stream.plan": "stream",
		"stream.plan":            "stream",
		"a.plan.plan":            "a.plan",
		"notes.json":             "notes.json",
	} {
		if got := Name(path); got != want {
			t.Errorf("Name(%q) = %q; want %q", path, got, want)
		}
	}
}
