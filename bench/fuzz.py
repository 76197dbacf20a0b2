"""A seeded search campaign against SciPy's Dijkstra (engine.testing.fuzz), with a progress bar.

    python bench/fuzz.py --searches 10000 --backend gpu --max-nodes 120000 --seed 21 \
        [--timeout 20] [--out bench/results/fuzz.json]
    python bench/fuzz.py --files 10000 --seed 21 [--timeout 10]

With ``--files`` it mutates valid graph files instead and loads each (engine.testing.fuzz's file
campaign): a load must succeed, with right distances, or end in a one-line error.

Every search is one method at one Δ and batch size on one drawn graph, checked node by node;
each runs under a watchdog (``--timeout`` seconds) so a hang is counted, not waited on. Prints
the counts and the failures with their reproducers, writes them as JSON, and exits 1 when any
search was wrong, raised or hung.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tqdm import tqdm

from engine.graphs.io import write_json
from engine.testing import fuzz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=10_000)
    parser.add_argument("--files", type=int, help="mutated files to load instead")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--max-nodes", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per search")
    parser.add_argument("--max-seconds", type=float, help="start no case after this long")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    bar = tqdm(
        total=args.files or args.searches, unit="file" if args.files else "search", file=sys.stderr
    )

    def progress(report: fuzz.Report) -> None:
        bar.update(report.searches - bar.n)
        bar.set_postfix(wrong=report.wrong, errors=report.errors, hangs=report.hangs)

    if args.files:
        report = fuzz.file_campaign(
            args.files, seed=args.seed, timeout_s=args.timeout, progress=progress
        )
    else:
        report = fuzz.campaign(
            args.searches,
            seed=args.seed,
            backend=args.backend,
            max_nodes=args.max_nodes,
            timeout_s=args.timeout,
            max_seconds=args.max_seconds,
            progress=progress,
        )
    bar.close()
    for failure in report.failures:
        print(f"{failure['kind']}: {failure['outcome']}\n  {failure.get('reproduce', '')}")
    print(f"{report.line()} in {report.elapsed_s:.1f} s on {report.device}")
    if args.out:
        record = report.as_dict() | {"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_json(args.out, record)
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
