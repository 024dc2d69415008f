package view

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/echo-uma/echo/live"
)

func pids(m Model) []int {
	var out []int
	for _, r := range m.visible() {
		out = append(out, r.PID)
	}
	return out
}

func start(t *testing.T, rows []live.Row, k ...string) Model {
	t.Helper()
	return feed(t, New(nil, 0, "t"), append([]tea.Msg{size(80, 24), RowsMsg(rows)}, keys(k...)...)...)
}

func TestSortCycles(t *testing.T) {
	tests := []struct {
		presses int
		key     string
		want    []int
	}{
		{0, "copy%", []int{4242, 51002, 48213, 977}},
		{1, "bytes/s", []int{4242, 51002, 48213, 977}},
		{2, "copies/s", []int{51002, 48213, 4242, 977}},
		{3, "launches/s", []int{51002, 48213, 4242, 977}},
		{4, "pairs", []int{4242, 51002, 977, 48213}},
		{5, "pid", []int{977, 4242, 48213, 51002}},
		{6, "copy%", []int{4242, 51002, 48213, 977}},
	}
	for _, tt := range tests {
		m := start(t, fixture(), slices.Repeat([]string{"s"}, tt.presses)...)
		if m.sort.String() != tt.key {
			t.Errorf("%d presses: sort %s, want %s", tt.presses, m.sort, tt.key)
		}
		if got := pids(m); !slices.Equal(got, tt.want) {
			t.Errorf("sort %s: order %v, want %v", tt.key, got, tt.want)
		}
		if !strings.Contains(m.plain(), "sort: "+tt.key) {
			t.Errorf("header does not name sort %s", tt.key)
		}
	}
}

func TestReverse(t *testing.T) {
	m := start(t, fixture(), "r")
	if got, want := pids(m), []int{977, 48213, 51002, 4242}; !slices.Equal(got, want) {
		t.Errorf("reversed order %v, want %v", got, want)
	}
	if m = feed(t, m, keys("r")...); pids(m)[0] != 4242 {
		t.Errorf("second r did not restore the order: %v", pids(m))
	}
}

func TestFilter(t *testing.T) {
	m := start(t, fixture(), "/", "S", "t", "r")
	if !m.filtering {
		t.Fatal("/ did not open the filter prompt")
	}
	if got := pids(m); !slices.Equal(got, []int{4242}) {
		t.Errorf("filter %q (case-insensitive comm) kept %v, want [4242]", m.filter, got)
	}
	m = feed(t, m, keys("enter")...)
	if m.filtering || m.filter != "Str" || len(pids(m)) != 1 {
		t.Errorf("enter should keep the filter: filtering=%v filter=%q rows=%v", m.filtering, m.filter, pids(m))
	}

	// The PID and the command line match too.
	if got := pids(start(t, fixture(), "/", "977")); !slices.Equal(got, []int{977}) {
		t.Errorf("filter by pid kept %v", got)
	}
	if got := pids(start(t, fixture(), "/", "TORCHRUN")); !slices.Equal(got, []int{51002}) {
		t.Errorf("filter by command line kept %v", got)
	}

	m = start(t, fixture(), "/", "s", "t", "esc")
	if m.filtering || m.filter != "" || len(pids(m)) != 4 {
		t.Errorf("esc should clear the filter: filtering=%v filter=%q rows=%v", m.filtering, m.filter, pids(m))
	}
	// q is text in the prompt, not quit.
	if next, cmd := start(t, fixture(), "/").Update(keys("q")[0]); cmd != nil || next.(Model).filter != "q" {
		t.Errorf("q in the filter prompt should type q")
	}
}

func TestDetail(t *testing.T) {
	m := start(t, fixture(), "d")
	if !m.detail {
		t.Fatal("d did not open the detail pane")
	}
	v := m.plain()
	for _, want := range []string{
		"try: echoctl optimize -- ./stream --size 1GiB --iters 200",
		"buffer read by host between copies",
		"stream+0x1a2b",
		"predicted speed-up  1.31×",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("detail pane lacks %q", want)
		}
	}
	if m = feed(t, m, keys("enter")...); m.detail || strings.Contains(m.plain(), "try:") {
		t.Error("enter did not close the detail pane")
	}
	// The pane follows the selection.
	if v := start(t, fixture(), "j", "enter").plain(); !strings.Contains(v, "try: echoctl optimize -- torchrun") {
		t.Errorf("detail pane after j should show trainer:\n%s", v)
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := start(t, fixture()).Update(keys(k)[0])
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s: command gave %T, want tea.QuitMsg", k, cmd())
		}
	}
	// ctrl+c quits from the filter prompt too.
	if _, cmd := start(t, fixture(), "/").Update(keys("ctrl+c")[0]); cmd == nil {
		t.Error("ctrl+c in the filter prompt did not quit")
	}
}

func TestSelectionFollowsPID(t *testing.T) {
	m := start(t, fixture(), "j", "j") // 48213, third by copy share
	if m.selPID != 48213 {
		t.Fatalf("selected %d, want 48213", m.selPID)
	}
	rows := fixture()
	rows[0].CopyShare = 0.9 // pipeline jumps to the top
	slices.Reverse(rows)
	m = feed(t, m, RowsMsg(rows))
	if m.selPID != 48213 || pids(m)[m.selIdx] != 48213 {
		t.Errorf("after a new sample selected %d at %d, want 48213 (order %v)", m.selPID, m.selIdx, pids(m))
	}
	if m = feed(t, m, keys("s", "s", "s", "s", "s")...); m.selPID != 48213 {
		t.Errorf("after re-sorting selected %d, want 48213", m.selPID)
	}

	// When the process exits, the selection stays at its place.
	m = start(t, fixture(), "j")
	m = feed(t, m, RowsMsg(slices.DeleteFunc(fixture(), func(r live.Row) bool { return r.PID == 51002 })))
	if m.selPID != 48213 {
		t.Errorf("after the selected process exited selected %d, want its neighbour 48213", m.selPID)
	}
}

func TestFits(t *testing.T) {
	sizes := [][2]int{{80, 24}, {200, 50}, {60, 10}, {40, 5}, {120, 30}, {80, 3}, {10, 1}}
	states := map[string][]string{
		"list":   nil,
		"detail": {"d"},
		"help":   {"?", "d"},
		"scroll": slices.Repeat([]string{"j"}, 60),
		"filter": {"/", "worker-01"},
	}
	for _, sz := range sizes {
		for name, k := range states {
			for _, rows := range [][]live.Row{fixture(), many(100), nil} {
				m := feed(t, New(nil, 0, "echoctl attach"), append([]tea.Msg{size(sz[0], sz[1]), RowsMsg(rows)}, keys(k...)...)...)
				lines := strings.Split(m.plain(), "\n")
				if len(lines) > sz[1] {
					t.Errorf("%dx%d %s: %d lines", sz[0], sz[1], name, len(lines))
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("%dx%d %s: line %d is %d wide: %q", sz[0], sz[1], name, i, w, l)
					}
				}
			}
		}
	}
}

func TestScrollKeepsSelectionVisible(t *testing.T) {
	m := start(t, many(100), slices.Repeat([]string{"j"}, 60)...)
	v := m.plain()
	if !strings.Contains(v, "▸") {
		t.Errorf("selection scrolled off screen:\n%s", v)
	}
	if !strings.Contains(v, "above") || !strings.Contains(v, "more") {
		t.Errorf("no overflow line:\n%s", v)
	}
}
