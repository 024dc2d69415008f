package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/tracer"
)

// RecordTrace traces into the file at path with self's launcher and version filled in.
// The trace replaces what was at path only once it was recorded (a program that fails, a
// Ctrl-C or a process without CUDA still give a trace); a command that could not be traced
// at all leaves path as it was.
func RecordTrace(ctx context.Context, path string, stdout io.Writer, self Launcher, opts tracer.Options) (tracer.Result, error) {
	out, err := CreateTrace(path, opts.Command, stdout)
	if err != nil {
		return tracer.Result{}, err
	}
	res, err := RecordInto(ctx, out, self, opts)
	if !recorded(res, err) {
		out.Abort()
		return res, err
	}
	if cerr := out.Commit(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}

// CreateTrace starts the trace file at path, which must not be the program being traced;
// the caller commits it, or aborts and leaves path as it was. stdout is the command's
// standard output, where path is "-".
func CreateTrace(path string, command []string, stdout io.Writer) (*outfile.File, error) {
	if len(command) > 0 {
		if exe, err := exec.LookPath(command[0]); err == nil {
			if err := outfile.NotAnInput(path, "the program", exe); err != nil {
				return nil, err
			}
		}
	}
	return outfile.Create(path, stdout)
}

// Launcher names the hidden commands of the running executable through which the tracer
// starts the traced program (Launch) and hands its probes on (Hold), and the version the
// trace records.
type Launcher struct {
	Launch, Hold, Version string
}

// RecordInto traces into out, which it leaves uncommitted, until ctx ends or the program does.
func RecordInto(ctx context.Context, out *outfile.File, self Launcher, opts tracer.Options) (tracer.Result, error) {
	exe, err := os.Executable()
	if err != nil {
		return tracer.Result{}, fmt.Errorf("finding echoctl's own executable: %w", err)
	}
	opts.Launcher, opts.Holder, opts.Version = []string{exe, self.Launch}, []string{exe, self.Hold}, self.Version
	var w io.Writer = out
	if f := out.OS(); f != nil {
		w = f // a file: on a full disk the tracer cuts it back to whole records
	}
	return tracer.Record(ctx, w, opts)
}

// recorded tells whether Record's outcome is a trace worth keeping.
func recorded(res tracer.Result, err error) bool {
	return err == nil || errors.Is(err, tracer.ErrNoCUDA) || res.Events > 0 || res.Truncated != ""
}
