"""cProfile of recorded and unrecorded searches on Porto Alegre (BATCH env)."""

import cProfile
import os
import pstats

from engine import sssp
from engine.experiments import seeded_sources
from engine.graph import load_npz

g = load_npz(".dev16/data/porto_alegre_all.npz")
batch = int(os.environ.get("BATCH", "64"))
src = [int(s) for s in seeded_sources(g, 40, 0)]
m = os.environ.get("METHOD", "delta_stepping")
for rec in (False, True):
    for s in src[:5]:
        sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
    p = cProfile.Profile()
    p.enable()
    for s in src:
        sssp(g, s, backend="gpu", method=m, record=rec, batch_size=batch)
    p.disable()
    print(f"==== {m} rec={rec} batch {batch}: 40 searches")
    pstats.Stats(p).sort_stats("tottime").print_stats(28)
