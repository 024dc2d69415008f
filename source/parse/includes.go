package parse

import (
	"bytes"
	"sync"
)

// includeCache holds the include directives of the files a session's parses look through
// before clang runs (preresolve), each file read and matched once: a tree's helper headers
// are included by most of its files, and a survey prepares each file twice (BatchKey, then
// its parse).
type includeCache struct {
	mu sync.Mutex
	m  map[string]fileIncludes
}

// fileIncludes is what preresolve reads of a file: its include directives, and whether it
// asks whether a header exists (__has_include), which the stand-ins it is parsed with answer.
type fileIncludes struct {
	incs   []include
	probes bool
}

// of is what file includes; none for a file that cannot be read (clang will say).
func (c *includeCache) of(file string, l Limits) fileIncludes {
	c.mu.Lock()
	fi, ok := c.m[file]
	c.mu.Unlock()
	if ok {
		return fi
	}
	b, _ := ReadSource(file, l)
	fi = fileIncludes{incs: includesIn(b), probes: bytes.Contains(b, []byte("__has_include"))}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]fileIncludes{}
	}
	c.m[file] = fi
	c.mu.Unlock()
	return fi
}

// includesIn are the include directives of a file's text, in order.
func includesIn(b []byte) []include {
	var out []include
	for _, m := range includeLine.FindAllSubmatch(b, -1) {
		out = append(out, include{name: string(bytes.TrimSpace(m[2])), quoted: string(m[1]) == `"`})
	}
	return out
}
