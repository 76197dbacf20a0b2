"""Paired timing of two engines in one process: this tree's `engine` and HEAD's (loaded from
.dev16/head/engine as `engine_head`), alternating search by search, so that a host's
process-to-process spread does not hide host-side changes of tens of µs.

    python .dev16/pair.py GRAPH METHODS RECORD BATCH [DELTA]
GRAPH: an .npz under .dev16/data or a PACE name; METHODS comma-separated; RECORD 0/1/both.
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
graph_name, methods, record, batch = (
    sys.argv[1],
    sys.argv[2].split(","),
    sys.argv[3],
    int(sys.argv[4]),
)
delta = sys.argv[5] if len(sys.argv) > 5 else "auto"
delta = int(delta) if delta.isdigit() else delta
records = {"0": (False,), "1": (True,), "both": (False, True)}[record]
graphs = {}
for label, eng in engines.items():
    if graph_name.endswith(".npz"):
        graphs[label] = importlib.import_module(eng.__name__ + ".graph").load_npz(
            f".dev16/data/{graph_name}"
        )
    else:
        graphs[label] = importlib.import_module(eng.__name__ + ".io").load_graph(
            f".dev16/data/pace16/{graph_name}.gr.xz", weights="random:1"
        )
exp = importlib.import_module("engine.experiments")
sources = [int(s) for s in exp.seeded_sources(graphs["new"], 20, 0)]
print(
    cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
    graph_name,
    f"batch {batch}",
    f"delta {delta}",
    flush=True,
)
for m in methods:
    for rec in records:

        def one(label, s, m=m, rec=rec):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engines[label].sssp(
                graphs[label], s, backend="gpu", method=m, record=rec, batch_size=batch, delta=delta
            )
            return time.perf_counter() - t, r

        for s in sources[:3]:
            one("head", s), one("new", s)
        times = {"head": [], "new": []}
        diffs = []
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = ("head", "new") if (k + rnd) % 2 == 0 else ("new", "head")
                got = {}
                for label in order:
                    got[label] = one(label, s)
                    times[label].append(got[label][0] * 1e3)
                assert np.array_equal(got["head"][1].distances, got["new"][1].distances)
                diffs.append((got["new"][0] - got["head"][0]) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{m:15s} rec={rec!s:5s} head {med['head']:7.3f} ms  new {med['new']:7.3f} ms  "
            f"paired new-head {statistics.median(diffs):+.3f} ms  (n={len(diffs)})",
            flush=True,
        )
