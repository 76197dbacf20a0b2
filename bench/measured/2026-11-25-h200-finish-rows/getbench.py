"""Device: a blocking copy of 18,938 int64 into page-locked memory against an asynchronous
one and a wait on the stream."""

import statistics
import time

import cupy as cp
import cupyx
import numpy as np

n = 18938
wide = cp.arange(n, dtype=np.int64)
for _rnd in range(3):
    for mode in ("blocking", "async+sync"):
        ts = []
        for _ in range(2000):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            out = cupyx.empty_pinned(n, np.int64)
            if mode == "blocking":
                wide.get(out=out)
            else:
                wide.get(out=out, blocking=False)
                cp.cuda.get_current_stream().synchronize()
            ts.append(time.perf_counter() - t)
        print(mode, f"{statistics.median(ts) * 1e6:.1f} us", flush=True)
