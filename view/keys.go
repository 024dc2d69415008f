package view

import (
	tea "charm.land/bubbletea/v2"
)

// key handles one key press. While the filter prompt is open, printable keys are text, so
// `q` types a q there; ctrl+c always quits.
func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() == "ctrl+c" {
		return m, tea.Quit
	}
	if m.filtering {
		m.filterKey(k)
		return m, nil
	}
	switch k.String() {
	case "q":
		return m, tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "home", "g":
		m.move(-len(m.rows))
	case "end", "G":
		m.move(len(m.rows))
	case "s":
		m.sort = m.sort.next()
		m.resort()
	case "r":
		m.reverse = !m.reverse
		m.resort()
	case "/":
		m.filtering = true
	case "enter", "d":
		m.detail = !m.detail
	case "?":
		m.help = !m.help
	case "esc":
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
