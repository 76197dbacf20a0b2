"""Launcher of the many-searches kernel (engine/kernels/many.cu) through CuPy.

One launch runs every source of a chunk: each thread block takes the next source from a
device-side queue, runs Near-Far from it into that source's row of the output matrix, and
takes another until the queue is empty. A block needs six integers per node of working
memory (two frontiers, two piles, two stamp arrays), so the number of blocks is bounded by
the free GPU memory as well as by the multiprocessors.
"""

from __future__ import annotations

import functools

import numpy as np

from . import _backend, _gpu
from .graph import UNREACHABLE, CSRGraph

KERNEL_FILE = "many.cu"
#: Threads per block and blocks per multiprocessor (each block is one search at a time):
#: 512 × 4 fills an SM's 2,048 threads and was the fastest of 64–512 threads × 2–32 blocks
#: on PACE NY (bench/NOTES.md).
BLOCK, BLOCKS_PER_SM = 512, 4
_TYPES = {np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long"}


@functools.cache
def _function(name: str, dtype: np.dtype):
    names = tuple(f"{k}<{t}>" for k in ("many_near_far", "many_widen") for t in _TYPES.values())
    return _backend.kernel_module(KERNEL_FILE, names).get_function(f"{name}<{_TYPES[dtype]}>")


def blocks_for(graph: CSRGraph, sources: int, *, free_bytes: int | None = None) -> int:
    """Blocks of a launch: BLOCKS_PER_SM per multiprocessor, no more than the sources, and
    working memory (24 bytes a node per block) within half the free GPU memory."""
    free = _backend.free_gpu_memory() if free_bytes is None else free_bytes
    by_memory = max(free // 2 // (24 * max(graph.n_nodes, 1)), 1)
    return int(max(1, min(sources, _backend.multiprocessor_count() * BLOCKS_PER_SM, by_memory)))


def rows(
    graph: CSRGraph,
    sources: np.ndarray,
    columns: np.ndarray | None,
    *,
    delta: int,
    blocks: int | None = None,
    threads: int = BLOCK,
    keep_on_gpu: bool = False,
    host_out: np.ndarray | None = None,
):
    """Distances from each of ``sources`` to ``columns`` (all nodes when None) as ``int64``
    (`UNREACHABLE` where unreached), with each source's arcs relaxed and iterations.

    Returns (distances, edges, iterations); the distances stay a CuPy array when
    ``keep_on_gpu``, else they are copied into ``host_out`` when given (page-locked memory
    copies ≈ 3× faster) or a new array.
    """
    cp = _backend.cupy()
    dtype = np.dtype(graph.distance_dtype())
    n, m = graph.n_nodes, len(sources)
    dev = _gpu.device_graph(graph, graph.indptr.nbytes + graph.n_arcs * 8)
    blocks = blocks or blocks_for(graph, m)
    work = cp.empty(blocks * 4 * n, dtype=np.int32)
    marks = cp.full(blocks * 2 * n, -1, dtype=np.int32)
    out = cp.empty((m, n), dtype=dtype)
    queue = cp.zeros(1, dtype=np.uint64)
    counters = cp.zeros(2 * m, dtype=np.int64)
    _function("many_near_far", dtype)(
        (blocks,),
        (threads,),
        (
            dev.indptr, dev.indices, dev.weights, np.int64(n),
            cp.asarray(np.asarray(sources, dtype=np.int64)), np.int64(m), queue, out, work,
            marks, dtype.type(delta), counters,
        ),
    )  # fmt: skip
    del work, marks
    if columns is not None:
        out = cp.ascontiguousarray(out[:, cp.asarray(columns)])
    wide = cp.empty(out.shape, dtype=np.int64)
    size = out.size
    grid = min(-(-size // 256), _backend.multiprocessor_count() * 8)  # co-resident blocks
    _function("many_widen", dtype)(
        (grid,), (256,), (out, np.int64(size), np.int64(UNREACHABLE), wide)
    )
    stats = counters.get().reshape(m, 2)
    if keep_on_gpu:
        return wide, stats[:, 0], stats[:, 1]
    return wide.get(out=host_out), stats[:, 0], stats[:, 1]
