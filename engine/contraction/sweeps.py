"""Trees finished from a contraction: `sweep` (the nodes contracted, last round first),
PHAST's layout by level (`levels`) and its many trees at once (`trees`, the NumPy twin of
``kernels/phast.cu``), and RPHAST's sweep restricted to targets (`swept_for`).
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np
import scipy.sparse

from engine.contraction.build import Contraction, _ranges
from engine.graphs.csr import UNREACHABLE


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


_levels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def levels(c: Contraction) -> Levels:
    """``c`` laid out by rank (`Levels`), made once for as long as ``c`` lives."""
    if c not in _levels:
        _levels[c] = _laid_out(c)
    return _levels[c]


def ranked_down(c: Contraction, *, xp=np) -> tuple:
    """`Levels`' order and arcs down with the tails as nodes, made with the array module
    ``xp`` (CuPy: on the device, from ``c``'s arrays, for the sweep's kernels; a 16M-node
    city's contraction laid out took 5 s of the host, decision 0110): the node of each rank
    (``int64``), the levels' starts, and the arcs down into each rank (``ptr``, ``tails``
    as nodes, ``weights``)."""
    core = xp.flatnonzero(xp.asarray(c.round_of) < 0)
    nodes = xp.concatenate([core, xp.asarray(c.order)]).astype(np.int64)
    starts = xp.concatenate([xp.zeros(1, np.int64), core.size + xp.asarray(c.round_starts)])
    ptr = xp.concatenate([xp.zeros(core.size, np.int64), xp.asarray(c.down_indptr)])
    return nodes, starts, ptr, xp.asarray(c.down_tails), xp.asarray(c.down_weights)


def _laid_out(c: Contraction) -> Levels:
    n = c.round_of.size
    nodes, starts, down_ptr, down_tails, down_weights = ranked_down(c)
    rank = np.empty(n, dtype=np.int64)
    rank[nodes] = np.arange(n)
    g = c.graph
    heads = rank[g.indices]
    by_head = _by_head(g.indptr, heads, n)
    up_ptr = np.zeros(n + 1, dtype=np.int64)
    up_ptr[1:] = np.cumsum(np.bincount(heads, minlength=n))
    return Levels(
        rank=rank,
        nodes=nodes,
        starts=starts,
        up_ptr=up_ptr,
        up_tails=rank[g.sources][by_head].astype(np.int32),
        up_weights=g.weights[by_head],
        down_ptr=down_ptr,
        down_tails=rank[down_tails].astype(np.int32),
        down_weights=down_weights,
    )


def _by_head(indptr: np.ndarray, heads: np.ndarray, n: int) -> np.ndarray:
    """The arcs of a CSR (``indptr``, its arcs' ``heads``) in the order of their heads, those
    of one head in their order: ``np.argsort(heads, kind="stable")``, by SciPy's transpose of a
    CSR (one pass over the arcs; the sort took 8 of a 16M-node city's 24 s first search on an
    H200, decision 0109)."""
    m = heads.size
    index = np.int64 if m >= 2**31 else np.int32
    arcs = scipy.sparse.csr_matrix(
        (np.arange(m, dtype=index), heads.astype(index, copy=False), indptr.astype(index)),
        shape=(indptr.size - 1, n),
    )
    return arcs.tocsc().data.astype(np.int64, copy=False)


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
