"""near_far_async with 512- and 1024-thread blocks (this tree, paired in one process) at
multiples of Davidson's Delta, and near_far (the synchronous kernel) at the same Deltas.

    python .dev16/asyncab2.py GRAPH[,GRAPH] FACTOR[,FACTOR]
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
for name in sys.argv[1].split(","):
    g = load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    sources = [int(s) for s in seeded_sources(g, 20, 0)]
    auto = g.auto_delta()
    for factor in (float(f) for f in sys.argv[2].split(",")):
        delta = max(1, round(factor * auto))

        def one(variant, s, delta=delta, g=g):
            threads = {"a512": 512, "a1024": 1024}.get(variant)
            _gpu.run = lambda spec, on_batch=None, t=threads: plain_run(
                spec, on_batch, async_threads=t
            )
            method = "near_far" if variant == "sync" else "near_far_async"
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = sssp(g, s, backend="gpu", method=method, delta=delta, batch_size=1024)
            return (time.perf_counter() - t) * 1e3, r

        variants = ("a512", "a1024", "sync")
        for s in sources[:3]:
            for v in variants:
                one(v, s)
        times = {v: [] for v in variants}
        diffs, handed = [], {v: 0 for v in variants}
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = variants[(k + rnd) % 3 :] + variants[: (k + rnd) % 3]
                got = {v: one(v, s) for v in order}
                for v in variants:
                    times[v].append(got[v][0])
                    assert np.array_equal(got["sync"][1].distances, got[v][1].distances)
                    handed[v] += v != "sync" and got[v][1].counters.host_syncs > 1
                diffs.append(got["a1024"][0] - got["a512"][0])
        med = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{name} x{factor:g} (delta {delta}): async 512 {med['a512']:.3f} 1024 "
            f"{med['a1024']:.3f} paired {statistics.median(diffs):+.3f} ms; near_far "
            f"{med['sync']:.3f}; handed over {handed['a512']}/{handed['a1024']} of 60",
            flush=True,
        )
