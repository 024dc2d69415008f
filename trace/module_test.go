package trace

import "testing"

func TestModulesResolve(t *testing.T) {
	exe := Module{Path: "/opt/app/stream", BuildID: "aa11", Start: 0x400000, End: 0x500000, Base: 0x400000, Size: 1 << 20}
	cudart := Module{Path: "/usr/lib/libcudart.so.12", BuildID: "bb22", Start: 0x7f0000, End: 0x7f8000, Base: 0x7e0000, Size: 1 << 16}
	libc := Module{Path: "/lib/libc.so.6", Start: 0x900000, End: 0x980000, Base: 0x900000, Size: 1 << 19}
	// dlopen'd over part of libc's old range and all of cudart's: both are gone
	plugin := Module{Path: "/opt/app/plugin.so", BuildID: "cc33", Start: 0x7f4000, End: 0x908000, Base: 0x7f4000}
	// dlopen'd into a gap: supersedes nothing
	late := Module{Path: "/opt/app/late.so", Start: 0x600000, End: 0x610000, Base: 0x5ff000}

	tests := []struct {
		name  string
		added []Module
		addr  uint64
		want  Site
		found bool
		str   string
	}{
		{"executable start", []Module{exe}, 0x400000, Site{"/opt/app/stream", "aa11", 0, 1 << 20}, true, "stream+0x0"},
		{"executable end is outside", []Module{exe}, 0x500000, Site{}, false, ""},
		{"offset from base not start", []Module{exe, cudart}, 0x7f1234, Site{"/usr/lib/libcudart.so.12", "bb22", 0x11234, 1 << 16}, true, "libcudart.so.12+0x11234"},
		{"below everything", []Module{exe, cudart}, 0x1000, Site{}, false, ""},
		{"in a gap", []Module{exe, cudart, libc}, 0x800000, Site{}, false, ""},
		{"order of Add does not matter", []Module{libc, cudart, exe}, 0x900010, Site{"/lib/libc.so.6", "", 0x10, 1 << 19}, true, "libc.so.6+0x10"},
		{"added module supersedes overlapped", []Module{exe, cudart, libc, plugin}, 0x7f1000, Site{}, false, ""},
		{"added module resolves", []Module{exe, cudart, libc, plugin}, 0x907fff, Site{"/opt/app/plugin.so", "cc33", 0x113fff, 0}, true, "plugin.so+0x113fff"},
		{"superseded module's tail is gone", []Module{exe, cudart, libc, plugin}, 0x970000, Site{}, false, ""},
		{"module added into a gap", []Module{exe, cudart, libc, late}, 0x600010, Site{"/opt/app/late.so", "", 0x1010, 0}, true, "late.so+0x1010"},
		{"gap module keeps neighbours", []Module{exe, cudart, libc, late}, 0x7f0000, Site{"/usr/lib/libcudart.so.12", "bb22", 0x10000, 1 << 16}, true, "libcudart.so.12+0x10000"},
		{"empty range ignored", []Module{exe, {Path: "empty", Start: 0x400000, End: 0x400000}}, 0x400010, Site{"/opt/app/stream", "aa11", 0x10, 1 << 20}, true, "stream+0x10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := NewModules(tt.added)
			got, found := ms.Resolve(0, tt.addr)
			if got != tt.want || found != tt.found {
				t.Fatalf("Resolve(%#x) = %+v, %v; want %+v, %v", tt.addr, got, found, tt.want, tt.found)
			}
			if found && got.String() != tt.str {
				t.Errorf("String() = %q, want %q", got.String(), tt.str)
			}
			list := ms.List() // all PID 0 here: one address space
			for i := 1; i < len(list); i++ {
				if list[i-1].End > list[i].Start {
					t.Errorf("modules out of order or overlapping: %+v", list)
				}
			}
		})
	}
}

func TestModulesZeroValue(t *testing.T) {
	var ms Modules
	if _, ok := ms.Resolve(0, 0x1000); ok {
		t.Error("empty table resolved an address")
	}
	ms.Add(Module{Path: "a", Start: 0x1000, End: 0x2000, Base: 0x1000})
	if s, ok := ms.Resolve(0, 0x1fff); !ok || s.String() != "a+0xfff" {
		t.Errorf("Resolve after Add = %v, %v", s, ok)
	}
}

func TestSiteStringUnresolved(t *testing.T) {
	if got := (Site{Offset: 0x7f00dead}).String(); got != "0x7f00dead" {
		t.Errorf("String() = %q", got)
	}
}

// Each process has its own address space: a child's exec does not supersede the parent's
// modules, and a process without modules of its own uses those recorded without a pid.
func TestModulesPerProcess(t *testing.T) {
	shell := Module{Path: "/bin/sh", Start: 0x400000, End: 0x500000, Base: 0x400000, PID: 10}
	child := Module{Path: "/opt/app/stream", Start: 0x400000, End: 0x480000, Base: 0x400000, PID: 11}
	shared := Module{Path: "/lib/libc.so.6", Start: 0x900000, End: 0x980000, Base: 0x900000}
	ms := NewModules([]Module{shell, child, shared})
	for _, c := range []struct {
		pid  int
		addr uint64
		want string
		ok   bool
	}{
		{10, 0x400010, "sh+0x10", true},
		{11, 0x400010, "stream+0x10", true},
		{10, 0x490000, "sh+0x90000", true},
		{11, 0x490000, "", false},
		{12, 0x900010, "libc.so.6+0x10", true},
		{11, 0x900010, "", false},
	} {
		site, ok := ms.Resolve(c.pid, c.addr)
		if ok != c.ok || (ok && site.String() != c.want) {
			t.Errorf("Resolve(%d, %#x) = %v, %v; want %s, %v", c.pid, c.addr, site, ok, c.want, c.ok)
		}
	}
	if n := len(ms.List()); n != 3 {
		t.Errorf("List has %d modules, want 3", n)
	}
}
