"""The fixed cost of a GPU iteration by frontier width: ``width`` chains of unit-weight arcs
(both ways) hang from one source, so every iteration relaxes a frontier of exactly ``width``
nodes and improves one head per node. Δ exceeds every distance (one phase, no far pile), so
the time per iteration is the barrier, the dependent memory accesses and the bookkeeping of
an iteration, with no phase ends.

    python bench/chains.py [--widths 1,128,512,2048] [--iterations 8000] [--out FILE.json]

Needs a CUDA GPU. Prints µs per iteration (median of 5 searches, end to end, so the host's
share of a search, about 0.5 ms, adds 0.06–0.25 µs per iteration at these lengths).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from engine import sssp
from engine.graphs.csr import CSRGraph, from_arcs


def chains(width: int, length: int) -> CSRGraph:
    """``width`` paths of ``length`` nodes from node 0, every arc in both directions."""
    nodes = np.arange(1, 1 + width * length).reshape(width, length)
    tails = np.concatenate([np.zeros(width, np.int64), nodes[:, :-1].ravel()])
    heads = np.concatenate([nodes[:, 0], nodes[:, 1:].ravel()])
    both_tails, both_heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
    weights = np.ones(both_tails.size, np.int64)
    return from_arcs(1 + width * length, both_tails, both_heads, weights, name=f"chains{width}")


def measure(width: int, length: int, *, batch_size: int, repeats: int = 5) -> dict:
    graph = chains(width, length)
    delta = length + 1
    sssp(graph, 0, backend="gpu", delta=delta, batch_size=batch_size)  # upload, compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = sssp(graph, 0, backend="gpu", delta=delta, batch_size=batch_size)
        times.append(time.perf_counter() - start)
    if int(result.distances.max()) != length:
        msg = f"chains{width}: farthest node at {result.distances.max()}, expected {length}"
        raise AssertionError(msg)
    seconds = statistics.median(times)
    iterations = result.counters.iterations
    return {
        "width": width,
        "iterations": iterations,
        "ms": seconds * 1e3,
        "us_per_iteration": seconds * 1e6 / iterations,
        "device": result.device,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", default="1,128,512,2048")
    parser.add_argument("--iterations", type=int, default=8000, help="chain length")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args()
    rows = []
    for width in (int(w) for w in args.widths.split(",")):
        length = max(2000, args.iterations * 128 // max(width, 128))
        rows.append(measure(width, length, batch_size=args.batch))
        row = rows[-1]
        print(
            f"width {row['width']:6,d}: {row['iterations']:7,d} iterations, "
            f"{row['ms']:8.2f} ms, {row['us_per_iteration']:.3f} µs per iteration",
            flush=True,
        )
    print(f"device: {rows[0]['device']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
