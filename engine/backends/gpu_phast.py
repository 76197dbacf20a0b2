"""Launcher of PHAST's many-trees kernel (engine/backends/kernels/phast.cu) through CuPy.

A launch makes the trees of a chunk of sources on the graph's whole contraction hierarchy
(`engine.contraction.of` of kind ``hierarchy``, laid out by `engine.contraction.levels` and
uploaded once): a group of `PHAST_GROUP` trees a cluster of blocks (a block on GPUs
without clusters), each group in its own table of a row a node, from the bottom level up,
then from the top down. Kernel ``phast_widen`` then writes the matrix `many_to_many` keeps:
a row a source, ``int64``, in node order. Its NumPy twin is `engine.contraction.trees`.

The same calls as `engine.backends.gpu_many` (`store_of`, `row_bytes`, `rows`), so that
`engine.studies.batch` runs either kernel.
"""

from __future__ import annotations

import functools
import weakref

import numpy as np

from engine import contraction
from engine.backends import device as _backend
from engine.backends.contract import PHAST_BLOCK, PHAST_CLUSTER, PHAST_GROUP
from engine.backends.gpu_kernels import clusters_available
from engine.graphs.csr import UNREACHABLE, CSRGraph

KERNEL_FILE = "phast.cu"
#: The one row store: 32- or 64-bit distances as the hierarchy's bound needs.
STORE = "phast"
_TYPES = {np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "u64"}

_uploads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@functools.cache
def _function(name: str, dtype: np.dtype):
    kinds = ["phast_many", "phast_widen"] + (["phast_many_cluster"] if clusters_available() else [])
    names = tuple(f"{k}<{t}>" for k in kinds for t in _TYPES.values())
    module = _backend.kernel_module(KERNEL_FILE, names, cooperative=False)
    return module.get_function(f"{name}<{_TYPES[np.dtype(dtype)]}>")


def hierarchy(graph: CSRGraph) -> contraction.Contraction:
    """``graph``'s whole contraction hierarchy, made once (on the GPU where it has the
    memory) and kept in the cache folder for large graphs."""
    return contraction.of(graph, "hierarchy", xp=_backend.contraction_module(graph))


def store_of(graph: CSRGraph, parents: bool) -> str | None:
    """`STORE`; None where parents are asked for: trees come from whole rows of distances."""
    return None if parents else STORE


def row_bytes(graph: CSRGraph, n_columns: int | None, store: str) -> int:
    """Device bytes of one source's results: its row of a table (64-bit at most) and its
    ``int64`` distances."""
    width = graph.n_nodes if n_columns is None else n_columns
    return 8 * graph.n_nodes + 8 * width


def _device(c: contraction.Contraction) -> tuple:
    """The hierarchy's `Levels` on the device (uploaded once), and its numbers of levels and
    arcs."""
    if c not in _uploads:
        cp = _backend.cupy()
        lv = contraction.levels(c)
        arrays = tuple(
            cp.asarray(a)
            for a in (lv.rank, lv.starts, lv.up_ptr, lv.up_tails, lv.up_weights,
                      lv.down_ptr, lv.down_tails, lv.down_weights)
        )  # fmt: skip
        _uploads[c] = (arrays, lv.n_levels, int(lv.up_tails.size + lv.down_tails.size))
    return _uploads[c]


def rows(
    graph: CSRGraph,
    sources: np.ndarray,
    columns: np.ndarray | None,
    *,
    delta: int | None = None,
    parents: bool = False,
    into=None,
    cluster: bool | None = None,
):
    """The trees from ``sources``: distances to ``columns`` (all nodes when None) as
    ``int64`` (`UNREACHABLE` where unreached), on the device and without waiting.

    ``into``, a CuPy ``int64`` array of the result's shape, receives the distances directly.
    ``cluster`` runs a group of trees a cluster of blocks (default: where the GPU has
    clusters and the groups are fewer than twice its multiprocessors). ``delta`` is not
    used (PHAST has no bands); ``parents`` is refused (`store_of`).

    Returns CuPy arrays (distances, None, counters): the counters are each source's arcs
    relaxed (every arc up and down) and levels passed (sources × 2).
    """
    if parents:
        msg = "PHAST's kernel keeps no parents; take the trees from whole rows"
        raise ValueError(msg)
    cp = _backend.cupy()
    c = hierarchy(graph)
    (rank, starts, *arcs), n_levels, n_arcs = _device(c)
    dtype = np.dtype(c.graph.distance_dtype())
    n, m = graph.n_nodes, len(sources)
    groups = -(-m // PHAST_GROUP)
    if cluster is None:
        cluster = clusters_available() and groups < 2 * _backend.multiprocessor_count()
    tables = cp.empty(groups * n * PHAST_GROUP, dtype=dtype)
    changed = cp.zeros(max(groups, 1), dtype=np.int32)
    ranked = rank[cp.asarray(np.asarray(sources, dtype=np.int64))]
    if groups:
        name = "phast_many_cluster" if cluster else "phast_many"
        _function(name, dtype)(
            (groups * (PHAST_CLUSTER if cluster else 1),),
            (PHAST_BLOCK,),
            (np.int64(n), np.int32(n_levels), starts, *arcs, ranked, np.int64(m), tables, changed),
        )
    width = n if columns is None else len(columns)
    direct = into is not None and into.shape == (m, width)
    dist = into if direct else cp.empty((m, width), dtype=np.int64)
    picked = 0 if columns is None else cp.asarray(np.asarray(columns, dtype=np.int64))
    size = groups * width
    grid = max(min(-(-size // 256), _backend.multiprocessor_count() * 8), 1)
    _function("phast_widen", dtype)(
        (grid,), (256,),
        (tables, np.int64(n), np.int64(m), rank, picked, np.int64(width),
         np.int64(UNREACHABLE), dist),
    )  # fmt: skip
    if into is not None and not direct:
        into[...] = dist
        dist = into
    counters = cp.empty((m, 2), dtype=np.int64)
    counters[:, 0] = n_arcs
    counters[:, 1] = n_levels
    return dist, None, counters
