package source

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZDebug(t *testing.T) {
	files := strings.Fields(os.Getenv("ZZ_FILES"))
	if len(files) == 0 {
		t.Skip()
	}
	s, err := newSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, f := range files {
		t0 := time.Now()
		tu, err := s.parse(context.Background(), Command{File: f})
		if err != nil {
			t.Logf("%s: %v (%v)", f, err, time.Since(t0))
			continue
		}
		t.Logf("%s: %d decls, %d errors, stubbed %v, %v", f, len(tu.Root.Inner), len(tu.Errors), tu.Stubbed, time.Since(t0))
		for _, e := range tu.Errors {
			t.Logf("  %s", e)
		}
		for _, p := range Prove(tu) {
			v, _ := Declined(p)
			t.Logf("  pair %s %s/%s: %s %s", p.Function, p.Host, p.Device, v.Status, v.Reason)
		}
		t.Logf("pchs: %+v", s.pchs)
	}
}
