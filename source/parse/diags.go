package parse

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Diag is one error clang reported on a file it still built an AST for: where, what, and
// the locations of the notes that follow it (an error inside a template instantiation or a
// macro is reported where the template or macro is; its notes say where in the file it was
// used).
type Diag struct {
	File  string // absolute (-fdiagnostics-absolute-paths); "" for the driver's own errors
	Line  int
	Col   int
	Fatal bool // clang stopped parsing the file here
	Msg   string
	Notes []DiagLoc
}

// DiagLoc is where a note points.
type DiagLoc struct {
	File string
	Line int
}

// String is the error as clang printed it, "file:line:col: error: msg".
func (d Diag) String() string {
	sev := "error"
	if d.Fatal {
		sev = "fatal error"
	}
	if d.File == "" {
		return sev + ": " + d.Msg
	}
	return d.File + ":" + strconv.Itoa(d.Line) + ":" + strconv.Itoa(d.Col) + ": " + sev + ": " + d.Msg
}

// missingInclude is the header a "file not found" error names, or "".
func (d Diag) missingInclude() string {
	if !strings.HasSuffix(d.Msg, "' file not found") || !strings.HasPrefix(d.Msg, "'") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(d.Msg, "'"), "' file not found")
}

// parseDiags reads clang's diagnostics (-fno-caret-diagnostics, -fdiagnostics-absolute-paths):
// each error and fatal error with the notes after it. Warnings are off (-Wno-everything).
func parseDiags(stderr []byte) []Diag {
	var out []Diag
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(make([]byte, 0, 4096), len(stderr)+1)
	for sc.Scan() {
		line := sc.Text()
		file, ln, col, sev, msg, ok := splitDiag(line)
		if !ok {
			continue
		}
		switch sev {
		case "error", "fatal error":
			out = append(out, Diag{File: file, Line: ln, Col: col, Fatal: sev == "fatal error", Msg: msg})
		case "note":
			if len(out) > 0 && file != "" {
				d := &out[len(out)-1]
				d.Notes = append(d.Notes, DiagLoc{File: file, Line: ln})
			}
		}
	}
	return out
}

// splitDiag splits "file:line:col: severity: message"; the driver's "clang: error: …" and a
// bare "fatal error: …" have no location.
func splitDiag(line string) (file string, ln, col int, sev, msg string, ok bool) {
	for _, s := range []string{"fatal error", "error", "note", "warning"} {
		i := strings.Index(line, s+": ")
		if i < 0 || (i > 0 && line[i-1] != ' ') {
			continue
		}
		sev, msg = s, line[i+len(s)+2:]
		loc := strings.TrimSuffix(strings.TrimSpace(line[:i]), ":")
		if loc == "" || loc == "clang" || strings.HasSuffix(loc, "/clang") {
			return "", 0, 0, sev, msg, true
		}
		// file:line:col, where the file may itself hold colons.
		c := strings.LastIndexByte(loc, ':')
		l := strings.LastIndexByte(loc[:max(c, 0)], ':')
		if c < 0 || l < 0 {
			return "", 0, 0, sev, msg, true
		}
		ln, err1 := strconv.Atoi(loc[l+1 : c])
		col, err2 := strconv.Atoi(loc[c+1:])
		if err1 != nil || err2 != nil {
			return "", 0, 0, sev, msg, true
		}
		return loc[:l], ln, col, sev, msg, true
	}
	return "", 0, 0, "", "", false
}

// firstError is clang's first error line ("file:line:col: error: …", "fatal error: …", or the
// driver's "clang: error: …"), trimmed; "" when there is none.
func firstError(stderr []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(make([]byte, 0, 4096), len(stderr)+1)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "error: ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
