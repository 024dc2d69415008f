"""A dGPU-style CuPy loop: cp.asarray(numpy array) -> elementwise kernel -> cp.asnumpy, a new
host array every iteration. CuPy copies through the driver API and sub-allocates from its
memory pool. Prints checksum= and iter_ms= like the workloads.
Usage: cupy_loop.py [ITERATIONS] [MIB]"""
import hashlib
import statistics
import sys
import time

import cupy as cp
import numpy as np

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
n = (int(sys.argv[2]) if len(sys.argv) > 2 else 64) * (1 << 20) // 4
w = cp.linspace(0.5, 1.5, n, dtype=cp.float32)
digest = hashlib.sha256()
times = []
for it in range(iters):
    t0 = time.perf_counter()
    x = np.full(n, float(it % 7), dtype=np.float32)
    y = cp.asnumpy(cp.asarray(x) * w + 1.0)
    times.append((time.perf_counter() - t0) * 1e3)
    digest.update(y.tobytes()[:: 1 << 16])
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={statistics.median(times[1:]):.4f}")
