"""Host timeline of a search, recorded or not, on Porto Alegre: the time between consecutive
host marks (launches, waits, the recorder's steps), summed per search, medians over 20
sources.  BATCH, METHODS env. (For the tree before 2026-11-25's host steps: it re-states
_RecordingBlock.finish and _Recorder.record with marks between their steps.)"""

import collections
import itertools
import os
import statistics
import time

import cupy as cp
import numpy as np

from engine import _gpu, sssp
from engine._gpu_rows import count_rows
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev16/data/porto_alegre_all.npz")
batch = int(os.environ.get("BATCH", "64"))
src = [int(s) for s in seeded_sources(g, 20, 0)]
methods = tuple(os.environ.get("METHODS", "delta_stepping").split(","))
marks = []


def mark(name):
    marks.append((name, time.perf_counter()))


class Marked:
    def __init__(self, f, name):
        self.f, self.name = f, name

    def __getattr__(self, attr):
        return getattr(self.f, attr)

    def __call__(self, *a, **k):
        mark(self.name + "(")
        self.f(*a, **k)
        mark(self.name + ")")


for m in methods:
    for rec in (False, True):
        for s in src[:3]:
            sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
kernel, function, run = _gpu._kernel, _gpu._function, _gpu.run
_gpu._kernel = lambda scope, *a: Marked(kernel(scope, *a), "search")
_gpu._function = lambda name: Marked(function(name), name.split("<")[0])


def marked_run(*a, **k):
    mark("run(")
    out = run(*a, **k)
    mark("run)")
    return out


_gpu.run = marked_run


def marked_finish(self, pile_cap):
    _gpu.finish_batch(self.frames, self.ctl, pile_cap, self.sums)
    host = self.memory[: self.copied].get(
        out=_gpu._backend.pinned_empty(self.copied, np.int64), blocking=False
    )
    mark("fin.wait(")
    cp.cuda.get_current_stream().synchronize()
    mark("fin.wait)")
    state = host[: _gpu.C_SLOTS].view(np.uint64)
    k = int(state[_gpu.C_ITER] - state[_gpu.C_RFROM])
    bins = self._rows(host, self.sizes_at, self.bins)[:k] if self.bins else None
    out = state, self._rows(host, self.rows_at, _gpu.ROW_FIELDS)[:k], bins
    mark("fin)")
    return out


def marked_record(self, relax_log, state):
    mark("rec(")
    rec, n = self.rec, self.near_at.size
    ended = int(state[_gpu.C_PHASE]) - 1 + bool(state[_gpu.C_DONE])
    stamps = cp.empty((3, n), dtype=np.int32)
    width = int(state[_gpu.C_ITER]) + 1
    counts = cp.zeros((3, width), dtype=np.int64)
    args = (self.reached_at, self.near_at, np.int64(n), self.ends, np.int32(ended), stamps)
    _gpu._launch_over("stamp_nodes", n, (*args, counts, np.int32(width)))
    stamps.get(out=rec.stamps, blocking=False)
    counts = counts.get(out=_gpu._backend.pinned_empty(counts.shape, np.int64), blocking=False)
    used = int(state[_gpu.C_LOGPOS])
    slots = relax_log[:used].get(out=_gpu._backend.pinned_empty(used, np.int32), blocking=False)
    mark("rec.copies")
    batches, self.batches = self.batches, []
    rows = np.concatenate([r[:, : len(_gpu.FRAME_FIELDS)] for r, _ in batches])
    done = int(state[_gpu.C_DONE])
    mark("rec.wait(")
    cp.cuda.get_current_stream().synchronize()
    mark("rec.wait)")
    np.cumsum(counts, axis=1, out=counts)
    if batches[0][1] is None:
        count_rows(rows, counts, done=done)
        rec.append(rows)
    else:
        bins = [b for _, b in batches]
        count_rows(rows, counts, done=done, buckets=bins)
        mark("rec.count_rows")
        start = 0
        for sizes in bins:
            rec.append(rows[start : start + len(sizes)], sizes)
            start += len(sizes)
    rec.take_relax_slots(slots)
    mark("rec)")


_gpu._RecordingBlock.finish = marked_finish
_gpu._Recorder.record = marked_record

for rnd in range(2):
    for m in methods:
        for rec in (False, True):
            per = collections.defaultdict(list)
            walls = []
            for s in src:
                cp.cuda.Device().synchronize()
                marks.clear()
                mark("sssp(")
                sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
                mark("sssp)")
                spent = collections.defaultdict(float)
                for (a, ta), (b, tb) in itertools.pairwise(marks):
                    spent[f"{a} -> {b}"] += tb - ta
                for k, v in spent.items():
                    per[k].append(v * 1e3)
                walls.append((marks[-1][1] - marks[0][1]) * 1e3)
            wall = statistics.median(walls)
            print(f"== round {rnd} batch {batch} {m} rec={rec} wall {wall:.3f} ms")
            for k, v in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
                print(f"   {statistics.median(v):7.3f}  n={len(v):2d}  {k}")
