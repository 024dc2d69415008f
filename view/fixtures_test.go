package view

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/echo-uma/echo/live"
)

// plain is the frame as a terminal without colours shows it: lipgloss v2 always styles, and
// Bubble Tea strips what the terminal cannot show as it writes, so golden frames are plain
// text and stable everywhere.
func (m Model) plain() string { return ansi.Strip(m.Render()) }

const gib = 1 << 30

// fixture is a realistic sample: a copy-bound benchmark with two pairs, a pipeline that
// mostly launches, a process the tracer could not attach to, and one losing events.
func fixture() []live.Row {
	libs := []string{"/usr/local/cuda/lib64/libcudart.so.12", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}
	return []live.Row{
		{
			PID: 48213, Comm: "pipeline", Command: "python3 pipeline.py --batch 64",
			CopiesPerS: 1840, CopyBytesPerS: 0.61 * gib, H2DBytesPerS: 0.52 * gib, D2HBytesPerS: 0.09 * gib,
			CopyShare: 0.118, LaunchesPerS: 21500, Pairs: 0, Events: 23340, Libraries: libs,
			Detail: live.Detail{
				TopSites: []live.Site{
					{Site: "libtorch_cuda.so+0x3c1f20", API: "cudaMemcpyAsync", Direction: "h2d", BytesPerCopy: 12 << 20, PerS: 42, Share: 0.081},
				},
				PredictedSpeedup: 1,
				Optimize:         "echoctl optimize -- python3 pipeline.py --batch 64",
			},
		},
		{
			PID: 4242, Comm: "stream", Command: "./stream --size 1GiB --iters 200",
			CopiesPerS: 24, CopyBytesPerS: 24 * gib, H2DBytesPerS: 12 * gib, D2HBytesPerS: 12 * gib,
			CopyShare: 0.634, LaunchesPerS: 12, Pairs: 2, Events: 36, Libraries: libs[:1],
			Detail: live.Detail{
				TopSites: []live.Site{
					{Site: "stream+0x1a2b", API: "cudaMemcpy", Direction: "h2d", BytesPerCopy: gib, PerS: 12, Share: 0.33},
					{Site: "stream+0x1b40", API: "cudaMemcpy", Direction: "d2h", BytesPerCopy: gib, PerS: 12, Share: 0.304},
				},
				PairList: []live.Pair{
					{Direction: "input", Bytes: gib, Speedup: 1.31, Status: "candidate"},
					{Direction: "output", Bytes: gib, Speedup: 1.27, Status: "refused", Reason: "buffer read by host between copies"},
				},
				PredictedSpeedup: 1.31,
				Optimize:         "echoctl optimize -- ./stream --size 1GiB --iters 200",
			},
		},
		{PID: 977, Comm: "nvidia-smi", Command: "nvidia-smi dmon", Error: "permission denied"},
		{
			PID: 51002, Comm: "trainer", Command: "torchrun --nproc 1 train.py",
			CopiesPerS: 96000, CopyBytesPerS: 3.4 * gib, H2DBytesPerS: 3.1 * gib, D2HBytesPerS: 0.3 * gib,
			CopyShare: 0.271, LaunchesPerS: 148000, Pairs: 1, Lost: 12, Events: 244000, Libraries: libs,
			Detail: live.Detail{
				PairList:         []live.Pair{{Direction: "input", Bytes: 64 << 20, Speedup: 1.08, Status: "candidate"}},
				PredictedSpeedup: 1.08,
				Optimize:         "echoctl optimize -- torchrun --nproc 1 train.py",
			},
		},
	}
}

// many is n processes, enough to overflow any screen.
func many(n int) []live.Row {
	rows := make([]live.Row, n)
	for i := range rows {
		rows[i] = live.Row{
			PID: 1000 + i, Comm: fmt.Sprintf("worker-%03d", i), Command: fmt.Sprintf("./worker --id %d", i),
			CopyShare: float64(i%50) / 100, CopyBytesPerS: float64(i) * 1e6, H2DBytesPerS: float64(i) * 1e6,
			CopiesPerS: float64(i * 10), LaunchesPerS: float64(n - i), Pairs: i % 3,
		}
	}
	return rows
}

// feed applies msgs in turn, as the program would.
func feed(t *testing.T, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

func size(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func keys(s ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range s {
		switch k {
		case "up":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyUp})
		case "down":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyDown})
		case "enter":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			out = append(out, tea.KeyPressMsg{Code: tea.KeyEscape})
		case "ctrl+c":
			out = append(out, tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
		default:
			r := []rune(k)
			out = append(out, tea.KeyPressMsg{Code: r[0], Text: k})
		}
	}
	return out
}
