"""Contracting a graph: round after round an independent set of nodes of few neighbours
removed, shortcuts added unless a witness of two hops weighs no more, until a core is left
(`contract`), and the search graph and arcs down it leaves (`Contraction`); for NumPy or
CuPy (``xp``). The package's docstring says why.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from engine.graphs._validate import contraction_size
from engine.graphs.csr import (
    AUTO_DELTA_C,
    MAX_WEIGHT,
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


#: The witness searches of array modules that have a kernel of their own, by the module's
#: name (`use_witness_kernel`).
_witness_kernels: dict[str, Callable] = {}


def use_witness_kernel(module: str, witnessed: Callable) -> None:
    """Search witnesses by ``witnessed`` for the arrays of the module named ``module``: the
    GPU's kernel (`engine.backends.gpu_contract`), which finds the same witnesses without
    listing every pair of a shortcut and an arc out of its tail, as the array passes do (a
    thousand million on a 1M-node city's hierarchy). It is called with the shortcuts' tails,
    heads and weights, the kept arcs' first arc by tail (and one more), their heads and
    weights (sorted by tail, then head) and `WITNESS_FANOUT`, and returns `_witnessed`'s
    answer."""
    _witness_kernels[module] = witnessed


def _witnessed(xp, s_tails, s_heads, s_weights, k_tails, k_heads, k_weights, span):
    """Which shortcuts ``a → b`` have a *witness*: a path ``a → y → b`` of at most their
    weight over the arcs ``k_*`` (sorted by (tail, head)) that the round keeps, so that
    ``y`` is not removed in it; none is looked for from a tail of over `WITNESS_FANOUT`
    arcs. By ``xp``'s kernel where it has one (`use_witness_kernel`)."""
    starts = xp.zeros(span + 1, dtype=np.int64)
    starts[1:] = xp.cumsum(xp.bincount(k_tails, minlength=span))
    kernel = _witness_kernels.get(xp.__name__)
    if kernel is not None:
        return kernel(s_tails, s_heads, s_weights, starts, k_heads, k_weights, WITNESS_FANOUT)
    first = starts[s_tails]
    count = starts[s_tails + 1] - first
    count[count > WITNESS_FANOUT] = 0
    which, arc = _ranges(xp, first, count)
    # A first hop heavier than the shortcut witnesses nothing (weights are not negative):
    # a fifth of the pairs on a city's hierarchy, the contraction 21 % faster (NumPy,
    # decisions/0115).
    light = k_weights[arc] <= s_weights[which]
    which, arc = which[light], arc[light]
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
