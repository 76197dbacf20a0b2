"""Where the first search of a new process goes on a large city (issue 68): one search by
each method, in a process of its own, its contraction made inside (a fresh cache folder) or
read from the cache folder, profiled.

    python bench/first_call.py [--nodes 16000000] [--method near_far_core] [--cache DIR]
                               [--top 25] [--backend gpu]

The synthetic city (`engine.graphs.synthetic.city`, seed 19) is made in the process before
the clock starts; then ``engine.sssp(graph, source, method=M, backend="gpu")`` runs under
cProfile (a second process given the first's ``--cache`` folder reads the contraction
from it), and its stages are timed apart: the contraction (`engine.contraction.of`), the
upload and compilation (``prepare``), the search; and the cache file, written on a thread
behind the searches (then waited for, as the process's end would). Prints the
stages, the memory taken (the host's peak; the GPU's in use after both searches; a node's
share of each) and the profile's costliest calls by their own time and by their cumulative
time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=16_000_000)
    parser.add_argument("--method", default="near_far_core")
    parser.add_argument("--cache", help="the cache folder (default: a fresh one)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--backend", default="gpu")
    args = parser.parse_args()
    folder = args.cache or tempfile.mkdtemp(prefix="frontier-cache-")
    os.environ["FRONTIER_CACHE_DIR"] = folder
    import engine
    from engine import contraction
    from engine.backends import gpu as _gpu
    from engine.graphs import io as _io
    from engine.graphs import synthetic

    start = time.perf_counter()
    graph = synthetic.city(args.nodes, seed=19)
    print(f"city of {graph.n_nodes:,} nodes, {graph.n_arcs:,} arcs made in "
          f"{time.perf_counter() - start:.1f} s (not counted)", flush=True)  # fmt: skip
    stages: dict[str, float] = {}

    def clocked(module, name: str, label: str) -> None:
        inner = getattr(module, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                stages[label] = stages.get(label, 0.0) + time.perf_counter() - t

        setattr(module, name, wrapper)

    clocked(contraction.cache, "contract", "contract (build)")
    clocked(_io, "write_atomic", "cache file written")
    clocked(contraction.cache, "_load", "cache file read")
    clocked(_gpu, "prepare", "upload and compile (prepare)")
    clocked(_gpu, "run", "the search (run)")
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    r = engine.sssp(graph, graph.n_nodes // 2, method=args.method, backend=args.backend)
    profile.disable()
    total = time.perf_counter() - start
    again = time.perf_counter()
    engine.sssp(graph, graph.n_nodes // 3, method=args.method, backend=args.backend)
    second = time.perf_counter() - again
    waited = time.perf_counter()
    _io.cache_written()  # a contraction's file is written behind the search
    waited = time.perf_counter() - waited
    behind = stages.pop("cache file written", 0.0)
    print(f"{args.method}: first search {total:.2f} s, the next {second * 1e3:.1f} ms, "
          f"{int((r.distances != engine.UNREACHABLE).sum()):,} nodes reached; cache "
          f"{folder}; its file written behind them in {behind:.2f} s ({waited:.2f} s "
          "more waited for)", flush=True)  # fmt: skip
    for label, seconds in sorted(stages.items(), key=lambda kv: -kv[1]):
        print(f"  {label:32} {seconds:8.2f} s")
    print(f"  {'the rest':32} {total - sum(stages.values()):8.2f} s")
    host = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    line = f"memory: host peak {host / 2**30:.1f} GiB ({host / graph.n_nodes:,.0f} B a node)"
    if args.backend == "gpu":
        from engine.backends import device

        free, whole = device.cupy().cuda.runtime.memGetInfo()
        used, held = whole - free, device.cupy().get_default_memory_pool().total_bytes()
        line += (f"; GPU in use {used / 2**30:.1f} GiB ({used / graph.n_nodes:,.0f} B a "
                 f"node), CuPy's pool {held / 2**30:.1f} GiB")  # fmt: skip
    print(line, flush=True)
    for key in ("tottime", "cumulative"):
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats(key).print_stats(args.top)
        print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[-6000:])
    return 0


if __name__ == "__main__":
    sys.exit(main_())
