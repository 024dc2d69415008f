"""A dGPU-style PyTorch training loop, as users write it: a ResNet-18 with random weights
(no download), every step a fresh CPU batch of images and labels copied to the GPU, forward,
cross-entropy loss, backward, an SGD step, and `loss.item()` (a synchronizing copy back) every
step. Deterministic (cuDNN and cuBLAS in their deterministic modes), so two runs print the
same. Prints checksum= (of every step's loss) and iter_ms= (median step) like the workloads.
Usage: train_loop.py [STEPS] [BATCH] [SIZE]"""
import hashlib
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402
import torchvision  # noqa: E402

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 16
size = int(sys.argv[3]) if len(sys.argv) > 3 else 128
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True
torch.use_deterministic_algorithms(True)
model = torchvision.models.resnet18(weights=None, num_classes=10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
gen = torch.Generator().manual_seed(1)
digest = hashlib.sha256()
times = []
for step in range(steps):
    t0 = time.perf_counter()
    x = torch.rand((batch, 3, size, size), generator=gen)  # CPU batch, fresh every step
    y = torch.randint(0, 10, (batch,), generator=gen)
    out = model(x.to("cuda"))
    loss = loss_fn(out, y.to("cuda"))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    value = loss.item()
    times.append((time.perf_counter() - t0) * 1e3)
    digest.update(f"{value:.6e}".encode())
times.sort()
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={times[len(times) // 2]:.3f}")
