"""A dGPU-style PyTorch loop, as users write it: each iteration fills a CPU tensor, copies it
to the GPU, computes, and copies the result back (a fresh host tensor every time). Prints
checksum= (of every output) and iter_ms= (median) like the workloads.
Usage: torch_loop.py [ITERATIONS] [MIB]"""
import hashlib
import statistics
import sys
import time

import torch

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
n = (int(sys.argv[2]) if len(sys.argv) > 2 else 64) * (1 << 20) // 4
w = torch.linspace(0.5, 1.5, n, device="cuda")
digest = hashlib.sha256()
times = []
for it in range(iters):
    t0 = time.perf_counter()
    x = torch.full((n,), float(it % 7), dtype=torch.float32)  # CPU tensor
    y = (x.to("cuda") * w + 1.0).cpu()
    times.append((time.perf_counter() - t0) * 1e3)
    digest.update(y.numpy()[:: 1 << 14].tobytes())  # a sample: tobytes() of the whole output is a copy the shim would time
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={statistics.median(times[1:]):.4f}")
