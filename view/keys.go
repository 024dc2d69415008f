package view

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// key handles one key press. While the filter prompt is open, printable keys are text, so
// `q` types a q there; ctrl+c always quits.
func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if key.Matches(k, m.keys.ForceQuit) {
		return m, tea.Quit
	}
	if m.filtering {
		m.filterKey(k)
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(k, m.keys.Up):
		m.move(-1)
	case key.Matches(k, m.keys.Down):
		m.move(1)
	case key.Matches(k, m.keys.Top):
		m.move(-len(m.rows))
	case key.Matches(k, m.keys.Bottom):
		m.move(len(m.rows))
	case key.Matches(k, m.keys.Sort):
		m.sort = m.sort.next()
		m.resort()
	case key.Matches(k, m.keys.Reverse):
		m.reverse = !m.reverse
		m.resort()
	case key.Matches(k, m.keys.Filter):
		m.filtering = true
	case key.Matches(k, m.keys.Detail):
		m.detail = !m.detail
	case key.Matches(k, m.keys.Help):
		m.help = !m.help
	case key.Matches(k, m.keys.Back):
		// Esc backs out one level: first the filter, then the detail pane.
		if m.filter != "" {
			m.filter = ""
			m.follow()
		} else {
			m.detail = false
		}
	}
	return m, nil
}

func (m *Model) filterKey(k tea.KeyPressMsg) {
	switch {
	case k.Code == tea.KeyEnter:
		m.filtering = false
	case k.Code == tea.KeyEscape:
		m.filtering = false
		m.filter = ""
	case k.Code == tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case k.Code == tea.KeyUp:
		m.move(-1)
		return
	case k.Code == tea.KeyDown:
		m.move(1)
		return
	case k.Text != "":
		m.filter += k.Text
	default:
		return
	}
	m.follow()
}
