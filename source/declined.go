package source

// Declined is the condition that declines a pair — the first one refused or undecidable, in
// S1…S4 order, as the rewrite reports it — or ok=false for a proven pair.
func Declined(p Proof) (v Verdict, ok bool) {
	for _, v := range p.Verdicts {
		if v.Status == Refused || v.Status == Undecidable {
			return v, true
		}
	}
	return Verdict{}, false
}
