package view

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		msgs []tea.Msg
	}{
		{"list_80x24", []tea.Msg{size(80, 24), RowsMsg(fixture())}},
		{"list_200x50", []tea.Msg{size(200, 50), RowsMsg(fixture())}},
		{"detail_80x24", append([]tea.Msg{size(80, 24), RowsMsg(fixture())}, keys("d")...)},
		{"detail_200x50", append([]tea.Msg{size(200, 50), RowsMsg(fixture())}, keys("j", "enter")...)},
		{"empty_80x24", []tea.Msg{size(80, 24), RowsMsg(nil)}},
		{"many_80x24", append([]tea.Msg{size(80, 24), RowsMsg(many(100))}, keys("j", "j", "?")...)},
		{"filter_80x24", append([]tea.Msg{size(80, 24), RowsMsg(fixture())}, keys("/", "r", "a")...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := feed(t, New(nil, 0, "echoctl attach"), tt.msgs...).plain()
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file (run with -update to create it): %v", err)
			}
			if got+"\n" != string(want) {
				t.Errorf("frame differs from %s (run with -update to accept):\n%s", path, got)
			}
		})
	}
}
