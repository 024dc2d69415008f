package plan

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkReadLargePlan reads a plan of 900 pairs (1 MB and more, as a program that
// allocates in every call has: a streamcluster-style one's plan is 1.6 MB), every one
// checked as `echoctl run` checks it before the program starts. That read is start-up time
// the deployed program pays (bench/runcost_gpu.sh measures the whole of it on the GPU host).
func BenchmarkReadLargePlan(b *testing.B) {
	p := examplePlan()
	var refused Pair
	for _, pair := range p.Pairs {
		if pair.Status == StatusRefused {
			refused = pair
		}
	}
	if refused.ID == "" {
		b.Fatal("the example plan has no refused pair to copy")
	}
	for i := len(p.Pairs); i < 900; i++ {
		refused.ID = fmt.Sprintf("p%d", i+1)
		p.Pairs = append(p.Pairs, refused)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
