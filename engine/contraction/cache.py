"""Each graph's contractions, made once (`of`): kept in memory for as long as the graph
lives, and those of large graphs in the cache folder, named by the graph's arcs and the
code that made them, holding their own name so that a file copied over another is made
again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from engine._errors import GraphTooLargeError
from engine.contraction.build import (
    MAX_DEGREE,
    MAX_ROUNDS,
    MIN_ROUND_SHARE,
    WITNESS_FANOUT,
    Contraction,
    _core_graph,
    contract,
)
from engine.graphs import io
from engine.graphs.csr import CSRGraph

#: Contractions of graphs of at least this many nodes are kept in the cache folder
#: (`of`): on one CPU core here PACE NY (264 k nodes) takes 1.3 s to contract and NE
#: (1.5 M) 7 s, a city of 19 k nodes 0.1 s.
DISK_MIN_NODES = 100_000


#: The limits of each kind of contraction: a *core* (``near_far_core``); a *hierarchy*, no
#: degree limit, whose dense top, where a round contracts under 2 % of the nodes left, is
#: kept as a small core (PHAST's one tree: PACE NE's 66 levels and 4,082 core nodes; each
#: level is a barrier of the sweep); a *whole* hierarchy, every node contracted (PHAST's many
#: trees, which relax a core again and again: NE's 498 levels). Decisions 0090 and 0091.
KINDS = {
    "core": dict(max_degree=MAX_DEGREE, min_round_share=MIN_ROUND_SHARE, max_rounds=MAX_ROUNDS),
    "hierarchy": dict(max_degree=2**31 - 1, min_round_share=0.02, max_rounds=100_000),
    "whole": dict(max_degree=2**31 - 1, min_round_share=0.0, max_rounds=100_000),
}

_made: dict[str, weakref.WeakKeyDictionary] = {k: weakref.WeakKeyDictionary() for k in KINDS}

#: The arrays of a `Contraction` file besides its search graph's.
_ARRAYS = ("round_of", "order", "round_starts", "down_indptr", "down_tails", "down_weights")


def of(
    graph: CSRGraph,
    kind: str = "core",
    *,
    on_round: Callable[[int, int], None] | None = None,
    cache: bool = True,
    xp=np,
) -> Contraction:
    """``graph``'s `Contraction` of this kind, made once for as long as the graph lives.

    Parameters
    ----------
    graph : CSRGraph
    kind : str
        A key of `KINDS`: ``core``, ``hierarchy`` or ``whole``.
    on_round : callable, optional
        As `contract` calls it, while the contraction is made.
    xp : module or callable
        The array module that makes it, as `contract` takes it, or a function of ``graph``
        that returns it (`engine.backends.gpu_contract.contraction_module`), called only when
        the contraction is made.
    cache : bool
        For a graph of at least `DISK_MIN_NODES` nodes, read the contraction from the cache
        folder (`engine.graphs.io.cache_dir`) when an earlier process kept it there, else keep it
        there, written on a thread while the search goes on (`engine.graphs.io.cache_written`
        waits for it; a 16M-node city's took 1.7 s of its first search). Its file is named by
        its kind, the graph's arcs and weights and this module's code, so a changed graph or
        contraction never reads an old one.
    """
    made = _made[kind]
    if graph not in made:
        limits = KINDS[kind]
        if callable(xp):
            xp = xp(graph)
        try:
            if cache and graph.n_nodes >= DISK_MIN_NODES:
                name = _file_name(graph, kind)
                made[graph] = io.through_cache(
                    name,
                    lambda: _contract_for_the_cache(graph, kind, on_round, xp),
                    load=lambda path: _load(graph, path, name),
                    save=lambda c, f: _save(c, f, name),
                    behind=True,  # the first search needs it now, the next process later
                )
            else:
                made[graph] = contract(graph, on_round=on_round, xp=xp, **limits)
        except MemoryError:  # CuPy's and Thrust's too: a hierarchy's dense top can outgrow it
            where = "the GPU" if xp is not np else "this machine"
            msg = (
                f"making {graph.name}'s contraction {kind} ran out of memory on {where}; "
                "use near_far_async, or a machine with more memory"
            )
            raise GraphTooLargeError(msg) from None
    return made[graph]


@functools.cache
def _code() -> str:
    """A hash of the code that makes and writes a contraction (`build` and this module)."""
    h = hashlib.sha256()
    for module in ("build.py", "cache.py"):
        h.update((Path(__file__).parent / module).read_bytes())
    return h.hexdigest()


#: Bytes of a piece of the graph's arrays hashed apart (`_file_name`).
_PIECE = 1 << 25


def _file_name(graph: CSRGraph, kind: str) -> str:
    """The cache file of ``graph``'s contraction of this kind: named by the kind and this
    module's code, then by a hash of the graph's arcs and of the limits: SHA-256 of the
    SHA-256 of each piece of the arrays, the pieces hashed on threads (hashlib lets go of
    the GIL; one after another they took 0.4-0.5 s of a 16M-node city's first search)."""
    limits = [*KINDS[kind].values(), WITNESS_FANOUT]
    pieces = [json.dumps({"limits": limits, "n": graph.n_nodes}).encode()]
    for a in (graph.indptr, graph.indices, graph.weights):
        data = memoryview(np.ascontiguousarray(a).view(np.uint8))
        pieces.append(a.dtype.str.encode())
        pieces += [data[i : i + _PIECE] for i in range(0, a.nbytes, _PIECE)]
    with ThreadPoolExecutor(min(8, os.cpu_count() or 1)) as pool:
        digests = pool.map(lambda piece: hashlib.sha256(piece).digest(), pieces)
        h = hashlib.sha256(b"".join(digests))
    return f"{kind}-{_code()[:12]}-{h.hexdigest()[:24]}.npz"


def _contract_for_the_cache(graph, kind, on_round, xp) -> Contraction:
    """`contract`, after removing the cache folder's contractions of this kind made by other
    versions of this module's code (never read again; PACE NE's core is about 100 MB)."""
    for old in io.cache_dir().glob(f"{kind}-*.npz"):
        if io.CACHE_FILE.fullmatch(old.name) and not old.name.startswith(f"{kind}-{_code()[:12]}-"):
            with contextlib.suppress(OSError):
                old.unlink()
    return contract(graph, on_round=on_round, xp=xp, **KINDS[kind])


def _save(c: Contraction, f, key: str) -> None:
    """Write ``c`` with its cache file's name ``key`` inside (`_load`)."""
    g = c.graph
    numbers = np.array([g.layered_bound, g.core_nodes, g.core_arcs, g.core_weight], np.int64)
    arrays = {name: getattr(c, name) for name in _ARRAYS}
    np.savez(f, indptr=g.indptr, indices=g.indices, weights=g.weights, numbers=numbers,
             cache_key=np.array(key), **arrays)  # fmt: skip


def _load(graph: CSRGraph, path: Path, key: str) -> Contraction:
    """The contraction `_save` wrote (a `GraphFormatError` where its search graph does not
    fit ``graph``, a `ValueError` where the file does not hold its name ``key``: copied over
    another, or of an older layout; both are made again)."""
    start = time.perf_counter()
    z = io.read_npz(path)
    if str(z["cache_key"]) != key:
        msg = f"{path.name} holds another contraction's file"
        raise ValueError(msg)
    searched = _core_graph(graph, z["indptr"], z["indices"], z["weights"], z["numbers"])
    arrays = {name: z[name] for name in _ARRAYS}
    seconds = time.perf_counter() - start
    return Contraction(graph=searched, **arrays, seconds=seconds, from_cache=True)
