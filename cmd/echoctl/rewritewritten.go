package main

import (
	"context"
	"io"

	"github.com/echo-uma/echo/internal/interrupt"
	"github.com/echo-uma/echo/source/rewrite"
	"github.com/echo-uma/echo/sourcereport"
)

// writtenError prints what -w did and is the command's error: nil when every file with a
// merge was written, the interruption (exit 130, 143, 129) saying what was written when a
// signal came, else one error naming the files left as they were (sourcereport.Written).
func writtenError(ctx context.Context, w io.Writer, res *rewrite.Written) error {
	if res == nil {
		return nil
	}
	summary, err := sourcereport.Written(w, res)
	if intr, ok := interrupt.Of(ctx, summary); ok {
		return intr
	}
	return err
}
