"""``frontier solve`` (one search) and ``frontier info`` (a graph's summary)."""

from __future__ import annotations

import json

import numpy as np

from engine.graphs import io
from engine.methods import METHODS
from engine.search import UNREACHABLE, sssp

from . import _options as opts


def add_parsers(sub) -> None:
    methods = "; ".join(f"{m.name}: {m.summary}" for m in METHODS.values())
    solve = sub.add_parser(
        "solve",
        help="run one search",
        epilog=opts.EPILOG,
        description=f"Run one shortest-path search. Methods: {methods}.",
    )
    opts.graph_options(solve)
    opts.search_options(solve)
    solve.add_argument(
        "--out", metavar="FILE.npz", help="write node_ids, dist and pred (-1: none) to this file"
    )
    solve.set_defaults(run=run_solve)
    info = sub.add_parser(
        "info",
        help="describe a graph",
        epilog=opts.EPILOG,
        description="Nodes, arcs, weight statistics and the auto Δ.",
    )
    opts.graph_options(info)
    info.set_defaults(run=run_info)


def run_info(args) -> int:
    stats = opts.load(args, args.graph).summary()
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        width = max(map(len, stats))
        for key, value in stats.items():
            print(f"{key:<{width}}  {value}")
    return 0


def run_solve(args) -> int:
    graph = opts.load(args, args.graph)
    source = graph.index_of(args.source) if args.source is not None else 0
    target = graph.index_of(args.target) if args.target is not None else None
    out = opts.output(args.out, ".npz")
    opts.contract_for(args, graph, [args.method])
    result = sssp(
        graph,
        source,
        method=args.method,
        backend=args.backend,
        delta=args.delta,
        batch_size=args.batch,
        target=target,
    )
    summary = result.summary()
    if target is not None:
        summary["path_hops"] = (
            max(len(result.path_to(target)) - 1, 0)
            if (result.distances[target] != UNREACHABLE)
            else None
        )
    if out is not None:
        arrays = {"node_ids": graph.node_ids, "dist": result.distances, "pred": result.predecessors}
        io.write_atomic(out, lambda f: np.savez(f, **arrays))
        summary["out"] = str(out)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    unit = graph.weight_unit
    print(
        f"graph      {graph.name}: {graph.n_nodes} nodes, {graph.n_arcs} arcs, "
        f"weights {graph.weight_kind} ({unit})"
    )
    print(
        f"method     {result.method} on {result.backend} ({result.device}), "
        f"Δ={result.delta}, batch={result.batch_size}"
    )
    print(f"source     {summary['source_id']}; reached {summary['reached']} nodes")
    c = result.counters
    print(
        f"work       {c.iterations} iterations, {c.phases} phases, {c.host_syncs} host syncs, "
        f"{c.edges_relaxed} arcs relaxed ({c.improving_relaxations} improving)"
    )
    if c.queue_items:
        print(f"rings      {c.queue_items} near entries taken, no barrier per iteration")
    print(
        f"far pile   {c.far_compactions} compactions, {c.duplicates_dropped} duplicates and "
        f"{c.stale_dropped} settled entries dropped"
    )
    if c.bucket_sorts:
        print(f"buckets    {c.bucket_sorts} sorts of the far nodes into buckets of width Δ")
    print(f"time       {result.elapsed_s * 1e3:.2f} ms")
    if target is not None:
        d = summary.get("target_distance")
        text = "unreachable" if d is None else f"{d} {unit}, {summary['path_hops']} hops"
        print(f"target     {summary['target_id']}: {text}")
    if out is not None:
        print(f"wrote      {out}")
    return 0
