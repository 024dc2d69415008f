package parse

import (
	"bytes"
	"context"
	"os"
	"os/exec"

	"github.com/echo-uma/echo/internal/embedshim"
)

// loadable is lib where clang (driver) runs with it preloaded and says nothing of it, ""
// where it does not: a library of another machine than clang's (an arm64 echoctl under
// qemu running an x86 clang) or one clang's C library refuses. The dynamic loader's
// complaint comes on clang's standard error ahead of a batch's first marker, which leaves
// every batch untrusted and each file parsed again alone; and an interrupt then loses the
// files the batch had done. The user's own LD_PRELOAD is left out of the trial: it is only
// ours that is in question.
func loadable(ctx context.Context, driver, lib string, limits Limits) string {
	if lib == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, limits.time())
	defer cancel()
	cmd := exec.CommandContext(ctx, driver, "--version")
	cmd.Env = embedshim.PreloadedAlone(os.Environ(), lib)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if cmd.Run() != nil || stderr.Len() > 0 {
		return ""
	}
	return lib
}
