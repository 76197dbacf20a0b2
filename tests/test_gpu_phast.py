"""PHAST's many-trees kernel (engine.backends.gpu_phast, kernels/phast.cu): its chunks of arcs
on the CPU, the kernel on the GPU, against SciPy's Dijkstra and the NumPy twin
(engine.contraction.trees)."""

import numpy as np
import pytest
from hypothesis import given

import engine
from engine import UNREACHABLE, contraction, many_to_many
from engine.backends import gpu_memory, gpu_phast

from .graphs import RANDOM_GRAPH, property_settings, random_graph
from .test_batch import _awkward_graph, _reference


def _as_the_kernel(c, sources):
    """The kernel's passes in NumPy, as it reads its arrays: the search up pushing from the
    nodes reached only, level by level from the bottom (`pushes`); the core's arcs in, then
    each level's arcs down, chunk by chunk (`chunks`, every node below the core its own arc),
    each head's row the least over its arcs, its own (weight 0) first, read only where the
    search up reached it."""
    lv = contraction.levels(c)
    table = np.full((c.round_of.size, len(sources)), UNREACHABLE, dtype=np.int64)
    table[lv.rank[sources], np.arange(len(sources))] = 0
    level_of, out_ptr, out_heads, out_weights = gpu_phast.pushes(lv)
    reached = np.zeros(c.round_of.size, dtype=bool)
    reached[lv.rank[sources]] = True
    for level in range(lv.n_levels - 1, 0, -1):
        for u in np.flatnonzero(reached & (level_of == level)):
            arcs = slice(out_ptr[u], out_ptr[u + 1])
            assert (level_of[out_heads[arcs]] < level).all()  # up: to higher levels
            d = np.where(table[u] != UNREACHABLE, table[u] + out_weights[arcs, None], UNREACHABLE)
            np.minimum.at(table, out_heads[arcs], d)
            reached[out_heads[arcs]] = True

    def pull(arcs, lo, hi, marks=None) -> bool:
        levels, firsts, heads, tails, weights = arcs
        fell = False
        for k in range(levels[lo], levels[hi]):
            a, b = firsts[k], firsts[k + 1]
            for head in np.unique(heads[a:b]):
                mine = np.arange(a, b)[heads[a:b] == head]
                assert tails[mine[0]] == head and weights[mine[0]] == 0  # its own row first
                d = table[tails[mine]]
                unfilled = marks is not None and not marks[head]
                if unfilled:  # never reached by a search up: its own row is not read
                    d[0] = UNREACHABLE
                d = np.where(d != UNREACHABLE, d + weights[mine, None].astype(np.int64), d)
                best = d.min(axis=0)
                fell |= bool((best < table[head]).any())
                table[head] = best if unfilled else np.minimum(table[head], best)
        return fell

    up = gpu_phast.chunks(lv.up_ptr, lv.up_tails, lv.up_weights, lv.starts)
    down = gpu_phast.chunks(lv.down_ptr, lv.down_tails, lv.down_weights, lv.starts, every=True)
    while lv.starts[1] > 0 and pull(up, 0, 1):
        pass
    for k in range(1, lv.n_levels):
        pull(down, k, k + 1, reached)
    return table[lv.rank]


@property_settings(40)
@given(**RANDOM_GRAPH)
def test_chunks_keep_a_nodes_arcs_together_and_give_scipys_trees(seed, density, max_weight):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    g = random_graph(rng, n, int(density * n), max_weight)
    sources = rng.integers(0, n, size=3)
    for c in (contraction.contract(g, **limits) for limits in contraction.KINDS.values()):
        lv = contraction.levels(c)
        levels, firsts, heads, _, _ = gpu_phast.chunks(
            lv.up_ptr, lv.up_tails, lv.up_weights, lv.starts
        )
        assert levels[0] == 0 and levels[-1] == firsts.size - 1 and firsts[-1] == heads.size
        assert np.all(np.diff(levels) >= 0) and np.all(np.diff(firsts) > 0)
        assert heads.size == lv.up_tails.size + np.count_nonzero(np.diff(lv.up_ptr))
        level_of = np.repeat(np.arange(lv.n_levels), np.diff(lv.starts))
        for k in range(firsts.size - 1):
            mine = heads[firsts[k] : firsts[k + 1]]
            assert len(set(level_of[mine])) == 1  # one level a chunk
            assert k + 1 == firsts.size - 1 or heads[firsts[k + 1]] != mine[-1]  # no node split
            assert np.all(np.diff(mine) >= 0)
            assert mine.size <= gpu_phast.CHUNK or mine[0] == mine[-1]  # or one node's
            if k + 2 < firsts.size and level_of[heads[firsts[k + 1]]] == level_of[mine[0]]:
                after = heads[firsts[k + 1] : firsts[k + 2]]
                assert mine.size + np.count_nonzero(after == after[0]) > gpu_phast.CHUNK  # full
        names = rng.permutation(n).astype(np.int32)  # the same chunks, named
        named = gpu_phast.chunks(
            lv.up_ptr, names[lv.up_tails], lv.up_weights, lv.starts, names=names
        )
        ranked = gpu_phast.chunks(lv.up_ptr, lv.up_tails, lv.up_weights, lv.starts)
        every = gpu_phast.chunks(lv.up_ptr, lv.up_tails, lv.up_weights, lv.starts, every=True)
        assert every[2].size == lv.up_tails.size + n  # an arc from itself each
        assert np.array_equal(np.unique(every[2]), np.arange(n))
        for a, b, named_too in zip(named, ranked, (False, False, True, True, False), strict=True):
            assert np.array_equal(a, names[b] if named_too else b) and a.dtype == b.dtype
        many = _as_the_kernel(c, sources)
        for j, source in enumerate(sources):
            assert np.array_equal(many[:, j], _reference(g, [int(source)])[0])


@pytest.mark.gpu
def test_the_sweep_laid_out_on_the_device_equals_the_hosts():
    """Issue 68: kernel ``sweep_down``'s chunks made by CuPy from the contraction
    (`gpu_memory.device_sweep`) are those NumPy makes from `contraction.levels`."""
    from engine.backends import gpu_memory

    rng = np.random.default_rng(68)
    for g in (_awkward_graph(8), random_graph(rng, 3_000, 9_000, 50)):
        for c in (contraction.contract(g, **limits) for limits in contraction.KINDS.values()):
            lv = contraction.levels(c)
            levels, firsts, heads, tails, weights = gpu_phast.chunks(
                lv.down_ptr, lv.down_tails, lv.down_weights, lv.starts
            )
            on_device = gpu_memory.device_sweep(c)
            assert on_device[1] == lv.n_levels
            expected = (levels, firsts, lv.nodes[heads], lv.nodes[tails], weights)
            types = (np.int64, np.int64, np.int32, np.int32, np.uint32)
            for got, want, dtype in zip(
                on_device[:1] + on_device[2:], expected, types, strict=True
            ):
                assert np.array_equal(got.get(), want) and got.dtype == dtype


@pytest.mark.gpu
@pytest.mark.parametrize("cluster", [0, 4, 16])
def test_the_kernel_equals_scipy_and_its_numpy_twin(cluster, monkeypatch):
    from engine.backends.gpu_kernels import clusters_available

    if cluster and not clusters_available():
        pytest.skip("needs a GPU of compute capability 9.0 or later")
    g = _awkward_graph(8)
    sources = np.arange(0, 400, 3)  # 134: groups of 32 trees and a short one
    reference = _reference(g, sources)
    dist, tree, counters = gpu_phast.rows(g, sources, None, cluster=cluster)
    np.testing.assert_array_equal(dist.get(), reference)
    c = gpu_phast.hierarchy(g)
    assert tree is None
    np.testing.assert_array_equal(dist.get(), contraction.trees(c, sources).T)
    assert (counters.get() == [c.graph.n_arcs + c.n_down, c.n_rounds + 1]).all()
    columns = np.array([5, 399, 0, 5])
    part, _, whole = gpu_phast.rows(g, sources[:3], columns, cluster=cluster)  # too few
    np.testing.assert_array_equal(part.get(), reference[:3][:, columns])
    assert (whole.get()[:, 0] == c.graph.n_arcs + c.n_down).all()  # sources to restrict
    monkeypatch.setattr(gpu_phast, "FILL", 3)
    part, _, fewer = gpu_phast.rows(g, sources[:3], columns, cluster=cluster)
    np.testing.assert_array_equal(part.get(), reference[:3][:, columns])
    assert (fewer.get()[:, 0] < c.graph.n_arcs + c.n_down).all()  # RPHAST: a restricted sweep
    part, _, kept = gpu_phast.rows(g, sources[:2], columns, cluster=cluster)  # kept: used
    np.testing.assert_array_equal(part.get(), reference[:2][:, columns])
    assert (kept.get()[:, 0] == fewer.get()[0, 0]).all()
    columns = np.array([7, 8])  # another restriction replaces the one kept
    part, _, _ = gpu_phast.rows(g, sources, columns, cluster=cluster)
    np.testing.assert_array_equal(part.get(), reference[:, columns])
    # A core larger than a table takes is relaxed by each group until nothing changes.
    assert c.n_core > 1
    monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", c.n_core - 1)
    dist, _, _ = gpu_phast.rows(g, sources, None, cluster=cluster)
    np.testing.assert_array_equal(dist.get(), reference)


@pytest.mark.gpu
@pytest.mark.parametrize("together", [1, 2, 4])
@pytest.mark.parametrize("max_weight", [50, 2**31])
def test_groups_swept_together_equal_scipy(together, max_weight, monkeypatch):
    """A warp of the sweep takes ``together`` groups at once, a lane that many trees side
    by side (one load of 8 to 32 bytes a tail): 100 sources (four groups, the last short),
    70 (three: taken one at a time), the whole sweep, one restricted to columns (every own
    row read) and a core by rounds (each group's stamps), 32- and 64-bit distances, all
    SciPy's."""
    rng = np.random.default_rng(3)
    g = random_graph(rng, 2_000, 7_000, max_weight=max_weight)
    wide = gpu_phast.hierarchy(g).graph.distance_dtype() == np.uint64
    assert wide == (max_weight == 2**31)
    sources = rng.choice(2_000, 100, replace=False)
    reference = _reference(g, sources)
    for m in (100, 70):
        dist = gpu_phast.rows(g, sources[:m], None, together=together)[0].get()
        np.testing.assert_array_equal(dist, reference[:m])
    monkeypatch.setattr(gpu_phast, "FILL", 3)
    columns = np.array([9, 1_999, 0, 9])
    part = gpu_phast.rows(g, sources, columns, together=together)[0].get()
    np.testing.assert_array_equal(part, reference[:, columns])
    assert gpu_phast.hierarchy(g).n_core > 1
    monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", 0)
    dist = gpu_phast.rows(g, sources, None, together=together)[0].get()
    np.testing.assert_array_equal(dist, reference)


@pytest.mark.gpu
def test_no_distance_is_read_before_it_is_written(monkeypatch):
    """The launcher fills only the core's rows and the searches up fill those they reach:
    every other distance the kernels read they wrote first. Every buffer CuPy hands out
    starts as 7s here (a short distance, wrong for most pairs): the whole sweep, a
    restricted one and a core by rounds still give SciPy's distances."""
    import cupy

    empty = cupy.empty

    def poisoned(*args, **kwargs):
        a = empty(*args, **kwargs)
        a.fill(7)
        return a

    monkeypatch.setattr(cupy, "empty", poisoned)
    g = _awkward_graph(8)
    every = np.arange(0, 400, 3)
    columns = np.array([5, 399, 0])
    for sources in (every, every[:128]):  # five groups a warp at a time, four at once
        reference = _reference(g, sources)
        np.testing.assert_array_equal(gpu_phast.rows(g, sources, None)[0].get(), reference)
        with monkeypatch.context() as m:
            m.setattr(gpu_phast, "FILL", 3)
            part = gpu_phast.rows(g, sources, columns)[0].get()
            np.testing.assert_array_equal(part, reference[:, columns])
            m.setattr(gpu_memory, "CORE_TABLE_NODES", 0)
            np.testing.assert_array_equal(gpu_phast.rows(g, sources, None)[0].get(), reference)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("max_weight", "sums"), [(50, np.uint32), (1_000_000, np.uint64), (2**31, np.uint64)]
)
def test_the_core_by_its_table_equals_the_core_by_rounds(max_weight, sums, monkeypatch):
    """Kernel ``phast_core`` on a core of hundreds of nodes (tiles of 64 and a short last
    one) and 70 trees (three groups, the last short), sources in the core, unreachable
    parts: its sums at 32 bits; at 64 for 32-bit distances whose graph's bound passes 2^31;
    and 64-bit distances."""
    rng = np.random.default_rng(5)
    g = random_graph(np.random.default_rng(5), 3_000, 9_000, max_weight=max_weight)
    c = gpu_phast.hierarchy(g)
    assert 64 < c.n_core <= gpu_memory.CORE_TABLE_NODES and c.n_core % 64
    assert (g.candidate_bound() < gpu_phast.HALF_32) == (sums == np.uint32)
    assert c.graph.distance_dtype() == (np.uint64 if max_weight == 2**31 else np.uint32)
    in_core = np.flatnonzero(c.round_of < 0)[:10]
    sources = np.concatenate([rng.choice(3_000, 60, replace=False), in_core])
    reference = _reference(g, sources)
    assert (reference == UNREACHABLE).any()
    by_table = gpu_phast.rows(g, sources, None)[0].get()
    monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", 0)
    by_rounds = gpu_phast.rows(g, sources, None)[0].get()
    np.testing.assert_array_equal(by_table, reference)
    np.testing.assert_array_equal(by_rounds, reference)


@pytest.mark.gpu
def test_phast_wide_distances_kept_on_the_gpu():
    rng = np.random.default_rng(17)
    g = random_graph(rng, 3_000, 12_000, max_weight=2**31)  # sums pass 2^32: 64-bit
    sources = rng.choice(3_000, 20, replace=False)
    m = many_to_many(g, sources, method="phast", backend="gpu", keep_on_gpu=True,
                     memory_bytes=8 * 3_000 * 8)  # fmt: skip
    assert gpu_phast.hierarchy(g).graph.distance_dtype() == np.uint64
    assert m.chunks == 3 and type(m.dist).__module__.startswith("cupy")
    np.testing.assert_array_equal(m.dist.get(), _reference(g, sources))


@pytest.mark.gpu
def test_one_tree_sweeps_nodes_of_many_arcs_down(monkeypatch):
    """Kernel ``sweep_down`` takes a node's arcs down 32 at a time across a warp's lanes: the
    top of a dense graph's whole hierarchy has nodes of over a hundred (a run that spans
    several rounds of 32, and runs that end exactly where 32 do)."""
    g = random_graph(np.random.default_rng(1), 500, 4_000, max_weight=50)
    monkeypatch.setitem(contraction.KINDS, "hierarchy", contraction.KINDS["whole"])  # no core
    lv = contraction.levels(contraction.of(g, "hierarchy"))
    assert np.diff(lv.down_ptr).max() > 4 * gpu_phast.CHUNK
    for source in (0, 17, 499):
        r = engine.sssp(g, source, method="phast", backend="gpu")
        np.testing.assert_array_equal(r.distances, _reference(g, [source])[0])


def test_a_trees_bytes_by_the_layout_and_at_least():
    """`gpu_phast.traffic`: the roofline's bytes a tree, counted from the hierarchy."""
    g = _awkward_graph(8)
    lv = contraction.levels(gpu_phast.hierarchy(g))
    moved = gpu_phast.traffic(g)
    k = gpu_phast.hierarchy(g).n_core
    n, down, below = g.n_nodes, lv.down_tails.size, g.n_nodes - k
    last = n - lv.starts[-2]  # swept by phast_widen: its rows never in the table
    assert 0 < last < below
    arcs = 12 * (down + below) / 32  # every node below the core has its own arc
    assert moved["floor"] == 4 * (n - last) + 8 * n + arcs  # 32-bit distances here
    core = 20 * k  # filled, read and written, then copied
    marks = 4 * below / 32
    rows = 4 * (below - last) + 4 * (n - last)  # written by the sweep, read by the widening
    layout = 4 * (down + below) + marks + core + arcs + rows + 8 * n
    assert moved["layout"] == layout > moved["floor"]
