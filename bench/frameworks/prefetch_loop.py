"""The CUDA prefetcher of timm/apex-style loops: a side stream copies the next batch, pinned
as a DataLoader's pin_memory pins it, to the GPU with non_blocking=True while the main
stream computes on the current one; the main stream waits for the side stream before using
the batch (wait_stream: an event recorded on one stream and waited for on the other,
record_stream keeps the caching allocator from reusing it early), and the result comes back
with .cpu(). Two streams, events, the caching allocators on both sides. Prints checksum=
(of every output) and iter_ms= (median) like the workloads.
Usage: prefetch_loop.py [ITERATIONS] [MIB]"""
import hashlib
import statistics
import sys
import time

import torch

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
n = (int(sys.argv[2]) if len(sys.argv) > 2 else 64) * (1 << 20) // 4
w = torch.linspace(0.5, 1.5, n, device="cuda")
side = torch.cuda.Stream()


def load(i):
    """Batch i on the GPU, copied on the side stream."""
    host = torch.full((n,), float(i % 7), dtype=torch.float32).pin_memory()
    with torch.cuda.stream(side):
        return host.to("cuda", non_blocking=True)


digest = hashlib.sha256()
times = []
upcoming = load(0)
for it in range(iters):
    t0 = time.perf_counter()
    main = torch.cuda.current_stream()
    main.wait_stream(side)
    x = upcoming
    x.record_stream(main)
    if it + 1 < iters:
        upcoming = load(it + 1)
    y = (x * w + 1.0).cpu()
    times.append((time.perf_counter() - t0) * 1e3)
    digest.update(y.numpy()[:: 1 << 14].tobytes())  # a sample: tobytes() of all 32 MiB is a copy the shim would time
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={statistics.median(times[1:]):.4f}")
