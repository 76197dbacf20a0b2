"""``frontier bench``: the methods timed against SciPy's Dijkstra on the same graph."""

from __future__ import annotations

import json
import sys

from engine import _validate
from engine._errors import ParameterError
from engine.graphs import io
from engine.search import DEFAULT_BATCH
from engine.studies.bench import (
    BATCH_TABLE,
    ITERATIVE,
    TABLE,
    batch_fits,
    benchmark,
    benchmark_batch,
    table,
)

from . import _options as opts


def add_parser(sub) -> None:
    bench = sub.add_parser(
        "bench",
        help="time the methods against SciPy's Dijkstra",
        epilog=opts.EPILOG,
        description="Time each method from seeded sources against SciPy's Dijkstra on the "
        "same graph in the same run: medians, speed-up, iterations, µs per iteration, arcs "
        "relaxed, hop depth and (GPU) the ratio to the barrier floor.",
    )
    opts.graph_options(bench, many=True)
    bench.add_argument(
        "--methods",
        metavar="M,M",
        help=f"comma-separated methods (default: {','.join(ITERATIVE)})",
    )
    bench.add_argument(
        "--sources",
        type=opts.count_type("--sources"),
        default=20,
        metavar="N",
        help="sources per graph (default: %(default)s)",
    )
    bench.add_argument(
        "--seed", type=opts.count_type("--seed", 0), default=0, help="source seed (default: 0)"
    )
    bench.add_argument("--delta", default="auto", type=opts.delta_type, metavar="N|auto|adaptive")
    bench.add_argument(
        "--batch", default=DEFAULT_BATCH, type=opts.count_type("--batch"), metavar="N"
    )
    bench.add_argument("--backend", default="auto", metavar="B")
    bench.add_argument("--record", action="store_true", help="time with recording on")
    bench.add_argument("--batch-queries", type=opts.count_type("--batch-queries"), metavar="K",
                       help="trees per second of K searches at once (engine.many_to_many; "
                       "default method near_far) against SciPy on every core")  # fmt: skip
    bench.add_argument("--out", metavar="FILE.json", help="also write the rows to this file")
    bench.set_defaults(run=run)


def run(args) -> int:
    out = opts.output(args.out, ".json")
    if args.batch_queries and args.record:
        msg = "--batch-queries times whole matrices, which are not recorded; drop --record"
        raise ParameterError(msg)
    default = ("near_far",) if args.batch_queries else ITERATIVE
    given = args.methods or ",".join(default)
    methods = tuple(m.strip() for m in given.split(",") if m.strip())
    for m in methods:  # before any graph is loaded or contracted
        _validate.method(m)
    rows = []
    for spec in args.graphs:
        graph = opts.load(args, spec)
        if args.batch_queries:  # refused before the contraction
            batch_fits(graph, args.batch_queries, advice="give fewer --batch-queries")
        opts.contract_for(args, graph, methods)
        if args.batch_queries:
            rows += benchmark_batch(
                graph, queries=args.batch_queries, methods=methods, backend=args.backend,
                seed=args.seed, delta=args.delta, batch_size=args.batch,
                progress=lambda line: print(line, file=sys.stderr, flush=True),
            )  # fmt: skip
            continue
        rows += benchmark(
            graph,
            methods=methods,
            backend=args.backend,
            sources=args.sources,
            seed=args.seed,
            delta=args.delta,
            batch_size=args.batch,
            record=args.record,
        )
    if out is not None:
        io.write_json(out, rows)
    columns = BATCH_TABLE if args.batch_queries else TABLE
    print(json.dumps(rows, indent=2) if args.json else table(rows, columns))
    return 0
