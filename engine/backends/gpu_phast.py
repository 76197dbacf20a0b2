"""Launcher of PHAST's many-trees kernel (engine/backends/kernels/phast.cu) through CuPy.

A launch makes the trees of a chunk of sources on the graph's contraction hierarchy
(`engine.contraction.of` of kind ``hierarchy``, the one of method phast's one tree: its top
left as a core; laid out by `engine.contraction.levels`, its arcs up by tail (`pushes`) and
its arcs down in `chunks`, uploaded once): a group of `PHAST_TREES` trees (a warp's lanes)
has a row a node, the groups' rows of a node side by side; kernel ``phast_many`` makes each
group's search up from the bottom level up to the core in a cluster of blocks (a block on
GPUs without clusters), pushing from the nodes the sources reach only and filling only
their rows (the sweep writes every other row below the core: no memset fills the tables but
the core's). The core's distances come, for every tree at once, from its table of every pair
(`gpu_memory.core_table`, where the core has at most `gpu_memory.CORE_TABLE_NODES` nodes):
kernel ``phast_core``, a product of the searches' rows of the core by the table in the
(min, +) semiring. Then ``phast_sweep``, one cooperative launch, sweeps every group from the
core down, a level's chunks and groups shared by the whole grid (decision 0109), a warp
taking a chunk for several groups at once (`LANE_BYTES`, decision 0115); a larger
core (the 16M-node city's) it relaxes first, the same way, until nothing changes, each round
reading only the core's rows that fell since the round before. Kernel ``phast_widen`` then
writes the matrix `many_to_many` keeps: a row a source, ``int64``, in node order, sweeping
the last level itself (no node reads its rows: they go from the gathers to the matrix,
never through the table), but where the sweep was restricted to the columns. Its NumPy
twin is `engine.contraction.trees`.

The same calls as `engine.backends.gpu_many` (`store_of`, `row_bytes`, `rows`), so that
`engine.studies.batch` runs either kernel.
"""

from __future__ import annotations

import functools
import hashlib
import weakref

import numpy as np

from engine import contraction
from engine.backends import device as _backend
from engine.backends import gpu_contract, gpu_memory
from engine.backends.contract import (
    CORE_THREADS,
    CORE_TILE,
    PHAST_BLOCK,
    PHAST_TILE,
    PHAST_TREES,
    PHAST_WIDEN,
)
from engine.backends.gpu_kernels import clusters_available
from engine.graphs.csr import UNREACHABLE, CSRGraph

KERNEL_FILE = "phast.cu"
#: Arcs a chunk takes at most, but for a node of more (a warp's lanes).
CHUNK = 32
#: Blocks of a cluster that shares a group: of 0 (a block), 2, 4, 8 and 16, 4 made the most
#: trees a second on PACE NY and NE (1,000 sources, H200: decisions/0091).
CLUSTER = 4
#: Sources a launch needs to fill an H100 or H200: 32 groups, 128 blocks in clusters of 4,
#: about one a multiprocessor (a task of a distributed matrix takes at least as many). A
#: matrix with columns restricts its sweep to them from this many sources on: on PACE NE
#: making the restriction took 40-240 ms of the host and saved 17 ms a 1,000 sources
#: (decisions/0095).
FILL = 32 * PHAST_TREES
#: Bytes of distances a lane of the sweep loads a tail: a warp takes P = LANE_BYTES / 4
#: groups of 32-bit trees at once (2 of 64-bit), a lane P trees side by side, P halved until
#: it divides the groups; and the gathers a lane keeps in flight (kernel ``phast_sweep``'s
#: template arguments P and G). On an H100, P = 4 and G = 4 made 16 % more trees a second on
#: PACE NE than one group a warp with 8 gathers, P = 2 (G = 8) 14 % (decisions/0115).
LANE_BYTES, GATHERS = 16, 4
#: The row store: 32- or 64-bit distances as the hierarchy's bound needs.
STORE = "phast"
_TYPES = {np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "u64"}
#: Kernel ``phast_core`` takes its sums at 32 bits where every distance of the graph lies
#: below this (a term clamped to it is none), else at 64.
HALF_32 = 2**31 - 1

_uploads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_restricted: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@functools.cache
def _function(name: str, *template):
    """Kernel ``name`` of the template arguments ``template`` (dtypes of distances, and,
    for ``phast_many_cluster``, its clusters' blocks), compiled once; ``phast_sweep``
    launched cooperatively."""
    args = [_TYPES[a] if isinstance(a, np.dtype) else str(a) for a in template]
    full = f"{name}<{', '.join(args)}>"
    cluster = template[1] if name == "phast_many_cluster" else 0
    module = _backend.kernel_module(KERNEL_FILE, (full,), cooperative=name == "phast_sweep")
    kernel = module.get_function(full)
    if cluster > 8:
        _backend.allow_large_clusters(kernel)
    return kernel


#: The contraction the kernel sweeps (`engine.contraction.KINDS`): its top left as a core,
#: taken from a table (decision 0111).
KIND = "hierarchy"


def hierarchy(graph: CSRGraph) -> contraction.Contraction:
    """``graph``'s contraction hierarchy (`KIND`), made once (on the GPU where it has the
    memory) and kept in the cache folder for large graphs."""
    return contraction.of(graph, KIND, xp=gpu_contract.contraction_module)


def store_of(graph: CSRGraph, parents: bool) -> str | None:
    """`STORE`; None where parents are asked for: trees come from whole rows of distances."""
    return None if parents else STORE


def row_bytes(graph: CSRGraph, n_columns: int | None, store: str) -> int:
    """Device bytes of one source's results: its row of a table (64-bit at most) and of the
    core's product (`gpu_memory.CORE_TABLE_NODES` at most), its share of its group's marks,
    lists and stamps (a core relaxed by rounds: a word a node at most), and its ``int64``
    distances."""
    width = graph.n_nodes if n_columns is None else n_columns
    core = 8 * min(graph.n_nodes, gpu_memory.CORE_TABLE_NODES)
    return 8 * graph.n_nodes + core + 12 * graph.n_nodes // PHAST_TREES + 8 * width


def chunks(ptr, tails, weights, starts, *, names=None, every=False, xp=np) -> tuple:
    """The arcs into each rank (``ptr``, ``tails``, ``weights``, as `contraction.Levels`
    has them; levels ``starts``) as the kernels read them: each node with arcs (``every``:
    each node) gets an arc from itself of weight 0 first, and a level's arcs are cut into
    *chunks* of whole nodes, packed in order while they fit in `CHUNK` arcs (a warp's lanes:
    one read a chunk); a node of more arcs is a chunk of its own.

    ``names`` (``int32``, a name a rank; the ranks themselves when None) are written for
    the heads and the arcs from themselves, so that ``tails`` given as node ids make arcs of
    node ids. ``xp``: the array module that makes them (NumPy, or CuPy on the device from
    device arrays: a 16M-node city's sweep took 4 s of the host, decision 0110).

    Returns (``levels``: each level's first chunk, and one more; ``firsts``: each chunk's
    first arc, and one more; the arcs' ``heads``, ``tails`` and ``weights``).
    """
    n = ptr.size - 1
    degree = xp.diff(ptr)
    has = xp.ones(n, dtype=bool) if every else degree > 0
    nodes = xp.flatnonzero(has)  # the ranks with arcs
    if names is None:
        names = xp.arange(n, dtype=np.int32)
    at = arc_starts(ptr, every=every, xp=xp)
    total = int(at[-1])
    own = xp.zeros(total, dtype=bool)
    own[at[:-1][has]] = True
    out_tails = xp.empty(total, dtype=np.int32)
    out_weights = xp.empty(total, dtype=np.uint32)
    out_tails[own], out_weights[own] = names[nodes], 0
    out_tails[~own], out_weights[~own] = tails, weights
    heads = names[nodes][xp.cumsum(own, dtype=np.int64) - 1]
    ends = xp.concatenate([at[nodes], at[-1:]])  # the ranks with arcs: first arc, and one more
    level = xp.searchsorted(starts, nodes, side="right") - 1
    # A chunk from node i takes nodes i..j-1: j the last whose arcs still fit, at least i + 1,
    # at most its level's end. The chunks are the path from node 0 along these steps (m, one
    # past the last node, its end), found by doubling: `path` holds its first 2^k nodes,
    # `jump` steps 2^k at once.
    m = nodes.size
    fit = xp.searchsorted(ends, ends[:-1] + CHUNK, side="right") - 1
    level_end = xp.searchsorted(level, level, side="right")
    jump = xp.minimum(xp.maximum(fit, xp.arange(1, m + 1)), level_end)
    jump = xp.concatenate([jump, xp.full(1, m, dtype=jump.dtype)])
    path = xp.zeros(1, dtype=np.int64)
    while int(path[-1]) != m:
        path = xp.concatenate([path, jump[path]])
        jump = jump[jump]
    firsts = xp.concatenate([ends[path[path < m]], at[-1:]])
    levels = xp.searchsorted(firsts[:-1], at[starts]).astype(np.int64)
    return levels, firsts, heads, out_tails, out_weights


def arc_starts(ptr, *, every=False, xp=np):
    """Each rank's first arc in `chunks`' arrays of the arcs ``ptr`` bounds (its own arc of
    weight 0 first where it has one: each rank with arcs, or each rank where ``every``), and
    one more (``int64``, of the array module ``xp``)."""
    degree = xp.diff(ptr)
    at = xp.zeros(ptr.size, dtype=np.int64)
    xp.cumsum(degree + 1 if every else degree + (degree > 0), out=at[1:])
    return at


def pushes(lv: contraction.Levels) -> tuple[np.ndarray, ...]:
    """What the search up reads: each rank's level (``int32``) and its arcs up by tail
    (``out_ptr``, ``out_heads`` as ranks, ``out_weights``)."""
    n = lv.rank.size
    heads = np.repeat(np.arange(n, dtype=np.int32), np.diff(lv.up_ptr))
    by_tail = np.argsort(lv.up_tails, kind="stable")
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(lv.up_tails, minlength=n), out=out_ptr[1:])
    return lv.level, out_ptr, heads[by_tail], lv.up_weights[by_tail]


def traffic(graph: CSRGraph) -> dict[str, float]:
    """The bytes a tree of `rows` moves through device memory, by the kernel's layout, and
    the fewest any PHAST sweep of ``graph``'s whole hierarchy must move (its roofline).

    A group of `PHAST_TREES` trees has a table of a row a node (`PHAST_TREES` distances):
    the launcher fills the core's rows; the sweep reads, for each node below the core, its
    search's mark (a word a group) and its tails' rows and writes its row, with the arcs
    (its own among them) read once a group, but for the last level's, which `phast_widen`
    reads and sweeps into the matrix; `phast_core` reads the core's rows and writes them
    again (by way of a copy); `phast_widen` reads the other rows and writes the ``int64``
    matrix. ``layout``: all of it with no reuse in a cache (the search up, a few thousand
    nodes and their own rows, and the core's table, read once a tile of trees, left out).
    ``floor``: each distance but the last level's written once in the table, each written
    once in the matrix, and the arcs read once a group.
    """
    c = hierarchy(graph)
    lv = contraction.levels(c)
    n, k, item = graph.n_nodes, c.n_core, np.dtype(c.graph.distance_dtype()).itemsize
    core = 5 * item * k if k <= gpu_memory.CORE_TABLE_NODES else item * k
    down, below = int(lv.down_tails.size), n - k
    last = n - int(lv.starts[-2]) if lv.n_levels > 1 else 0
    arcs = 12 * (down + below) / PHAST_TREES  # tails, heads and weights, own arcs too
    marks = 4 * below / PHAST_TREES
    rows = item * (below - last) + item * (n - last)  # the sweep's writes, the widening's reads
    return {
        "layout": item * (down + below) + marks + core + arcs + rows + 8 * n,
        "floor": item * (n - last) + 8 * n + arcs,
    }


def _device_down(c: contraction.Contraction, columns, n_sources: int) -> tuple | None:
    """The arcs down the sweep reads for the distances of ``columns`` only (RPHAST:
    `engine.contraction.swept_for`), as chunks on the device, and how many; the last made
    is kept, as a matrix's chunks of sources share their columns. None where making them
    would cost more than they save: fewer than `FILL` sources, unless kept."""
    key = hashlib.sha256(np.ascontiguousarray(columns, dtype=np.int64)).hexdigest()
    if _restricted.get(c, (None,))[0] != key:
        if n_sources < FILL:
            return None
        lv = contraction.levels(c)
        low = contraction.restricted(lv, contraction.swept_for(lv, columns))
        cp = _backend.cupy()
        arcs = (low.down_ptr, low.down_tails, low.down_weights, low.starts)
        down = chunks(*(cp.asarray(a) for a in arcs), xp=cp)
        _restricted[c] = (key, down, int(low.down_tails.size))
    return _restricted[c][1:]


def _device(c: contraction.Contraction) -> tuple:
    """The hierarchy's ranks, levels, arcs up by tail (`pushes`) and chunks (`chunks`: the
    core's arcs in, the arcs down) on the device (uploaded once), its number of levels, its
    arcs up and its arcs down, and its arcs down by rank (``down_ptr``, on the device) with
    the first rank of its last level (the one ``phast_widen`` sweeps; n where none is)."""
    if c not in _uploads:
        cp = _backend.cupy()
        lv = contraction.levels(c)
        rank, starts, *up, down_ptr, down_tails, down_weights = (
            cp.asarray(a)
            for a in (lv.rank, lv.starts, lv.up_ptr, lv.up_tails, lv.up_weights, lv.down_ptr,
                      lv.down_tails, lv.down_weights)
        )  # fmt: skip
        up = chunks(*up, starts, xp=cp)
        down = chunks(down_ptr, down_tails, down_weights, starts, every=True, xp=cp)
        arrays = (rank, starts, *(cp.asarray(a) for a in pushes(lv)), *up, *down)
        bottom = int(lv.starts[-2]) if lv.n_levels > 1 else c.graph.n_nodes
        _uploads[c] = (arrays, lv.n_levels, int(lv.up_tails.size), int(lv.down_tails.size),
                       down_ptr, bottom)  # fmt: skip
    return _uploads[c]


def rows(
    graph: CSRGraph,
    sources: np.ndarray,
    columns: np.ndarray | None,
    *,
    delta: int | None = None,
    parents: bool = False,
    into=None,
    cluster: int | None = None,
    together: int | None = None,
):
    """The trees from ``sources``: distances to ``columns`` (all nodes when None) as
    ``int64`` (`UNREACHABLE` where unreached), on the device and without waiting.

    ``into``, a CuPy ``int64`` array of the result's shape, receives the distances directly.
    ``cluster`` blocks share a group's search up (0: one block; default `CLUSTER` where
    the GPU has clusters, else 0). ``together``: groups a warp of the sweep takes at once
    (default: `LANE_BYTES` of distances a lane; halved until it divides the groups).
    ``delta`` is not used (PHAST has no bands); ``parents`` is refused (`store_of`).

    Returns CuPy arrays (distances, None, counters): the counters are each source's arcs
    relaxed (every arc up and down) and levels passed (sources × 2).
    """
    if parents:
        msg = "PHAST's kernel keeps no parents; take the trees from whole rows"
        raise ValueError(msg)
    cp = _backend.cupy()
    c = hierarchy(graph)
    (rank, *arrays), n_levels, n_up, n_down, down_ptr, bottom = _device(c)
    restricted = None if columns is None else _device_down(c, columns, len(sources))
    if restricted is not None:  # the sweep restricted to what the columns need
        down, n_down = restricted
        arrays[-len(down) :] = down
        bottom = graph.n_nodes  # its levels all swept by phast_sweep
    fused = bottom < graph.n_nodes  # the last level swept by phast_widen
    dtype = np.dtype(c.graph.distance_dtype())
    n, m = graph.n_nodes, len(sources)
    groups = -(-m // PHAST_TREES)
    if cluster is None:
        cluster = CLUSTER if clusters_available() else 0
    group_step, row = PHAST_TREES, groups * PHAST_TREES  # node u's rows of every group together
    k = c.n_core
    by_table = 0 < k <= gpu_memory.CORE_TABLE_NODES
    # The whole sweep writes every row below the core: only the core's are filled (the
    # searches up fill those they reach); a restricted one reads and writes only its own.
    filled = (k if restricted is None else n) * row
    tables = cp.empty(groups * n * PHAST_TREES, dtype=dtype)
    if groups:  # infinite distances (all ones), at the memory's speed
        stream = cp.cuda.get_current_stream().ptr
        cp.cuda.runtime.memsetAsync(tables.data.ptr, 0xFF, filled * dtype.itemsize, stream)
    marks = cp.zeros(groups * n, dtype=np.int32)
    lists = cp.empty(groups * n, dtype=np.int32)
    counts = cp.zeros(groups * n_levels, dtype=np.uint32)
    ranked = rank[cp.asarray(np.asarray(sources, dtype=np.int64))]
    if groups:
        name = "phast_many_cluster" if cluster else "phast_many"
        args = (np.int64(n), np.int32(n_levels), *arrays[:5], ranked, np.int64(m), tables,
                marks, lists, counts, np.int64(group_step), np.int64(row))  # fmt: skip
        template = (dtype, cluster) if cluster else (dtype,)
        _function(name, *template)((groups * max(cluster, 1),), (PHAST_BLOCK,), args)
        if by_table:  # the core's rows: the searches' rows times the table, (min, +)
            core = cp.empty(k * row, dtype=dtype)
            sums = np.dtype(np.uint32 if graph.candidate_bound() < HALF_32 else np.uint64)
            _function("phast_core", dtype, sums)(
                (-(-row // CORE_TILE), -(-k // CORE_TILE)), (CORE_THREADS,),
                (gpu_memory.core_table(c, dtype), tables, core, np.int64(k), np.int64(row)),
            )  # fmt: skip
            tables[: k * row] = core
        together = LANE_BYTES // dtype.itemsize if together is None else together
        while groups % together:
            together //= 2
        sweep = _function("phast_sweep", dtype, together, GATHERS)
        grid = _backend.multiprocessor_count() * _backend.resident_blocks(sweep, PHAST_BLOCK)
        rounds = 0 < k and not by_table  # a core that no table takes: the grid's rounds
        sweep((grid,), (PHAST_BLOCK,), (np.int32(n_levels - fused), *arrays[-5:], tables,
              np.int64(groups), np.int64(group_step), np.int64(row), np.int32(rounds),
              *arrays[5:10], cp.zeros(1, dtype=np.int32),
              marks if restricted is None else 0,
              cp.zeros(groups * k, dtype=np.int32) if rounds else 0, np.int64(k)))  # fmt: skip
    width = n if columns is None else len(columns)
    direct = into is not None and into.shape == (m, width)
    dist = into if direct else cp.empty((m, width), dtype=np.int64)
    picked = 0 if columns is None else cp.asarray(np.asarray(columns, dtype=np.int64))
    tiles = groups * -(-width // PHAST_TILE)
    widen = _function("phast_widen", dtype)
    resident = _backend.resident_blocks(widen, PHAST_WIDEN)  # a wave: none waits for a place
    grid = max(min(tiles, _backend.multiprocessor_count() * resident), 1)
    widen(
        (grid,), (PHAST_WIDEN,),
        (tables, np.int64(group_step), np.int64(row), np.int64(m), rank, picked, np.int64(width),
         np.int64(UNREACHABLE), dist, np.int64(bottom), down_ptr if fused else 0,
         arrays[-2] if fused else 0, arrays[-1] if fused else 0, marks if fused else 0),
    )  # fmt: skip
    if into is not None and not direct:
        into[...] = dist
        dist = into
    counters = cp.empty((m, 2), dtype=np.int64)
    counters[:, 0] = n_up + n_down
    counters[:, 1] = n_levels
    return dist, None, counters
