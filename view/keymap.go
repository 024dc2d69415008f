package view

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// keyMap is every key the list answers, with what the footer says about it: the keys matched
// and the keys shown come from one place (bubbles' key and help), so they cannot drift apart.
// The filter prompt reads its keys as text and has its own few (filterKey).
type keyMap struct {
	ForceQuit, Quit, Up, Down, Top, Bottom, Sort, Reverse, Filter, Detail, Help, Back key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		// Up carries the pair's help: the footer says "↑↓ select" once.
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓", "select")),
		Down:    key.NewBinding(key.WithKeys("down", "j")),
		Top:     key.NewBinding(key.WithKeys("home", "g")),
		Bottom:  key.NewBinding(key.WithKeys("end", "G")),
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Reverse: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reverse")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Detail:  key.NewBinding(key.WithKeys("enter", "d"), key.WithHelp("enter", "detail")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:    key.NewBinding(key.WithKeys("esc")),
	}
}

// ShortHelp is the footer's line.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Up, k.Sort, k.Reverse, k.Filter, k.Detail, k.Help}
}

// FullHelp is not shown: "?" opens the legend of the columns (helpLines), which the keys'
// help cannot say.
func (k keyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// newHelp renders the footer as it always read: faint, two spaces between the keys.
func newHelp() help.Model {
	h := help.New()
	h.ShortSeparator = "  "
	h.Styles = help.Styles{Ellipsis: faintStyle, ShortKey: faintStyle, ShortDesc: faintStyle,
		ShortSeparator: faintStyle, FullKey: faintStyle, FullDesc: faintStyle, FullSeparator: faintStyle}
	return h
}
