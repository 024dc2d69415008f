"""A dGPU-style PyTorch inference loop, as users write it: each iteration takes a fresh CPU
batch (a clone, as a data loader hands out), copies it to the GPU, runs the model, and copies
the result back into a fresh CPU tensor (`y.cpu()`). With --manual it is the hand-pinned
reference: page-locked host tensors allocated once and reused, the same copies. Prints
checksum= (of every output, sampled) and iter_ms= (median of the timed part).
Usage: vision_loop.py fcn|resnet50 BATCH SIZE ITERATIONS [--manual]"""
import hashlib
import statistics
import sys
import time

import torch
import torchvision

name, batch, size, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
manual = "--manual" in sys.argv[5:]
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
if name == "fcn":
    model = torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False)
    run = lambda x: model(x)["out"]
else:
    model = torchvision.models.resnet50(weights=None)
    run = model
model = model.cuda().eval()
batches = [torch.rand(batch, 3, size, size) for _ in range(4)]
digest = hashlib.sha256()
times = []
with torch.inference_mode():
    if manual:
        x_host = torch.empty_like(batches[0]).pin_memory()
        y_host = None
    for it in range(iters):
        t0 = time.perf_counter()
        if manual:
            x_host.copy_(batches[it % 4])
            y_dev = run(x_host.to("cuda"))
            if y_host is None:
                y_host = torch.empty(y_dev.shape, dtype=y_dev.dtype).pin_memory()
            y_host.copy_(y_dev)
            y = y_host
        else:
            x = batches[it % 4].clone()
            y = run(x.to("cuda")).cpu()
        times.append((time.perf_counter() - t0) * 1e3)
        digest.update(y.reshape(-1)[::4099].numpy().tobytes())
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={statistics.median(times[1:]):.4f}")
