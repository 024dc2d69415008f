// Package plandir owns the plan directory a fleet shares (ECHO_PLAN_DIR, echoctl run
// --plans): each plan beside its compact plan, NAME.plan and NAME.plan.shim. The
// preload library reads only the compact plans (it parses no JSON), and picks the one for the
// running executable and GPU; the plans are there for people and for echoctl plans ls.
package plandir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/echo-uma/echo/plan"
)

const (
	planExt = ".plan"
	shimExt = planExt + "." + plan.SideDeployment // what the shim reads: *.shim
)

// Entry is one plan of the directory, or a compact plan found without its plan.
type Entry struct {
	Name       string     // NAME: the files are NAME.plan and NAME.plan.shim
	Plan       *plan.Plan // nil when there is none, or it could not be read (Err)
	Err        error
	Deployment []byte // the compact plan, NAME.plan.shim, as it is; nil when there is none
}

// PlanPath and DeploymentPath are the entry's files in dir.
func (e Entry) PlanPath(dir string) string       { return filepath.Join(dir, e.Name+planExt) }
func (e Entry) DeploymentPath(dir string) string { return filepath.Join(dir, e.Name+shimExt) }

// Read lists the directory's plans and compact plans by name. It reads them as the shim does
// (shim/plandir.c): only from a directory root's or this user's that nobody else may write
// into, and only regular files of those owners, opened without following a link or waiting
// for a FIFO's writer; any other file is an entry with Err saying why the shim skips it.
func Read(dir string) ([]Entry, error) {
	if err := Trusted(dir); err != nil {
		return nil, err
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the plan directory: %w", err)
	}
	byName := map[string]*Entry{}
	entry := func(name string) *Entry {
		if byName[name] == nil {
			byName[name] = &Entry{Name: name}
		}
		return byName[name]
	}
	for _, f := range files {
		n := f.Name()
		switch {
		case f.IsDir() || strings.HasPrefix(n, "."):
		case strings.HasSuffix(n, shimExt):
			e := entry(strings.TrimSuffix(n, shimExt))
			if e.Deployment, err = readTrusted(filepath.Join(dir, n)); err != nil {
				e.Err = err
			}
		case strings.HasSuffix(n, planExt):
			e := entry(strings.TrimSuffix(n, planExt))
			data, err := readTrusted(filepath.Join(dir, n))
			if err == nil {
				e.Plan, err = plan.Read(bytes.NewReader(data))
			}
			if err != nil {
				e.Err = fmt.Errorf("%s: %w", n, err)
			}
		}
	}
	var out []Entry
	for _, e := range byName {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Key is what the shim chooses a compact plan by: the executable (build-id, or size and file
// name without one) and the device context calibration recorded. Two plans of one key in a
// directory leave their program untouched.
func Key(p *plan.Plan) string {
	c, x := p.Context, p.Context.Executable
	exe := x.BuildID
	if exe == "" {
		exe = fmt.Sprintf("size:%d:%s", x.Size, filepath.Base(x.Path))
	}
	return strings.Join([]string{exe, c.GPU, c.ComputeCapability, fmt.Sprint(c.Driver), fmt.Sprint(c.Runtime)}, "\x00")
}

// Conflict is the name of another plan in entries for the same executable and device as
// p, or "".
func Conflict(entries []Entry, name string, p *plan.Plan) string {
	for _, e := range entries {
		if e.Name != name && e.Plan != nil && Key(e.Plan) == Key(p) {
			return e.Name + planExt
		}
	}
	return ""
}

// ErrConflict: the directory already holds a plan for the same executable and device.
var ErrConflict = errors.New("the plan directory already holds a plan for this executable and GPU")

// Add writes p as NAME.plan into dir, and compact, its compact plan, beside it: the plan first,
// so that a compact plan is never without its plan, each file replaced whole by a new file
// renamed over it (a node syncing the directory never reads half of one, and a link put there
// is replaced, not written through: as root, into whatever file it names). It refuses a plan for the executable and device
// of another plan there, which would leave the program untouched.
func Add(dir, name string, p *plan.Plan, compact string) error {
	entries, err := Read(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("making the plan directory: %w", err)
		}
	} else if err != nil {
		return err
	}
	if other := Conflict(entries, name, p); other != "" {
		return fmt.Errorf("%w: %s (remove it first, or add this one under its name)", ErrConflict, other)
	}
	var plan bytes.Buffer
	if err := p.Write(&plan); err != nil {
		return err
	}
	e := Entry{Name: name}
	if err := replace(e.PlanPath(dir), plan.Bytes()); err != nil {
		return fmt.Errorf("writing the plan into the directory: %w", err)
	}
	if err := replace(e.DeploymentPath(dir), []byte(compact)); err != nil {
		return fmt.Errorf("writing the compact plan into the directory: %w", err)
	}
	return nil
}

// Name is the name a plan file is added under: its file name without .plan.
func Name(planPath string) string {
	return strings.TrimSuffix(filepath.Base(planPath), planExt)
}
