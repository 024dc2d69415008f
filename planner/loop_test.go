package planner

import (
	"testing"

	"github.com/echo-uma/echo/plan"
	"github.com/echo-uma/echo/trace"
)

// framework writes what a PyTorch program's trace looks like, traced by default (no host
// allocators): every copy goes through one call site in the framework's library, whatever
// it copies (parameters, inputs, labels, a loss read back), into blocks of the caching
// allocator's segments, and waits for the GPU at another.
type framework struct {
	*synth
	seg, next uint64 // the device segment blocks are cut from, and the next free byte in it
	host      uint64 // the next host address handed out
}

const (
	fwCopy   = 0x100 // the framework's one copy site
	fwSync   = 0x140 // its stream synchronize
	fwStream = 0x5a00
)

func newFramework(t *testing.T) *framework {
	s := newSynthWith(t, func(h *trace.Header) { h.NoHostAllocs = true })
	return &framework{synth: s, seg: s.alloc(trace.EventCUDAMalloc, 0x10, 2<<30), host: 0x5000_0000}
}

// block hands out a device block of n bytes.
func (f *framework) block(n uint64) uint64 {
	b := f.seg + f.next
	f.next += (n + 511) &^ 511
	return b
}

// hostBuf hands out host memory of n bytes.
func (f *framework) hostBuf(n uint64) uint64 {
	h := f.host
	f.host += (n + 4095) &^ 4095
	return h
}

// upload copies n bytes from host to dev at the framework's copy site, at 10 GB/s.
func (f *framework) upload(dev, host, n uint64) {
	f.copy(trace.EventCUDAMemcpyAsync, fwCopy, dev, host, n, trace.KindHostToDevice, fwStream, 5_000+n/10)
}

// download copies n bytes back and waits for them, as tensor.item() or .cpu() do.
func (f *framework) download(host, dev, n uint64) {
	f.copy(trace.EventCUDAMemcpyAsync, fwCopy, host, dev, n, trace.KindDeviceToHost, fwStream, 5_000+n/10)
	f.simple(trace.EventCUDAStreamSynchronize, fwSync, fwStream, 0)
}

// forward launches a model's kernels and lets the GPU run them for ns.
func (f *framework) forward(ns uint64) {
	for range 20 {
		f.launch(0x120, fwStream)
	}
	f.now += ns
}

// loadResNet uploads a ResNet's parameters and buffers (conv weights; batch norms' weight,
// bias, running mean and variance, float, and their batch counter, int64; the classifier),
// each into its own block: resnet18 with basic blocks [2 2 2 2], resnet50 with bottlenecks
// [3 4 6 3]. Many shapes recur exactly three times, as a network's repeated blocks make them.
func (f *framework) loadResNet(bottleneck bool, blocks [4]int) {
	var shapes []uint64
	conv := func(out, in, k uint64) { shapes = append(shapes, out*in*k*k*4) }
	bn := func(c uint64) { shapes = append(shapes, c*4, c*4, c*4, c*4, 8) }
	conv(64, 3, 7)
	bn(64)
	in := uint64(64)
	for layer, n := range blocks {
		mid := uint64(64) << layer
		out := mid
		if bottleneck {
			out = 4 * mid
		}
		for b := range n {
			if bottleneck {
				conv(mid, in, 1)
				bn(mid)
				conv(mid, mid, 3)
				bn(mid)
				conv(out, mid, 1)
				bn(out)
			} else {
				conv(mid, in, 3)
				bn(mid)
				conv(mid, mid, 3)
				bn(mid)
			}
			if b == 0 && (in != out || layer > 0) {
				conv(out, in, 1)
				bn(out)
			}
			in = out
		}
	}
	shapes = append(shapes, 1000*in*4, 1000*4)
	for _, n := range shapes {
		f.upload(f.block(n), f.hostBuf(n), n)
	}
}

// loopPairKept fails the test unless the plan has a pair whose copies move n bytes, or where it
// refuses that pair (what names it).
func loopPairKept(t *testing.T, p *plan.Plan, n uint64, what string) {
	t.Helper()
	for _, pair := range p.Pairs {
		if pair.Bytes == n {
			if status, why := statusOf(pair); status == plan.StatusRefused {
				t.Errorf("%s is refused: %s", what, why)
			}
			return
		}
	}
	t.Fatalf("no pair of %d bytes in %+v", n, p.Pairs)
}

// checkLoop checks the plan validates and its loop: iterations, the marker's size, and a span
// from the first to the last iteration's start, as the test saw them.
func checkLoop(t *testing.T, p *plan.Plan, iterations int, marker uint64, firstNS, lastNS [2]uint64) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatalf("the plan does not validate: %v", err)
	}
	l := p.Loop
	if l.Iterations != iterations || l.Marker == nil || l.Marker.Bytes != marker {
		t.Fatalf("loop of %d iterations marked by %+v; want %d iterations marked by the %d-byte copy",
			l.Iterations, l.Marker, iterations, marker)
	}
	if l.Span == nil || l.Span.FirstNS < firstNS[0] || l.Span.FirstNS >= firstNS[1] ||
		l.Span.LastNS < lastNS[0] || l.Span.LastNS >= lastNS[1] {
		t.Errorf("span %+v; want it to start in [%d, %d) and its last iteration to start in [%d, %d)",
			l.Span, firstNS[0], firstNS[1], lastNS[0], lastNS[1])
	}
	if l.Confidence < 0.8 { // these loops repeat 50 times or more, with no rival
		t.Errorf("confidence %.3f in a loop that repeats %+v; want 0.8 or more", l.Confidence, l.Span)
	}
}

// Issue 26: a ResNet-50 batch-1 inference loop of 210 iterations planned as a loop of 3,
// marked by a 147 456-byte parameter upload, because the parameters go through the inputs'
// copy site and many of their shapes recur three times; every input pair was then too rare.
// The loop is the 210 iterations, and their input and output pairs recur with it.
func TestLoopAfterModelLoad(t *testing.T) {
	f := newFramework(t)
	f.loadResNet(true, [4]int{3, 4, 6, 3})
	const iters, input, output = 210, 3 * 224 * 224 * 4, 1000 * 4
	dIn, dOut, hOut := f.block(input), f.block(output), f.hostBuf(output)
	var first, last uint64
	for it := range iters {
		if it == 0 {
			first = f.now
		}
		last = f.now
		f.upload(dIn, f.hostBuf(0)+uint64(it%4)*input, input) // a fresh host tensor, where the allocator puts it
		f.forward(4_000_000)
		f.download(hOut, dOut, output)
	}
	p := f.plan(DefaultOptions())
	checkLoop(t, p, iters, input, [2]uint64{first, first + 1}, [2]uint64{last, last + 1})
	loopPairKept(t, p, input, "the input pair")
}

// A ResNet-18 training loop: each step uploads a batch and its labels, runs forward and
// backward, and reads the loss back (loss.item(): a 4-byte copy and a wait).
func TestLoopTraining(t *testing.T) {
	f := newFramework(t)
	f.loadResNet(false, [4]int{2, 2, 2, 2})
	const steps, batch = 60, 16
	const images, labels = batch * 3 * 224 * 224 * 4, batch * 8
	dImg, dLab, dLoss, hLoss := f.block(images), f.block(labels), f.block(4), f.hostBuf(4)
	hImg, hLab := f.hostBuf(images), f.hostBuf(labels)
	var first, last uint64
	for step := range steps {
		if step == 0 {
			first = f.now
		}
		last = f.now
		f.upload(dImg, hImg, images)
		f.upload(dLab, hLab, labels)
		f.forward(30_000_000) // forward, backward, the optimizer's step
		f.download(hLoss, dLoss, 4)
	}
	p := f.plan(DefaultOptions())
	checkLoop(t, p, steps, images, [2]uint64{first, first + 1}, [2]uint64{last, last + 1})
	loopPairKept(t, p, images, "the batch's pair")
}

// An inference loop behind an odd warm-up: three passes on a dummy batch of 8, then the
// batch-1 loop, whose first iteration autotunes its kernels for the new shape (cuDNN's
// benchmark mode), copying what no other iteration copies. Neither the warm-up nor that
// first iteration's extra copies are the loop; the first iteration still counts.
func TestLoopOddWarmup(t *testing.T) {
	f := newFramework(t)
	const iters, input, output = 50, 3 * 224 * 224 * 4, 1000 * 4
	autotune := func() {
		for range 3 {
			f.download(f.hostBuf(8), f.block(8), 8) // each algorithm's timing read back
		}
	}
	wIn, wOut := f.block(8*input), f.block(8*output)
	for pass := range 3 {
		f.upload(wIn, f.hostBuf(8*input), 8*input)
		if pass == 0 {
			autotune()
		}
		f.forward(20_000_000)
		f.download(f.hostBuf(8*output), wOut, 8*output)
	}
	dIn, dOut, hIn, hOut := f.block(input), f.block(output), f.hostBuf(input), f.hostBuf(output)
	var starts []uint64
	for it := range iters {
		starts = append(starts, f.now)
		f.upload(dIn, hIn, input)
		if it == 0 {
			autotune()
		}
		f.forward(4_000_000)
		f.download(hOut, dOut, output)
	}
	p := f.plan(DefaultOptions())
	if p.Loop.Marker == nil {
		t.Fatalf("loop %+v: no marker", p.Loop)
	}
	// The span starts in the first iteration, after its autotuning, or at the second; its last
	// whole iteration starts in the last but one or the last.
	checkLoop(t, p, iters, p.Loop.Marker.Bytes, [2]uint64{starts[0], starts[1] + 1}, [2]uint64{starts[iters-2], f.now})
	if m := p.Loop.Marker.Bytes; m != input && m != output {
		t.Errorf("marked by a %d-byte copy, not the loop's input or output", m)
	}
	loopPairKept(t, p, input, "the input pair")
}

// A loop that copies one small buffer per iteration, among many one-off uploads: a
// program's set-up (a few of whose sizes recur two or three times) and buffers made lazily
// during the loop, each uploaded once.
func TestLoopOneSmallCopyAmongUploads(t *testing.T) {
	f := newFramework(t)
	upload := func(n uint64) { f.upload(f.block(n), f.hostBuf(n), n) }
	for i := range uint64(200) {
		upload(100_000 + 4096*i) // distinct sizes
		if i%50 == 0 {
			upload(8 << 20) // and a few recurring ones, large
			upload(8 << 20)
			upload(4 << 20)
		}
	}
	const iters, small = 100, 64 << 10
	d, h := f.block(small), f.hostBuf(small)
	var first, last uint64
	for it := range uint64(iters) {
		if it == 0 {
			first = f.now
		}
		last = f.now
		f.upload(d, h, small)
		f.forward(1_000_000)
		if it%7 == 3 {
			upload(1<<20 + 512*it) // a buffer made lazily, uploaded once
		}
	}
	p := f.plan(DefaultOptions())
	checkLoop(t, p, iters, small, [2]uint64{first, first + 1}, [2]uint64{last, last + 1})
	loopPairKept(t, p, small, "the loop's pair")
}
