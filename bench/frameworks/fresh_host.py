"""What a fresh host tensor costs PyTorch beside its copy, per iteration, on this host: the
output copy of vision_loop.py's FCN (90 854 400 bytes) into a fresh pageable tensor
(`y.cpu()`, faulting its pages in), freeing it again (`del y`: the allocator unmaps it),
into one pageable tensor touched before (`copy_`), and into a page-locked one (what the
pinned strategy's pool serves); the input's clone (12 979 200 bytes) into a fresh tensor and
into a reused one; and the fresh host batch of prefetch_loop.py (`torch.full` of 32 MiB) and
of cupy_loop.py (`np.full` of 64 MiB; numpy asks for huge pages for large arrays). Beside each
median time, the median of the process's minor page faults during the call: a fresh buffer
faulted in 4 KiB at a time takes one per 4 KiB, in huge pages one per 2 MiB. Medians of 15
after 2 warm-ups.
Usage: fresh_host.py"""
import resource
import statistics
import time

import torch

try:
    import numpy as np
except ImportError:  # a host without numpy: its row is left out
    np = None


def once(f):
    """(ms, minor faults) of one call of f, the device drained first."""
    torch.cuda.synchronize()
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    f()
    ms = (time.perf_counter() - t0) * 1e3
    return ms, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0


def medians(samples):
    """The median time and the median fault count of samples, the first 2 left out."""
    kept = samples[2:]
    return statistics.median(ms for ms, _ in kept), statistics.median(n for _, n in kept)


def fresh_and_freed(make):
    """Medians of making a fresh host buffer with make, and of freeing it again."""
    held = []
    pairs = [(once(lambda: held.append(make())), once(held.pop)) for _ in range(17)]
    return medians([m for m, _ in pairs]), medians([r for _, r in pairs])


out = torch.rand(90854400 // 4, device="cuda")
src = torch.rand(12979200 // 4)
fresh_copy, release = fresh_and_freed(out.cpu)
touched = torch.empty(out.shape)
touched.fill_(1)
pinned = torch.empty(out.shape).pin_memory()
reused_in = torch.empty_like(src)
fresh_batch, _ = fresh_and_freed(lambda: torch.full(((32 << 20) // 4,), 3.0))
rows = [
    ("d2h into a fresh tensor (y.cpu())", fresh_copy),
    ("freeing it (del y)", release),
    ("d2h into a touched pageable tensor", medians([once(lambda: touched.copy_(out)) for _ in range(17)])),
    ("d2h into a page-locked tensor", medians([once(lambda: pinned.copy_(out)) for _ in range(17)])),
    ("clone of the input into a fresh tensor", medians([once(src.clone) for _ in range(17)])),
    ("the same into a reused tensor", medians([once(lambda: reused_in.copy_(src)) for _ in range(17)])),
    ("torch.full of a fresh 32 MiB tensor", fresh_batch),
]
if np is not None:
    rows.append(("np.full of a fresh 64 MiB array", fresh_and_freed(lambda: np.full((64 << 20) // 4, 3.0, dtype=np.float32))[0]))
print(f"{'':40s} {'ms':>8s} {'faults':>8s}")
for what, (ms, faults) in rows:
    print(f"{what:40s} {ms:8.3f} {faults:8.0f}")
