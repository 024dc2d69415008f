// Package symbols names the code at a call site for people: the function a return address
// lies in and, where the module carries DWARF, the source file and line of the call. Sites
// stay module+offset everywhere they are identities (traces, plans, the shim); this package
// only adds words beside them, using the standard library's ELF and DWARF readers. A module
// whose file on disk is not the one traced (another build-id, or size when it has none), or
// that has no symbols, is named by nothing, and its sites keep module+offset.
package symbols

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/ianlancetaylor/demangle"
)

// Module is a traced module as a trace or a plan records it: what is opened, and what the
// file opened must still be.
type Module struct {
	Path    string // as mapped in the traced process
	BuildID string // hex GNU build-id; "" when the traced file had none
	Size    int64  // the traced file's size; 0 when not recorded
}

// Symbol is what a site's code is, as far as the module says.
type Symbol struct {
	Function string `json:"function,omitempty"` // the symbol as the module has it: mangled where C++ or Rust mangled it
	File     string `json:"file,omitempty"`     // source file, as the DWARF line table names it
	Line     int    `json:"line,omitempty"`
}

// Name is the function as a person reads it: demangled where the module names it in C++'s
// (Itanium) or Rust's mangling, "ns::Loader::copy(float*, unsigned long)" for
// "_ZN2ns6Loader4copyEPfm", as c++filt prints it; a C name, or one that does not
// demangle, as it is. Views show Name; JSON keeps Function, the name nm and the plan's
// tools match.
func (s Symbol) Name() string { return demangle.Filter(s.Function) }

// String is the symbol as a person reads it beside a site: "main (stream.cu:60)", "foo_bar"
// without line information, "" when nothing is known; the function demangled (Name).
func (s Symbol) String() string {
	switch {
	case s.Function == "":
		return ""
	case s.File == "" || s.Line == 0:
		return s.Name()
	}
	return fmt.Sprintf("%s (%s:%d)", s.Name(), filepath.Base(s.File), s.Line)
}

// Label is a site's name with its symbol after it, "stream+0x1746 main (stream.cu:60)", or
// the site's name alone when its symbol is unknown.
func Label(site string, s Symbol) string {
	if name := s.String(); name != "" {
		return site + " " + name
	}
	return site
}

// Resolver names sites, opening each module file once and keeping what it read. The zero
// value is not ready; use NewResolver. It is safe for concurrent use.
type Resolver struct {
	mu      sync.Mutex
	modules map[Module]*image // nil: the module cannot be named
	sites   map[siteKey]Symbol
}

type siteKey struct {
	module Module
	offset uint64
	code   bool // offset is of the code itself (At), not a return address (Return)
}

// NewResolver returns a resolver with nothing read yet.
func NewResolver() *Resolver {
	return &Resolver{modules: map[Module]*image{}, sites: map[siteKey]Symbol{}}
}

// Return names the call whose return address is offset bytes past the address of m's file
// offset 0 (trace.Site's Offset). ok is false when m cannot be named (missing, rebuilt,
// stripped) or no function holds the call.
func (r *Resolver) Return(m Module, offset uint64) (Symbol, bool) {
	// A return address points after the call; the call's last byte is what it names.
	return r.lookup(siteKey{m, offset, false}, offset-1)
}

// At names the code at offset itself, as Return does a call: a function's entry, such as
// a launched kernel's.
func (r *Resolver) At(m Module, offset uint64) (Symbol, bool) {
	return r.lookup(siteKey{m, offset, true}, offset)
}

func (r *Resolver) lookup(key siteKey, offset uint64) (Symbol, bool) {
	if key.module.Path == "" {
		return Symbol{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, seen := r.sites[key]; seen {
		return s, s.Function != ""
	}
	img, seen := r.modules[key.module]
	if !seen {
		// A module that cannot be named is no error: its sites keep module+offset, and
		// echoctl -vv says why.
		var err error
		if img, err = openImage(key.module); err != nil {
			slog.Debug("sites keep module+offset", "module", key.module.Path, "why", err)
		}
		r.modules[key.module] = img
	}
	var s Symbol
	if img != nil {
		s = img.lookup(offset)
	}
	r.sites[key] = s
	return s, s.Function != ""
}
