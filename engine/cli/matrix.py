"""``frontier matrix``: distances from many sources to many targets, in chunks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from engine._errors import ParameterError
from engine._text import ascii_int
from engine.graphs import io
from engine.search import DEFAULT_BATCH, UNREACHABLE
from engine.studies import batch, distributed

from . import _options as opts


def add_parser(sub) -> None:
    matrix = sub.add_parser(
        "matrix",
        help="distances from many sources to many targets",
        epilog=opts.EPILOG,
        description="A distance matrix: every source to every target, exact (SciPy's "
        "Dijkstra gives the same), in chunks that fit a memory bound, with a progress bar. "
        "IDS: comma-separated node ids (one id: '5,'); FILE: a text file of ids, one per "
        "line; N: that many seeded random nodes.",
    )
    opts.graph_options(matrix)
    matrix.add_argument("--sources", required=True, metavar="IDS|FILE|N")
    matrix.add_argument("--targets", default="all", metavar="IDS|FILE|N|all",
                        help="(default: all nodes)")  # fmt: skip
    matrix.add_argument(
        "--seed", type=opts.count_type("--seed", 0), default=0, help="for N random nodes"
    )
    matrix.add_argument("--method", default="near_far", metavar="M")
    matrix.add_argument("--backend", default="auto", metavar="B")
    matrix.add_argument("--delta", default="auto", type=opts.delta_type, metavar="N|auto")
    matrix.add_argument(
        "--batch", default=DEFAULT_BATCH, type=opts.count_type("--batch"), metavar="N"
    )
    matrix.add_argument("--memory-mb", type=opts.count_type("--memory-mb"), metavar="MB",
                        help="bound on one chunk's matrix (default: 512 on the CPU; on the "
                        "GPU, half its free memory)")  # fmt: skip
    matrix.add_argument("--workers", type=opts.count_type("--workers"), metavar="K",
                        help="CPU processes (default: every core, on the CPU backend); with "
                        "--cluster local(-gpu), the workers to start")  # fmt: skip
    matrix.add_argument("--predecessors", action="store_true",
                        help="also write each source's shortest-path tree: .npz 'pred' "
                        "(sources × 'nodes', parent ids, -1 at the source and where "
                        "unreachable); Parquet: each target's parent")  # fmt: skip
    matrix.add_argument("--out", metavar="FILE.npz|FILE.parquet",
                        help="sources, targets (ids) and dist; Parquet in long form")  # fmt: skip
    opts.cluster_options(matrix, "chunks of sources")
    matrix.set_defaults(run=run)


def node_ids(text: str, graph, what: str, seed: int) -> np.ndarray:
    """CSR indices from ``IDS`` (comma-separated), ``FILE`` (one id per line) or ``N``
    (seeded random nodes); a list naming a node twice is refused."""
    from engine.studies.experiments import seeded_sources

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


def run(args) -> int:
    with opts.cluster(args) as client:
        return _run(args, client)


def _run(args, client) -> int:
    from tqdm import tqdm

    suffix = Path(args.out).suffix.lower() if args.out else None
    if suffix not in (None, ".npz", ".parquet"):
        msg = f"--out {args.out} must end in .npz or .parquet"
        raise ParameterError(msg)
    out = opts.output(args.out, suffix)
    if suffix == ".parquet":
        _pyarrow()
    graph = opts.load(args, args.graph)
    sources = node_ids(args.sources, graph, "--sources", args.seed)
    targets = (
        None if args.targets == "all" else node_ids(args.targets, graph, "--targets", args.seed + 1)
    )
    options = dict(method=args.method, backend=args.backend, delta=args.delta,
                   batch_size=args.batch, memory_bytes=args.memory_mb and args.memory_mb * 2**20,
                   predecessors=args.predecessors)  # fmt: skip
    opts.contract_for(args, graph, [args.method])
    ref = client and opts.spread(client, args, graph)
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
