package sourcereport

import (
	"fmt"
	"io"

	"github.com/echo-uma/echo/source/parse"
	"github.com/echo-uma/echo/source/rewrite"
)

// Written prints to w what rewrite -w did with res, and returns it in one line (the files
// written, not written and left as they were) and the command's error: nil when every file
// with a merge was written, else res's error or one naming the files left as they were.
func Written(w io.Writer, res *rewrite.Written) (summary string, err error) {
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "%s: left as it was: %v\n", parse.QuotePath(s.Path), s.Why)
	}
	if res.OK() && len(res.Written) > 0 {
		fmt.Fprintf(w, "wrote %s\n", PathList(res.Written))
	}
	summary = "wrote " + PathList(res.Written)
	if len(res.Written) == 0 {
		summary = "nothing was written"
	}
	if len(res.NotWritten) > 0 {
		summary += "; not written: " + PathList(res.NotWritten)
	}
	if len(res.Skipped) > 0 {
		var left []string
		for _, s := range res.Skipped {
			left = append(left, s.Path)
		}
		summary += "; left as they were: " + PathList(left)
	}
	switch {
	case res.Err != nil:
		return summary, fmt.Errorf("%w (%s)", res.Err, summary)
	case len(res.Skipped) > 0:
		return summary, fmt.Errorf("%d of %d files with merges left as they were (%s)", len(res.Skipped),
			len(res.Skipped)+len(res.Written), summary)
	}
	return summary, nil
}
