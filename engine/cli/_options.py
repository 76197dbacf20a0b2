"""What the commands share: the options that choose a graph and a search, their argparse
types, loading the graph, the contraction core, ``--out`` and Dask clusters."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from engine import _validate, adaptive, contraction
from engine._errors import ParameterError
from engine._text import ascii_int
from engine.backends.gpu_contract import contraction_module
from engine.graphs import io, osm
from engine.methods import BACKENDS, METHODS
from engine.search import DEFAULT_BATCH
from engine.studies import distributed

EPILOG = (
    "GRAPH is 'helsinki' (the embedded default, © OpenStreetMap contributors), "
    "'place:NAME' (osmnx download), 'city:NODES' (a seeded synthetic city of that size), "
    "or a file: .osm.pbf, .osm[.gz|.bz2], .graphml, "
    "DIMACS .gr or PACE (plain, .gz, .xz)."
)


def graph_options(p: argparse.ArgumentParser, *, many: bool = False) -> None:
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
        metavar="length|travel_time|NAME",
        help="OSM weight: length in cm or travel_time in ms; for GraphML also the name of "
        "another weight on its edges, whole numbers (default: %(default)s)",
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
        type=count_type("--max-text-mb"),
        metavar="MB",
        help="refuse a DIMACS/PACE, GraphML or OSM XML file of more text than this once "
        "decompressed; DIMACS comments are not held (default: what the memory free can "
        "read, at most 4096 MiB)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def search_options(p: argparse.ArgumentParser) -> None:
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
        type=delta_type,
        metavar="N|auto|adaptive",
        help="bucket width Δ (default: auto, Davidson's c·w̄/d̄; adaptive[:LOW-HIGH]: chosen "
        f"per phase, for {', '.join(m.name for m in METHODS.values() if m.uses_delta)})",
    )
    p.add_argument(
        "--batch",
        default=DEFAULT_BATCH,
        type=count_type("--batch"),
        metavar="N",
        help="relax iterations between host checks (default: %(default)s)",
    )
    p.add_argument(
        "--backend",
        default="auto",
        metavar="B",
        help=f"one of {', '.join(BACKENDS)} (default: %(default)s)",
    )


def delta_type(text: str):
    """An integer Δ, ``auto``, or an adaptive rule (``adaptive``, ``adaptive:LOW-HIGH``),
    whose bounds `sssp` checks against the graph."""
    if text == "auto" or adaptive.is_adaptive(text):
        return text
    value = ascii_int(text, signed=True)
    if value is None:
        msg = f"--delta must be an integer ≥ 1, 'auto' or 'adaptive[:LOW-HIGH]', got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def count_type(flag: str, least: int = 1):
    """An argparse type for an integer option of at least ``least``, whose error names
    ``flag``."""

    def parse(text: str) -> int:
        value = ascii_int(text, signed=True)
        if value is None or value < least:
            msg = f"{flag} must be an integer ≥ {least}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def cluster_options(p, what: str) -> None:
    p.add_argument(
        "--cluster", metavar="local|local-gpu|tcp://HOST:PORT",
        help=f"spread the {what} over a Dask cluster: processes here, one worker per GPU "
        "here, or a running scheduler (pip install 'frontier[dask]')",
    )  # fmt: skip
    if what == "sources":  # matrix has its own --workers (CPU processes)
        p.add_argument("--workers", type=count_type("--workers"), metavar="K",
                       help="with --cluster local(-gpu): workers to start (default: up to "
                       f"{distributed.MAX_LOCAL_WORKERS} processes, or one per GPU)")  # fmt: skip


def load(args, spec):
    return io.load_graph(
        spec,
        network=args.network,
        weight=args.weight,
        weights=args.weights,
        cache=not args.no_cache,
        coordinates=args.coords or "auto",
        max_bytes=None if args.max_text_mb is None else args.max_text_mb * 2**20,
    )


def contract_for(args, graph, methods) -> None:
    """Make ``graph``'s contractions now, with a line of progress at most every half
    second, when ``methods`` search them (one tree or many): a core (PACE NE takes seconds)
    or a hierarchy (hundreds of rounds); later runs read them from the cache."""
    kinds = dict.fromkeys(_validate.method(m).contraction for m in methods)
    for kind in filter(None, kinds):
        what = {"core": "contraction core", "hierarchy": "contraction hierarchy"}[kind]
        shown = [0.0]

        def line(r: int, left: int, what=what, shown=shown) -> None:
            now = time.monotonic()
            if now - shown[0] < 0.5 and left:
                return
            shown[0] = now
            msg = f"frontier: making {graph.name}'s {what}: round {r + 1}, {left:,} nodes left"
            print(msg, file=sys.stderr, flush=True)

        xp = contraction_module(graph)
        made = contraction.of(graph, kind, on_round=line, cache=not args.no_cache, xp=xp)
        if made.from_cache:
            msg = f"frontier: {graph.name}'s {what} read from the cache ({made.seconds:.2f} s)"
            print(msg, file=sys.stderr, flush=True)


def output(given: str | None, suffix: str) -> Path | None:
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


@contextlib.contextmanager
def cluster(args):
    """The Dask client of ``--cluster``, connected before the graph loads (a scheduler that
    does not answer is told at once); None without it, and nothing of Dask imported."""
    if not args.cluster:
        yield None
        return
    with distributed.connect(args.cluster, workers=args.workers) as client:
        print(f"frontier: Dask dashboard at {client.dashboard_link}", file=sys.stderr)
        yield client


def spread(client, args, graph) -> distributed.GraphRef:
    """How the workers load ``graph``; each loads it now and keeps it."""
    ref = distributed.GraphRef.of(
        args.graph, network=args.network, weight=args.weight, weights=args.weights,
        coordinates=args.coords or "auto",
    )  # fmt: skip
    addresses = distributed.prepare(client, ref, graph)
    print(f"frontier: {len(addresses)} workers hold {graph.name}", file=sys.stderr)
    return ref
