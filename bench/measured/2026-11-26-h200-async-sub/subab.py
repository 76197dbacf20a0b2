"""near_far_async: HEAD's (whole bands), per-block sub-bands (.dev16/unc) and sub-bands in
step across blocks (this tree), with sub-bands of W x Davidson's Delta, paired in one
process; and near_far. python .dev16/subab.py NE,NY 2,4,8,16 2,4"""

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


engines = {
    "head": load("engine_head", ".dev16/head/engine"),
    "unc": load("engine_unc", ".dev16/unc/engine"),
    "new": load("engine", "engine"),
}
SUB = {"unc": 4, "new": 4}
for label in ("unc", "new"):
    gpu = importlib.import_module(engines[label].__name__ + "._gpu")
    real = gpu.run

    def patched(spec, on_batch=None, _real=real, _label=label, **kw):
        return _real(spec, on_batch, async_sub=SUB[_label], **kw)

    gpu.run = patched
exp = importlib.import_module("engine.experiments")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
widths = [int(w) for w in sys.argv[3].split(",")]
for name in sys.argv[1].split(","):
    graphs = {
        label: importlib.import_module(eng.__name__ + ".io").load_graph(
            f".dev16/data/pace16/{name}.gr.xz", weights="random:1"
        )
        for label, eng in engines.items()
    }
    sources = [int(s) for s in exp.seeded_sources(graphs["new"], 20, 0)]
    auto = graphs["new"].auto_delta()
    cells = [("head", 0), *[(e, w) for e in ("unc", "new") for w in widths], ("sync", 0)]
    for factor in (int(f) for f in sys.argv[2].split(",")):
        delta = factor * auto

        def one(label, w, s, delta=delta, graphs=graphs):
            eng = "new" if label == "sync" else label
            if label in SUB:
                SUB[label] = w
            method = "near_far" if label == "sync" else "near_far_async"
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            r = engines[eng].sssp(
                graphs[eng], s, backend="gpu", method=method, delta=delta, batch_size=1024
            )
            return (time.perf_counter() - t) * 1e3, r

        for c in cells:
            one(*c, sources[0])
        times = {c: [] for c in cells}
        handed = dict.fromkeys(cells, 0)
        for rnd in range(2):
            for k, s in enumerate(sources):
                shift = (k + rnd) % len(cells)
                order = cells[shift:] + cells[:shift]
                got = {c: one(*c, s) for c in order}
                for c in cells:
                    times[c].append(got[c][0])
                    handed[c] += got[c][1].counters.iterations > 0 and c[0] != "sync"
                    assert np.array_equal(got[c][1].distances, got[cells[-1]][1].distances)
        med = {c: statistics.median(v) for c, v in times.items()}
        text = " ".join(f"{c[0]}{c[1] or ''} {med[c]:.3f}({handed[c]})" for c in cells)
        print(f"{name} x{factor}: {text}", flush=True)
