"""What a fresh host tensor costs PyTorch beside its copy, per iteration, on this host: the
output copy of vision_loop.py's FCN (90 854 400 bytes) into a fresh pageable tensor
(`y.cpu()`, faulting its pages in), freeing it again (`del y`: the allocator unmaps it),
into one pageable tensor touched before (`copy_`), and into a page-locked one (what the
pinned strategy's pool serves); and the input's clone (12 979 200 bytes) into a fresh tensor
and into a reused one. Medians of 15 after 2 warm-ups, ms.
Usage: fresh_host.py"""
import statistics
import time

import torch


def once_ms(f):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    f()
    return (time.perf_counter() - t0) * 1e3


def median_ms(f, k=17):
    return statistics.median([once_ms(f) for _ in range(k)][2:])


out = torch.rand(90854400 // 4, device="cuda")
src = torch.rand(12979200 // 4)
held = []


def fresh_copy():
    held.append(out.cpu())


def release():
    held.pop()


pairs = [(once_ms(fresh_copy), once_ms(release)) for _ in range(17)][2:]
touched = torch.empty(out.shape)
touched.fill_(1)
pinned = torch.empty(out.shape).pin_memory()
reused_in = torch.empty_like(src)
rows = [
    ("d2h into a fresh tensor (y.cpu())", statistics.median(c for c, _ in pairs)),
    ("freeing it (del y)", statistics.median(r for _, r in pairs)),
    ("d2h into a touched pageable tensor", median_ms(lambda: touched.copy_(out))),
    ("d2h into a page-locked tensor", median_ms(lambda: pinned.copy_(out))),
    ("clone of the input into a fresh tensor", median_ms(lambda: src.clone())),
    ("the same into a reused tensor", median_ms(lambda: reused_in.copy_(src))),
]
for what, ms in rows:
    print(f"{what:40s} {ms:8.3f} ms")
