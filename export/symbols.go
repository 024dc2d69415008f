package export

import (
	"github.com/echo-uma/echo/symbols"
	"github.com/echo-uma/echo/trace"
)

// names says what the code at a call site or a launched kernel is, for the slices'
// arguments. The resolver reads each module file once; names keeps its answers by process
// and address, so that a trace of millions of calls from a handful of sites costs one
// integer-keyed lookup per call, not a resolver lookup keyed by module path.
type names struct {
	resolver *symbols.Resolver
	known    map[codeKey]string
}

type codeKey struct {
	pid   uint32
	addr  uint64
	entry bool // a function's entry (a kernel), not a return address
}

func newNames() *names {
	return &names{resolver: symbols.NewResolver(), known: map[codeKey]string{}}
}

// call is the calling code of a call that returns to addr in process pid, whose site is s:
// "main (stream.cu:60)", or "" when the module cannot be named.
func (n *names) call(pid uint32, addr uint64, s trace.Site) string {
	return n.lookup(codeKey{pid, addr, false}, s)
}

// function is the name of the function that starts at addr, a launched kernel's.
func (n *names) function(pid uint32, addr uint64, s trace.Site) string {
	return n.lookup(codeKey{pid, addr, true}, s)
}

func (n *names) lookup(k codeKey, s trace.Site) string {
	if name, ok := n.known[k]; ok {
		return name
	}
	var name string
	m := symbols.Module{Path: s.Module, BuildID: s.BuildID, Size: s.ModuleSize}
	if k.entry {
		if sym, ok := n.resolver.At(m, s.Offset); ok {
			name = sym.Name()
		}
	} else if sym, ok := n.resolver.Return(m, s.Offset); ok {
		name = sym.String()
	}
	n.known[k] = name
	return name
}

// remapped forgets the answers by address when a module is mapped: an address may now be
// in another module.
func (n *names) remapped() { clear(n.known) }
