package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/source/internal/sourcetest"
)

// A non-const kernel parameter the body only reads through leaves the host side valid after
// the launch (the pair is proven); one the body may write through, or any kernel the
// analysis cannot see all of, still refuses a host read before the D2H copy (S1).
func TestKernelBodies(t *testing.T) {
	sourcetest.NeedClang(t)
	cases := map[string]map[string]bool{ // file → function → proven
		"reads_only.cu": {"shared_reduction": true, "helper": true, "ldg": true, "restrict_qualified": true,
			"templ": true, "const_read": true, "static_call": true},
		"may_write.cu": {"param": false, "global": false, "helper": false, "atomic": false,
			"increment": false, "store": false, "opaque_call": false, "assembly": false, "reference": false,
			"const_c_cast": false, "const_cast_write": false, "reinterpret": false, "atomic_cast": false,
			"local_copy": false, "device_fn": false, "asm_const": false, "extern_kernel": false},
	}
	for file, want := range cases {
		f, _ := filepath.Abs(filepath.Join("../../testdata/source/kernels", file))
		tu := sourcetest.Parse(t, f)
		got := map[string]bool{}
		for _, p := range Prove(tu) {
			if p.Host != "h" || p.Device != "d" {
				t.Errorf("%s %s: unexpected pair %s/%s", file, p.Function, p.Host, p.Device)
				continue
			}
			got[p.Function] = true
			proven, ok := want[p.Function]
			if !ok {
				t.Errorf("%s %s: a function the table does not expect", file, p.Function)
				continue
			}
			if p.Safe() != proven {
				t.Errorf("%s %s: proven = %v, want %v (%+v)", file, p.Function, p.Safe(), proven, p.Verdicts)
			}
			if s1 := p.Verdicts[0]; !proven && (s1.Status != plan.ConditionRefused || !strings.Contains(s1.Reason, "before the D2H copy brings back what the GPU wrote")) {
				t.Errorf("%s %s: S1 %s (%s), want refused for the host read before the D2H copy", file, p.Function, s1.Status, s1.Reason)
			}
		}
		for fn := range want {
			if !got[fn] {
				t.Errorf("%s %s: no pair h/d", file, fn)
			}
		}
	}
}
