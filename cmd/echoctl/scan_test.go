package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/echo-uma/echo/internal/testenv"
	"github.com/echo-uma/echo/sourcereport"
)

// The survey through the built echoctl: testdata/source/scan is a small tree with a safe
// file, its unsafe twin, a file clang cannot parse, a file without the pattern, a file that
// parses only with its compile command's -D, and vendored code; the test adds a build tree
// and a .git directory holding files that would be unparsable if the walk went in.

// scanTree copies testdata/source/scan into a temporary directory and adds the directories
// the walk must skip.
func scanTree(t *testing.T) string {
	t.Helper()
	testenv.NeedClang(t)
	src := filepath.Join(testenv.Root(t), "testdata", "source", "scan")
	dir := t.TempDir()
	copyTree(t, src, dir)
	for _, skipped := range []string{"build/generated.cu", ".git/objects.c", "cmake-build-debug/x.cpp"} {
		p := filepath.Join(dir, skipped)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("this is not C\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fields splits a table row at its column gaps (two spaces or more).
func fields(row string) []string {
	return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(row), -1)
}

// The table: one row per file with where its flags came from, how it parsed, what a grep
// says and its counts, clang's first error for the unparsable one, each declined pair with its
// condition and line, the totals and the prevalence line.
func TestScanTable(t *testing.T) {
	dir := scanTree(t)
	res := testenv.EchoctlOK(t, nil, "scan", dir)
	rows := map[string][]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if f := fields(l); len(f) >= 5 {
			rows[f[0]] = f
		}
	}
	want := map[string]string{ // FILE: FLAGS PARSE GREP COPIES PAIRS PROVEN REFUSED UNDECIDABLE [NOTE]
		"safe.cu":        "compile command|ok|match|2|2|2|-|-",
		"sub/flagged.cu": "compile command|ok|match|2|1|1|-|-",
		"unsafe.cu":      "defaults|ok|match|2|2|1|1 (S1 1)|-",
		"plain.c":        "defaults|not CUDA|-|-|-|-|-|-|no CUDA in it: not parsed",
		"bad.cu":         "defaults|unparsable|-|-|-|-|-|-|bad.cu:3:10: fatal error: '/nonexistent/echo-scan-missing.h' file not found",
		"kernel_part.cu": "defaults|in includer.cu|match|2|2|2|-|-",
		"includer.cu":    "defaults|ok|-|0|0|0|-|-",
		"kernels.cu":     "defaults|no copy|-|-|-|-|-|-|no cudaMemcpy written in it or the tree's headers it includes: not parsed",
		"d2d.cu":         "defaults|ok|match|1|0|0|-|-|no copy links a pair: a DeviceToDevice copy, not host to device or back",
		"thirdparty.cu": "defaults|ok, 2 errors|match|4|3|2|-|1 (parse error 1)|missing headers stood in for: NvInferStandIn.h; " +
			"first error: thirdparty.cu:24:2: error: use of undeclared identifier 'standin'",
	}
	for file, w := range want {
		if got := strings.Join(rows[file][1:], "|"); got != w {
			t.Errorf("%s: %q, want %q\n%s", file, got, w, res.Stdout)
		}
	}
	for file := range rows {
		if strings.Contains(file, "vendored") || strings.Contains(file, "generated") || strings.Contains(file, "objects") {
			t.Errorf("%s was scanned: the walk goes past third_party, build and .git", file)
		}
	}
	line := lineText(must(os.ReadFile(filepath.Join(dir, "unsafe.cu"))), 29)
	if !strings.Contains(line, "h_in[0] = (float)it") {
		t.Fatalf("unsafe.cu line 29 is %q: the fixture moved", line)
	}
	declined := rows["unsafe.cu:29"]
	if len(declined) < 5 || declined[2] != "h_in/d_in" || declined[3] != "S1 refused" || !strings.Contains(declined[4], "kernel at line 28") {
		t.Errorf("unsafe.cu's declined pair: %q\n%s", declined, res.Stdout)
	}
	if d := rows["thirdparty.cu:24"]; len(d) < 5 || d[1] != "infer" || d[3] != "S1 undecidable" || !strings.Contains(d[4], "'standin'") {
		t.Errorf("thirdparty.cu's declined pair: %q\n%s", d, res.Stdout)
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	total := "10 files scanned, 5 with the pattern, 1 unparsable, 8 with no compile command (defaults); 10 pairs: 8 proven, 2 declined (S1 2, S2 0, S3 0, S4 0)"
	if lines[len(lines)-2] != total {
		t.Errorf("totals: %q, want %q", lines[len(lines)-2], total)
	}
	prevalence := dir + ": the pattern in 2 of 2 directories with CUDA files and 6 of 9 CUDA files by grep; in 2 directories and 5 files by scan " +
		"(1 files the grep matches have no pair, each explained above); 1 CUDA files not parsed, no cudaMemcpy written in them or their headers; " +
		"of the other 8, 7 parsed (88%, 1 with errors clang recovered from), 13 copies, 10 pairs, 8 proven, 1 refused, 1 undecidable"
	if lines[len(lines)-1] != prevalence {
		t.Errorf("prevalence: %q, want %q", lines[len(lines)-1], prevalence)
	}
	if !strings.Contains(res.Stderr, "scan: file 10 of 10: ") {
		t.Errorf("no progress on stderr: %q", res.Stderr)
	}
}

// --parse-all parses the file that cannot hold a copy too, and finds none in it: every other
// row and count is the default scan's.
func TestScanParseAll(t *testing.T) {
	dir := scanTree(t)
	def := testenv.EchoctlOK(t, nil, "scan", dir).Stdout
	all := testenv.EchoctlOK(t, nil, "scan", "--parse-all", dir).Stdout
	row := func(out, file string) string {
		for _, l := range strings.Split(out, "\n") {
			if f := fields(l); len(f) >= 5 && f[0] == file {
				return strings.Join(f[1:], "|")
			}
		}
		return ""
	}
	if got := row(all, "kernels.cu"); got != "defaults|ok|-|0|0|0|-|-" {
		t.Errorf("kernels.cu under --parse-all: %q, want parsed with no copy\n%s", got, all)
	}
	for _, file := range []string{"safe.cu", "unsafe.cu", "bad.cu", "includer.cu", "kernel_part.cu", "thirdparty.cu", "sub/flagged.cu"} {
		if a, b := row(def, file), row(all, file); a != b || a == "" {
			t.Errorf("%s: %q by default, %q under --parse-all", file, a, b)
		}
	}
	if !strings.Contains(all, "8 of 9 CUDA files parsed (89%, 1 with errors clang recovered from), 13 copies, 10 pairs") {
		t.Errorf("--parse-all's prevalence line:\n%s", all)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// --json is one echo.scan/1 document with the same counts, each declined pair's condition,
// and the directories walked past.
func TestScanJSON(t *testing.T) {
	dir := scanTree(t)
	res := testenv.EchoctlOK(t, nil, "--json", "scan", dir)
	var doc sourcereport.ScanDoc
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, res.Stdout)
	}
	if doc.Schema != "echo.scan/1" || doc.CompileDB != filepath.Join(dir, "compile_commands.json") {
		t.Errorf("schema %q, compile_commands %q", doc.Schema, doc.CompileDB)
	}
	tot := doc.Totals
	if tot.Files != 10 || tot.WithPattern != 5 || tot.Unparsable != 1 || tot.Defaults != 8 || tot.Pairs != 10 || tot.Proven != 8 || tot.Declined != 2 || tot.ByCondition["S1"] != 2 {
		t.Errorf("totals: %+v", tot)
	}
	pr := doc.Prevalence
	if pr.CUDAFiles != 9 || pr.NotCUDA != 1 || pr.NoCopy != 1 || pr.Parsed != 7 || pr.WithErrors != 1 || pr.FilesGrep != 6 || pr.FilesScan != 5 ||
		pr.GrepNoPair != 1 || pr.Dirs != 2 || pr.DirsGrep != 2 || pr.DirsScan != 2 || pr.Copies != 13 ||
		pr.Refused != 1 || pr.RefusedBy["S1"] != 1 || pr.Undecidable != 1 || pr.UndecidableBy["parse error"] != 1 {
		t.Errorf("prevalence: %+v", pr)
	}
	for _, skipped := range []string{".git", "build", "cmake-build-debug", "third_party"} {
		if !strings.Contains(strings.Join(doc.Skipped, " "), skipped) {
			t.Errorf("skipped_dirs %v lacks %s", doc.Skipped, skipped)
		}
	}
	for _, f := range doc.Files {
		switch f.Path {
		case "bad.cu":
			if f.Unparsable == "" || f.Pattern || len(f.Pairs) != 0 {
				t.Errorf("bad.cu: %+v", f)
			}
		case "plain.c":
			if f.Pattern || f.Flags != "defaults" || !f.NotCUDA {
				t.Errorf("plain.c: %+v", f)
			}
		case "kernels.cu":
			if f.Pattern || !f.NoCopy || f.NotCUDA || f.Copies != 0 {
				t.Errorf("kernels.cu: %+v", f)
			}
		case "kernel_part.cu":
			if f.IncludedBy != "includer.cu" || len(f.Pairs) != 2 {
				t.Errorf("kernel_part.cu: %+v", f)
			}
		case "d2d.cu":
			if !f.Grep || f.Pattern || len(f.Unpaired) != 1 || f.Unpaired[0].Line != 13 || !strings.Contains(f.Differs, "DeviceToDevice") {
				t.Errorf("d2d.cu: %+v", f)
			}
		case "thirdparty.cu":
			if f.Errors != 2 || len(f.Stubbed) != 1 || f.Stubbed[0] != "NvInferStandIn.h" || f.Undecidable["parse error"] != 1 {
				t.Errorf("thirdparty.cu: %+v", f)
			}
		case "sub/flagged.cu":
			if f.Flags != "compile command" || len(f.Pairs) != 1 || !f.Pairs[0].Proven {
				t.Errorf("sub/flagged.cu: %+v", f)
			}
		case "unsafe.cu":
			for _, p := range f.Pairs {
				d := p.Declined
				switch p.Host {
				case "h_in":
					if p.Proven || d == nil || d.Condition != "S1" || d.Status != "refused" || d.Line != 29 || p.Verdicts["S1"].Holds {
						t.Errorf("unsafe.cu h_in: %+v %+v", p, d)
					}
				case "h_out":
					if !p.Proven || d != nil {
						t.Errorf("unsafe.cu h_out: %+v", p)
					}
				}
			}
		}
	}
}

// A directory that is not there, a file where a directory belongs, and a compile database
// that cannot be read each give one line and exit 1, with nothing on standard output.
func TestScanBadInput(t *testing.T) {
	dir := scanTree(t)
	bogus := filepath.Join(dir, "bogus.json")
	os.WriteFile(bogus, []byte("{not json"), 0o644)
	cases := map[string][]string{
		"no such directory": {"scan", filepath.Join(dir, "missing")},
		"not a directory":   {"scan", filepath.Join(dir, "safe.cu")},
		"compile commands":  {"scan", "--compile-commands", bogus, dir},
		"one directory":     {"scan", dir, dir},
	}
	for want, args := range cases {
		res := testenv.Echoctl(t, nil, args...)
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.ExitCode != 1 || res.Stdout != "" || len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q", args, res.ExitCode, res.Stdout, res.Stderr, want)
		}
	}
}

// lineWith is the number of the first line of file that contains text.
func lineWith(t *testing.T, file, text string) int {
	t.Helper()
	for i, l := range strings.Split(string(must(os.ReadFile(file))), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return 0
}

// Programs nobody here wrote (testdata/source/foreign: Rodinia and cuda-samples in style):
// what the scan proves and declines there, and why. These pin the front end's reach on
// ordinary code, the declines included: a kernel parameter that is not const may write
// (kernel bodies are not read), a size with sizeof written inline is not provably the
// allocation's, per-stream chunks are not full-buffer, and cudaMemset is a function without
// a body. A change that proves more here should update this table, on purpose.
func TestScanForeign(t *testing.T) {
	testenv.NeedClang(t)
	dir := filepath.Join(testenv.Root(t), "testdata", "source", "foreign")
	res := testenv.EchoctlOK(t, nil, "--json", "scan", dir)
	var doc sourcereport.ScanDoc
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		cond, status string // the declining condition; "" for a proven pair
		line         string // text on the line that decides it
		why          string // in the reason
	}
	want := map[string]verdict{
		"samples_vector_add.cu h_A/d_A": {},
		"samples_vector_add.cu h_B/d_B": {},
		"samples_vector_add.cu h_C/d_C": {},
		// The kernels read weights and reference through parameters that are not const, and
		// the sizes are written `n * sizeof(float)` at one side and through a named size at
		// the other: the kernel bodies and the size expressions prove them.
		"rodinia_backprop.cu weights/d_weights":     {},
		"rodinia_backprop.cu partial_sum/d_partial": {},
		"rodinia_backprop.cu prev_weights/d_prev":   {},
		"rodinia_nw.cu reference/reference_cuda":    {},
		// Host arrays kept in a struct's fields: declined by that construct, named.
		"rodinia_backprop.cu net.input_units/d_input":  {"S1", "undecidable", "cudaMemcpy(d_input, net.input_units", "the host side net.input_units is a struct field"},
		"rodinia_backprop.cu net.hidden_delta/d_delta": {"S1", "undecidable", "cudaMemcpy(d_delta, net.hidden_delta", "the host side net.hidden_delta is a struct field"},
		// The matrix goes in from one host array and comes back into another.
		"rodinia_nw.cu input_itemsets/matrix_cuda":  {"S1", "undecidable", "cudaMemcpy(output_itemsets, matrix_cuda", "the device side is copied to or from another buffer"},
		"rodinia_nw.cu output_itemsets/matrix_cuda": {"S1", "undecidable", "cudaMemcpy(matrix_cuda, input_itemsets", "the device side is copied to or from another buffer"},
		// cudaMemset fills the device side with 255s before the copy of the host's zeros:
		// merged, the fill would overwrite the host's data.
		"samples_async_streams.cu a/d_a": {"S1", "refused", "cudaMemcpyAsync(d_a, a, nbytes, cudaMemcpyHostToDevice, 0)", "the H2D copy overwrites what the GPU wrote"},
	}
	got := map[string]bool{}
	for _, f := range doc.Files {
		for _, p := range f.Pairs {
			key := f.Path + " " + p.Host + "/" + p.Device
			got[key] = true
			w, ok := want[key]
			if !ok {
				t.Errorf("%s: a pair the table does not expect (proven %v)", key, p.Proven)
				continue
			}
			if w.cond == "" {
				if !p.Proven {
					t.Errorf("%s: declined %+v, want proven", key, p.Declined)
				}
				continue
			}
			d := p.Declined
			if p.Proven || d == nil {
				t.Errorf("%s: proven, want declined by %s %s", key, w.cond, w.status)
				continue
			}
			if line := lineWith(t, filepath.Join(dir, f.Path), w.line); d.Condition != w.cond || d.Status != w.status || d.Line != line || !strings.Contains(d.Why, w.why) {
				t.Errorf("%s: declined by %s %s at line %d (%s), want %s %s at line %d (%q)", key, d.Condition, d.Status, d.Line, d.Why, w.cond, w.status, line, w.why)
			}
		}
	}
	for key := range want {
		if !got[key] {
			t.Errorf("%s: not found", key)
		}
	}
	// The async sample's other conditions: its chunks are not whole-buffer copies, stream
	// ordering is not followed, and cudaMemset is understood (not a call into an unknown body).
	for _, f := range doc.Files {
		for _, p := range f.Pairs {
			if f.Path == "samples_async_streams.cu" {
				if s2, s3 := p.Verdicts["S2"], p.Verdicts["S3"]; s2.Status != "undecidable" || !strings.Contains(s2.Why, "asynchronous") || strings.Contains(s3.Why, "cudaMemset") {
					t.Errorf("async sample: S2 %+v, S3 %+v", s2, s3)
				}
			}
		}
	}
	if doc.Totals.Files != 4 || doc.Totals.WithPattern != 4 || doc.Totals.Unparsable != 0 {
		t.Errorf("totals: %+v", doc.Totals)
	}
}

// The proven samples rewritten in place still parse, and a second scan finds no pair left
// but those declined (nw's score matrix, backprop's struct fields): every linking copy of a proven pair is gone.
func TestScanForeignRewritten(t *testing.T) {
	testenv.NeedClang(t)
	dir := t.TempDir()
	for _, name := range []string{"samples_vector_add.cu", "rodinia_backprop.cu", "rodinia_nw.cu"} {
		src := filepath.Join(testenv.Root(t), "testdata", "source", "foreign", name)
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, must(os.ReadFile(src)), 0o644); err != nil {
			t.Fatal(err)
		}
		if res := testenv.Echoctl(t, nil, "rewrite", "--strategy", "mapped", "-w", file); res.ExitCode != 0 {
			t.Fatalf("rewrite -w %s: exit %d: %s", name, res.ExitCode, res.Stderr)
		}
	}
	after := string(must(os.ReadFile(filepath.Join(dir, "samples_vector_add.cu"))))
	if strings.Contains(after, "cudaMemcpy(") || strings.Contains(after, "cudaMalloc(") {
		t.Errorf("copies or device allocations left:\n%s", after)
	}
	res := testenv.Echoctl(t, nil, "--json", "scan", dir)
	var doc sourcereport.ScanDoc
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || res.ExitCode != 0 {
		t.Fatalf("scan after the rewrite: exit %d, %v: %s", res.ExitCode, err, res.Stderr)
	}
	// Left: nw's score matrix (two pairs) and backprop's two struct-field pairs, all declined.
	if tot := doc.Totals; tot.Files != 3 || tot.Unparsable != 0 || tot.Pairs != 4 || tot.Proven != 0 {
		t.Errorf("after the rewrite: %+v (%+v)", tot, doc.Files)
	}
}
