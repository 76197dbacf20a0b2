"""Paired: HEAD's engine, this tree's, and this tree's with the end never queued ahead
(END_AHEAD_BATCH huge), rotating search by search in one process.

    python .dev16/endab.py GRAPH METHODS RECORD BATCH
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


head, new = load("engine_head", ".dev16/head/engine"), load("engine", "engine")
import engine._gpu as G  # noqa: E402

AHEAD = G.END_AHEAD_BATCH
graph_name, methods, record, batch = (
    sys.argv[1],
    sys.argv[2].split(","),
    sys.argv[3],
    int(sys.argv[4]),
)
records = {"0": (False,), "1": (True,), "both": (False, True)}[record]
graphs = {}
for label, eng in (("head", head), ("new", new)):
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
    flush=True,
)
VARIANTS = ("head", "new", "noahead")
for m in methods:
    for rec in records:

        def one(label, s, m=m, rec=rec):
            G.END_AHEAD_BATCH = 10**9 if label == "noahead" else AHEAD
            eng, g = (head, graphs["head"]) if label == "head" else (new, graphs["new"])
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = eng.sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
            return time.perf_counter() - t, r

        for s in sources[:3]:
            for v in VARIANTS:
                one(v, s)
        times = {v: [] for v in VARIANTS}
        diffs = {v: [] for v in VARIANTS[1:]}
        for rnd in range(3):
            for k, s in enumerate(sources):
                order = VARIANTS[(k + rnd) % 3 :] + VARIANTS[: (k + rnd) % 3]
                got = {v: one(v, s) for v in order}
                for v in VARIANTS:
                    times[v].append(got[v][0] * 1e3)
                    assert np.array_equal(got["head"][1].distances, got[v][1].distances)
                for v in VARIANTS[1:]:
                    diffs[v].append((got[v][0] - got["head"][0]) * 1e3)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(
            f"{m:15s} rec={rec!s:5s} "
            + "  ".join(f"{v} {med[v]:7.3f}" for v in VARIANTS)
            + "  paired-vs-head "
            + " ".join(f"{v} {statistics.median(d):+.3f}" for v, d in diffs.items()),
            flush=True,
        )
