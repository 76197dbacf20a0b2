"""Launcher of the many-searches kernel (engine/backends/kernels/many.cu) through CuPy.

One launch runs every source of a chunk: each thread block takes the next source from a
device-side queue, runs Near-Far from it, and takes another until the queue is empty.
Without targets a search runs in its source's row of the output matrix; with targets it
runs in the block's own row, stops once every target is final, and copies the targets'
distances out. A block needs six integers per node of working memory (two frontiers, two
piles, two stamp arrays), and its own row with targets, so the number of blocks is bounded
by the free GPU memory as well as by the multiprocessors.
"""

from __future__ import annotations

import functools

import numpy as np

from engine.backends import device as _backend
from engine.backends import gpu_memory
from engine.graphs.csr import UNREACHABLE, CSRGraph

KERNEL_FILE = "many.cu"
#: Threads per block and blocks per multiprocessor (each block is one search at a time):
#: 512 × 4 fills an SM's 2,048 threads and was the fastest of 64–512 threads × 2–32 blocks
#: on PACE NY (decisions/0017).
BLOCK, BLOCKS_PER_SM = 512, 4
#: The row stores of the kernel by distance type, and the one that keeps parents too.
_STORES = {np.dtype(np.uint32): "Plain<unsigned int>", np.dtype(np.uint64): "Plain<u64>"}
LINKED = "Linked"
#: Each store's (word, distance) types: a row holds words; Δ is passed as a distance.
_TYPES = {
    _STORES[np.dtype(np.uint32)]: (np.uint32, np.uint32),
    _STORES[np.dtype(np.uint64)]: (np.uint64, np.uint64),
    LINKED: (np.uint64, np.uint32),
}
_NULL = np.uint64(0)  # a null pointer argument


@functools.cache
def _function(name: str, store: str):
    names = tuple(f"{k}<{s}>" for k in ("many_near_far", "many_widen") for s in _TYPES)
    return _backend.kernel_module(KERNEL_FILE, names).get_function(f"{name}<{store}>")


def store_of(graph: CSRGraph, parents: bool) -> str | None:
    """The kernel's row store for ``graph``; None where parents are asked for but the
    distances need 64 bits (the packed word holds a 32-bit distance and a parent)."""
    dtype = np.dtype(graph.distance_dtype())
    if not parents:
        return _STORES[dtype]
    return LINKED if dtype == np.uint32 else None


def row_bytes(graph: CSRGraph, n_columns: int | None, store: str) -> int:
    """Device bytes of one source's results: its words (a whole row without targets) and
    their int64 distances (and parents with the linked store)."""
    width = graph.n_nodes if n_columns is None else n_columns
    return width * (np.dtype(_TYPES[store][0]).itemsize + 8 + (8 if store == LINKED else 0))


def blocks_for(
    graph: CSRGraph,
    sources: int,
    *,
    store: str,
    threads: int = BLOCK,
    targets: bool = False,
) -> int:
    """Blocks of a launch: BLOCKS_PER_SM per multiprocessor (fewer where the kernel's
    registers do not let them all be resident), no more than the sources, and working
    memory (24 bytes a node per block, and its own row with targets) within half the free
    GPU memory."""
    free = _backend.free_gpu_memory()
    per_node = 24 + (np.dtype(_TYPES[store][0]).itemsize if targets else 0)
    by_memory = max(free // 2 // (per_node * max(graph.n_nodes, 1)), 1)
    resident = _backend.resident_blocks(_function("many_near_far", store), threads)
    per_sm = min(BLOCKS_PER_SM, resident)
    return int(max(1, min(sources, _backend.multiprocessor_count() * per_sm, by_memory)))


def rows(
    graph: CSRGraph,
    sources: np.ndarray,
    columns: np.ndarray | None,
    *,
    delta: int,
    parents: bool = False,
    blocks: int | None = None,
    threads: int = BLOCK,
    into=None,
):
    """Launch the searches from ``sources``: distances to ``columns`` (all nodes when None)
    as ``int64`` (`UNREACHABLE` where unreached), on the device and without waiting.

    With ``parents`` (32-bit distances only, `store_of`), whole trees are searched and each
    node's parent comes back too (``int64``, -1 at the source and where unreached); else
    searches with ``columns`` stop once those nodes are final. ``into``, a CuPy ``int64``
    array of the result's shape, receives the distances directly.

    Returns CuPy arrays (distances, parents or None, counters): the counters are each
    source's arcs relaxed and iterations (sources × 2).
    """
    cp = _backend.cupy()
    store = store_of(graph, parents)
    if store is None:
        msg = "parents on the GPU need distances below 2^32"
        raise ValueError(msg)
    n, m = graph.n_nodes, len(sources)
    dev = gpu_memory.device_graph(graph, graph.indptr.nbytes + graph.n_arcs * 8)
    stop_at = None if columns is None or parents else cp.asarray(columns, dtype=np.int64)
    width = n if stop_at is None else len(stop_at)
    blocks = blocks or blocks_for(graph, m, store=store, threads=threads,
                                  targets=stop_at is not None)  # fmt: skip
    word, distance = _TYPES[store]
    work = cp.empty(blocks * 4 * n, dtype=np.int32)
    marks = cp.full(blocks * 2 * n, -1, dtype=np.int32)
    own = _NULL if stop_at is None else cp.empty(blocks * n, dtype=word)
    out = cp.empty((m, width), dtype=word)
    queue = cp.zeros(1, dtype=np.uint64)
    counters = cp.zeros((m, 2), dtype=np.int64)
    _function("many_near_far", store)(
        (blocks,),
        (threads,),
        (
            dev.indptr, dev.indices, dev.weights, np.int64(n),
            cp.asarray(np.asarray(sources, dtype=np.int64)), np.int64(m),
            _NULL if stop_at is None else stop_at, np.int64(0 if stop_at is None else width),
            queue, out, own, work, marks, distance(delta), counters,
        ),
    )  # fmt: skip
    del work, marks, own
    direct = into is not None and into.shape == out.shape
    dist = into if direct else cp.empty(out.shape, dtype=np.int64)
    tree = cp.empty(out.shape, dtype=np.int64) if parents else None
    size = out.size
    grid = max(min(-(-size // 256), _backend.multiprocessor_count() * 8), 1)
    _function("many_widen", store)(
        (grid,), (256,), (out, np.int64(size), np.int64(UNREACHABLE), dist,
                          _NULL if tree is None else tree),
    )  # fmt: skip
    if parents and columns is not None:
        dist = dist[:, cp.asarray(columns)]
    if into is not None and not direct:
        into[...] = dist
        dist = into
    return dist, tree, counters
