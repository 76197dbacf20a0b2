"""near_far_async: HEAD's engine (sub-bands each block on its own) against this tree's
(sub-bands in step, held entries dealt over the blocks) at its default sub-band width and
at widths W (async_sub), paired in one process at multiples of Davidson's Delta; and
near_far. Medians and mean counters.

    python .dev16/dealab.py GRAPH[,GRAPH] FACTOR[,FACTOR] [wWIDTH|tTHREADS[,...]]
"""

import dataclasses
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
gpu = importlib.import_module("engine._gpu")
SUB = {"w": None, "t": None}
real = gpu.run


def patched(spec, on_batch=None, **kw):
    return real(spec, on_batch, async_sub=SUB["w"], async_threads=SUB["t"], **kw)


gpu.run = patched
exp = importlib.import_module("engine.experiments")
io = importlib.import_module("engine.io")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
FIELDS = ("edges_relaxed", "queue_items", "held_back", "phases")
extra = sys.argv[3].split(",") if len(sys.argv) > 3 else []  # w4: width 4, t512: 512 threads
CELLS = [("head", None), ("new", None), *[("new", x) for x in extra]]
for name in sys.argv[1].split(","):
    base = io.load_graph(f".dev16/data/pace16/{name}.gr.xz", weights="random:1")
    values = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    graphs = {
        label: importlib.import_module(eng.__name__ + ".graph").CSRGraph(**values)
        for label, eng in engines.items()
    }
    sources = [int(s) for s in exp.seeded_sources(base, 20, 0)]
    auto = base.auto_delta()
    for factor in (float(f) for f in sys.argv[2].split(",")):
        delta = max(1, round(factor * auto))

        def one(cell, s, method="near_far_async", delta=delta, graphs=graphs):
            label, x = cell
            SUB["w"] = int(x[1:]) if x and x[0] == "w" else None
            SUB["t"] = int(x[1:]) if x and x[0] == "t" else None
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engines[label].sssp(
                graphs[label], s, backend="gpu", method=method, delta=delta, batch_size=1024
            )
            return (time.perf_counter() - t) * 1e3, r

        sync = ("new", None)
        for s in sources[:3]:
            for cell in CELLS:
                one(cell, s)
            one(sync, s, "near_far")
        keys = [c[0] + ("" if c[1] is None else "-" + c[1]) for c in CELLS] + ["sync"]
        times = {k: [] for k in keys}
        counts = {k: {f: [] for f in FIELDS} for k in keys}
        diffs = []
        handed = 0
        for rnd in range(3):
            for k, s in enumerate(sources):
                rot = (k + rnd) % len(CELLS)
                order = list(range(len(CELLS)))[rot:] + list(range(len(CELLS)))[:rot]
                got = {keys[i]: one(CELLS[i], s) for i in order}
                got["sync"] = one(sync, s, "near_far")
                diffs.append(got["new"][0] - got["head"][0])
                for key, (ms, r) in got.items():
                    times[key].append(ms)
                    for f in FIELDS:
                        counts[key][f].append(getattr(r.counters, f))
                    assert np.array_equal(got["sync"][1].distances, r.distances), key
                    handed += key != "sync" and r.counters.host_syncs > 1
        print(
            f"{name} x{factor:g} (delta {delta}), handed over {handed}, new - head paired "
            f"{statistics.median(diffs):+.3f} ms",
            flush=True,
        )
        for key in keys:
            c = "  ".join(f"{f} {statistics.mean(counts[key][f]) / 1e6:.4f}M" for f in FIELDS)
            print(f"   {key:8s} {statistics.median(times[key]):7.3f} ms  {c}", flush=True)
