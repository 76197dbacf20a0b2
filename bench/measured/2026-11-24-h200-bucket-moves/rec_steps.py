"""Device: a recorded search's host time step by step (record() copied with checkpoints).

python3 rec_steps.py GRAPHS METHOD
"""

import collections
import statistics
import sys
import time

import cupy as cp
import numpy as np

from engine import _backend, _gpu, sssp
from engine._gpu import C_DONE, C_ITER, C_LOGPOS, _launch_over, finish_rows
from engine.experiments import seeded_sources
from engine.graph import load_npz
from engine.io import load_graph

spent = collections.defaultdict(list)
sync = cp.cuda.Device().synchronize
marks = [0.0]


def t(name):
    sync()
    now = time.perf_counter()
    spent[name].append(now - marks[0])
    marks[0] = now


def record(self, relax_log, state):
    sync()
    marks[0] = time.perf_counter()
    rec, n = self.rec, self.near_at.size
    raw = np.concatenate([rows for rows, _ in self.batches])
    bins = None if self.batches[0][1] is None else cp.concatenate([b for _, b in self.batches])
    self.batches.clear()
    ended = int(state[_gpu.C_PHASE]) - 1 + bool(state[C_DONE])
    t("concat")
    stamps = cp.empty((3, n), dtype=np.int32)
    width = int(state[C_ITER]) + 1
    counts = cp.zeros((3, width), dtype=np.int64)
    t("alloc")
    args = (self.reached_at, self.near_at, np.int64(n), self.ends, np.int32(ended), stamps)
    _launch_over("stamp_nodes", n, (*args, counts, np.int32(width)))
    t("stamp_nodes")
    stamps.get(out=rec.stamps)
    t("stamps get")
    counts = np.cumsum(counts.get(), axis=1)
    t("counts get")
    done, left = int(state[C_DONE]), _gpu._frontier_size(state)
    rows = finish_rows(
        raw,
        self.carry,
        done=done,
        next_frontier=left,
        counts=counts,
        pile_cap=self.pile_cap,
        buckets=bins,
    )
    t("finish_rows")
    if bins is not None:
        out = _backend.pinned_empty(bins.size, np.int64).reshape(bins.shape)
        t("pinned")
        bins = bins.get(out=out)
        t("bins get")
    rec.append(rows, bins)
    t("append")
    used = int(state[C_LOGPOS])
    rec.take_relax_slots(relax_log[:used].get(out=_backend.pinned_empty(used, np.int32)))
    t("log get")


_gpu._Recorder.record = record
plain_run = _gpu.run


def run(*a, **k):
    t0 = time.perf_counter()
    out = plain_run(*a, **k)
    spent["run()"].append(time.perf_counter() - t0)
    return out


_gpu.run = run
method = sys.argv[2]
for name in sys.argv[1].split(","):
    g = (
        load_npz(f".dev15/data/{name}")
        if name.endswith(".npz")
        else load_graph(f".dev15/data/{name}.gr.xz", weights="random:1")
    )
    src = [int(s) for s in seeded_sources(g, 10, 0)]
    for record_ in (False, True):
        sssp(g, src[0], backend="gpu", method=method, record=record_, batch_size=1024)
        spent.clear()
        for k in range(20):
            s = src[k % 10]
            sync()
            t0 = time.perf_counter()
            r = sssp(g, s, backend="gpu", method=method, record=record_, batch_size=1024)
            spent["sssp"].append(time.perf_counter() - t0)
        print(
            name,
            method,
            "record" if record_ else "plain",
            r.counters.iterations,
            "it",
            "  ".join(f"{k} {statistics.median(v) * 1e3:.3f}" for k, v in spent.items()),
            flush=True,
        )
