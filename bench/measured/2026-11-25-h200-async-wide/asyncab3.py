"""near_far_async with blocks of THREADSxRINGS shapes (this tree, paired in one process) at
multiples of Davidson's Delta, and near_far (the synchronous kernel) at the same Deltas.

    python .dev16/asyncab3.py GRAPH[,GRAPH] FACTOR[,FACTOR] SHAPE[,SHAPE]   (e.g. 1024x2)
"""

import statistics
import sys
import time

import cupy as cp
import numpy as np

from engine import _gpu, sssp
from engine.experiments import seeded_sources
from engine.io import load_graph

print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
plain_run = _gpu.run
shapes = {v: tuple(int(x) for x in v.split("x")) for v in sys.argv[3].split(",")}
variants = (*shapes, "sync")
for name in sys.argv[1].split(","):
    g = load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    sources = [int(s) for s in seeded_sources(g, 20, 0)]
    auto = g.auto_delta()
    for factor in (float(f) for f in sys.argv[2].split(",")):
        delta = max(1, round(factor * auto))

        def one(variant, s, delta=delta, g=g):
            threads, rings = shapes.get(variant, (None, None))
            _gpu.run = lambda spec, on_batch=None, t=threads, rg=rings: plain_run(
                spec, on_batch, async_threads=t, async_rings=rg
            )
            method = "near_far" if variant == "sync" else "near_far_async"
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = sssp(g, s, backend="gpu", method=method, delta=delta, batch_size=1024)
            return (time.perf_counter() - t) * 1e3, r

        for s in sources[:3]:
            for v in variants:
                one(v, s)
        times = {v: [] for v in variants}
        handed = dict.fromkeys(variants, 0)
        arcs = {v: [] for v in variants}
        n = len(variants)
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = variants[(k + rnd) % n :] + variants[: (k + rnd) % n]
                got = {v: one(v, s) for v in order}
                for v in variants:
                    times[v].append(got[v][0])
                    arcs[v].append(got[v][1].counters.edges_relaxed)
                    assert np.array_equal(got["sync"][1].distances, got[v][1].distances)
                    handed[v] += v != "sync" and got[v][1].counters.host_syncs > 1
        print(
            f"{name} x{factor:g} (delta {delta}): "
            + "  ".join(
                f"{v} {statistics.median(times[v]):.3f} ms "
                f"({statistics.median(arcs[v]) / 1e6:.2f} M arcs, {handed[v]} handed)"
                for v in variants
            ),
            flush=True,
        )
