package symbols

import (
	"debug/dwarf"
	"path/filepath"
	"sort"
)

// lines finds the source line of an address through the DWARF line tables, one per
// compilation unit. The units' address ranges are indexed on first use; each lookup then
// scans one unit's line table, which is fast enough for the tens of sites a person reads.
type lines struct {
	d       *dwarf.Data
	indexed bool
	units   []unitRange // sorted by low
}

type unitRange struct {
	low, high uint64
	unit      *dwarf.Entry
}

func newLines(d *dwarf.Data) *lines { return &lines{d: d} }

// at is the file and line of the code at addr, or "", 0 when no line table covers it.
func (l *lines) at(addr uint64) (string, int) {
	if !l.indexed {
		l.index()
	}
	i := sort.Search(len(l.units), func(i int) bool { return l.units[i].low > addr })
	// Ranges may nest or overlap between units (rare); try those starting at or before addr.
	for j := i - 1; j >= 0; j-- {
		u := l.units[j]
		if addr >= u.high {
			continue
		}
		if file, line := l.inUnit(u.unit, addr); line != 0 {
			return file, line
		}
	}
	return "", 0
}

func (l *lines) index() {
	l.indexed = true
	r := l.d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			ranges, err := l.d.Ranges(e)
			if err == nil {
				for _, rg := range ranges {
					if rg[1] > rg[0] {
						l.units = append(l.units, unitRange{rg[0], rg[1], e})
					}
				}
			}
		}
		r.SkipChildren()
	}
	sort.Slice(l.units, func(i, j int) bool { return l.units[i].low < l.units[j].low })
}

// inUnit looks addr up in one unit's line table: the row at or before addr in the same
// sequence. Scanned rather than LineReader.SeekPC, which answers ErrUnknownPC for an
// address in any sequence after the first (gcc -O2 puts main in its own, .text.startup).
// Line 0 marks code the compiler made up (no source line), and counts as no answer.
func (l *lines) inUnit(unit *dwarf.Entry, addr uint64) (string, int) {
	lr, err := l.d.LineReader(unit)
	if err != nil || lr == nil {
		return "", 0
	}
	var prev, e dwarf.LineEntry
	havePrev := false
	for lr.Next(&e) == nil {
		if havePrev && prev.Address <= addr && addr < e.Address {
			if prev.File == nil || prev.Line == 0 {
				return "", 0
			}
			return inCompDir(unit, prev.File.Name), prev.Line
		}
		prev, havePrev = e, !e.EndSequence
	}
	return "", 0
}

// inCompDir makes a file name relative to where the unit was compiled whole: gcc's DWARF 5
// tables name a source by the path given to the compiler, and debug/dwarf leaves it so.
func inCompDir(unit *dwarf.Entry, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	if dir, ok := unit.Val(dwarf.AttrCompDir).(string); ok && dir != "" {
		return filepath.Join(dir, name)
	}
	return name
}
