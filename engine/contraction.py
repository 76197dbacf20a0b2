"""A road graph's contraction core: fewer hops for the search, a sweep for the rest.

Road graphs are mostly nodes of degree two to four, and a search's time on the GPU is its
longest chain of improvements, one hop at a time (decisions/0001: PACE NE's shortest-path
trees are ≈ 1,800 arcs deep). Contracting low-degree nodes, as contraction hierarchies do
(Geisberger et al., WEA 2008) but stopping at a *core* of the nodes left, shortens those
chains; PHAST (Delling et al., IPDPS 2011) then finishes a whole tree by one sweep over the
contracted nodes, in the reverse order of their contraction.

`contract` removes, round after round, an independent set of nodes of at most
``max_degree`` neighbours. For each removed node ``x`` and each pair of arcs ``a → x → b``
it adds the shortcut ``a → b`` of their summed weight, unless a *witness* ``a → y → b``
through a node ``y`` that the round keeps weighs no more (a witness search of two hops), so
every shortest path between the nodes left keeps its length. Witnesses leave out a third of
the shortcuts on road graphs, which keeps the nodes left of few neighbours, so that more of
them go: on PACE NE with seeded weights, nodes of at most 8 neighbours leave a core of 2.6 % of
the nodes, with a third of the arcs of the core that nodes of at most 4 left without
witnesses (decisions/0070). It keeps:

* the *search graph*: the core's arcs (the original arcs between core nodes and the
  shortcuts), and, out of each contracted node, its arcs *up* to the neighbours it had when
  it was removed (contracted later, or core);
* the arcs *down* into each contracted node from those neighbours, by round.

A search from ``s`` on the search graph climbs from ``s`` to the core and settles every core
node exactly (every shortest path is a climb then a core path, as in a contraction
hierarchy's query); `sweep` then gives each contracted node, last round first, the least
``d(a) + w(a → x)`` over its arcs down. Method ``near_far_core`` runs Near-Far this way.

With no degree limit the rounds go on to a *hierarchy* (`KINDS`, `of`): PHAST's (method
``phast``), whose top is kept as a small core for one tree, or *whole*, every node
contracted, for many trees at once. `levels` lays a contraction out by level for those, and
`trees` is the NumPy twin of the GPU's many-trees kernel (decisions/0090, 0091).

Every round is array passes over all the arcs (sorts, binary searches, counts), written for
an array module: NumPy on one CPU core, or CuPy on the GPU (``xp``), with the same result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import time
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine._errors import GraphTooLargeError
from engine.graphs import io
from engine.graphs._validate import contraction_size
from engine.graphs.csr import (
    AUTO_DELTA_C,
    MAX_WEIGHT,
    UNREACHABLE,
    CSRGraph,
    lightest_arcs,
)

#: Contract nodes of at most this many neighbours. With witnesses, of 4, 6, 8 and 12 on the
#: PACE graphs and Porto Alegre, 8 gave the fastest searches but on NE and FLA, where 12
#: was faster by 2–12 % (and Porto Alegre 18 % slower): decisions/0070.
MAX_DEGREE = 8
#: Stop once a round would contract fewer than this share of the nodes left.
MIN_ROUND_SHARE = 0.002
MAX_ROUNDS = 64
#: A witness is looked for only from a shortcut's tail of at most this many arcs out, which
#: bounds the search's memory on graphs with hubs (PACE NE's core nodes end with at most 26).
WITNESS_FANOUT = 64
#: Contractions of graphs of at least this many nodes are kept in the cache folder
#: (`of`): on one CPU core here PACE NY (264 k nodes) takes 1.3 s to contract and NE
#: (1.5 M) 7 s, a city of 19 k nodes 0.1 s.
DISK_MIN_NODES = 100_000


@dataclasses.dataclass(frozen=True, eq=False)
class CoreGraph(CSRGraph):
    """The search graph of a `Contraction`: a `CSRGraph` whose relaxations are bounded by
    its layers rather than by all its weights (`candidate_bound`)."""

    #: an upper bound on every value a search and its sweep compute (see `contract`)
    layered_bound: int = 0
    #: the core's nodes, arcs and summed arc weight
    core_nodes: int = 0
    core_arcs: int = 0
    core_weight: int = 0

    def auto_delta(self) -> int:
        """Davidson et al.'s heuristic on the core's arcs: a search relaxes the arcs up out
        of the contracted nodes only on its source's climb. (On PACE NE it is about 0.7 ×
        the heuristic over every arc, and keeps the arcs relaxed, the sweep's among them,
        within 1.4 × Dijkstra's: decisions/0064.)"""
        if self.core_arcs == 0:
            return super().auto_delta()
        mean_weight = self.core_weight / self.core_arcs
        mean_degree = self.core_arcs / max(self.core_nodes, 1)
        return min(max(1, round(AUTO_DELTA_C * mean_weight / mean_degree)), self.max_delta())

    def candidate_bound(self) -> int:
        """The contraction's bound, which holds the sweep's sums too (the search graph's own
        bound, over its arcs only, does not: the arcs down are not among them): a path of
        the search graph climbs at most one arc a round, then visits each core node once
        (leaving it by at most its heaviest arc), and the sweep descends at most one arc a
        round."""
        return self.layered_bound


@dataclasses.dataclass(frozen=True, eq=False)
class Contraction:
    """A graph's contraction core (`contract`).

    Attributes
    ----------
    graph : CoreGraph
        The search graph: core arcs, and arcs up out of each contracted node. Same nodes
        (indices, ids, coordinates) as the original.
    round_of : numpy.ndarray
        ``int32`` round in which each node was contracted, -1 for core nodes.
    order : numpy.ndarray
        ``int32`` contracted nodes, last round first: the sweep's order.
    round_starts : numpy.ndarray
        ``int64``: the sweep's step ``k`` takes ``order[round_starts[k]:round_starts[k+1]]``.
    down_indptr, down_tails, down_weights : numpy.ndarray
        The arcs down into ``order[i]``: ``down_tails[down_indptr[i]:down_indptr[i+1]]``
        (``int64``, ``int32``, ``uint32``).
    seconds : float
        What contracting took, or reading the contraction from the cache folder.
    from_cache : bool
        Whether it was read from the cache folder (`of`).
    """

    graph: CoreGraph
    round_of: np.ndarray
    order: np.ndarray
    round_starts: np.ndarray
    down_indptr: np.ndarray
    down_tails: np.ndarray
    down_weights: np.ndarray
    seconds: float
    from_cache: bool = False

    @property
    def n_rounds(self) -> int:
        return int(self.round_starts.size - 1)

    @property
    def n_core(self) -> int:
        """Nodes left in the core."""
        return int(self.round_of.size - self.order.size)

    @property
    def n_down(self) -> int:
        """Arcs the sweep relaxes."""
        return int(self.down_tails.size)


def _argsort(xp, a):
    """A stable argsort (CuPy's always is)."""
    return np.argsort(a, kind="stable") if xp is np else xp.argsort(a)


def _repeat(xp, values, counts):
    """``values[i]`` ``counts[i]`` times, laid end to end (CuPy repeats by a count only:
    there, the index of each output's value is found by a binary search of the ends)."""
    if xp is np:
        return np.repeat(values, counts)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if ends.size else 0
    return values[xp.searchsorted(ends, xp.arange(total), side="right")]


def _lightest(xp, n, tails, heads, weights):
    """`lightest_arcs` for ``xp``: on CuPy, which has no ``reduceat``, two stable sorts (by
    weight, then by arc) put each pair's lightest arc first."""
    if xp is np:
        return lightest_arcs(n, tails, heads, weights)
    order = xp.argsort(weights)
    key = (tails * n + heads)[order]
    by_key = xp.argsort(key)
    order, key = order[by_key], key[by_key]
    pick = order[xp.concatenate([xp.ones(min(key.size, 1), bool), key[1:] != key[:-1]])]
    return tails[pick], heads[pick], weights[pick]


def _merge(xp, tails, heads, weights, n):
    """Arcs without self loops, the lightest of parallel ones kept, sorted by (tail, head)."""
    keep = tails != heads
    return _lightest(xp, n, tails[keep], heads[keep], weights[keep])


def _neighbour_counts(xp, tails, heads, n):
    """Each node's distinct neighbours (either direction), from arcs sorted by (tail,
    head) without parallel ones: out- plus in-degree less the arcs whose reverse exists."""
    counts = xp.bincount(tails, minlength=n) + xp.bincount(heads, minlength=n)
    if not tails.size:
        return counts
    mutual = _position(xp, tails * n + heads, heads * n + tails) >= 0
    return counts - xp.bincount(tails[mutual], minlength=n)


def _position(xp, keys, wanted):
    """Where each of ``wanted`` is in the sorted ``keys``, -1 where it is not. (NumPy's
    queries are sorted first: its binary search then walks the keys in order, 3 × faster
    on PACE NE's arcs than in the queries' order.)"""
    if not keys.size:
        return xp.full(wanted.size, -1, dtype=np.int64)
    if xp is np:
        order = np.argsort(wanted)
        at = np.empty(wanted.size, dtype=np.int64)
        at[order] = np.searchsorted(keys, wanted[order])
    else:
        at = xp.searchsorted(keys, wanted)
    at = xp.minimum(at, keys.size - 1)
    return xp.where(keys[at] == wanted, at, -1)


def _ranges(xp, first, count):
    """The ranges ``[first[i], first[i] + count[i])`` laid end to end: for each of their
    indices, the range ``i`` it belongs to, and the index."""
    which = _repeat(xp, xp.arange(first.size), count)
    return which, first[which] + xp.arange(which.size) - (xp.cumsum(count) - count)[which]


def _pairs_through(xp, i_tails, i_x, i_w, o_x, o_heads, o_w):
    """Every shortcut ``a → b`` through a removed ``x`` from its arcs in (``a → x``) and
    out (``x → b``), with the summed weight; ``a == b`` dropped."""
    oi = _argsort(xp, i_x)
    i_tails, i_x, i_w = i_tails[oi], i_x[oi], i_w[oi]
    oo = _argsort(xp, o_x)
    o_x, o_heads, o_w = o_x[oo], o_heads[oo], o_w[oo]
    first = xp.searchsorted(o_x, i_x, "left")
    count = xp.searchsorted(o_x, i_x, "right") - first
    arc_in, arc_out = _ranges(xp, first, count)
    tails, heads = i_tails[arc_in], o_heads[arc_out]
    weights = i_w[arc_in] + o_w[arc_out]
    keep = tails != heads
    return tails[keep], heads[keep], weights[keep], i_x[arc_in][keep]


def _witnessed(xp, s_tails, s_heads, s_weights, k_tails, k_heads, k_weights, span):
    """Which shortcuts ``a → b`` have a *witness*: a path ``a → y → b`` of at most their
    weight over the arcs ``k_*`` (sorted by (tail, head)) that the round keeps, so that
    ``y`` is not removed in it; none is looked for from a tail of over `WITNESS_FANOUT`
    arcs."""
    starts = xp.zeros(span + 1, dtype=np.int64)
    starts[1:] = xp.cumsum(xp.bincount(k_tails, minlength=span))
    first = starts[s_tails]
    count = starts[s_tails + 1] - first
    count[count > WITNESS_FANOUT] = 0
    which, arc = _ranges(xp, first, count)
    at = _position(xp, k_tails * span + k_heads, k_heads[arc] * span + s_heads[which])
    hit = (at >= 0) & (k_weights[arc] + k_weights[at] <= s_weights[which])
    found = xp.zeros(s_tails.size, dtype=bool)
    found[which[hit]] = True
    return found


def contract(
    graph: CSRGraph,
    *,
    max_degree: int = MAX_DEGREE,
    min_round_share: float = MIN_ROUND_SHARE,
    max_rounds: int = MAX_ROUNDS,
    on_round: Callable[[int, int], None] | None = None,
    xp=np,
) -> Contraction:
    """Contract ``graph`` down to a core (see the module).

    Parameters
    ----------
    graph : CSRGraph
    max_degree : int
        Contract nodes of at most this many distinct neighbours (either direction).
    min_round_share, max_rounds : float, int
        Stop once a round would contract fewer than this share of the nodes left (and at
        least one), or after this many rounds. With no degree limit, no share and rounds
        enough, no core is left: the contraction is a whole hierarchy (``bench/hierarchy.py``,
        decisions/0090).
    on_round : callable, optional
        Called after each round with (round, nodes left in the core).
    xp : module
        The array module of the rounds: NumPy, or CuPy on the GPU (the same contraction;
        the caller checks that the GPU has the memory, `CONTRACT_BYTES_PER_ARC` an arc).

    Returns
    -------
    Contraction

    Raises
    ------
    GraphTooLargeError
        If contracting would need more memory than is free here.
    """
    contraction_size(graph.n_arcs, graph.name)
    start = time.perf_counter()
    n = graph.n_nodes
    span = max(n, 1)  # arc keys are tail * span + head
    tails, heads, weights = _merge(
        xp,
        xp.asarray(graph.sources.astype(np.int64)),
        xp.asarray(graph.indices.astype(np.int64)),
        xp.asarray(graph.weights.astype(np.int64)),
        span,
    )
    round_of = xp.full(n, -1, dtype=np.int32)
    alive = xp.ones(n, dtype=bool)
    # A node's place in its round's ties: a fixed shuffle, so that chains contract from
    # many places at once.
    tie = xp.asarray(np.random.default_rng(0).permutation(n))
    up, down = [], []
    for r in range(max_rounds):
        degree = _neighbour_counts(xp, tails, heads, span)
        candidate = alive & (degree <= max_degree)
        # Independent: of two neighbouring candidates, the one of fewer neighbours (then the
        # earlier tie) goes: a parallel minimum-degree order (edge difference made more
        # levels or more arcs on PACE NY and NE: decisions/0102).
        rank = degree.astype(np.int64) * span + tie
        both = candidate[tails] & candidate[heads]
        low, high = tails[both], heads[both]
        loser = xp.where(rank[low] > rank[high], low, high)
        chosen = candidate.copy()
        chosen[loser] = False
        into, out_of = chosen[heads], chosen[tails]
        s_tails, s_heads, s_weights, through = _pairs_through(
            xp, *(a[into] for a in (tails, heads, weights)),
            *(a[out_of] for a in (tails, heads, weights)),
        )  # fmt: skip
        # A shortcut heavier than a weight can be keeps its node in the core.
        chosen[through[s_weights > MAX_WEIGHT]] = False
        if int(chosen.sum()) < max(min_round_share * int(alive.sum()), 1):
            break
        into, out_of = chosen[heads], chosen[tails]
        keep = chosen[through]
        kept = ~(into | out_of)
        k_tails, k_heads, k_weights = tails[kept], heads[kept], weights[kept]
        if keep.any():
            shortcuts = (s_tails[keep], s_heads[keep], s_weights[keep])
            keep[keep] = ~_witnessed(xp, *shortcuts, k_tails, k_heads, k_weights, span)
        round_of[chosen] = r
        alive &= ~chosen
        up.append((tails[out_of], heads[out_of], weights[out_of]))
        down.append((tails[into], heads[into], weights[into]))
        tails, heads, weights = _merge(
            xp,
            xp.concatenate([k_tails, s_tails[keep]]),
            xp.concatenate([k_heads, s_heads[keep]]),
            xp.concatenate([k_weights, s_weights[keep]]),
            span,
        )
        if on_round is not None:
            on_round(r, int(alive.sum()))
    return _assemble(graph, xp, tails, heads, weights, round_of, up, down, start)


def _core_graph(graph, indptr, indices, weights, numbers) -> CoreGraph:
    """The `CoreGraph` of ``graph`` of these arcs and ``numbers`` (its layered bound, core
    nodes, core arcs and core weight); nodes as in ``graph``."""
    bound, core_nodes, core_arcs, core_weight = (int(x) for x in numbers)
    return CoreGraph(
        indptr=indptr,
        indices=indices,
        weights=weights,
        node_ids=graph.node_ids,
        lon=graph.lon,
        lat=graph.lat,
        name=f"{graph.name} (core)",
        weight_kind=graph.weight_kind,
        layered_bound=bound,
        core_nodes=core_nodes,
        core_arcs=core_arcs,
        core_weight=core_weight,
    )


def _rows(xp, n, tails, heads, weights):
    """The CSR arrays `from_arcs` makes of these arcs (the lightest of parallel ones, every
    row sorted by weight, then head), with ``xp``: indptr, indices and weights."""
    tails, heads, weights = _lightest(xp, n, tails, heads, weights)
    order = _argsort(xp, (tails << 32) | weights)  # from (tail, head) order, as from_arcs
    indptr = xp.zeros(n + 1, dtype=np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(tails, minlength=n))
    return indptr, heads[order].astype(np.int32), weights[order].astype(np.uint32)


def _heaviest_sum(xp, tails, weights) -> int:
    """The sum over the tails of their heaviest arc's weight."""
    if not tails.size:
        return 0
    key = xp.sort((tails << 32) | weights)
    last = xp.concatenate([key[1:] >> 32 != key[:-1] >> 32, xp.ones(1, bool)])
    return int((key[last] & 0xFFFFFFFF).sum())


def _assemble(graph, xp, tails, heads, weights, round_of, up, down, start) -> Contraction:
    n = graph.n_nodes
    rounds = int(round_of.max()) + 1 if n else 0
    empty = xp.zeros(0, dtype=np.int64)
    up_t, up_h, up_w = (xp.concatenate([a[k] for a in up]) if up else empty for k in range(3))
    dn_t, dn_h, dn_w = (xp.concatenate([a[k] for a in down]) if down else empty for k in range(3))
    core = round_of < 0
    max_up = int(up_w.max()) if up_w.size else 0
    max_down = int(dn_w.max()) if dn_w.size else 0
    max_arc = max(max_up, int(weights.max()) if weights.size else 0)
    bound = rounds * (max_up + max_down) + _heaviest_sum(xp, tails, weights) + max_arc
    searched = _rows(
        xp,
        n,
        xp.concatenate([tails, up_t]),
        xp.concatenate([heads, up_h]),
        xp.concatenate([weights, up_w]),
    )
    numbers = (bound, int(core.sum()), int(weights.size), int(weights.sum()))
    # The sweep: last round first; each contracted node's arcs down, in that order.
    order = _argsort(xp, -round_of.astype(np.int64))[: int((~core).sum())]
    order = order.astype(np.int32)
    per_round = xp.bincount(round_of[order], minlength=rounds)[::-1]
    round_starts = xp.zeros(rounds + 1, dtype=np.int64)
    round_starts[1:] = xp.cumsum(per_round)
    place = xp.full(n, -1, dtype=np.int64)
    place[order] = xp.arange(order.size)
    by_place = _argsort(xp, place[dn_h])
    down_indptr = xp.zeros(order.size + 1, dtype=np.int64)
    down_indptr[1:] = xp.cumsum(xp.bincount(place[dn_h], minlength=order.size))
    arrays = dict(
        round_of=round_of,
        order=order,
        round_starts=round_starts,
        down_indptr=down_indptr,
        down_tails=dn_t[by_place].astype(np.int32),
        down_weights=dn_w[by_place].astype(np.uint32),
    )
    if xp is not np:  # to the host
        searched = tuple(a.get() for a in searched)
        arrays = {name: a.get() for name, a in arrays.items()}
    return Contraction(
        graph=_core_graph(graph, *searched, numbers),
        **arrays,
        seconds=time.perf_counter() - start,
    )


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
_levels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

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
        that returns it (`engine.backends.device.contraction_module`), called only when
        the contraction is made.
    cache : bool
        For a graph of at least `DISK_MIN_NODES` nodes, read the contraction from the cache
        folder (`engine.graphs.io.cache_dir`) when an earlier process kept it there, else keep it
        there. Its file is named by its kind, the graph's arcs and weights and this module's
        code, so a changed graph or contraction never reads an old one.
    """
    made = _made[kind]
    if graph not in made:
        limits = KINDS[kind]
        if callable(xp):
            xp = xp(graph)
        try:
            if cache and graph.n_nodes >= DISK_MIN_NODES:
                made[graph] = io.through_cache(
                    _file_name(graph, kind),
                    lambda: _contract_for_the_cache(graph, kind, on_round, xp),
                    load=lambda path: _load(graph, path),
                    save=_save,
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
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _file_name(graph: CSRGraph, kind: str) -> str:
    """The cache file of ``graph``'s contraction of this kind: named by the kind and this
    module's code, then by a hash of the graph's arcs and of the limits."""
    h = hashlib.sha256()
    limits = [*KINDS[kind].values(), WITNESS_FANOUT]
    h.update(json.dumps({"limits": limits, "n": graph.n_nodes}).encode())
    for a in (graph.indptr, graph.indices, graph.weights):
        h.update(a.dtype.str.encode())
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return f"{kind}-{_code()[:12]}-{h.hexdigest()[:24]}.npz"


def _contract_for_the_cache(graph, kind, on_round, xp) -> Contraction:
    """`contract`, after removing the cache folder's contractions of this kind made by other
    versions of this module's code (never read again; PACE NE's core is about 100 MB)."""
    for old in io.cache_dir().glob(f"{kind}-*.npz"):
        if io.CACHE_FILE.fullmatch(old.name) and not old.name.startswith(f"{kind}-{_code()[:12]}-"):
            with contextlib.suppress(OSError):
                old.unlink()
    return contract(graph, on_round=on_round, xp=xp, **KINDS[kind])


def _save(c: Contraction, f) -> None:
    g = c.graph
    numbers = np.array([g.layered_bound, g.core_nodes, g.core_arcs, g.core_weight], np.int64)
    arrays = {name: getattr(c, name) for name in _ARRAYS}
    np.savez(f, indptr=g.indptr, indices=g.indices, weights=g.weights, numbers=numbers, **arrays)


def _load(graph: CSRGraph, path: Path) -> Contraction:
    """The contraction `_save` wrote (a `GraphFormatError` where its search graph does not
    fit ``graph``)."""
    start = time.perf_counter()
    with np.load(path, allow_pickle=False) as z:
        searched = _core_graph(graph, z["indptr"], z["indices"], z["weights"], z["numbers"])
        arrays = {name: z[name] for name in _ARRAYS}
    seconds = time.perf_counter() - start
    return Contraction(graph=searched, **arrays, seconds=seconds, from_cache=True)


def sweep(c: Contraction, dist: np.ndarray) -> None:
    """Give every contracted node its distance, in place: ``dist`` (``int64``,
    `UNREACHABLE` where unreached) holds the search graph's distances, exact at the core.
    ``dist`` may hold many trees, a column each (``n × k``): each arc down is read once for
    all of them, as PHAST sweeps many trees a pass (decisions/0090)."""
    for k in range(c.n_rounds):
        lo, hi = int(c.round_starts[k]), int(c.round_starts[k + 1])
        arcs = slice(int(c.down_indptr[lo]), int(c.down_indptr[hi]))
        heads = np.repeat(c.order[lo:hi], np.diff(c.down_indptr[lo : hi + 1]))
        _lower(dist, heads, c.down_tails[arcs], c.down_weights[arcs])


def _lower(dist: np.ndarray, heads, tails, weights) -> None:
    """Lower each row ``dist[heads[i]]`` to ``dist[tails[i]] + weights[i]`` where that is
    less, in place (``dist``: ``int64``, a row a node, `UNREACHABLE` where unreached, which
    offers nothing)."""
    above = dist[tails]
    weights = weights.astype(np.int64).reshape((-1,) + (1,) * (dist.ndim - 1))
    np.minimum.at(dist, heads, np.where(above != UNREACHABLE, above + weights, UNREACHABLE))


def sweep_steps(c: Contraction) -> np.ndarray:
    """Each node's step in `sweep` (its round of contraction, the last one first), -1 for
    a core node (``int32``)."""
    step = np.full(c.round_of.size, -1, dtype=np.int32)
    step[c.order] = np.repeat(np.arange(c.n_rounds, dtype=np.int32), np.diff(c.round_starts))
    return step


def sweep_sizes(c: Contraction) -> tuple[np.ndarray, np.ndarray]:
    """The nodes and the arcs down of each step of `sweep`."""
    return np.diff(c.round_starts), np.diff(c.down_indptr[c.round_starts])


@dataclasses.dataclass(frozen=True, eq=False)
class Levels:
    """A contraction laid out for PHAST's many trees (`trees`; ``kernels/phast.cu``): its
    nodes by *rank*, the top level first (the core left, if any: level 0, maybe empty),
    then the levels of `sweep`, so that each level is a range of ranks, and the arcs into
    each rank grouped by it, their tails as ranks.

    Attributes
    ----------
    rank, nodes : numpy.ndarray
        ``int64``: each node's rank, and the node of each rank.
    starts : numpy.ndarray
        ``int64``: level ``l`` is ranks ``starts[l]`` to ``starts[l + 1]``.
    up_ptr, up_tails, up_weights : numpy.ndarray
        The search graph's arcs into each rank (from lower levels, and the core's among
        themselves): ``int64``, ``int32`` (ranks), ``uint32``.
    down_ptr, down_tails, down_weights : numpy.ndarray
        The arcs down into each rank (from higher levels; none into the core).
    """

    rank: np.ndarray
    nodes: np.ndarray
    starts: np.ndarray
    up_ptr: np.ndarray
    up_tails: np.ndarray
    up_weights: np.ndarray
    down_ptr: np.ndarray
    down_tails: np.ndarray
    down_weights: np.ndarray

    @property
    def n_levels(self) -> int:
        return int(self.starts.size - 1)

    @property
    def level(self) -> np.ndarray:
        """``int32``: each rank's level."""
        return np.repeat(np.arange(self.n_levels, dtype=np.int32), np.diff(self.starts))


def levels(c: Contraction) -> Levels:
    """``c`` laid out by rank (`Levels`), made once for as long as ``c`` lives."""
    if c not in _levels:
        _levels[c] = _laid_out(c)
    return _levels[c]


def _laid_out(c: Contraction) -> Levels:
    n = c.round_of.size
    core = np.flatnonzero(c.round_of < 0)
    nodes = np.concatenate([core, c.order]).astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[nodes] = np.arange(n)
    g = c.graph
    heads = rank[g.indices]
    by_head = np.argsort(heads, kind="stable")
    up_ptr = np.zeros(n + 1, dtype=np.int64)
    up_ptr[1:] = np.cumsum(np.bincount(heads, minlength=n))
    return Levels(
        rank=rank,
        nodes=nodes,
        starts=np.concatenate([[0], core.size + c.round_starts]).astype(np.int64),
        up_ptr=up_ptr,
        up_tails=rank[g.sources][by_head].astype(np.int32),
        up_weights=g.weights[by_head],
        down_ptr=np.concatenate([np.zeros(core.size, np.int64), c.down_indptr]),
        down_tails=rank[c.down_tails].astype(np.int32),
        down_weights=c.down_weights,
    )


def swept_for(lv: Levels, targets) -> np.ndarray:
    """RPHAST's restriction (Delling, Goldberg and Werneck, ALENEX 2011): the ranks whose
    distances the sweep needs for those of ``targets`` (CSR indices) only: the targets' own
    and, from the bottom level up, the tails of the arcs down into each rank needed
    (``bool`` by rank; a core rank's distance is the search's)."""
    need = np.zeros(lv.rank.size, dtype=bool)
    need[lv.rank[np.asarray(targets, dtype=np.int64)]] = True
    for level in range(lv.n_levels - 1, 0, -1):
        lo = int(lv.starts[level])
        heads = lo + np.flatnonzero(need[lo : int(lv.starts[level + 1])])
        first = lv.down_ptr[heads]
        need[lv.down_tails[_ranges(np, first, lv.down_ptr[heads + 1] - first)[1]]] = True
    return need


def restricted(lv: Levels, need: np.ndarray) -> Levels:
    """``lv`` with arcs down into the ranks ``need`` says only (`swept_for`)."""
    degree = np.diff(lv.down_ptr)
    keep = np.repeat(need, degree)
    ptr = np.zeros(lv.down_ptr.size, dtype=np.int64)
    np.cumsum(np.where(need, degree, 0), out=ptr[1:])
    return dataclasses.replace(
        lv, down_ptr=ptr, down_tails=lv.down_tails[keep], down_weights=lv.down_weights[keep]
    )


def trees(c: Contraction, sources: np.ndarray, targets: np.ndarray | None = None) -> np.ndarray:
    """PHAST's trees from ``sources`` (one a column: ``int64``, nodes × sources,
    `UNREACHABLE` where unreached), the NumPy twin of ``kernels/phast.cu``: each node's
    least ``d(u) + w`` over its arcs up, the bottom level first (the search up from each
    source, as a pass over every level, where the kernel pushes from the nodes reached
    only: the same values), the core's arcs relaxed until nothing changes, then the sweep
    down a level at a time. With ``targets`` the sweep visits only what their distances
    need (`swept_for`), and their rows alone come back (targets × sources)."""
    lv = levels(c)
    n, k = c.round_of.size, len(sources)
    table = np.full((n, k), UNREACHABLE, dtype=np.int64)
    table[lv.rank[np.asarray(sources, dtype=np.int64)], np.arange(k)] = 0

    def pull(lo: int, hi: int, ptr, tails, weights) -> None:
        """Lower ranks ``lo..hi`` over their arcs in (``ptr``, ``tails``, ``weights``)."""
        a, b = int(ptr[lo]), int(ptr[hi])
        heads = np.repeat(np.arange(lo, hi), np.diff(ptr[lo : hi + 1]))
        _lower(table, heads, tails[a:b], weights[a:b])

    def up(lo: int, hi: int) -> bool:
        was = table[lo:hi].copy()
        pull(lo, hi, lv.up_ptr, lv.up_tails, lv.up_weights)
        return bool((table[lo:hi] < was).any())

    for level in range(lv.n_levels - 1, 0, -1):
        up(int(lv.starts[level]), int(lv.starts[level + 1]))
    while lv.starts[1] > 0 and up(0, int(lv.starts[1])):
        pass
    down = lv if targets is None else restricted(lv, swept_for(lv, targets))
    for level in range(1, lv.n_levels):
        lo, hi = int(lv.starts[level]), int(lv.starts[level + 1])
        pull(lo, hi, down.down_ptr, down.down_tails, down.down_weights)
    if targets is None:
        return table[lv.rank]
    return table[lv.rank[np.asarray(targets, dtype=np.int64)]]
