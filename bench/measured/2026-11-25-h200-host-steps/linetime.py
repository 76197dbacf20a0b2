"""Host time per source line of a search's Python steps (sys.monitoring LINE events in
engine/_gpu.py and engine/search.py), recorded or not, on Porto Alegre: the time from each
line's start to the next line event of the same call stack, summed per search, medians of
20 sources.  BATCH, METHODS env."""

import collections
import itertools
import os
import statistics
import sys
import time

import cupy as cp

from engine import _gpu, search, sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev16/data/porto_alegre_all.npz")
batch = int(os.environ.get("BATCH", "64"))
src = [int(s) for s in seeded_sources(g, 20, 0)]
methods = tuple(os.environ.get("METHODS", "delta_stepping").split(","))
for m in methods:
    for rec in (False, True):
        for s in src[:3]:
            sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)

mon = sys.monitoring
TOOL = 3
mon.use_tool_id(TOOL, "linetime")
events = []  # (perf_counter_ns, file tag, line)
now = time.perf_counter_ns


def on_line(code, line):
    events.append((now(), code.co_filename.rsplit("/", 1)[-1], line))


mon.register_callback(TOOL, mon.events.LINE, on_line)
for mod in (_gpu, search):
    for obj in list(vars(mod).values()):
        codes = []
        if hasattr(obj, "__code__"):
            codes.append(obj.__code__)
        elif isinstance(obj, type) and obj.__module__ == mod.__name__:
            codes += [f.__code__ for f in vars(obj).values() if hasattr(f, "__code__")]
        for c in codes:
            mon.set_local_events(TOOL, c, mon.events.LINE)
            for const in c.co_consts:  # nested functions (on_batch)
                if hasattr(const, "co_code"):
                    mon.set_local_events(TOOL, const, mon.events.LINE)

for rnd in range(2):
    for m in methods:
        for rec in (False, True):
            per = collections.defaultdict(list)
            walls = []
            for s in src:
                cp.cuda.Device().synchronize()
                events.clear()
                t0 = now()
                sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
                t1 = now()
                walls.append((t1 - t0) / 1e6)
                spent = collections.defaultdict(float)
                marks = [*events, (t1, "end", 0)]
                for (ta, fa, la), (tb, _, _) in itertools.pairwise(marks):
                    spent[f"{fa}:{la}"] += (tb - ta) / 1e6
                for k in set(per) | set(spent):
                    per[k].append(spent.get(k, 0.0))
            print(
                f"== round {rnd} batch {batch} {m} rec={rec} wall {statistics.median(walls):.3f} ms"
                f" (traced)"
            )
            rows = sorted(per.items(), key=lambda kv: -statistics.median(kv[1]))
            for k, v in rows[:45]:
                print(f"   {statistics.median(v):7.3f}  {k}")
