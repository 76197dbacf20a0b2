"""Device: what each small host-side operation of a recorded search costs (µs, median of 2000)."""

import statistics
import time

import cupy as cp
import numpy as np

from engine import _backend, _gpu
from engine.graph import load_npz

g = load_npz(".dev15/data/porto_alegre_all.npz")
n = g.n_nodes
_gpu._module()
src = (_backend.KERNEL_DIR / "frontier.cu").read_text()
plain = cp.RawModule(code=src, options=("-std=c++17",), name_expressions=("widen<unsigned int>",))
plain.compile()
dist = cp.zeros(n, dtype=np.uint32)
wide = cp.empty(n, dtype=np.int64)
host = _backend.pinned_empty(n, np.int64)
small = cp.zeros((334, 3), dtype=np.int64)
hsmall = _backend.pinned_empty((334, 3), np.int64)
pw = plain.get_function("widen<unsigned int>")
cw = _gpu._function(_gpu._name_of("widen", np.uint32))
args = (dist, np.int64(n), np.int64(-1), wide)


def bench(label, f, k=2000):
    t = []
    for _ in range(k):
        a = time.perf_counter()
        f()
        t.append(time.perf_counter() - a)
    cp.cuda.Device().synchronize()
    print(f"{statistics.median(t) * 1e6:8.2f} us  {label}", flush=True)


sync = cp.cuda.get_current_stream().synchronize
bench("empty launch sync (stream.synchronize)", sync)
bench(
    "_launch_elementwise widen (cooperative module)",
    lambda: _gpu._launch_elementwise("widen", np.uint32, n, args),
)
bench("widen, cooperative kernel called directly", lambda: cw((74,), (256,), args))
bench("widen, plain module", lambda: pw((74,), (256,), args))
bench("multiprocessor_count()", _backend.multiprocessor_count)
bench("cp.empty(n)", lambda: cp.empty(n, dtype=np.int32))
bench("cp.zeros((1024, 26))", lambda: cp.zeros((1024, 26), dtype=np.int64))
bench("pinned_empty(n int32)", lambda: _backend.pinned_empty(n, np.int32))
bench("np.empty(n int32)", lambda: np.empty(n, dtype=np.int32))
bench("small.get(out=pinned, blocking=False)", lambda: small.get(out=hsmall, blocking=False))
bench("small.get(out=pinned) blocking", lambda: small.get(out=hsmall))
bench("small.get()", lambda: small.get())
bench("wide.get(out=pinned)", lambda: wide.get(out=host))
bench("fill(0) (1024,26)", lambda: small.fill(0))
