package parse

import (
	"sort"
	"strings"
)

// The stand-ins of a batch. Files whose command lines differ only in which headers they need
// stand-ins for share one directory of stand-ins for all of them, and so one clang process:
// cuda-samples' files each miss a different windowing or graphics library (GL/freeglut.h,
// vulkan/vulkan.h, d3d11.h), and with a directory per set of names 53 of its 309 files were
// each parsed in a clang process of their own (issue 40). A stand-in a file does not include
// changes nothing in its parse: it stands for a header no include directory has, and is
// searched last. What it would change is the answer to __has_include, so a file that asks
// (probed) keeps a directory of its own stand-ins only. The names a directory holds are those
// of every file with the same command line noted before it is made: a survey notes its every
// file (BatchKey) before it parses any, so which stand-ins a file's parse sees depends on the
// tree, never on the order files are parsed in or how they are shared among workers.

// stubsSlot stands for the stand-ins' directory in a command line before it is chosen; ""
// when the file needs none.
func stubsSlot(st *stubDir) string {
	if len(st.names) == 0 {
		return ""
	}
	return "\x00stubs"
}

// noteStubs adds the stand-ins f needs to those of its command line.
func (s *Session) noteStubs(f *batchFile) {
	if len(f.p.stubs.names) == 0 || f.p.stubs.probed {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stubUnions == nil {
		s.stubUnions = map[string]map[string]bool{}
	}
	u := s.stubUnions[f.flags]
	if u == nil {
		u = map[string]bool{}
		s.stubUnions[f.flags] = u
	}
	for _, n := range f.p.stubs.names {
		u[n] = true
	}
}

// placeStubs gives f its stand-ins' directory: its command line's, else (a file that probes,
// names that cannot share one directory) one of its own names; false when none can be made.
func (s *Session) placeStubs(f *batchFile) bool {
	own := f.p.stubs.names
	if len(own) == 0 {
		f.key = f.flags
		return true
	}
	dir := ""
	if !f.p.stubs.probed {
		s.mu.Lock()
		var all []string
		for n := range s.stubUnions[f.flags] {
			all = append(all, n)
		}
		s.mu.Unlock()
		dir = s.sharedStubs(all)
	}
	if dir == "" {
		dir = s.sharedStubs(own)
	}
	if dir == "" {
		return false
	}
	f.key = f.line(s, dir)
	return true
}

// sharedStubs is a directory of stand-ins for names, the same for every file given these
// names; "" when it cannot be made (or names is empty).
func (s *Session) sharedStubs(names []string) string {
	if len(names) == 0 {
		return ""
	}
	sorted := append([]string{}, names...)
	sort.Strings(sorted)
	key := strings.Join(sorted, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.stubSets[key]; ok {
		return d
	}
	if s.stubSets == nil {
		s.stubSets = map[string]string{}
	}
	st := &stubDir{}
	for _, n := range sorted {
		if !st.add(n) {
			s.stubSets[key] = ""
			return ""
		}
	}
	d, err := st.path(s.dir)
	if err != nil {
		st.remove()
		d = ""
	}
	s.stubSets[key] = d
	return d
}
