package check_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/check"
	"github.com/echo-uma/echo/internal/testenv"
)

// decode reads `echoctl check --json` and indexes its items by name.
func decode(t *testing.T, res testenv.Result) (check.Report, map[string]check.Item) {
	t.Helper()
	var rep check.Report
	if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
		t.Fatalf("decoding %q (stderr %q): %v", res.Stdout, res.Stderr, err)
	}
	if rep.Schema != check.Schema {
		t.Errorf("schema %q, want %q", rep.Schema, check.Schema)
	}
	items := map[string]check.Item{}
	for _, it := range rep.Items {
		items[it.Name] = it
	}
	return rep, items
}

// With the emulator's libraries on LD_LIBRARY_PATH, check finds the runtime and the driver
// there and reads the GPU from the runtime: what an emulator knob changes, it reports.
func TestCheckFindsEmulator(t *testing.T) {
	lib := filepath.Dir(testenv.Built(t, "lib/libcudart.so.12"))
	for _, c := range []struct {
		env      []string
		name, cc string
	}{
		{nil, "Echo UMA Emulator", "8.7"},
		{[]string{"CUDA_EMU_DEVICE_NAME=Echo Check Probe", "CUDA_EMU_CC=9.0"}, "Echo Check Probe", "9.0"},
	} {
		res := testenv.Echoctl(t, append([]string{"LD_LIBRARY_PATH=" + lib}, c.env...), "check", "--json")
		rep, items := decode(t, res)
		want := map[string]string{filepath.Join(lib, "libcudart.so.12"): "runtime", filepath.Join(lib, "libcuda.so.1"): "driver"}
		for _, l := range rep.Libraries {
			if want[l.Path] == l.Kind && l.Found == "LD_LIBRARY_PATH" {
				delete(want, l.Path)
			}
		}
		if len(want) > 0 {
			t.Errorf("libraries %+v: want %v found through LD_LIBRARY_PATH", rep.Libraries, want)
		}
		if rep.GPU == nil || rep.GPU.Name != c.name || rep.GPU.CC != c.cc || rep.GPU.Runtime != 12080 {
			t.Errorf("with %v: GPU %+v, want %q with compute capability %s, runtime 12080", c.env, rep.GPU, c.name, c.cc)
		}
		if it := items["GPU"]; it.Status != check.StatusOK || !strings.Contains(it.Detail, c.name) {
			t.Errorf("GPU item %+v", it)
		}
		if testenv.CanTrace() && (!rep.OK || res.ExitCode != 0) {
			t.Errorf("as root: ok %v, exit %d, items %+v: want everything there", rep.OK, res.ExitCode, rep.Items)
		}
	}
}

// A runtime that finds no GPU is a missing piece: deploying cannot merge anything.
func TestCheckNoDevice(t *testing.T) {
	lib := filepath.Dir(testenv.Built(t, "lib/libcudart.so.12"))
	res := testenv.Echoctl(t, []string{"LD_LIBRARY_PATH=" + lib, "CUDA_EMU_DEVICE_COUNT=0"}, "check", "--json")
	rep, items := decode(t, res)
	if it := items["GPU"]; it.Status != check.StatusMissing || !strings.Contains(it.Detail, "no GPU") || it.Disables == "" {
		t.Errorf("GPU item %+v: want missing, saying there is no GPU and what that disables", it)
	}
	if rep.OK || res.ExitCode != 1 {
		t.Errorf("ok %v, exit %d: want false and 1", rep.OK, res.ExitCode)
	}
}

// As an ordinary user, check names the capabilities tracing lacks, what that disables and the
// command that grants them, and exits 1; with CAP_BPF and CAP_PERFMON, tracing is fine and
// only what needs more is a warning.
func TestCheckUnprivileged(t *testing.T) {
	u := testenv.NewUnprivileged(t)
	env := []string{"LD_LIBRARY_PATH=" + filepath.Join(u.Dir, "lib")}
	res := u.Run(t, nil, env, u.Echoctl, "check", "--json")
	rep, items := decode(t, res)
	caps := items["capabilities"]
	if caps.Status != check.StatusMissing || !strings.Contains(caps.Detail, "missing CAP_BPF, CAP_PERFMON") ||
		!strings.Contains(caps.Disables, "trace") || !strings.Contains(caps.Fix, "setcap cap_bpf,cap_perfmon+ep "+u.Echoctl) {
		t.Errorf("capabilities item %+v", caps)
	}
	if rep.OK || res.ExitCode != 1 || rep.Root {
		t.Errorf("ok %v, exit %d, root %v: want false, 1, false", rep.OK, res.ExitCode, rep.Root)
	}
	if gpu := items["GPU"]; gpu.Status != check.StatusOK {
		t.Errorf("GPU item %+v: asking the runtime needs no privileges", gpu)
	}

	res = u.Run(t, []string{"bpf", "perfmon"}, env, u.Echoctl, "check", "--json")
	rep, items = decode(t, res)
	for name, want := range map[string]check.Status{
		"capabilities": check.StatusOK, "BPF objects": check.StatusOK, "uprobe attach": check.StatusOK,
		"other users": check.StatusWarn, "--follow": check.StatusWarn, "perf-event uprobes": check.StatusWarn,
	} {
		if items[name].Status != want {
			t.Errorf("with CAP_BPF and CAP_PERFMON: %s %+v, want %s", name, items[name], want)
		}
	}
	if perf := items["perf-event uprobes"]; !strings.Contains(perf.Detail, "CAP_SYS_ADMIN") {
		t.Errorf("perf-event uprobes %+v: want the capability they need", perf)
	}
	if !rep.OK || res.ExitCode != 0 {
		t.Errorf("ok %v, exit %d, items %+v: want tracing and deploying possible", rep.OK, res.ExitCode, rep.Items)
	}
}

// The table names every item and ends with the verdict.
func TestCheckTable(t *testing.T) {
	res := testenv.Echoctl(t, nil, "check")
	for _, want := range []string{"CHECK", "STATUS", "kernel", "capabilities", "preload library"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("table %q: want %q", res.Stdout, want)
		}
	}
	if verdict := "can work here"; (res.ExitCode == 0) != strings.Contains(res.Stdout, verdict) {
		t.Errorf("exit %d but the table says %q", res.ExitCode, res.Stdout)
	}
}
