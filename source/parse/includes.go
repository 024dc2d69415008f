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
	m  map[string][]include
}

// of is file's include directives; none for a file that cannot be read (clang will say).
func (c *includeCache) of(file string, l Limits) []include {
	c.mu.Lock()
	inc, ok := c.m[file]
	c.mu.Unlock()
	if ok {
		return inc
	}
	b, _ := ReadSource(file, l)
	inc = includesIn(b)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string][]include{}
	}
	c.m[file] = inc
	c.mu.Unlock()
	return inc
}

// includesIn are the include directives of a file's text, in order.
func includesIn(b []byte) []include {
	var out []include
	for _, m := range includeLine.FindAllSubmatch(b, -1) {
		out = append(out, include{name: string(bytes.TrimSpace(m[2])), quoted: string(m[1]) == `"`})
	}
	return out
}
