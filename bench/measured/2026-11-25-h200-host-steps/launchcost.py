"""Host time of one launch: the same small kernel from a cooperative RawModule and from a
plain one, and engine._gpu's search_init as the engine launches it."""

import statistics
import time

import cupy as cp
import numpy as np

SRC = r"""
extern "C" __global__ void fill(long long* out, long long n, long long v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = v;
}
"""
out = cp.empty(20_000, dtype=np.int64)
for coop in (True, False, True, False):
    f = cp.RawModule(code=SRC, enable_cooperative_groups=coop).get_function("fill")
    f((79,), (256,), (out, np.int64(out.size), np.int64(1)))
    cp.cuda.Device().synchronize()
    per = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(200):
            f((79,), (256,), (out, np.int64(out.size), np.int64(1)))
        per.append((time.perf_counter() - t) / 200 * 1e6)
        cp.cuda.Device().synchronize()
    print(f"cooperative={coop!s:5s} {statistics.median(per):6.1f} us a launch (host)", flush=True)
