package symbols

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/echo-uma/echo/trace"
)

// image is what a module file says about its code: where its file offsets sit in its ELF
// virtual addresses, its functions, and its line table when it has one.
type image struct {
	shift uint64      // virtual address minus site offset
	text  [][2]uint64 // executable PT_LOAD segments: [start, end) virtual addresses
	funcs []function  // sorted by start
	lines *lines      // nil without DWARF
}

type function struct {
	start, end uint64 // [start, end); end == start for a symbol without a size
	name       string
	global     bool
}

// errRebuilt says the file at a module's path is not the file that was traced.
var errRebuilt = errors.New("the file is not the one traced")

// openImage reads m's file, once. It refuses a file whose build-id (or, without one, size)
// differs from the traced one: names read from a rebuilt file would be wrong ones. A module
// without a symbol table gives nil.
func openImage(m Module) (*image, error) {
	f, err := elf.Open(m.Path)
	if err != nil {
		return nil, err // "open PATH: …", or elf's "bad magic number …"
	}
	defer f.Close()
	id, err := trace.BuildID(f)
	if err != nil {
		return nil, fmt.Errorf("reading the build-id of %s: %w", m.Path, err)
	}
	if id != m.BuildID {
		return nil, fmt.Errorf("%s has build-id %q, traced %q: %w", m.Path, id, m.BuildID, errRebuilt)
	}
	if m.BuildID == "" && m.Size != 0 {
		st, err := os.Stat(m.Path)
		if err != nil {
			return nil, fmt.Errorf("checking the size of %s: %w", m.Path, err)
		}
		if st.Size() != m.Size {
			return nil, fmt.Errorf("%s has %d bytes, traced %d: %w", m.Path, st.Size(), m.Size, errRebuilt)
		}
	}
	img := &image{}
	if err := img.readSegments(f); err != nil {
		return nil, fmt.Errorf("reading the segments of %s: %w", m.Path, err)
	}
	img.funcs = readFunctions(f)
	if len(img.funcs) == 0 {
		return nil, fmt.Errorf("%s has no function symbols", m.Path)
	}
	// Without DWARF, or with DWARF the reader refuses, the functions still have names.
	if d, err := f.DWARF(); err == nil {
		img.lines = newLines(d)
	}
	return img, nil
}

// readSegments works out how a site offset becomes a virtual address. The tracer's offset
// counts from where the segment with the lowest file offset is mapped, less that file
// offset (tracer/modules.go, shim/site.c); every PT_LOAD keeps p_vaddr - p_offset the same
// modulo the load bias, so the address is offset + (p_vaddr - p_offset) of that segment:
// 0 for a PIE or a library linked at 0, 0x400000 for a classic non-PIE executable.
func (img *image) readSegments(f *elf.File) error {
	var first *elf.Prog
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if first == nil || p.Off < first.Off {
			first = p
		}
		if p.Flags&elf.PF_X != 0 {
			img.text = append(img.text, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
		}
	}
	if first == nil {
		return errors.New("no loadable segment")
	}
	img.shift = first.Vaddr - first.Off
	return nil
}

// readFunctions is the module's functions from .symtab, or from .dynsym where the file was
// stripped of .symtab (a library's exported functions still name what they hold).
func readFunctions(f *elf.File) []function {
	syms, err := f.Symbols()
	if err != nil || !hasFunctions(syms) {
		syms, _ = f.DynamicSymbols()
	}
	var funcs []function
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if (typ != elf.STT_FUNC && typ != elf.STT_GNU_IFUNC) || s.Value == 0 || s.Section == elf.SHN_UNDEF {
			continue
		}
		funcs = append(funcs, function{start: s.Value, end: s.Value + s.Size, name: s.Name,
			global: elf.ST_BIND(s.Info) != elf.STB_LOCAL})
	}
	// Aliases share a start (malloc and __libc_malloc): the global one, then the shortest
	// name, first, so that lookups pick the same one every time.
	slices.SortFunc(funcs, func(a, b function) int {
		switch {
		case a.start != b.start:
			return cmp.Compare(a.start, b.start)
		case a.global != b.global:
			if a.global {
				return -1
			}
			return 1
		case len(a.name) != len(b.name):
			return len(a.name) - len(b.name)
		}
		return strings.Compare(a.name, b.name)
	})
	return funcs
}

func hasFunctions(syms []elf.Symbol) bool {
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			return true
		}
	}
	return false
}

// lookup names the code at a site offset.
func (img *image) lookup(offset uint64) Symbol {
	addr := offset + img.shift
	if !img.inText(addr) {
		return Symbol{}
	}
	fn, ok := img.function(addr)
	if !ok {
		return Symbol{}
	}
	s := Symbol{Function: fn}
	if img.lines != nil {
		s.File, s.Line = img.lines.at(addr)
	}
	return s
}

func (img *image) inText(addr uint64) bool {
	for _, t := range img.text {
		if addr >= t[0] && addr < t[1] {
			return true
		}
	}
	return false
}

// function is the name of the function holding addr: the one starting last at or before it
// whose size reaches it. A symbol without a size holds addr only when it is the nearest.
func (img *image) function(addr uint64) (string, bool) {
	i := sort.Search(len(img.funcs), func(i int) bool { return img.funcs[i].start > addr })
	if i == 0 {
		return "", false
	}
	nearest := img.funcs[i-1].start
	// Walk back over the functions that start at or before addr: a nested or overlapping
	// symbol may start later than the one that holds it. A few are enough; a miss after
	// that is an address between functions.
	holds := func(fn function) bool { return addr < fn.end || (fn.end == fn.start && fn.start == nearest) }
	for j := i - 1; j >= max(0, i-16); j-- {
		if !holds(img.funcs[j]) {
			continue
		}
		// Of aliases that hold addr, the first in sort order is the preferred one.
		for j > 0 && img.funcs[j-1].start == img.funcs[j].start && holds(img.funcs[j-1]) {
			j--
		}
		return img.funcs[j].name, true
	}
	return "", false
}
