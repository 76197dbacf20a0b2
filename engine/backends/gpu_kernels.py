"""The compiled frontier kernels (kernels/frontier.cu) and their launches: each kernel looked up
by name once, the search kernels with their launch attributes, the grid-stride kernels around
a search, the barrier probes. Imports `engine.backends.device` and `engine.backends.contract`.
"""

from __future__ import annotations

import functools

import numpy as np

from engine.backends import device as _backend
from engine.backends.contract import (
    ASYNC_SHARED_BYTES,
    CLUSTER,
    CLUSTER_BLOCK,
    CLUSTER_SHARED_BYTES,
    REC_BUCKETS,
    REC_FRAMES,
    REC_NONE,
    SUM_RUNS,
)
from engine.graphs.csr import UNREACHABLE
from engine.methods import RunSpec
from engine.recording import BUCKET_BINS

KERNEL_FILE = "frontier.cu"


_TYPES = {np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long"}


_PROBES = {"grid": "sync_probe", "cluster": "cluster_sync_probe"}


BLOCK = 256


SCOPES = ("grid", "cluster")


def clusters_available() -> bool:
    """Whether the GPU runs thread-block clusters (compute capability 9.0 and later)."""
    return _backend.compute_capability() >= 90


def available_scopes() -> tuple[str, ...]:
    return SCOPES if clusters_available() else ("grid",)


def small_frontier_scope() -> str:
    """The scope that runs small frontiers here (the floor of an iteration is its barrier)."""
    return "cluster" if clusters_available() else "grid"


@functools.cache
def name_of(kernel: str, dtype: np.dtype, *more: str) -> str:
    return f"{kernel}<{', '.join((_TYPES[np.dtype(dtype)], *more))}>"


def search_name(
    scope: str, dtype: np.dtype, records: int = REC_NONE, bucketed: bool = False
) -> str:
    """The search kernel of ``scope`` (or ``async``) that records ``records`` (``REC_*``);
    bucketing's paths exist only when ``bucketed``."""
    if scope == "async":
        return name_of("frontier_async", dtype)
    return name_of(f"frontier_{scope}", dtype, str(records), "true" if bucketed else "false")


def records_of(spec: RunSpec, recording: bool) -> int:
    """What a search of ``spec`` records (``REC_*``)."""
    if not recording:
        return REC_NONE
    return REC_BUCKETS if spec.has_buckets else REC_FRAMES


#: Grid-stride kernels around a search: its starting state, its end (the int64 distances
#: and a recording's stamps), on a contraction's core the sweep before that end, and a
#: recording by phase's stamps.
ELEMENTWISE = (
    "search_init",
    "finish_search",
    "sweep_down",
    "phase_stamps",
    "phast_tree",
    "core_table_step",
)


@functools.cache
def module():
    """The compiled kernels, looked up once: reading and hashing the source and naming every
    kernel on each search cost it tens of µs of a GPU machine's host (decisions/0061)."""
    scopes = available_scopes()
    # Bucketing's recordings always have bucket sizes.
    flags = [(REC_NONE, False), (REC_NONE, True), (REC_FRAMES, False)]
    flags += [(REC_BUCKETS, False), (REC_BUCKETS, True)]
    names = [search_name(scope, t, *f) for scope in scopes for t in _TYPES for f in flags]
    if "cluster" in scopes:
        names += [search_name("async", t) for t in _TYPES]
    names += [name_of(k, t) for k in ELEMENTWISE for t in _TYPES]
    names += ["finish_batch"]
    return _backend.kernel_module(KERNEL_FILE, (*names, *(_PROBES[s] for s in scopes)))


@functools.cache
def search_kernel(scope: str, dtype: np.dtype, records: int = REC_NONE, bucketed: bool = False):
    """The search kernel of ``scope``, with its launch attributes set (once)."""
    kernel = _function(search_name(scope, dtype, records, bucketed))
    if scope == "cluster":
        _backend.allow_large_clusters(kernel)
    if scope in ("cluster", "async"):
        kernel.max_dynamic_shared_size_bytes = (
            CLUSTER_SHARED_BYTES if scope == "cluster" else ASYNC_SHARED_BYTES
        )
    return kernel


def sync_us(scope: str = "grid", *, blocks: int | None = None, rounds: int = 20_000) -> float:
    """Measured cost in µs of one barrier of ``scope``: ``grid.sync()`` at the search's grid
    size (or ``blocks``), or the cluster barrier of the cluster scope."""
    cp = _backend.cupy()
    kernel = module().get_function(_PROBES[scope])
    if scope == "cluster":
        _backend.allow_large_clusters(kernel)
        grid, block = CLUSTER, CLUSTER_BLOCK
    else:
        grid, block = blocks or grid_size(search_kernel("grid", np.dtype(np.uint32))), BLOCK
    kernel((grid,), (block,), (np.int32(100),))  # warm up
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    kernel((grid,), (block,), (np.int32(rounds),))
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1e3 / rounds


def grid_size(kernel) -> int:
    return _backend.multiprocessor_count() * min(2, _backend.resident_blocks(kernel, BLOCK))


#: Kernel ``finish_search``'s arguments of a search not recorded (or recorded by a stream).
_NO_STAMPS = (0, 0, 0, 0, 0, np.int32(0), 0, 0, 0)


def finish_search(dist, dtype: np.dtype, out_at, ctl, if_done: bool, stamps=None) -> None:
    """Queue kernel ``finish_search``: the distances as ``int64`` (`UNREACHABLE` where
    unreached) into the page-locked memory at ``out_at`` (0: not taken), and ``stamps``, a
    recording's arguments (`Recorder.end`); with ``if_done``, only once the control block
    ``ctl`` says the search finished."""
    n = dist.size
    args = (dist, np.int64(n), np.int64(UNREACHABLE), out_at, ctl, np.int32(if_done))
    launch_elementwise("finish_search", dtype, n, (*args, *(stamps or _NO_STAMPS)))


def launch_elementwise(kernel: str, dtype: np.dtype, n: int, args: tuple) -> None:
    """Launch the grid-stride kernel ``kernel<D>`` over ``n`` nodes."""
    _launch_over(name_of(kernel, dtype), n, args)


def finish_batch(frames, ctl, pile_cap: int, sums=None) -> None:
    """Finish the frame rows (CuPy, ``ROW_FIELDS`` columns) of the batch that just ran, all
    but their node counts, from where the control block ``ctl`` says the last batch's ended;
    ``pile_cap`` is the far pile's capacity (a row shows at most that many entries, as it
    holds). ``sums`` is Δ-stepping's and bucketing's ``(table, sizes, out)`` (CuPy,
    ``BUCKET_BINS`` columns): the rows of ``table``, changes of the bucket sizes, become the
    sizes from ``sizes`` in the rows of ``out`` and are zeroed; ``sizes`` then gets the last
    row's. The batch's rows are the iterations since ``ctl[Control.RFROM]`` (kernel
    ``finish_batch``)."""
    table, sizes, out = sums or (0, 0, 0)
    grid = 1 + (BUCKET_BINS // 32 if sums else 0)
    args = (frames, ctl, np.int64(pile_cap), table, sizes, out)
    _function("finish_batch")((grid,), (32, SUM_RUNS), args)


def _launch_over(name: str, n: int, args: tuple) -> None:
    """Launch the grid-stride kernel ``name`` over ``n`` nodes."""
    blocks = max(1, min(-(-n // BLOCK), 4 * _backend.multiprocessor_count()))
    _function(name)((blocks,), (BLOCK,), args)


@functools.cache
def _function(name: str):
    """A kernel of the module by name expression, looked up once."""
    return module().get_function(name)
