package planner

// bandwidth is the copy rate seen on copies that waited for nothing, per direction. A
// synchronous copy issued while GPU work was pending also waited for that work, so its
// transfer time is estimated from its bytes at this rate instead.
type bandwidth struct {
	bytes, ns [2]uint64 // h2d, d2h
}

func dirIndex(dir string) int {
	if dir == "d2h" {
		return 1
	}
	return 0
}

func (b *bandwidth) sample(dir string, bytes, ns uint64) {
	if ns == 0 {
		return
	}
	i := dirIndex(dir)
	b.bytes[i] += bytes
	b.ns[i] += ns
}

// nsFor estimates how long moving bytes takes in dir, from that direction's rate or, when
// it has none, the other's. ok is false when no copy waited for nothing.
func (b *bandwidth) nsFor(dir string, bytes uint64) (float64, bool) {
	for _, i := range []int{dirIndex(dir), 1 - dirIndex(dir)} {
		if b.ns[i] > 0 && b.bytes[i] > 0 {
			return float64(bytes) * float64(b.ns[i]) / float64(b.bytes[i]), true
		}
	}
	return 0, false
}
