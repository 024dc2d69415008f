package runner

import "testing"

// The reports of a forked program add up: the child's merges count, the started process's
// report leads, and a garbled document is an error.
func TestReadReports(t *testing.T) {
	data := []byte(`{"pid":11,"mode":"deploy","active":true,"gpu":"emu","merged":2,"copies_elided":16,"pairs":[{"id":"p1","merged":true,"elided":8},{"id":"p2","merged":true,"elided":8}]}
{"pid":10,"mode":"deploy","active":true,"reason":"","wall_ns":5,"merged":0,"pairs":[{"id":"p1","note":"no allocation at the site"},{"id":"p2"}]}
`)
	r, procs, err := readReports(data, 10)
	if err != nil || len(procs) != 2 {
		t.Fatalf("readReports: %v, %d processes", err, len(procs))
	}
	if r.PID != 10 || r.WallNS != 5 || r.Served != 2 || r.CopiesElided != 16 || r.GPU != "emu" || len(r.Pairs) != 2 ||
		!r.Pairs[0].Served || r.Pairs[0].Elided != 8 || r.Pairs[0].Note != "" {
		t.Errorf("combined: %+v", r)
	}
	if _, _, err := readReports([]byte(`{"pid":1}{"pid":`), 1); err == nil {
		t.Error("a cut document read as whole")
	}
	if _, _, err := readReports(nil, 1); err == nil {
		t.Error("no report read as one")
	}
}
