"""Where near_far_async's cycles go (instrumented copy in .dev15/prof)."""

import sys

import cupy as cp
import numpy as np

from engine import _gpu, sssp
from engine.graph import load_npz
from engine.io import load_graph

clock_khz = cp.cuda.runtime.getDeviceProperties(0)["clockRate"]
for name in sys.argv[1].split(","):
    g = (
        load_npz(f".data/{name}")
        if name.endswith(".npz")
        else load_graph(f".data/{name}.gr.xz", weights="random:1")
    )
    sssp(g, 0, method="near_far_async", backend="gpu")
    ptr = _gpu._module().get_global("prof")
    prof = cp.ndarray((32,), cp.uint64, memptr=ptr)
    for delta in sys.argv[2].split(","):
        acc = np.zeros(32)
        runs = 5
        for src in range(runs):
            prof[:] = 0
            r = sssp(
                g,
                src * 997 % g.n_nodes,
                method="near_far_async",
                backend="gpu",
                delta=int(delta) if delta != "auto" else "auto",
            )
            acc += prof.get().astype(float)
        p = acc / runs

        def us(cycles):
            return cycles / clock_khz * 1e3

        blocks, warps, phases = 16, 16 * 16, max(r.counters.phases, 1)
        takes, tot = max(p[14], 1), p[0] + p[1] + p[2]
        print(
            f"{name} delta={delta} phases={r.counters.phases} items/run={p[3]:.0f} "
            f"takes={p[14]:.0f} entries/take={p[3] / takes:.2f}"
        )
        print(
            f"  per block: kernel {us(p[11] / blocks):.0f} us, drain {us(p[8] / blocks):.0f}, "
            f"phase ends {us(p[9] / blocks):.0f} ({us(p[9] / blocks) / phases:.1f}/phase), "
            f"barrier-1 wait {us(p[10] / blocks):.0f}"
        )
        print(
            f"  per warp in drain: idle {us(p[0] / warps):.0f} us ({p[0] / tot:.0%}), "
            f"take {us(p[1] / warps):.0f} ({p[1] / tot:.0%}), work {us(p[2] / warps):.0f} "
            f"({p[2] / tot:.0%}); idle loops {p[13] / warps:.0f}"
        )
        print(
            f"  per take: take {us(p[1] / takes) * 1e3:.0f} ns, work {us(p[2] / takes) * 1e3:.0f} "
            f"ns; queue wait per entry {us(p[4] / max(p[5], 1)) * 1e3:.0f} ns",
            flush=True,
        )
