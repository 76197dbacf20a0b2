"""Device: a timeline of recorded and unrecorded searches (CUPTI through torch.profiler).

PYTHONPATH=ENGINE python3 prof_torch.py GRAPH METHODS OUTDIR
"""

import functools
import sys

import cupy as cp
import torch
from torch.profiler import ProfilerActivity, profile, record_function

from engine import _gpu, recording, search, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz
from engine.io import load_graph

name, methods, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]


def wrap(owner, attr, label):
    f = getattr(owner, attr)

    @functools.wraps(f)
    def g(*a, **k):
        with record_function(label):
            return f(*a, **k)

    setattr(owner, attr, g)


wrap(_gpu, "finish_rows", "finish_rows")
wrap(_gpu._Recorder, "record", "record")
wrap(_gpu._Recorder, "take_batch", "take_batch")
wrap(recording.Recording, "append", "rec.append")
wrap(recording.Recording, "take_relax_slots", "take_relax_slots")
wrap(recording.Recording, "__init__", "Recording()")
wrap(_gpu, "prepare", "prepare")
wrap(_gpu, "run", "run")
wrap(_gpu, "_launch_elementwise", "launch_elementwise")
wrap(_gpu, "_initial_row", "initial_row")
wrap(_gpu._backend, "pinned_empty", "pinned_empty")
wrap(search, "RunSpec", "RunSpec")
g = (
    load_npz(f".dev15/data/{name}")
    if name.endswith(".npz")
    else load_graph(f".dev15/data/{name}.gr.xz", weights="random:1")
)
src = [int(s) for s in seeded_sources(g, 8, 0)]
torch.cuda.init()
for method in methods:
    for record in (False, True):
        for s in src[:4]:
            sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
        cp.cuda.Device().synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for s in src[4:]:
                with record_function(f"sssp {method} rec={record}"):
                    sssp(g, s, backend="gpu", method=method, record=record, batch_size=1024)
                cp.cuda.Device().synchronize()
        prof.export_chrome_trace(f"{out}/{name}-{method}-{record}.json")
        print(method, record, "traced", flush=True)
