package tracer

import (
	"slices"
	"testing"

	"github.com/cilium/ebpf"
)

// How a program is attached, which its section in bpf/echo.bpf.c must agree with.
const (
	asUprobe      = "a uprobe (SEC uprobe or uretprobe)"
	asUprobeMulti = "a uprobe_multi program (SEC uprobe.multi or uretprobe.multi)"
	asTracepoint  = "a tracepoint (SEC tracepoint)"
)

func attachedAs(p *ebpf.ProgramSpec) string {
	switch {
	case p.AttachType == ebpf.AttachTraceUprobeMulti:
		return asUprobeMulti
	case p.Type == ebpf.Kprobe:
		return asUprobe
	case p.Type == ebpf.TracePoint:
		return asTracepoint
	}
	return p.Type.String()
}

// programNames is every program the tracer attaches by name: probes.go's table builds the
// names (cudaMemcpy + "_enter"), so bpf2go's typed objects cannot stand in for them.
func programNames() map[string]string {
	want := map[string]string{forkProgram: asTracepoint}
	for _, ps := range probes {
		for _, p := range ps {
			for name, as := range map[string]string{p.enter: asUprobe, p.fam.leave: asUprobe,
				p.fam.enterMulti: asUprobeMulti, p.fam.leaveMulti: asUprobeMulti} {
				if name != "" {
					want[name] = as
				}
			}
		}
	}
	return want
}

// Every name the Go side looks a program up by is a program of both embedded objects, of the
// kind it is attached as, and every program there is one the Go side attaches: a misspelt or
// renamed program would otherwise surface only as root, at attach time, and only on the
// kernel path (uprobe_multi or not) that uses it. The maps and variables are bpf2go's typed
// objects, checked by the compiler; Assign here checks the objects carry all of them.
func TestProgramNames(t *testing.T) {
	want := programNames()
	for _, obj := range []string{"echo_x86_bpfel.o", "echo_arm64_bpfel.o"} {
		t.Run(obj, func(t *testing.T) {
			spec, err := ebpf.LoadCollectionSpec(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.Assign(&echoSpecs{}); err != nil {
				t.Errorf("the generated bindings do not match the object: %v (make generate)", err)
			}
			for name, as := range want {
				p := spec.Programs[name]
				switch {
				case p == nil:
					t.Errorf("the tracer attaches program %q, which %s does not have", name, obj)
				case attachedAs(p) != as:
					t.Errorf("program %q is %s; the tracer attaches it as %s", name, attachedAs(p), as)
				}
			}
			var unused []string
			for name := range spec.Programs {
				if _, ok := want[name]; !ok {
					unused = append(unused, name)
				}
			}
			slices.Sort(unused)
			if len(unused) > 0 {
				t.Errorf("programs of %s that no probe attaches: %q", obj, unused)
			}
		})
	}
}

// keepPrograms keeps, for each kernel, every program the tracer will attach there.
func TestKeepPrograms(t *testing.T) {
	for _, multi := range []bool{false, true} {
		spec, err := loadEcho()
		if err != nil {
			t.Fatal(err)
		}
		keepPrograms(spec, multi)
		for name, as := range programNames() {
			needed := as == asTracepoint || (as == asUprobeMulti) == multi
			if _, kept := spec.Programs[name]; kept != needed {
				t.Errorf("uprobe_multi %v: program %s (%s) kept %v, want %v", multi, name, as, kept, needed)
			}
		}
	}
}
