package rewrite

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/echo-uma/echo/internal/outfile"
	"github.com/echo-uma/echo/source/parse"
)

// What `echoctl rewrite -w` promises about the user's files (README, "Patch a file"): every file
// is written through outfile.Edit (a temporary file and a rename, only if the file still holds
// what was analysed, its owner, group and mode kept, through a link only to a file in its
// project, never splitting hard links); nothing is written unless every file was analysed and
// no output is one of the run's inputs; and whatever happens, the result names the files
// written and those not.

// Written is what writing a run's rewrites did, file by file, as given.
type Written struct {
	Written   []string // rewritten
	Unchanged []string // nothing to merge: left as they were
	Skipped   []Skip   // left as they were, with why; the others were still written
	// NotWritten are the files a failure or an interrupt stopped before; Err says which.
	NotWritten []string
	Err        error
}

// Skip is a file left as it was, and why.
type Skip struct {
	Path string
	Why  error
}

// OK reports whether every file that had something to merge was written.
func (w *Written) OK() bool { return w.Err == nil && len(w.Skipped) == 0 && len(w.NotWritten) == 0 }

// WriteFiles writes each rewrite's result over its file. inputs are the run's other inputs
// (a trace): no file written may be one of them, nor a compile database a proof read, nor
// another of the files under a second name; any of these stops the run before anything is
// written. A file that changed since it was read, has hard links, is a link out of its project
// or whose owner cannot be kept is skipped (Written.Skipped); a failure to write (a full disk)
// or ctx's end stops the run, and the files not reached are Written.NotWritten.
func WriteFiles(ctx context.Context, frs []*FileRewrite, inputs ...string) *Written {
	w := &Written{}
	if err := outputsNotInputs(frs, inputs); err != nil {
		w.Err = err
		for _, fr := range frs {
			w.NotWritten = append(w.NotWritten, fr.Path)
		}
		return w
	}
	for i, fr := range frs {
		if ctx.Err() != nil || w.Err != nil {
			for _, rest := range frs[i:] {
				if string(rest.After) != string(rest.Before) {
					w.NotWritten = append(w.NotWritten, rest.Path)
				}
			}
			if w.Err == nil {
				w.Err = context.Cause(ctx)
			}
			break
		}
		if string(fr.After) == string(fr.Before) {
			w.Unchanged = append(w.Unchanged, fr.Path)
			continue
		}
		err := outfile.Edit(fr.Path, fr.After, fr.Before, parse.ProjectRoot(fr.Path))
		switch {
		case err == nil:
			w.Written = append(w.Written, fr.Path)
		case errors.Is(err, outfile.ErrChanged), errors.Is(err, outfile.ErrHardLinks),
			errors.Is(err, outfile.ErrOutside), errors.Is(err, outfile.ErrOwner):
			w.Skipped = append(w.Skipped, Skip{Path: fr.Path, Why: err})
		default:
			w.Err, w.NotWritten = err, append(w.NotWritten, fr.Path)
		}
	}
	return w
}

// outputsNotInputs fails when a file to be written is another input of the run: another of
// the files (by another name, a link or a hard link), a compile database or one of inputs.
func outputsNotInputs(frs []*FileRewrite, inputs []string) error {
	type input struct {
		path, what string
		file       int // the index of the file it is, -1 for none
	}
	var all []input
	for _, in := range inputs {
		all = append(all, input{in, "an input", -1})
	}
	for i, fr := range frs {
		all = append(all, input{fr.Path, "the file " + fr.Path, i})
		if fr.CompileDB != "" {
			all = append(all, input{fr.CompileDB, "the compile database " + fr.CompileDB, -1})
		}
	}
	for i, fr := range frs {
		if string(fr.After) == string(fr.Before) {
			continue
		}
		out, err := os.Stat(fr.Path)
		if err != nil {
			continue // Edit says why
		}
		for _, in := range all {
			if in.file == i {
				continue
			}
			if st, err := os.Stat(in.path); err == nil && os.SameFile(out, st) {
				return fmt.Errorf("writing %s: it is also %s: give each file once, and no input as a file to rewrite", fr.Path, in.what)
			}
		}
	}
	return nil
}
