"""Issue 14: the adaptive Δ against a sweep of fixed Δ, per graph and method.

    python bench/adaptive.py [--sources 20] [--only NE,porto_alegre] [--methods near_far]
                             [--out DIR]

For each graph of the suite (`bench/run.py`'s: the shared OSM cities, ``random:1`` weights
on the PACE graphs, ``FRONTIER_PREBUILT`` for machines without pyrosm), every method with
buckets runs from the same seeded sources at Davidson's Δ times 1/4 … 8 and with
``delta="adaptive"``, the cells interleaved source by source
(`engine.studies.experiments.run_cells`, the sweep's own loop), each distance checked
against SciPy's Dijkstra timed in the same run.
Writes DIR/adaptive.json (every search, and what reproduces it) and DIR/adaptive.png (the
adaptive Δ's median time over the best fixed Δ's), and prints the comparison.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from run import ROOT, chosen, suite_options

from engine.graphs.io import write_json
from engine.studies import experiments

DELTAS = "x0.25,x0.5,auto,x2,x4,x8,adaptive"
METHODS = ["near_far", "near_far_async", "delta_stepping"]


def compare(rows: list[dict]) -> list[dict]:
    """Per method: the best fixed Δ's median time, the adaptive one's, and their ratio."""
    times = defaultdict(list)
    exact = defaultdict(lambda: True)
    for r in rows:
        times[r["method"], r["delta_spec"]].append(float(r["time_ms"]))
        exact[r["method"]] &= bool(r["exact"])
    out = []
    for method in dict.fromkeys(r["method"] for r in rows):
        medians = {s: statistics.median(t) for (m, s), t in times.items() if m == method}
        adaptive = medians.pop("adaptive")
        best = min(medians, key=medians.get)
        out.append({"method": method, "best_fixed": best, "best_ms": medians[best],
                    "adaptive_ms": adaptive, "ratio": adaptive / medians[best],
                    "exact": exact[method]})  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    suite_options(parser, ROOT / "bench" / "results" / "adaptive")
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args()
    methods = args.methods.split(",")
    studies = []
    for label, load in chosen(args.only):
        graph = load()
        deltas = experiments.parse_deltas(DELTAS, graph)
        sources = experiments.seeded_sources(graph, args.sources, args.seed)
        queries = experiments.study_queries(graph, sources, "sweep")
        rows = []
        started = time.perf_counter()
        experiments.run_cells(
            graph, queries, methods=methods, deltas=deltas, batches=[args.batch],
            backend=args.backend, on_row=rows.append,
            on_query=lambda: print(".", end="", file=sys.stderr, flush=True),
        )  # fmt: skip
        meta = experiments.metadata(
            graph, seed=args.seed, sources=len(sources), backend=args.backend, methods=methods,
            deltas=experiments.delta_values(deltas), delta_specs=[s for s, _ in deltas],
            batches=[args.batch],
        )  # fmt: skip
        summary = compare(rows)
        studies.append({"graph": label, "meta": meta, "summary": summary, "rows": rows})
        print(f"\n{label}: {len(rows)} searches in {time.perf_counter() - started:.0f} s")
        for s in summary:
            print(f"  {s['method']:15s} best fixed {s['best_fixed']:6s} {s['best_ms']:8.2f} ms"
                  f"   adaptive {s['adaptive_ms']:8.2f} ms   ×{s['ratio']:.2f}   "
                  f"exact {s['exact']}", flush=True)  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "adaptive.json", studies)
    _plot(studies, methods, args.out / "adaptive.png")
    print(f"wrote {args.out / 'adaptive.json'} and {args.out / 'adaptive.png'}")


def _plot(studies: list[dict], methods: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
    width = 0.8 / len(methods)
    for k, method in enumerate(methods):
        ratios = [next(s["ratio"] for s in st["summary"] if s["method"] == method)
                  for st in studies]  # fmt: skip
        xs = [i + (k - (len(methods) - 1) / 2) * width for i in range(len(studies))]
        ax.bar(xs, ratios, width, label=method)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.axhline(1.1, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(studies)), [st["graph"] for st in studies])
    ax.set_ylabel("adaptive ÷ best fixed Δ (median time)")
    device = studies[0]["meta"].get("device", "") if studies else ""
    ax.set_title(f"Adaptive Δ against the best of Δ×¼…8, {device}", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
