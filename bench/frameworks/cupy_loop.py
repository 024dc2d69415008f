"""A dGPU-style CuPy loop: cp.asarray(numpy array) -> elementwise kernel -> cp.asnumpy, a new
host array every iteration. CuPy copies through the driver API and sub-allocates from its
memory pool. With --manual it is the hand-pinned reference: page-locked numpy arrays
(cupyx.empty_pinned) allocated once and reused, the same copies. Prints checksum= and
iter_ms= like the workloads.
Usage: cupy_loop.py [ITERATIONS] [MIB] [--manual]"""
import hashlib
import statistics
import sys
import time

import cupy as cp
import cupyx
import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--")]
manual = "--manual" in sys.argv[1:]
iters = int(args[0]) if len(args) > 0 else 20
n = (int(args[1]) if len(args) > 1 else 64) * (1 << 20) // 4
w = cp.linspace(0.5, 1.5, n, dtype=cp.float32)
digest = hashlib.sha256()
times = []
if manual:
    x_host = cupyx.empty_pinned(n, dtype=np.float32)
    y_host = cupyx.empty_pinned(n, dtype=np.float32)
for it in range(iters):
    t0 = time.perf_counter()
    if manual:
        x_host.fill(float(it % 7))
        y = cp.asnumpy(cp.asarray(x_host) * w + 1.0, out=y_host)
    else:
        x = np.full(n, float(it % 7), dtype=np.float32)
        y = cp.asnumpy(cp.asarray(x) * w + 1.0)
    times.append((time.perf_counter() - t0) * 1e3)
    digest.update(y[:: 1 << 14].tobytes())  # a sample: a whole-array tobytes() would cost more than the copies
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={statistics.median(times[1:]):.4f}")
