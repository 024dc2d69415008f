package plan

import (
	"fmt"
	"strings"
)

// Frame is one return address of an allocation's call chain: the module, named as the shim
// names it (a build-id, or size:N:NAME), and the offset in it.
type Frame struct {
	Module string `json:"module"`
	Offset uint64 `json:"offset"`
}

// Identity is who took a buffer's slot in a validate run, beyond its site: the call chain
// above the allocation (who called the helper that allocated, and who called that), its
// ordinal among the calls of its site and size from that chain, and how many such calls the
// run made. A plan that names a chain has the shim count only that chain's calls, so an
// option that allocates one more buffer through the same helper from elsewhere shifts
// nothing (DESIGN.md "Identity").
type Identity struct {
	Chain   []Frame `json:"chain"`
	Ordinal int     `json:"ordinal"`
	Calls   int     `json:"calls"`
}

// maxChain is how many frames the shim reads above an allocation (SHIM_CHAIN).
const maxChain = 2

// check says what is wrong with an identity read from a plan.
func (id *Identity) check() error {
	if len(id.Chain) == 0 || len(id.Chain) > maxChain {
		return fmt.Errorf("an identity names 1 to %d frames, not %d", maxChain, len(id.Chain))
	}
	if id.Calls < 1 || id.Ordinal < 0 || id.Ordinal >= id.Calls {
		return fmt.Errorf("an identity's ordinal %d is not among its %d calls", id.Ordinal, id.Calls)
	}
	for _, f := range id.Chain {
		if f.Module == "" || strings.ContainsAny(f.Module, " \t\n") {
			return fmt.Errorf("a frame's module %q is empty or has white space", f.Module)
		}
	}
	return nil
}

// Shared says, when the buffer's call chain also allocated others of its size in the run,
// that only their order tells them apart, "" when the chain alone names it. Such buffers
// are made in one loop for one role (a set per stream, a ring of frames); a merge binds one
// only where the plan's linking copy joins it to its device buffer (shim/bind.c).
func (b Buffer) Shared(side string) string {
	if b.Identity == nil || b.Identity.Calls <= 1 {
		return ""
	}
	return fmt.Sprintf("its %s buffer is one of %d allocations of %d bytes from one call chain, told apart by their order",
		side, b.Identity.Calls, b.Site.Bytes)
}

// shimSite is a side's line after its keyword, as the shim reads it (shim/plan.c): the site,
// and with an identity the ordinal among its chain's calls and the chain.
func shimSite(b Buffer) string {
	s := b.Site
	if b.Identity == nil {
		return fmt.Sprintf("%s %x %s %d %d", siteModule(s), s.Offset, shimCall(s.Call), s.Bytes, s.Ordinal)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "%s %x %s %d %d", siteModule(s), s.Offset, shimCall(s.Call), s.Bytes, b.Identity.Ordinal)
	for _, f := range b.Identity.Chain {
		fmt.Fprintf(&w, " %s:%x", f.Module, f.Offset)
	}
	return w.String()
}
