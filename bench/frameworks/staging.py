"""What a framework's own staging copy costs on this host, the copy a page-locked source lets it
skip: CuPy's asarray of a pageable numpy array first copies it into a buffer of CuPy's pinned
pool (CuPy asks cudaPointerGetAttributes whether the array is page-locked and copies straight
from it when it is), and PyTorch's pin_memory() of a pageable tensor copies it into a block of
its caching host allocator (of a page-locked tensor it returns the tensor). Sizes as
cupy_loop.py (64 MiB) and prefetch_loop.py (32 MiB) move them; medians of 15 after 2 warm-ups,
ms, the device drained before and after each.
Usage: staging.py"""
import statistics
import time

import cupy as cp
import cupyx
import numpy as np
import torch


def median_ms(f, sync, k=17):
    times = []
    for _ in range(k):
        sync()
        t0 = time.perf_counter()
        f()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[2:])


def host_memcpy(nbytes):
    src = np.ones(nbytes // 4, dtype=np.float32)
    dst = np.empty_like(src)
    dst[...] = src
    return lambda: np.copyto(dst, src)


cp_sync = cp.cuda.Device().synchronize
n64 = (64 << 20) // 4
pageable = np.full(n64, 3.0, dtype=np.float32)
pinned = cupyx.empty_pinned(n64, dtype=np.float32)
pinned[...] = 3.0
n32 = (32 << 20) // 4
t_pageable = torch.full((n32,), 3.0)
t_pinned = torch.full((n32,), 3.0).pin_memory()
rows = [
    ("host memcpy, 64 MiB (touched)", median_ms(host_memcpy(64 << 20), lambda: None)),
    ("cp.asarray of a pageable 64 MiB array", median_ms(lambda: cp.asarray(pageable), cp_sync)),
    ("cp.asarray of a page-locked one", median_ms(lambda: cp.asarray(pinned), cp_sync)),
    ("host memcpy, 32 MiB (touched)", median_ms(host_memcpy(32 << 20), lambda: None)),
    ("pin_memory() of a pageable 32 MiB tensor", median_ms(lambda: t_pageable.pin_memory(), torch.cuda.synchronize)),
    ("pin_memory() of a page-locked one", median_ms(lambda: t_pinned.pin_memory(), torch.cuda.synchronize)),
]
for what, ms in rows:
    print(f"{what:44s} {ms:8.3f} ms")
