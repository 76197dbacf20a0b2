"""The benchmark suite of issue 4: every method on the embedded Helsinki, the shared OSM
cities and the PACE USA road graphs (``random:1`` weights), against SciPy's Dijkstra.

    python bench/run.py [--batch 1024] [--delta auto|adaptive|N] [--sources 20]
        [--out bench/results/latest.json]

Graphs in ``../shared/data`` are skipped when absent. ``FRONTIER_SHARED_DATA`` points
elsewhere; ``FRONTIER_PREBUILT`` names a folder of ``<file>.npz`` CSR graphs saved beforehand
(for machines without pyrosm). Prints the table and writes the rows as JSON.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import engine
from engine.graphs.csr import load_npz
from engine.graphs.io import write_json
from engine.studies.bench import ITERATIVE, benchmark, table

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FRONTIER_SHARED_DATA") or ROOT.parent / "shared" / "data")
CITIES = ["manhattan", "baltimore", "harrisburg", "liechtenstein", "porto_alegre"]
PACE = ["NY", "BAY", "COL", "FLA", "NE"]


def graphs():
    """(label, loader) of every graph of the suite that is present."""
    yield "helsinki", lambda: engine.load_graph("helsinki")
    prebuilt = Path(os.environ.get("FRONTIER_PREBUILT", "/nonexistent"))
    for city in CITIES:
        name = f"{city}.osm.pbf"
        if (prebuilt / f"{name}.npz").is_file():
            yield city, lambda p=prebuilt / f"{name}.npz": load_npz(p)
        elif (SHARED / "osm" / name).is_file():
            yield city, lambda p=SHARED / "osm" / name: engine.load_graph(p, network="drive")
    for region in PACE:
        path = SHARED / "pace16" / f"{region}.gr.xz"
        if path.is_file():
            yield region, lambda p=path: engine.load_graph(p, weights="random:1")


def suite_options(parser: argparse.ArgumentParser, out: Path) -> None:
    """The options of every script that runs the suite: sources, seed, batch, backend, which
    graphs (``--only``) and where the results go."""
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--only", help="comma-separated graph labels to run")
    parser.add_argument("--out", type=Path, default=out)


def chosen(only: str | None):
    """(label, loader) of the suite's graphs that ``--only`` names (all without it)."""
    names = set(only.split(",")) if only else None
    return [(label, load) for label, load in graphs() if names is None or label in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    suite_options(parser, ROOT / "bench" / "results" / "latest.json")
    parser.add_argument("--delta", default="auto", help="an integer, auto or adaptive")
    parser.add_argument("--methods", default=",".join(ITERATIVE))
    args = parser.parse_args()
    rows = []
    for _label, load in chosen(args.only):
        rows += benchmark(
            load(),
            methods=tuple(args.methods.split(",")),
            backend=args.backend,
            sources=args.sources,
            seed=args.seed,
            delta=int(args.delta) if args.delta.isdigit() else args.delta,
            batch_size=args.batch,
        )
        print(table(rows[-len(args.methods.split(",")) :]), flush=True)
    write_json(args.out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
