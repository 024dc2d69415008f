package plan

// A framework's own staging (issue 44): planner/staging.go says how a staged pair is found.

// Staging is the framework's page-locked buffer a staged pair's copies go through, and what a
// resolve run found of the host-to-host copy between it and the program's buffer.
type Staging struct {
	// Via is the framework's buffer's allocation, as the trace saw it.
	Via Site `json:"via"`
	// Copy is the site of the host-to-host copy (memmove at _multiarray_umath+0x…); nil until
	// a resolve run found one. Copies is how many it saw, beside the Linked linking copies
	// it saw of the pair; MS is one's mean time; PerIteration how many an iteration makes.
	Copy         *Site   `json:"copy,omitempty"`
	Copies       int     `json:"copies,omitempty"`
	Linked       int     `json:"linked,omitempty"`
	MS           float64 `json:"ms,omitempty"`
	PerIteration float64 `json:"per_iteration,omitempty"`
}

// Found reports whether a resolve run found the copy that stages the pair.
func (s *Staging) Found() bool { return s != nil && s.Copy != nil }

// Pending reports whether the pair is staged and its program's buffer is yet to be found.
func (p *Pair) Pending() bool { return p.Staging != nil && !p.Staging.Found() }

// StagedBy records the host-to-host copy a resolve run found staging the pair: at site copy,
// copies of them beside the linked linking copies it saw, ms each; the pair's copy time now
// holds it, msPerIteration being the loop's iteration.
func (p *Pair) StagedBy(copy Site, copies, linked int, ms, msPerIteration float64) {
	s := p.Staging
	s.Copy, s.Copies, s.Linked, s.MS = &copy, copies, linked, ms
	perIteration := 0.0
	for _, c := range p.Copies {
		if c.Offset == 0 && c.Site.Bytes == p.Bytes {
			perIteration += c.PerIteration
		}
	}
	s.PerIteration = 0
	if linked > 0 {
		s.PerIteration = perIteration * float64(min(copies, linked)) / float64(linked)
	}
	p.SumCopies(msPerIteration)
}

// StagingMS is what the pair's staging copies take an iteration: none until found.
func (p *Pair) StagingMS() float64 {
	if !p.Staging.Found() {
		return 0
	}
	return p.Staging.MS * p.Staging.PerIteration
}
