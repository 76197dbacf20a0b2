import numpy as np

from engine import _gpu, sssp
from engine.methods import METHODS, RunSpec
from tests.graphs import random_graph

g = random_graph(np.random.default_rng(3), 50_000, 200_000, max_weight=100)
spec = RunSpec(g, 0, METHODS["near_far_async"], 10**6, 16, None, g.distance_dtype(), None)
_gpu.prepare(g, spec)
ref = sssp(g, 0, method="dijkstra").distances
for sub, held in [(0, 64), (0, 8192), (0, 65536), (1, 64), (1, 8192), (4, 8192), (2, 8192)]:
    dist, c, _ = _gpu.run(
        spec, ring_capacity=2048, stage_capacity=2048, held_capacity=held, async_sub=sub
    )
    print(
        sub,
        held,
        "exact",
        np.array_equal(dist, ref),
        "iters",
        c.iterations,
        "phases",
        c.phases,
        "held",
        c.held_back,
        "queued",
        c.queue_items,
        flush=True,
    )
