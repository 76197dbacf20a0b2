"""``frontier sweep`` and ``frontier ranks``: every method × Δ × batch cell, or each Δ by
Dijkstra rank, timed against SciPy's Dijkstra, into a folder of CSV, JSON and PNG."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine import _validate
from engine._errors import ParameterError
from engine.studies import distributed

from . import _options as opts


def add_parsers(sub) -> None:
    for name, what in (
        ("sweep", "time every method × Δ × batch cell from the same seeded sources"),
        ("ranks", "time point-to-point queries by Dijkstra rank (targets settled 2^r-th)"),
    ):
        _add_parser(sub, name, what)


def _add_parser(sub, name: str, what: str) -> None:
    study = sub.add_parser(
        name,
        help=what,
        epilog=opts.EPILOG,
        description=f"{what[0].upper()}{what[1:]}, each against SciPy's Dijkstra for the same "
        f"query in the same run. Writes DIR/{name}.csv (one row per search, appended as it "
        f"finishes), DIR/{name}.json (what reproduces it) and DIR/{name}.png.",
    )
    opts.graph_options(study)
    study.add_argument(
        "--deltas",
        default="auto" if name == "ranks" else "x0.25,auto,x4",
        metavar="D,D",
        help="Δ values: integers, 'auto', multiples of auto like x4 or x0.5 (default: %(default)s)",
    )
    study.add_argument(
        "--batches", default="64", metavar="B,B", help="batch sizes (default: %(default)s)"
    )
    study.add_argument(
        "--sources", type=opts.count_type("--sources"), default=10 if name == "sweep" else 5,
        metavar="N", help="seeded sources (default: %(default)s)",
    )  # fmt: skip
    study.add_argument("--seed", type=opts.count_type("--seed", 0), default=0, help="source seed")
    study.add_argument(
        "--methods", default="near_far", metavar="M,M", help="methods (default: %(default)s)"
    )
    study.add_argument("--backend", default="auto", metavar="B")
    if name == "sweep":
        study.add_argument(
            "--target-rank", type=opts.count_type("--target-rank", 0), metavar="R",
            help="point-to-point: each source's target is the node at Dijkstra rank 2^R",
        )  # fmt: skip
        study.add_argument(
            "--repeat", type=opts.count_type("--repeat"), default=1, metavar="K",
            help="searches per cell and source (default: %(default)s)",
        )  # fmt: skip
    study.add_argument("--out", required=True, metavar="DIR", help="folder of the results")
    study.add_argument(
        "--resume", action="store_true", help="go on with DIR's CSV, skipping finished cells"
    )
    opts.cluster_options(study, "sources")
    study.set_defaults(run=run)


def run(args) -> int:
    with opts.cluster(args) as client:
        return _run(args, client)


def _run(args, client) -> int:
    from engine.studies import experiments

    graph = opts.load(args, args.graph)
    deltas = experiments.parse_deltas(args.deltas, graph)
    batches = experiments.parse_batches(args.batches)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for m in methods:
        if not _validate.method(m).iterative:
            msg = f"--methods: {m} has no Δ or batch to study; choose iterative methods"
            raise ParameterError(msg)
    opts.contract_for(args, graph, methods)
    sources = experiments.seeded_sources(graph, args.sources, args.seed)
    target_rank = getattr(args, "target_rank", None)
    repeat = getattr(args, "repeat", 1)
    meta = experiments.metadata(
        graph, network=args.network, seed=args.seed, sources=len(sources),
        backend=args.backend, methods=methods, deltas=experiments.delta_values(deltas),
        delta_specs=[s for s, _ in deltas], batches=batches, target_rank=target_rank,
        repeat=repeat, started=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    )  # fmt: skip
    queries = experiments.study_queries(graph, sources, args.command, target_rank)
    files = experiments.StudyFiles(Path(args.out), args.command, meta, resume=args.resume)
    per_query = experiments.searches_per_query(methods, deltas, batches, repeat)
    cells = dict(methods=methods, deltas=deltas, batches=batches, backend=args.backend,
                 repeat=repeat)  # fmt: skip
    try:
        _into(files, args, graph, queries, per_query, cells, client)
    finally:
        files.close()
    inexact = sum(row["exact"] != "True" for row in files.rows)
    if inexact:
        print(f"frontier: {inexact} searches differ from SciPy's Dijkstra", file=sys.stderr)
        return 1
    return 0


def _into(files, args, graph, queries, per_query, cells, client) -> None:
    """Run the study's cells not done yet, appending each row to ``files``, and finish."""
    from tqdm import tqdm

    from engine.studies import experiments, plots

    if client is not None:
        ref = opts.spread(client, args, graph)
        files.meta["cluster"] = {"address": client.scheduler.address,
                                 "workers": distributed.describe_workers(client)}  # fmt: skip
    files.start()
    bar = tqdm(total=per_query * len(queries), unit="search", file=sys.stderr,
               initial=len(files.done), desc=args.command)  # fmt: skip

    def on_row(row: dict) -> None:
        files.append(row)
        bar.update(1)

    try:
        if client is None:
            experiments.run_cells(graph, queries, done=files.done, on_row=on_row, **cells)
        else:
            distributed.run_cells(
                client, ref, graph, queries, done=files.done, on_row=on_row, **cells
            )
            files.rewrite(distributed.order_rows(files.rows, queries, graph.node_ids))
    finally:
        bar.close()
    files.finish(plots.sweep_png if args.command == "sweep" else plots.ranks_png)
    print(f"wrote {files.csv}, {files.json} and {files.png} ({len(files.rows)} searches)")
