"""The ``frontier`` command line: solve, info, bench, animate, frame, sweep and ranks."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from . import _validate, adaptive, batch, contraction, distributed, io, osm, replay
from ._errors import FrontierError, ParameterError
from ._text import ascii_int
from .bench import (
    BATCH_TABLE,
    ITERATIVE,
    RECORDABLE,
    TABLE,
    benchmark,
    benchmark_batch,
    table,
)
from .export import FORMATS, export, format_of, frame_range
from .methods import BACKENDS, METHODS
from .render import parse_size
from .replay import SUFFIX
from .search import DEFAULT_BATCH, UNREACHABLE, sssp

EPILOG = (
    "GRAPH is 'helsinki' (the embedded default, © OpenStreetMap contributors), "
    "'place:NAME' (osmnx download), or a file: .osm.pbf, .osm[.gz|.bz2], .graphml, "
    "DIMACS .gr or PACE (plain, .gz, .xz)."
)


#: The most text a DIMACS/PACE file may hold once decompressed, by default (MiB): the whole
#: USA graph of the 9th DIMACS challenge is 1.3 GiB.
MAX_TEXT_MB = 4096


def _graph_options(p: argparse.ArgumentParser, *, many: bool = False) -> None:
    if many:
        p.add_argument("graphs", metavar="GRAPH", nargs="+", help="graphs to load (see below)")
    else:
        p.add_argument("graph", metavar="GRAPH", help="graph to load (see below)")
    p.add_argument(
        "--network",
        default=io.DEFAULT_NETWORK,
        choices=list(osm.NETWORKS),
        help="OSM network type (default: %(default)s)",
    )
    p.add_argument(
        "--weight",
        default=io.DEFAULT_WEIGHT,
        choices=list(osm.WEIGHTS),
        help="OSM weight: length in cm or travel_time in ms (default: %(default)s)",
    )
    p.add_argument(
        "--weights",
        metavar="unit|random:SEED",
        help="DIMACS/PACE: unit weights or seeded random weights in 1..1000",
    )
    p.add_argument(
        "--coords",
        metavar="FILE",
        help="DIMACS/PACE: the .co file of node coordinates (default: GRAPH's stem + .co "
        "beside it, when there is one)",
    )
    p.add_argument(
        "--no-cache", action="store_true", help="ignore the cache of graphs and contraction cores"
    )
    p.add_argument(
        "--max-text-mb",
        type=_count("--max-text-mb"),
        default=MAX_TEXT_MB,
        metavar="MB",
        help="DIMACS/PACE: refuse a file of more text than this once decompressed; comments "
        "are not held (default: %(default)s MiB)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _search_options(p: argparse.ArgumentParser) -> None:
    """The options of one search: source, target, method, Δ, batch size, backend."""
    p.add_argument(
        "--source", metavar="ID", help="source node id as in the data (default: the first node)"
    )
    p.add_argument("--target", metavar="ID", help="stop once this node's distance is final")
    p.add_argument(
        "--method",
        default="near_far",
        metavar="M",
        help=f"one of {', '.join(METHODS)} (default: %(default)s)",
    )
    p.add_argument(
        "--delta",
        default="auto",
        type=_delta,
        metavar="N|auto|adaptive",
        help="bucket width Δ (default: auto, Davidson's c·w̄/d̄; adaptive[:LOW-HIGH]: chosen "
        f"per phase, for {', '.join(m.name for m in METHODS.values() if m.uses_delta)})",
    )
    p.add_argument(
        "--batch",
        default=DEFAULT_BATCH,
        type=_count("--batch"),
        metavar="N",
        help="relax iterations between host checks (default: %(default)s)",
    )
    p.add_argument(
        "--backend",
        default="auto",
        metavar="B",
        help=f"one of {', '.join(BACKENDS)} (default: %(default)s)",
    )


def _delta(text: str):
    """An integer Δ, ``auto``, or an adaptive rule (``adaptive``, ``adaptive:LOW-HIGH``),
    whose bounds `sssp` checks against the graph."""
    if text == "auto" or adaptive.is_adaptive(text):
        return text
    value = ascii_int(text, signed=True)
    if value is None:
        msg = f"--delta must be an integer ≥ 1, 'auto' or 'adaptive[:LOW-HIGH]', got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _count(flag: str, least: int = 1):
    """An argparse type for an integer option of at least ``least``, whose error names
    ``flag``."""

    def parse(text: str) -> int:
        value = ascii_int(text, signed=True)
        if value is None or value < least:
            msg = f"{flag} must be an integer ≥ {least}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is in ``--help``)."""

    def error(self, message: str):
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="frontier",
        description="Shortest-path searches (Near-Far, Δ-stepping, Bellman-Ford, Dijkstra) "
        "on road graphs, on the GPU or the CPU.",
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    methods = "; ".join(f"{m.name}: {m.summary}" for m in METHODS.values())
    solve = sub.add_parser(
        "solve",
        help="run one search",
        epilog=EPILOG,
        description=f"Run one shortest-path search. Methods: {methods}.",
    )
    _graph_options(solve)
    _search_options(solve)
    solve.add_argument(
        "--out", metavar="FILE.npz", help="write node_ids, dist and pred (-1: none) to this file"
    )
    info = sub.add_parser(
        "info",
        help="describe a graph",
        epilog=EPILOG,
        description="Nodes, arcs, weight statistics and the auto Δ.",
    )
    _graph_options(info)
    bench = sub.add_parser(
        "bench",
        help="time the methods against SciPy's Dijkstra",
        epilog=EPILOG,
        description="Time each method from seeded sources against SciPy's Dijkstra on the "
        "same graph in the same run: medians, speed-up, iterations, µs per iteration, arcs "
        "relaxed, hop depth and (GPU) the ratio to the barrier floor.",
    )
    _graph_options(bench, many=True)
    bench.add_argument(
        "--methods",
        metavar="M,M",
        help=f"comma-separated methods (default: {','.join(ITERATIVE)}; with --record: "
        f"{','.join(RECORDABLE)})",
    )
    bench.add_argument(
        "--sources",
        type=_count("--sources"),
        default=20,
        metavar="N",
        help="sources per graph (default: %(default)s)",
    )
    bench.add_argument(
        "--seed", type=_count("--seed", 0), default=0, help="source seed (default: 0)"
    )
    bench.add_argument("--delta", default="auto", type=_delta, metavar="N|auto|adaptive")
    bench.add_argument("--batch", default=DEFAULT_BATCH, type=_count("--batch"), metavar="N")
    bench.add_argument("--backend", default="auto", metavar="B")
    bench.add_argument("--record", action="store_true", help="time with recording on")
    bench.add_argument("--batch-queries", type=_count("--batch-queries"), metavar="K",
                       help="trees per second of K searches at once (engine.many_to_many; "
                       "default method near_far) against SciPy on every core")  # fmt: skip
    bench.add_argument("--out", metavar="FILE.json", help="also write the rows to this file")
    matrix = sub.add_parser(
        "matrix",
        help="distances from many sources to many targets",
        epilog=EPILOG,
        description="A distance matrix: every source to every target, exact (SciPy's "
        "Dijkstra gives the same), in chunks that fit a memory bound, with a progress bar. "
        "IDS: comma-separated node ids (one id: '5,'); FILE: a text file of ids, one per "
        "line; N: that many seeded random nodes.",
    )
    _graph_options(matrix)
    matrix.add_argument("--sources", required=True, metavar="IDS|FILE|N")
    matrix.add_argument("--targets", default="all", metavar="IDS|FILE|N|all",
                        help="(default: all nodes)")  # fmt: skip
    matrix.add_argument("--seed", type=_count("--seed", 0), default=0, help="for N random nodes")
    matrix.add_argument("--method", default="near_far", metavar="M")
    matrix.add_argument("--backend", default="auto", metavar="B")
    matrix.add_argument("--delta", default="auto", type=_delta, metavar="N|auto")
    matrix.add_argument("--batch", default=DEFAULT_BATCH, type=_count("--batch"), metavar="N")
    matrix.add_argument("--memory-mb", type=_count("--memory-mb"), metavar="MB",
                        help="bound on one chunk's matrix (default: 512 on the CPU; on the "
                        "GPU, half its free memory)")  # fmt: skip
    matrix.add_argument("--workers", type=_count("--workers"), metavar="K",
                        help="CPU processes (default: every core, on the CPU backend); with "
                        "--cluster local(-gpu), the workers to start")  # fmt: skip
    matrix.add_argument("--predecessors", action="store_true",
                        help="also write each source's shortest-path tree: .npz 'pred' "
                        "(sources × 'nodes', parent ids, -1 at the source and where "
                        "unreachable); Parquet: each target's parent")  # fmt: skip
    matrix.add_argument("--out", metavar="FILE.npz|FILE.parquet",
                        help="sources, targets (ids) and dist; Parquet in long form")  # fmt: skip
    _cluster_options(matrix, "chunks of sources")
    for name, what in (
        ("animate", "draw a recorded search frame by frame (GIF, MP4), or save its frames"),
        ("frame", "draw one frame of a recorded search (PNG)"),
    ):
        _picture_parser(sub, name, what)
    for name, what in (
        ("sweep", "time every method × Δ × batch cell from the same seeded sources"),
        ("ranks", "time point-to-point queries by Dijkstra rank (targets settled 2^r-th)"),
    ):
        _study_parser(sub, name, what)
    return parser


def _picture_parser(sub, name: str, what: str) -> None:
    formats = "; ".join(f"{k}: {v}" for k, v in FORMATS.items())
    p = sub.add_parser(
        name,
        help=what,
        epilog=EPILOG + f" GRAPH may also be a replay ({SUFFIX}): its search is drawn as saved.",
        description=f"{what[0].upper()}{what[1:]}. The search runs with recording on (a "
        f"replay is reopened instead). Formats by the name of --out: {formats}.",
    )
    _graph_options(p)
    _search_options(p)
    if name == "animate":
        p.add_argument("--out", required=True, metavar="FILE", help="FILE.gif, .mp4, .csv or "
                       f"{SUFFIX}")  # fmt: skip
        p.add_argument("--fps", type=_count("--fps"), default=10, help="frames per second")
        p.add_argument("--frames", metavar="A:B", help="frames A to B only (default: all)")
    else:
        p.add_argument("--out", required=True, metavar="FILE.png")
        p.add_argument("--frame", type=_count("--frame", 0), metavar="K",
                       help="the frame to draw (default: the last)")  # fmt: skip
    p.add_argument("--size", metavar="WxH", help="picture size (default: 800 wide, the "
                   "graph's shape)")  # fmt: skip
    p.set_defaults(parser=p)  # a replay refuses the search options given (`_not_for_replay`)


#: The options that choose a graph or a search, which a replay has recorded already.
SEARCH_FLAGS = ("network", "weight", "weights", "coords", "source", "target", "method",
                "delta", "batch", "backend")  # fmt: skip


def _not_for_replay(args) -> None:
    """Refuse search options given with a replay: it is drawn as it was recorded."""
    given = [f"--{d}" for d in SEARCH_FLAGS if getattr(args, d) != args.parser.get_default(d)]
    if given:
        msg = (
            f"{', '.join(given)} cannot change a replay, which draws its recorded search; "
            "leave them out, or give the graph instead of the replay"
        )
        raise ParameterError(msg)


def _study_parser(sub, name: str, what: str) -> None:
    study = sub.add_parser(
        name,
        help=what,
        epilog=EPILOG,
        description=f"{what[0].upper()}{what[1:]}, each against SciPy's Dijkstra for the same "
        f"query in the same run. Writes DIR/{name}.csv (one row per search, appended as it "
        f"finishes), DIR/{name}.json (what reproduces it) and DIR/{name}.png.",
    )
    _graph_options(study)
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
        "--sources", type=_count("--sources"), default=10 if name == "sweep" else 5,
        metavar="N", help="seeded sources (default: %(default)s)",
    )  # fmt: skip
    study.add_argument("--seed", type=_count("--seed", 0), default=0, help="source seed")
    study.add_argument(
        "--methods", default="near_far", metavar="M,M", help="methods (default: %(default)s)"
    )
    study.add_argument("--backend", default="auto", metavar="B")
    if name == "sweep":
        study.add_argument(
            "--target-rank", type=_count("--target-rank", 0), metavar="R",
            help="point-to-point: each source's target is the node at Dijkstra rank 2^R",
        )  # fmt: skip
        study.add_argument(
            "--repeat", type=_count("--repeat"), default=1, metavar="K",
            help="searches per cell and source (default: %(default)s)",
        )  # fmt: skip
    study.add_argument("--out", required=True, metavar="DIR", help="folder of the results")
    study.add_argument(
        "--resume", action="store_true", help="go on with DIR's CSV, skipping finished cells"
    )
    _cluster_options(study, "sources")


def _cluster_options(p, what: str) -> None:
    p.add_argument(
        "--cluster", metavar="local|local-gpu|tcp://HOST:PORT",
        help=f"spread the {what} over a Dask cluster: processes here, one worker per GPU "
        "here, or a running scheduler (pip install 'frontier[dask]')",
    )  # fmt: skip
    if what == "sources":  # matrix has its own --workers (CPU processes)
        p.add_argument("--workers", type=_count("--workers"), metavar="K",
                       help="with --cluster local(-gpu): workers to start (default: up to "
                       f"{distributed.MAX_LOCAL_WORKERS} processes, or one per GPU)")  # fmt: skip


def _load(args, spec):
    return io.load_graph(
        spec,
        network=args.network,
        weight=args.weight,
        weights=args.weights,
        cache=not args.no_cache,
        coordinates=args.coords or "auto",
        max_bytes=args.max_text_mb * 2**20,
    )


def _contract_for(args, graph, methods) -> None:
    """Make ``graph``'s contraction core now, a line a round, when one of ``methods``
    searches it (PACE NE takes seconds; later runs read it from the cache)."""
    if not any(_validate.method(m).contracted for m in methods):
        return

    def line(r: int, left: int) -> None:
        msg = f"frontier: contracting {graph.name}: round {r + 1}, {left:,} nodes left in the core"
        print(msg, file=sys.stderr, flush=True)

    core = contraction.core_of(graph, on_round=line, cache=not args.no_cache)
    if core.from_cache:
        took = f"{core.seconds:.2f} s"
        msg = f"frontier: {graph.name}'s contraction core read from the cache ({took})"
        print(msg, file=sys.stderr, flush=True)


def _info(args) -> int:
    stats = _load(args, args.graph).summary()
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        width = max(map(len, stats))
        for key, value in stats.items():
            print(f"{key:<{width}}  {value}")
    return 0


def _bench(args) -> int:
    out = _output(args.out, ".json")
    if args.batch_queries and args.record:
        msg = "--batch-queries times whole matrices, which are not recorded; drop --record"
        raise ParameterError(msg)
    default = ("near_far",) if args.batch_queries else RECORDABLE if args.record else ITERATIVE
    given = args.methods or ",".join(default)
    methods = tuple(m.strip() for m in given.split(",") if m.strip())
    for m in methods:
        checked = _validate.method(m)
        if args.record:  # before any graph is loaded or contracted
            _validate.recordable(checked)
    rows = []
    for spec in args.graphs:
        graph = _load(args, spec)
        _contract_for(args, graph, methods)
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


def _output(given: str | None, suffix: str) -> Path | None:
    """The path ``--out`` names, checked before any work: written exactly as given (a
    temporary file renamed over it), so it must end in ``suffix`` and lie in a folder."""
    if given is None:
        return None
    if not given.strip():
        msg = f"--out is empty; give a file name ending in {suffix}"
        raise ParameterError(msg)
    out = Path(given)
    if out.is_dir():
        msg = f"--out {given} is a folder; give a file name ending in {suffix}"
        raise ParameterError(msg)
    if out.name.lower() == suffix:  # a name that is all extension: Path(".npz").suffix is ""
        msg = f"--out {given} has no name before {suffix}; give one like result{suffix}"
        raise ParameterError(msg)
    if out.suffix.lower() != suffix:
        msg = f"--out {given} must end in {suffix}"
        raise ParameterError(msg)
    if not out.parent.is_dir():
        msg = f"cannot write {given}: folder {str(out.parent)!r} does not exist"
        raise ParameterError(msg)
    if not os.access(out.parent, os.W_OK):
        msg = f"cannot write {given}: folder {str(out.parent)!r} is not writable"
        raise ParameterError(msg)
    return out


def _solve(args) -> int:
    graph = _load(args, args.graph)
    source = graph.index_of(args.source) if args.source is not None else 0
    target = graph.index_of(args.target) if args.target is not None else None
    out = _output(args.out, ".npz")
    _contract_for(args, graph, [args.method])
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


def _node_ids(text: str, graph, what: str, seed: int) -> np.ndarray:
    """CSR indices from ``IDS`` (comma-separated), ``FILE`` (one id per line) or ``N``
    (seeded random nodes); a list naming a node twice is refused."""
    from .experiments import seeded_sources

    text = text.strip()
    count = ascii_int(text)
    if count is not None:
        if count < 1:
            msg = f"{what} must be a count ≥ 1, node ids ('5,' for one) or a file, got {text}"
            raise ParameterError(msg)
        return np.sort(seeded_sources(graph, count, seed))
    if "," not in text and Path(text).is_file():
        items = Path(text).read_text().split()
        where = f"{what} file {text}"
    else:
        items = [t.strip() for t in text.split(",") if t.strip()]
        where = what
    if not items:
        msg = f"{where}: give at least one node id"
        raise ParameterError(msg)
    seen: set[str] = set()
    for item in items:
        if item in seen:
            msg = f"{where} names node {item} twice; give each node once"
            raise ParameterError(msg)
        seen.add(item)
    return np.array([graph.index_of(item) for item in items], dtype=np.int64)


def _matrix(args) -> int:
    with _cluster(args) as client:
        return _run_matrix(args, client)


def _run_matrix(args, client) -> int:
    from tqdm import tqdm

    suffix = Path(args.out).suffix.lower() if args.out else None
    if suffix not in (None, ".npz", ".parquet"):
        msg = f"--out {args.out} must end in .npz or .parquet"
        raise ParameterError(msg)
    out = _output(args.out, suffix)
    if suffix == ".parquet":
        _pyarrow()
    graph = _load(args, args.graph)
    sources = _node_ids(args.sources, graph, "--sources", args.seed)
    targets = (
        None
        if args.targets == "all"
        else _node_ids(args.targets, graph, "--targets", args.seed + 1)
    )
    options = dict(method=args.method, backend=args.backend, delta=args.delta,
                   batch_size=args.batch, memory_bytes=args.memory_mb and args.memory_mb * 2**20,
                   predecessors=args.predecessors)  # fmt: skip
    _contract_for(args, graph, [args.method])
    ref = client and _spread(client, args, graph)
    bar = tqdm(total=len(sources), unit="tree", file=sys.stderr, desc="matrix")
    options["on_chunk"] = lambda rows, _d: bar.update(len(rows))
    try:
        if client is None:
            on_cpu = batch.plan(graph, args.method, args.backend)[0] == "cpu"
            workers = args.workers or (batch.default_workers() if on_cpu else 1)
            m = batch.many_to_many(graph, sources, targets, workers=workers, **options)
        else:
            m = distributed.many_to_many(client, ref, graph, sources, targets, **options)
    finally:
        bar.close()
    ids = graph.node_ids
    parents = None
    if args.predecessors:  # parents as node ids, -1 kept where there is none
        parents = np.where(m.predecessors >= 0, ids[np.maximum(m.predecessors, 0)], -1)
    if out is not None:
        if suffix == ".npz":
            arrays = {"sources": ids[m.sources], "targets": ids[m.targets], "dist": m.dist}
            if parents is not None:
                arrays |= {"pred": parents, "nodes": ids}
            io.write_atomic(out, lambda f: np.savez(f, **arrays))
        else:
            ends = None if parents is None else parents[:, m.targets]
            io.write_atomic(
                out, lambda f: _parquet(f, ids[m.sources], ids[m.targets], m.dist, ends)
            )
    reached = int(np.count_nonzero(m.dist != UNREACHABLE))
    summary = {
        "graph": graph.name, "sources": len(m.sources), "targets": len(m.targets),
        "method": m.method, "backend": m.backend, "chunks": m.chunks,
        "elapsed_s": round(m.elapsed_s, 4), "trees_per_s": round(m.trees_per_s, 2),
        "reachable_pairs": reached, "out": None if out is None else str(out),
    }  # fmt: skip
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['sources']:,} × {summary['targets']:,} distances on {m.backend} "
              f"({m.method}) in {m.elapsed_s:.2f} s: {m.trees_per_s:,.1f} trees/s, "
              f"{reached:,} pairs reachable" + (f"; wrote {out}" if out else ""))  # fmt: skip
    return 0


def _pyarrow():
    try:
        import pyarrow
    except ImportError:
        msg = "Parquet output needs pyarrow: pip install 'frontier[parquet]' (or write .npz)"
        raise ParameterError(msg) from None
    return pyarrow


def _parquet(f, sources: np.ndarray, targets: np.ndarray, dist: np.ndarray, parents) -> None:
    """The matrix in long form (source, target, distance), one row per pair, and the
    target's parent in the source's tree when ``parents`` (sources × targets) is given."""
    pa = _pyarrow()
    import pyarrow.parquet as pq

    columns = {
        "source": np.repeat(sources, len(targets)),
        "target": np.tile(targets, len(sources)),
        "distance": dist.ravel(),
    }
    if parents is not None:
        columns["predecessor"] = parents.ravel()
    pq.write_table(pa.table(columns), f)


def _picture(args) -> int:
    from tqdm import tqdm

    kind = format_of(args.out)
    if args.command == "frame" and kind != ".png":
        msg = f"--out {args.out} must end in .png (frontier animate writes the other formats)"
        raise ParameterError(msg)
    if args.command == "animate" and kind == ".png":
        msg = f"--out {args.out}: frontier frame draws PNGs; animate writes {', '.join(FORMATS)}"
        raise ParameterError(msg)
    _output(args.out, Path(args.out).suffix.lower())
    size = parse_size(args.size) if args.size else None
    if args.graph.lower().endswith(SUFFIX):
        _not_for_replay(args)
        result, source = replay.load(args.graph)
    else:
        m = _validate.method(args.method)
        if m.name not in RECORDABLE:  # before the graph loads
            msg = f"{m.name} has no iterations to draw; give one of {', '.join(RECORDABLE)}"
            raise ParameterError(msg)
        graph = _load(args, args.graph)
        result = sssp(
            graph,
            graph.index_of(args.source) if args.source is not None else 0,
            method=args.method,
            backend=args.backend,
            delta=args.delta,
            batch_size=args.batch,
            target=graph.index_of(args.target) if args.target is not None else None,
            record=True,
        )
        source = {"spec": args.graph, "network": args.network, "weight": args.weight,
                  "weights": args.weights}  # fmt: skip
    options = dict(size=size, source=source)
    if args.command == "frame":
        options["frame"] = args.frame
    elif kind in (".gif", ".mp4"):
        frames = frame_range(args.frames, len(result.recording))
        bar = tqdm(total=len(frames), unit="frame", file=sys.stderr, desc=Path(args.out).name)
        options |= dict(fps=args.fps, frames=args.frames, progress=lambda k: bar.update(1))
    try:
        out = export(result, args.out, **options)
    finally:
        if "progress" in options:
            bar.close()
    print(f"wrote {out} ({out.stat().st_size:,} bytes, {len(result.recording)} frames recorded)")
    return 0


@contextlib.contextmanager
def _cluster(args):
    """The Dask client of ``--cluster``, connected before the graph loads (a scheduler that
    does not answer is told at once); None without it, and nothing of Dask imported."""
    if not args.cluster:
        yield None
        return
    with distributed.connect(args.cluster, workers=args.workers) as client:
        print(f"frontier: Dask dashboard at {client.dashboard_link}", file=sys.stderr)
        yield client


def _spread(client, args, graph) -> distributed.GraphRef:
    """How the workers load ``graph``; each loads it now and keeps it."""
    ref = distributed.GraphRef.of(
        args.graph, network=args.network, weight=args.weight, weights=args.weights,
        coordinates=args.coords or "auto",
    )  # fmt: skip
    addresses = distributed.prepare(client, ref, graph)
    print(f"frontier: {len(addresses)} workers hold {graph.name}", file=sys.stderr)
    return ref


def _study(args) -> int:
    with _cluster(args) as client:
        return _run_study(args, client)


def _run_study(args, client) -> int:
    from . import experiments

    graph = _load(args, args.graph)
    deltas = experiments.parse_deltas(args.deltas, graph)
    batches = experiments.parse_batches(args.batches)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for m in methods:
        if not _validate.method(m).iterative:
            msg = f"--methods: {m} has no Δ or batch to study; choose iterative methods"
            raise ParameterError(msg)
    _contract_for(args, graph, methods)
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
        _study_into(files, args, graph, queries, per_query, cells, client)
    finally:
        files.close()
    inexact = sum(row["exact"] != "True" for row in files.rows)
    if inexact:
        print(f"frontier: {inexact} searches differ from SciPy's Dijkstra", file=sys.stderr)
        return 1
    return 0


def _study_into(files, args, graph, queries, per_query, cells, client) -> None:
    """Run the study's cells not done yet, appending each row to ``files``, and finish."""
    from tqdm import tqdm

    from . import experiments, plots

    if client is not None:
        ref = _spread(client, args, graph)
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``frontier`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        commands = {
            "info": _info,
            "solve": _solve,
            "bench": _bench,
            "animate": _picture,
            "matrix": _matrix,
            "frame": _picture,
        }
        return commands.get(args.command, _study)(args)
    except FrontierError as exc:
        print(f"frontier: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"frontier: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 2
    except MemoryError:
        msg = "frontier: error: out of memory; free some, or take a smaller graph or fewer sources"
        print(msg, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("frontier: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
