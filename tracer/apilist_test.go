package tracer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/echo-uma/echo/trace"
)

// shimFunc is one entry of the shim's list of the CUDA API (shim/api.def).
type shimFunc struct {
	driver              bool
	role, name, version string
	twin                string // runtime: "_ptds", "_ptsz" or ""
}

// shimAPI reads shim/api.def's CUDA_RUNTIME and CUDA_DRIVER entries.
func shimAPI(t *testing.T) map[string]shimFunc {
	text, err := os.ReadFile("../shim/api.def")
	if err != nil {
		t.Fatalf("reading the shim's API list: %v", err)
	}
	entry := regexp.MustCompile(`(?m)^CUDA_(RUNTIME|DRIVER)\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w*)\s*,\s*(\w+)\s*,`)
	funcs := map[string]shimFunc{}
	for _, m := range entry.FindAllStringSubmatch(string(text), -1) {
		f := shimFunc{driver: m[1] == "DRIVER", role: m[2], name: m[3], version: m[4]}
		if !f.driver && m[5] != "none" {
			f.twin = "_" + m[5]
		}
		if f.role == "proc" { // cuGetProcAddress, listed once per version; the tracer has no probe for it
			continue
		}
		if _, dup := funcs[f.name]; dup {
			t.Errorf("shim/api.def lists %s twice", f.name)
		}
		funcs[f.name] = f
	}
	if len(funcs) < 40 {
		t.Fatalf("read %d entries from shim/api.def: has its form changed?", len(funcs))
	}
	return funcs
}

// eventsH reads bpf/events.h's enum echo_event_type: the value of each ECHO_ name.
func eventsH(t *testing.T) map[string]uint64 {
	text, err := os.ReadFile("../bpf/events.h")
	if err != nil {
		t.Fatal(err)
	}
	enum := regexp.MustCompile(`(?s)enum echo_event_type \{(.*?)\};`).FindSubmatch(text)
	if enum == nil {
		t.Fatal("bpf/events.h has no enum echo_event_type")
	}
	values := map[string]uint64{}
	for _, m := range regexp.MustCompile(`ECHO_(\w+)\s*=\s*(\d+)`).FindAllSubmatch(enum[1], -1) {
		v, _ := strconv.ParseUint(string(m[2]), 10, 32)
		values[string(m[1])] = v
	}
	return values
}

// eventConsts reads trace/eventtype.go's EventType constants: the value of each Event name.
func eventConsts(t *testing.T) map[string]uint64 {
	f, err := parser.ParseFile(token.NewFileSet(), "../trace/eventtype.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]uint64{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "EventType" || len(v.Values) != 1 {
				continue
			}
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s: its value is not a number", v.Names[0].Name)
			}
			n, _ := strconv.ParseUint(lit.Value, 0, 32)
			values[v.Names[0].Name] = n
		}
	}
	return values
}

// spelling is a name in one case without underscores: ECHO_CUDA_MEMCPY_2D_ASYNC and
// EventCUDAMemcpy2DAsync are both CUDAMEMCPY2DASYNC.
func spelling(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "_", ""))
}

// TestAPIListsAgree ties together the four lists of the CUDA API that Echo keeps in four
// languages' files. What must agree, and why:
//
//  1. bpf/events.h and trace/eventtype.go define the same event types, by name (the same
//     words, ECHO_CUDA_MEMCPY_2D_ASYNC for EventCUDAMemcpy2DAsync) and value, and each has
//     a name to print: the trace stores events.h's values, the planner reads trace's.
//  2. Every probe (tracer/probes.go) records an event type events.h defines, and every type
//     is recorded by a probe, save ECHO_DLOPEN, which the loader's probe writes without a
//     cookie: a probe without a type, or a type without a probe, is dead code or a lost call.
//  3. A CUDA probe's first symbol is its event's name, which is what a plan calls the site
//     and what the shim's hooks match a site's call against; a variant with one more
//     (flags) argument records as the plain call (cudaStreamCreateWithFlags as
//     cudaStreamCreate).
//  4. Where the shim's list (shim/api.def) and the probes name the same function, they name
//     the same symbols: the shim's versioned symbol is the probe's first, and a runtime
//     function's per-thread twin is the probe's variant, since the trace records the twin
//     as the plain call and the shim must follow it there too. The shim hooks functions the
//     tracer does not trace (waits, callbacks, launches that only validate mode sees), and
//     the tracer traces driver calls the shim leaves alone (the planner refuses driver-API
//     pairs, planner/screen.go): neither list need hold the other.
//  5. Every runtime allocation, free and copy the trace records, of which the planner makes
//     pairs and their linking copies, is hooked by the shim, save those screen.go never
//     merges through: cudaMallocManaged (a device side already managed) and cudaMemcpy2D
//     (pitched copies; the shim follows only its per-thread twin, for validate mode).
//
// To add a call: its line in shim/api.def if the shim hooks it; its ECHO_ value in
// events.h, its Event constant and name in trace; its probe in tracer/probes.go.
func TestAPIListsAgree(t *testing.T) {
	shim, echo, consts := shimAPI(t), eventsH(t), eventConsts(t)

	// 1: events.h against trace
	byValue := map[uint64]string{}
	for name, v := range consts {
		byValue[v] = name
	}
	for name, v := range echo {
		got, ok := byValue[v]
		if !ok || spelling(got) != spelling("Event"+name) {
			t.Errorf("events.h's ECHO_%s = %d: trace has %q for %d", name, v, got, v)
		}
		if !trace.EventType(v).Known() {
			t.Errorf("events.h's ECHO_%s = %d: trace.EventType has no name for it", name, v)
		}
	}
	if len(consts) != len(echo) {
		t.Errorf("trace defines %d event types, events.h %d", len(consts), len(echo))
	}

	// 2 and 3: the probes against the event types
	probed := map[trace.EventType]bool{}
	for k, ps := range probes {
		for _, p := range ps {
			if p.cookie == 0 {
				if p.fam != loader {
					t.Errorf("probe %s records no event type", p.enter)
				}
				continue
			}
			typ := trace.EventType(p.cookie &^ withFlags)
			if _, ok := byValue[uint64(typ)]; !ok {
				t.Errorf("probe %s records %s, which events.h does not define", p.enter, typ)
				continue
			}
			if p.cookie&withFlags == 0 {
				if probed[typ] {
					t.Errorf("probe %s records %s, as another probe does", p.enter, typ)
				}
				probed[typ] = true
				if (k == kindRuntime || k == kindDriver) && p.symbols[0] != typ.String() {
					t.Errorf("probe %s's first symbol is %s; its event is named %s", p.enter, p.symbols[0], typ)
				}
			}
		}
	}
	for name, v := range echo {
		if !probed[trace.EventType(v)] && name != "DLOPEN" {
			t.Errorf("no probe records ECHO_%s", name)
		}
	}

	// 4: the shim's list against the probes
	for _, k := range []kind{kindRuntime, kindDriver} {
		for _, p := range probes[k] {
			f, ok := shim[strings.TrimSuffix(p.enter, "_enter")]
			if !ok {
				continue
			}
			if f.driver != (k == kindDriver) {
				t.Errorf("%s: the shim lists it for the other library", f.name)
				continue
			}
			if f.role != "twin" && p.symbols[0] != f.name+f.version {
				t.Errorf("%s: the shim looks up %s, the tracer probes %s", f.name, f.name+f.version, p.symbols[0])
			}
			if k != kindRuntime {
				continue
			}
			variant := ""
			if len(p.symbols) > 1 {
				variant = strings.TrimPrefix(p.symbols[1], p.symbols[0])
			}
			if f.twin != variant {
				t.Errorf("%s: the shim follows the per-thread twin %q, the tracer %q", f.name, f.twin, variant)
			}
		}
	}

	// 5: what the planner may merge through, the shim hooks
	unmerged := map[string]bool{"cudaMallocManaged": true, "cudaMemcpy2D": true}
	for _, p := range probes[kindRuntime] {
		typ := trace.EventType(p.cookie &^ withFlags)
		if !typ.IsDeviceAlloc() && !typ.IsFree() && !typ.IsCopy() {
			continue
		}
		name := p.symbols[0]
		if f := shim[name]; f.role != "hook" && !unmerged[name] {
			t.Errorf("the trace records %s, of which the planner makes pairs, but shim/api.def does not hook it", name)
		}
	}
}
