"""near_far_async: HEAD's engine against the relaxed-with marks (relax_taken), paired in one
process at multiples of Davidson's Delta, with near_far; medians and mean counters.

    python .dev16/markab.py GRAPH[,GRAPH] FACTOR[,FACTOR]
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


ENGINES = sys.argv[3].split(",") if len(sys.argv) > 3 else ["head", "new"]
PATHS = {"head": ".dev16/head/engine", "cnt": ".dev16/cnt/engine"}
engines = {
    label: load("engine" if label == "new" else f"engine_{label}", PATHS.get(label, "engine"))
    for label in ENGINES
}
if "new" not in engines:
    engines["new"] = load("engine", "engine")
exp = importlib.import_module("engine.experiments")
io = importlib.import_module("engine.io")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
FIELDS = ("edges_relaxed", "queue_items", "held_back", "stale_dropped")
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

        def one(label, s, method="near_far_async", delta=delta, graphs=graphs):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engines[label].sssp(
                graphs[label], s, backend="gpu", method=method, delta=delta, batch_size=1024
            )
            return (time.perf_counter() - t) * 1e3, r

        for s in sources[:3]:
            for label in ENGINES:
                one(label, s)
            one("new", s, "near_far")
        times = {label: [] for label in [*ENGINES, "sync"]}
        counts = {label: {f: [] for f in FIELDS} for label in times}
        handed = 0
        for rnd in range(3):
            for k, s in enumerate(sources):
                rot = (k + rnd) % len(ENGINES)
                order = ENGINES[rot:] + ENGINES[:rot]
                got = {label: one(label, s) for label in order}
                got["sync"] = one("new", s, "near_far")
                for label, (ms, r) in got.items():
                    times[label].append(ms)
                    for f in FIELDS:
                        counts[label][f].append(getattr(r.counters, f))
                    assert np.array_equal(got["sync"][1].distances, r.distances), label
                    handed += label != "sync" and r.counters.host_syncs > 1
        print(f"{name} x{factor:g} (delta {delta}), handed over {handed}", flush=True)
        for label in times:
            c = "  ".join(f"{f} {statistics.mean(counts[label][f]) / 1e6:.3f}M" for f in FIELDS)
            print(f"   {label:5s} {statistics.median(times[label]):7.3f} ms  {c}", flush=True)
