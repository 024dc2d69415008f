"""numpy's first touch: np.full of a fresh 64 MiB array against filling a touched one (medians of 9)."""
import time, statistics, numpy as np
ts=[]
for _ in range(9):
    t=time.perf_counter(); x=np.full(16<<20, 1.0, dtype=np.float32); ts.append(time.perf_counter()-t); del x
y=np.empty(16<<20,dtype=np.float32); y.fill(0); ts2=[]
for _ in range(9):
    t=time.perf_counter(); y.fill(1.0); ts2.append(time.perf_counter()-t)
print("np.full 64MiB fresh %.2f ms, fill of touched %.2f ms" % (statistics.median(ts)*1e3, statistics.median(ts2)*1e3))
