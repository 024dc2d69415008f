package runner

import (
	"debug/elf"
	"fmt"
	"runtime"
	"slices"
)

// shimMarker is the symbol only the preload library exports (shim/init.c).
const shimMarker = "echo_shim_marker"

// machines are the ELF machines of the architectures echoctl is built for.
var machines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// CheckShim tells whether the file at path is a preload library this machine's dynamic
// loader would load as Echo's: a 64-bit shared object for this architecture that exports
// the shim's marker. A missing, truncated or foreign file would otherwise be preloaded, and
// the loader would skip it with one line on stderr and the program run without Echo.
func CheckShim(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not a preload library: %w", path, err)
	}
	defer f.Close()
	if want, ok := machines[runtime.GOARCH]; ok && f.Machine != want || f.Class != elf.ELFCLASS64 {
		return fmt.Errorf("%s is built for %v (%v), not this machine's %s", path, f.Machine, f.Class, runtime.GOARCH)
	}
	if f.Type != elf.ET_DYN {
		return fmt.Errorf("%s is not a shared library (ELF type %v)", path, f.Type)
	}
	syms, err := f.DynamicSymbols()
	if err != nil || !slices.ContainsFunc(syms, func(s elf.Symbol) bool {
		return s.Name == shimMarker && s.Section != elf.SHN_UNDEF
	}) {
		return fmt.Errorf("%s is a shared library but not Echo's preload library (it does not define %s)", path, shimMarker)
	}
	return nil
}
