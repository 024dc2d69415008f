// Package view owns the interactive terminal view of `echoctl attach`: a table of the CUDA
// processes the live sampler sees, refreshed every interval, with sorting, filtering and a
// detail pane for the selected process. It only renders; sampling belongs to package live.
package view

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/echo-uma/echo/live"
)

// Source returns the latest rows. The view calls it once per tick, inside a tea.Cmd, so a
// slow sample delays the next frame but never the key handling.
type Source func() []live.Row

// RowsMsg replaces the rows on screen. Tests feed it straight into Update; it does not
// schedule a tick, so feeding it by hand never starts a second sampling loop.
type RowsMsg []live.Row

// sampleMsg is what the ticker delivers: the rows plus the duty to schedule the next tick.
type sampleMsg []live.Row

// Model is the view's whole state. It is a value: Update returns a changed copy.
type Model struct {
	src      Source
	interval time.Duration
	title    string

	rows          []live.Row // the latest sample, in the order the source gave it
	order         []int      // the rows' PIDs in display order (settle)
	width, height int

	sort      sortKey
	reverse   bool
	filter    string
	filtering bool // typing into the filter prompt

	// selPID is the selected process; selIdx is where it last stood, so the selection
	// lands on the neighbour when the process exits or is filtered away.
	selPID int
	selIdx int

	detail bool
	help   bool

	keys    keyMap
	keyHelp help.Model // the footer: the keys, from keys
}

// New returns the view over src, sampled every interval; title heads the screen.
func New(src Source, interval time.Duration, title string) Model {
	return Model{src: src, interval: interval, title: title, width: 80, height: 24,
		keys: newKeyMap(), keyHelp: newHelp()}
}

// Init takes the first sample at once rather than after one interval, so the first frame
// already shows data.
func (m Model) Init() tea.Cmd {
	if m.src == nil {
		return nil
	}
	src := m.src
	return func() tea.Msg { return sampleMsg(src()) }
}

// tick schedules the next sample.
func (m Model) tick() tea.Cmd {
	if m.src == nil || m.interval <= 0 {
		return nil
	}
	src := m.src
	return tea.Tick(m.interval, func(time.Time) tea.Msg { return sampleMsg(src()) })
}

// Update applies one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		// Too narrow for every key, the footer drops the last ones whole and ends in "…".
		m.keyHelp.SetWidth(msg.Width)
		return m, nil
	case RowsMsg:
		m.setRows(msg)
		return m, nil
	case sampleMsg:
		m.setRows(msg)
		return m, m.tick()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m *Model) setRows(rows []live.Row) {
	m.order = m.settle(rows)
	m.rows = rows
	m.follow()
}

// resort orders the rows strictly, as a new sort key or direction asks.
func (m *Model) resort() {
	m.order = nil
	m.order = m.settle(m.rows)
	m.follow()
}

// follow keeps the selection on the same PID after the rows, sort or filter changed.
func (m *Model) follow() {
	vis := m.visible()
	if len(vis) == 0 {
		m.selIdx = 0
		return
	}
	for i, r := range vis {
		if r.PID == m.selPID {
			m.selIdx = i
			return
		}
	}
	m.selIdx = min(max(m.selIdx, 0), len(vis)-1)
	m.selPID = vis[m.selIdx].PID
}

// move shifts the selection by d rows, clamped.
func (m *Model) move(d int) {
	vis := m.visible()
	if len(vis) == 0 {
		return
	}
	m.follow()
	m.selIdx = min(max(m.selIdx+d, 0), len(vis)-1)
	m.selPID = vis[m.selIdx].PID
}

// selected returns the selected row, if any row is visible.
func (m Model) selected() (live.Row, bool) {
	for _, r := range m.visible() {
		if r.PID == m.selPID {
			return r, true
		}
	}
	return live.Row{}, false
}
