// Package planview lays out a plan as a person or a script reads it: the plan view (Render)
// and its table (Table), what calibration measured (Calibration) and what the enabled plan
// saves (Savings), what run would do (DryRun), the --json documents of validate, calibrate
// and optimize (ValidateDoc, CalibrationDoc), a plan directory's table (PlanDir), and copy
// sites named by their source line. It writes to the writer it is given; cmd/echoctl
// decides what to print where.
package planview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/echo-uma/echo/internal/shell"
	"github.com/echo-uma/echo/internal/texttable"
	"github.com/echo-uma/echo/internal/units"
	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/planner"
	"github.com/echo-uma/echo/symbols"
)

// Layout of the plan view: it must read in an 80-column terminal, so long reasons wrap in
// their column and stop after a few lines (the plan file has them whole).
const (
	Width          = 80
	minReasonWidth = 24
	maxReasonLines = 2
	maxRejected    = 10 // rejected copy sites listed; the plan file has them all
)

// Styles colour the view. lipgloss v2 always styles; the text is written through
// lipgloss.Fprint, which drops what the writer cannot show (everything, when it is not a
// terminal: a pipe, a file, a test's buffer).
type Styles struct {
	header, dim, good, bad lipgloss.Style
}

func NewStyles() Styles {
	return Styles{
		header: lipgloss.NewStyle().Bold(true),
		dim:    lipgloss.NewStyle().Faint(true),
		good:   lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		bad:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
	}
}

// Render prints a plan for a person: the loop, a table of the pairs with their verdicts
// and Amdahl bounds, the plan's estimate and its bound, the rejected copy sites, the plan's
// notes, and what to run next.
func Render(w io.Writer, p *plan.Plan, planPath string, available func(command string) bool) error {
	st := NewStyles()
	var b strings.Builder
	b.WriteString(texttable.RenderLines(st.header, texttable.WrapIndented(planHeadline(p), "  ", Width)))

	estimated, totalEstimated := false, false
	if len(p.Pairs) == 0 {
		fmt.Fprintln(&b, "\nno host/device buffer pairs found")
	} else {
		rows := make([][]string, len(p.Pairs))
		for i, pair := range p.Pairs {
			mark := ""
			if pair.Estimated {
				mark, estimated = "~", true
				totalEstimated = totalEstimated || pair.Status.Counted()
			}
			rows[i] = []string{pair.ID, string(pair.Direction), units.Bytes(pair.BytesPerIteration),
				mark + formatShare(pair.FCopy), mark + FormatSpeedup(pair.PredictedSpeedup),
				string(pair.Status), pairGist(pair)}
		}
		b.WriteString("\n")
		table, cut := Table(st, []string{"PAIR", "DIR", "BYTES/ITER", "F_COPY", "BOUND", "VERDICT", "REASON"},
			rows, []int{2, 3, 4}, maxReasonLines, func(row int) lipgloss.Style {
				if p.Pairs[row].Status == plan.StatusRefused {
					return st.bad
				}
				return st.good
			})
		b.WriteString(table)
		if why := pairDetails(p.Pairs, cut); why != "" {
			b.WriteString("\n" + why)
		}
	}

	f := planner.ForecastFor(p)
	b.WriteString("\n" + texttable.RenderLines(st.header, "total: "+forecastTotal(f, totalEstimated)+"\n"))
	if f.AboveBound() {
		b.WriteString(texttable.WrapIndented("the bound is the copies' alone; "+planner.BeyondTheCopies, "  ", Width))
	}
	if estimated {
		b.WriteString(texttable.WrapIndented("~ partly estimated: some copies also waited for earlier GPU work", "  ", Width))
	}
	if f.Headline != nil {
		b.WriteString(texttable.WrapIndented("the estimate assumes "+f.Assumes, "  ", Width))
	}
	for _, why := range f.Unpredicted {
		b.WriteString(texttable.WrapIndented("not predicted: "+why, "  ", Width))
	}

	if len(p.Rejected) > 0 {
		fmt.Fprintf(&b, "\nrejected copy sites:\n")
		shown := p.Rejected[:min(len(p.Rejected), maxRejected)]
		rows := make([][]string, len(shown))
		names := symbols.NewResolver()
		for i, r := range shown {
			rows[i] = []string{planSiteLabel(names, r.Site), r.Site.Call, string(r.Direction), fmt.Sprintf("×%d", r.Count),
				units.Bytes(r.Site.Bytes), r.Reason}
		}
		table, _ := Table(st, []string{"SITE", "CALL", "DIR", "CALLS", "BYTES", "REASON"}, rows, []int{3, 4}, 0, nil)
		b.WriteString(table)
		if more := len(p.Rejected) - len(shown); more > 0 {
			fmt.Fprintf(&b, "… and %d more (echoctl plan --json lists them all)\n", more)
		}
	}

	if len(p.Notes) > 0 {
		fmt.Fprintf(&b, "\nnotes:\n")
		for _, n := range p.Notes {
			b.WriteString(texttable.WrapIndented("- "+n, "  ", Width))
		}
	}

	if next := nextStep(p, planPath, available); next != "" {
		fmt.Fprintf(&b, "\n%s\n", next)
	}
	_, err := lipgloss.Fprint(w, b.String())
	return err
}

// forecastTotal is the plan view's total line: the forecast, "~" marking figures partly
// estimated (estimated), or why there is none.
func forecastTotal(f planner.Forecast, estimated bool) string {
	if f.None != "" {
		return "no prediction: " + f.None
	}
	mark := ""
	if estimated {
		mark = "~"
	}
	total := fmt.Sprintf("Amdahl bound %s%s (f_copy %s%s)", mark, FormatSpeedup(f.Bound), mark, formatShare(f.FCopy))
	if e := f.Headline; e != nil {
		total = fmt.Sprintf("predicted %s (%s), %s", FormatSpeedup(e.Speedup), e.Strategy, total)
	}
	return total
}

// ForecastLine is the forecast as optimize and calibrate print it above their table: the
// prediction from the trace and what it assumed.
func ForecastLine(f planner.Forecast) string {
	line := f.Line()
	if f.Headline != nil {
		line += " from the trace, assuming " + f.Assumes
	}
	return line
}

// planHeadline is the traced command and its loop.
func planHeadline(p *plan.Plan) string {
	who := fmt.Sprintf("pid %d", p.Trace.PID)
	if p.Trace.Attached {
		who += ", attached"
	}
	loop := "no loop found"
	if p.Loop.Iterations > 0 {
		loop = fmt.Sprintf("%d %s, %s per iteration", p.Loop.Iterations, texttable.Plural(p.Loop.Iterations, "iteration", "iterations"),
			texttable.FormatDuration(time.Duration(p.Loop.MS*float64(time.Millisecond))))
	}
	return fmt.Sprintf("plan for %s (%s): %s", shell.Join(p.Trace.Command), who, loop)
}

// pairGist is the short word on a pair for its table row: why it was refused, or what its
// status rests on, each only up to its first colon; pairDetails gives the rest.
func pairGist(pair plan.Pair) string {
	var parts []string
	if pair.Host.Unresolved || pair.Device.Unresolved {
		parts = append(parts, "sites unresolved")
	}
	for _, text := range pairTexts(pair) {
		parts = append(parts, gist(text))
	}
	return strings.Join(parts, "; ")
}

// pairTexts are a refused pair's reason, or another pair's evidence, after why merges were
// refused where only pinned may serve it.
func pairTexts(pair plan.Pair) []string {
	if pair.Status == plan.StatusRefused {
		return []string{pair.Reason}
	}
	if pair.MergeRefused != "" {
		return append([]string{"merges refused: " + pair.MergeRefused}, pair.Evidence...)
	}
	return pair.Evidence
}

func gist(text string) string {
	g, _, _ := strings.Cut(text, ": ")
	return g
}

// pairDetails lists in full each reason and piece of evidence that the table showed only in
// part, once for all the pairs it stands for (most evidence is the same for every
// candidate). cut says which rows of the table were cut short.
func pairDetails(pairs []plan.Pair, cut []bool) string {
	var order []string
	ids := map[string][]string{}
	for i, pair := range pairs {
		for _, text := range pairTexts(pair) {
			if text == gist(text) && !cut[i] {
				continue // the table showed all of it
			}
			if _, seen := ids[text]; !seen {
				order = append(order, text)
			}
			ids[text] = append(ids[text], pair.ID)
		}
	}
	var b strings.Builder
	for _, text := range order {
		b.WriteString(texttable.WrapIndented(strings.Join(ids[text], ", ")+": "+text, "  ", Width))
	}
	return b.String()
}

// nextStep says what to run after this plan, given how far its pairs have come, or "" when
// this echoctl has no such command (available tells).
func nextStep(p *plan.Plan, planPath string, available func(command string) bool) string {
	has := map[plan.Status]bool{}
	for _, pair := range p.Pairs {
		has[pair.Status] = true
	}
	cmd := shell.Join(p.Trace.Command)
	step := func(name string) string {
		if !available(name) {
			return ""
		}
		return fmt.Sprintf("next: echoctl %s %s -- %s", name, shell.Quote(planPath), cmd)
	}
	switch {
	case has[plan.StatusCandidate]:
		return step("validate")
	case has[plan.StatusValidated]:
		return step("calibrate")
	case has[plan.StatusEnabled]:
		return step("run")
	case has[plan.StatusCalibrated]:
		return "nothing to deploy: calibration found no pair whose merge wins"
	}
	return "nothing to validate: no pair can be merged"
}

// formatShare is a fraction as a percentage: "20.0%".
func formatShare(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// FormatSpeedup is a speed-up factor: "1.42×".
func FormatSpeedup(s float64) string { return fmt.Sprintf("%.2f×", s) }
