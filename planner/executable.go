package planner

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// CheckExecutable fails unless the ELF file at path is want, the program a plan was made for
// (Context.Executable): the same GNU build-id, or, when the plan's executable had none, a
// file without one of the same size. The path may differ (a copied or moved binary is the
// same program); the contents may not, since every site in the plan is an offset into them.
func CheckExecutable(want plan.Module, path string) error {
	if want.BuildID == "" && want.Size <= 0 {
		return errors.New("the plan does not identify its executable (no build-id or size): make a new plan with echoctl plan")
	}
	got, err := describeFile(path)
	if err != nil {
		return fmt.Errorf("checking %s against the plan: %w", path, err)
	}
	switch {
	case want.BuildID != "" && strings.EqualFold(got.BuildID, want.BuildID):
		return nil
	case want.BuildID == "" && got.BuildID == "" && got.Size == want.Size:
		return nil
	}
	wantID, gotID := abbreviate(want.BuildID, got.BuildID)
	return fmt.Errorf("plan is for %s (%s), not %s (%s)", want.Path, identity(wantID, want.Size),
		path, identity(gotID, got.Size))
}

// CheckCommand fails unless the ELF file at path starts the program the plan is for: it is
// the plan's executable, or the launcher the plan was traced through (Context.Launcher: the
// shell or launcher of a trace --follow, which starts the executable; the shim then checks
// the executable itself in the process that runs it).
func CheckCommand(c plan.Context, path string) error {
	err := CheckExecutable(c.Executable, path)
	if err == nil || c.Launcher == nil {
		return err
	}
	if CheckExecutable(*c.Launcher, path) == nil {
		return nil
	}
	return fmt.Errorf("%w, nor %s (%s), the command it was traced through, which starts it",
		err, c.Launcher.Path, identity(c.Launcher.BuildID, c.Launcher.Size))
}

// describeFile is the Module an ELF file would be in a plan.
func describeFile(path string) (plan.Module, error) {
	st, err := os.Stat(path)
	if err != nil {
		return plan.Module{}, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return plan.Module{}, fmt.Errorf("not an ELF executable: %w", err)
	}
	defer f.Close()
	id, err := trace.BuildID(f)
	if err != nil {
		return plan.Module{}, fmt.Errorf("reading its build-id: %w", err)
	}
	return plan.Module{Path: path, BuildID: id, Size: st.Size()}, nil
}

// abbreviate shortens two build-ids for a message, keeping enough to tell them apart.
func abbreviate(a, b string) (string, string) {
	const keep = 12
	if len(a) > keep && len(b) > keep && a[:keep] == b[:keep] {
		return a, b
	}
	short := func(s string) string {
		if len(s) > keep {
			return s[:keep] + "…"
		}
		return s
	}
	return short(a), short(b)
}

func identity(buildID string, size int64) string {
	if buildID != "" {
		return "build-id " + buildID
	}
	return fmt.Sprintf("no build-id, %d bytes", size)
}
