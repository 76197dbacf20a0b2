"""near_far_async, HEAD's engine against this tree's, paired in one process at multiples of
Davidson's Delta; and this tree's near_far (the synchronous kernel) at the same Deltas.

    python .dev16/asyncab.py GRAPH[,GRAPH] FACTOR[,FACTOR]
"""

import importlib.util
import statistics
import sys
import time

import cupy as cp
import numpy as np


def load(name, path):
    spec = importlib.util.spec_from_file_location(
        name, f"{path}/__init__.py", submodule_search_locations=[path]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


engines = {"head": load("engine_head", ".dev16/head/engine"), "new": load("engine", "engine")}
exp = importlib.import_module("engine.experiments")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
for name in sys.argv[1].split(","):
    graphs = {
        label: importlib.import_module(eng.__name__ + ".io").load_graph(
            f".dev16/data/pace16/{name}.gr.xz", weights="random:1"
        )
        for label, eng in engines.items()
    }
    sources = [int(s) for s in exp.seeded_sources(graphs["new"], 20, 0)]
    auto = graphs["new"].auto_delta()
    for factor in (float(f) for f in sys.argv[2].split(",")):
        delta = max(1, round(factor * auto))

        def one(label, s, method="near_far_async", delta=delta, graphs=graphs):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engines[label].sssp(
                graphs[label], s, backend="gpu", method=method, delta=delta, batch_size=1024
            )
            return (time.perf_counter() - t) * 1e3, r

        for s in sources[:3]:
            one("head", s), one("new", s), one("new", s, "near_far")
        times = {"head": [], "new": [], "sync": []}
        diffs = []
        handed = 0
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = ("head", "new") if (k + rnd) % 2 == 0 else ("new", "head")
                got = {label: one(label, s) for label in order}
                got["sync"] = one("new", s, "near_far")
                for label in times:
                    times[label].append(got[label][0])
                    assert np.array_equal(got["sync"][1].distances, got[label][1].distances)
                handed += got["new"][1].counters.host_syncs > 1
                diffs.append(got["new"][0] - got["head"][0])
        med = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{name} x{factor:g} (delta {delta}): async head {med['head']:.3f} new "
            f"{med['new']:.3f} paired {statistics.median(diffs):+.3f} ms; near_far "
            f"{med['sync']:.3f}; new handed over {handed}/60",
            flush=True,
        )
