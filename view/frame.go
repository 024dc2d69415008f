package view

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/echo-uma/echo/live"
)

// View is the frame for the program, on the alternate screen, so that quitting gives the
// terminal back as it was.
func (m Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	return v
}

// Render draws the whole screen: exactly height lines, none wider than width. It reads
// nothing but the model, so the same state always draws the same frame.
func (m Model) Render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	help := m.helpLines()
	body := h - 2 - len(help) // header and footer

	var lines []string
	lines = append(lines, m.header())
	vis := m.visible()
	if sel, ok := m.selected(); ok && m.detail && body > 0 {
		pane, tail := detailLines(sel, w)
		// The table keeps at least a third of the screen so the selection stays in view.
		paneH := min(len(pane), body-max(body/3, 2))
		lines = append(lines, m.table(vis, body-max(paneH, 0))...)
		lines = append(lines, shorten(pane, paneH, tail)...)
	} else {
		lines = append(lines, m.table(vis, body)...)
	}
	lines = append(lines, help...)
	lines = append(lines, m.footer())

	if len(lines) > h {
		// Too short even for the header and footer: the top is what matters.
		lines = lines[:h]
	}
	for i := range lines {
		lines[i] = clip(lines[i], w)
	}
	return strings.Join(lines, "\n")
}

// table renders the process table in exactly h lines, padding with blanks so the detail
// pane and footer stay put as processes come and go.
func (m Model) table(vis []live.Row, h int) []string {
	if h <= 0 {
		return nil
	}
	var out []string
	switch {
	case len(m.rows) == 0:
		out = []string{"",
			"  No CUDA process found yet.",
			"  New processes appear here automatically once they load the CUDA runtime."}
	case len(vis) == 0:
		out = []string{"", fmt.Sprintf("  No process matches %q; esc clears the filter.", m.filter)}
	default:
		cols := layout(m.width)
		out = append(out, tableHead(cols))
		room := h - 1
		first, shown := 0, len(vis)
		if shown > room {
			shown = max(room-1, 0) // one line says what did not fit
			// Scroll just far enough to keep the selection on screen.
			first = max(0, min(m.selIdx-shown+1, len(vis)-shown))
		}
		for i := first; i < first+shown; i++ {
			out = append(out, tableRow(vis[i], cols, m.width, vis[i].PID == m.selPID))
		}
		if shown < len(vis) {
			out = append(out, faintStyle.Render(moreLine(first, len(vis)-first-shown)))
		}
	}
	for len(out) < h {
		out = append(out, "")
	}
	return out[:h]
}

func (m Model) header() string {
	n := len(m.rows)
	procs := fmt.Sprintf("%d processes", n)
	if n == 1 {
		procs = "1 process"
	}
	if m.filter != "" {
		procs = fmt.Sprintf("%d of %s", len(m.visible()), procs)
	}
	s := fmt.Sprintf("%s · %s · sort: %s %s", m.title, procs, m.sort, m.arrow())
	if m.filter != "" {
		s += fmt.Sprintf(" · filter: %q", m.filter)
	}
	return titleStyle.Render(s)
}

// arrow shows the direction: PIDs read naturally upwards, costs biggest first.
func (m Model) arrow() string {
	up := m.sort == byPID
	if m.reverse {
		up = !up
	}
	if up {
		return "↑"
	}
	return "↓"
}

func (m Model) footer() string {
	if m.filtering {
		return "filter: " + m.filter + "▏  enter keep · esc clear"
	}
	return m.keyHelp.ShortHelpView(m.keys.ShortHelp())
}

// CopyShareMeaning is what COPY% is, as the help legend, README.md and docs/metrics.md say
// it: the planner's estimate of the time copies moved data (live.Row.CopyShare), not the
// time inside copy calls that stats' copy share counts, which includes a synchronous
// copy's wait for earlier kernels.
const CopyShareMeaning = "share of wall time copies spent moving data (waits for kernels left out)"

func (m Model) helpLines() []string {
	if !m.help {
		return nil
	}
	return []string{
		faintStyle.Render("COPY%  " + CopyShareMeaning),
		faintStyle.Render("PAIRS  candidate buffer pairs the planner found; enter shows them"),
		faintStyle.Render("LOST   events dropped since attaching because the ring buffer was full"),
	}
}
