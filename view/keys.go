package view

import (
	tea "github.com/charmbracelet/bubbletea"
)

// key handles one key press. While the filter prompt is open, printable keys are text, so
// `q` types a q there; ctrl+c always quits.
func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
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
		m.follow()
	case "r":
		m.reverse = !m.reverse
		m.follow()
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

func (m *Model) filterKey(k tea.KeyMsg) {
	switch k.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc:
		m.filtering = false
		m.filter = ""
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyUp:
		m.move(-1)
		return
	case tea.KeyDown:
		m.move(1)
		return
	case tea.KeyRunes, tea.KeySpace:
		m.filter += string(k.Runes)
	default:
		return
	}
	m.follow()
}
