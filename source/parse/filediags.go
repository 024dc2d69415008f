package parse

import "bytes"

// fileDiags splits a batch's standard error into its files' diagnostics: each file's start
// with the marker's line (cc1.go), which it drops with the include line clang puts before it.
type fileDiags struct {
	isMarker func(line []byte) bool
	max      int // each file's diagnostics kept, as runClang keeps a file's standard error
	partial  []byte
	pre      int // bytes before the first marker: none, where the batch went as it should
	chunks   []diagChunk
}

type diagChunk struct {
	text []byte
	last int  // where its last line starts
	cut  bool // more was written than kept, or close to it
}

// includedFromMarker is the line clang puts before a diagnostic in a forced include.
const includedFromMarker = "In file included from <built-in>:1:\n"

func (d *fileDiags) Write(p []byte) (int, error) {
	d.partial = append(d.partial, p...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 && len(d.partial) <= d.max {
			break
		}
		if i < 0 {
			i = len(d.partial) - 1
		}
		d.line(d.partial[:i+1])
		d.partial = d.partial[i+1:]
	}
	d.partial = append([]byte(nil), d.partial...)
	return len(p), nil
}

func (d *fileDiags) line(l []byte) {
	if d.isMarker(l) {
		if n := len(d.chunks); n > 0 {
			c := &d.chunks[n-1]
			if string(c.text[c.last:]) == includedFromMarker {
				c.text = c.text[:c.last]
			}
		} else if d.pre == len(includedFromMarker) {
			d.pre = 0
		}
		d.chunks = append(d.chunks, diagChunk{})
		return
	}
	if len(d.chunks) == 0 {
		if d.pre == 0 && string(l) == includedFromMarker {
			d.pre = len(l)
		} else {
			d.pre += len(l) + 1 // anything else: the batch is not to be trusted
		}
		return
	}
	c := &d.chunks[len(d.chunks)-1]
	// A file alone has its standard error cut at max, with clang's count of errors at its
	// end: one whose diagnostics come near max is left to that run to tell.
	if len(c.text)+len(l) > d.max-256 {
		c.cut = true
		return
	}
	c.last = len(c.text)
	c.text = append(c.text, l...)
}

// files are the diagnostics of the files whose diagnostics ended: each but the last that
// began, and the last too when lastEnded (clang exited after it); none when something came
// before the first file's marker.
func (d *fileDiags) files(lastEnded bool) []diagChunk {
	if len(d.partial) > 0 {
		d.line(d.partial)
		d.partial = nil
	}
	if d.pre != 0 || len(d.chunks) == 0 {
		return nil
	}
	if lastEnded {
		return d.chunks
	}
	return d.chunks[:len(d.chunks)-1]
}
