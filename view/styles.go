package view

import "charm.land/lipgloss/v2"

// The styles carry no layout (no padding, no width): the view fits text to the width
// itself and styles it afterwards, so a style can never push a line past the edge.
var (
	titleStyle    = lipgloss.NewStyle().Bold(true)
	colHeadStyle  = lipgloss.NewStyle().Bold(true).Underline(true)
	selectedStyle = lipgloss.NewStyle().Reverse(true)
	lostStyle     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	errorStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	faintStyle    = lipgloss.NewStyle().Faint(true)
	tryStyle      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10"))
)
