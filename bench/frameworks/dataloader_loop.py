"""A dGPU-style PyTorch DataLoader loop, as users write it: a dataset in host memory, a
DataLoader with two worker processes (each batch collated in a worker, in shared memory,
shuffled by a seeded generator), and an MLP trained on every batch: copy the batch and its
labels to the GPU, forward, cross-entropy, backward, SGD, `loss.item()`. Every batch is a new
host buffer. With --manual it is the hand-optimized reference: pin_memory=True and
non-blocking copies. Deterministic, so two runs print the same. Prints checksum= (of every
step's loss) and iter_ms= (median step, the wait for the batch included).
Usage: dataloader_loop.py [EPOCHS] [BATCH] [--manual]   (3 512)"""
import hashlib
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
manual = "--manual" in sys.argv[1:]
epochs = int(args[0]) if len(args) > 0 else 3
batch = int(args[1]) if len(args) > 1 else 512
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
features, samples = 1024, 16384
data = TensorDataset(torch.rand((samples, features), generator=torch.Generator().manual_seed(1)),
                     torch.randint(0, 10, (samples,), generator=torch.Generator().manual_seed(2)))
loader = DataLoader(data, batch_size=batch, shuffle=True, num_workers=2, pin_memory=manual,
                    generator=torch.Generator().manual_seed(3), persistent_workers=True)
model = torch.nn.Sequential(torch.nn.Linear(features, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
digest = hashlib.sha256()
times = []
for epoch in range(epochs):
    t0 = time.perf_counter()
    for x, y in loader:
        out = model(x.to("cuda", non_blocking=manual))
        loss = loss_fn(out, y.to("cuda", non_blocking=manual))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        value = loss.item()
        digest.update(f"{value:.6e}".encode())
        t1 = time.perf_counter()
        times.append((t1 - t0) * 1e3)
        t0 = t1
times.sort()
print(f"checksum={digest.hexdigest()[:16]}")
print(f"iter_ms={times[len(times) // 2]:.3f}")
