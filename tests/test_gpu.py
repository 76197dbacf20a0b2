"""GPU-only behaviour: kernels agree with the CPU twin, the far pile survives overflow,
memory is checked before upload."""

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import engine
from engine import sssp
from engine.backends import gpu as _gpu
from engine.backends import gpu_kernels, gpu_memory
from engine.methods import METHODS, RunSpec
from engine.search import AUTO_GPU_MIN_NODES

from .graphs import grid_graph, path_graph, random_graph

pytestmark = pytest.mark.gpu

needs_clusters = pytest.mark.skipif(
    not (engine.gpu_available() and _gpu.clusters_available()),
    reason="thread-block clusters need compute capability 9.0",
)


def _spec(g, method, delta, batch=8):
    return RunSpec(g, 0, METHODS[method], delta, batch, None, g.distance_dtype(), None)


@pytest.mark.parametrize("scope", [None, "grid"])
@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing"])
def test_far_pile_overflow_is_rebuilt(method, scope):
    g = grid_graph(40, 40, seed=9)
    spec = _spec(g, method, 25)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(spec, pile_capacity=4, scope=scope)
    ref = sssp(g, 0, method="dijkstra").distances
    assert np.array_equal(dist.astype(np.int64), ref)
    assert counters.pile_rebuilds > 0


@pytest.mark.parametrize("method", ["near_far", "delta_stepping"])
def test_arc_table_carries_each_heads_arc_range(method):
    g = grid_graph(12, 9, seed=4)
    spec = _spec(g, method, 25)
    _gpu.prepare(g, spec)
    split = spec.delta if spec.light_heavy else None
    table = gpu_memory.uploads[g].arcs(g, split).get()
    ends = g.light_end(25) if split else g.indptr[1:]
    assert table.shape == (g.n_arcs, gpu_memory.ARC_BYTES // 4)
    assert np.array_equal(table[:, 0], g.indices)
    assert np.array_equal(table[:, 1].view(np.uint32), g.weights)
    assert np.array_equal(table[:, 2], g.indptr[g.indices])
    assert np.array_equal(table[:, 3], ends[g.indices])


def test_gpu_matches_cpu_on_larger_random_graphs():
    rng = np.random.default_rng(5)
    for _ in range(5):
        g = random_graph(rng, 20_000, 60_000, max_weight=1000)
        cpu = sssp(g, 0, backend="cpu", delta=300)
        gpu = sssp(g, 0, backend="gpu", delta=300)
        assert np.array_equal(cpu.distances, gpu.distances)
        assert gpu.device and gpu.backend == "gpu"


def test_device_name_and_setup_time():
    g = grid_graph(5, 5)
    r = sssp(g, 0, backend="gpu")
    assert "CPU" not in r.device and r.setup_s >= 0


@pytest.mark.parametrize("scope", [None, "grid", "cluster"])
def test_helsinki_recording_on_gpu(scope, monkeypatch):
    if scope == "cluster" and not _gpu.clusters_available():
        pytest.skip("thread-block clusters need compute capability 9.0")
    if scope is not None:
        monkeypatch.setattr(_gpu, "_scopes", lambda _scope: (scope,))
    g = engine.load_graph("helsinki")
    r = sssp(g, 0, backend="gpu", method="delta_stepping", batch_size=5, record=True)
    rec = r.recording
    assert len(rec) == r.counters.iterations + 1
    last = rec.snapshot(len(rec) - 1)
    assert last.settled == np.count_nonzero(r.distances != engine.UNREACHABLE)
    for k in range(len(rec)):
        snap = rec.snapshot(k)
        counts = np.bincount(snap.states(), minlength=4)
        assert counts.tolist() == [snap.unreached, snap.far, snap.near, snap.settled]
        assert sum(snap.buckets.values()) == snap.near + snap.far


@pytest.mark.parametrize("blocks", [1, 3, 64])
def test_grid_size_changes_speed_only(blocks):
    g = grid_graph(50, 50, seed=4)
    spec = _spec(g, "near_far", 40, batch=16)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(spec, blocks=blocks, scope="grid")
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.edges_relaxed >= g.n_arcs


def test_sync_probes():
    assert 0 < gpu_kernels.sync_us("grid", rounds=1000) < 100
    if _gpu.clusters_available():
        assert 0 < gpu_kernels.sync_us("cluster", rounds=1000) < 100


@needs_clusters
@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing", "bellman_ford"])
@pytest.mark.parametrize("capacity", [1, 7, _gpu.QUEUE_CAPACITY])
def test_cluster_scope_spills_to_global_memory(method, capacity):
    # Tiny shared-memory queues and far stages spill in almost every iteration; each
    # batch of 3 ends by moving the shared parts to global memory.
    g = grid_graph(60, 60, seed=11)
    spec = _spec(g, method, 30, batch=3)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(
        spec, scope="cluster", queue_capacity=capacity, stage_capacity=capacity
    )
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.host_syncs == -(-counters.iterations // 3)


@needs_clusters
@pytest.mark.parametrize("delta", [30, 10**6])
def test_near_far_async_runs_without_iterations(delta):
    g = grid_graph(60, 60, seed=11)
    r = sssp(g, 0, method="near_far_async", backend="gpu", delta=delta)
    assert np.array_equal(r.distances, sssp(g, 0, method="dijkstra").distances)
    c = r.counters
    assert c.iterations == 0 and c.host_syncs == 1 and c.queue_items >= g.n_nodes
    assert c.phases == sssp(g, 0, backend="gpu", delta=delta).counters.phases
    # A band of Δ 30 stays whole; one of the whole graph is taken in sub-bands.
    assert (c.held_back > 0) == (delta > _gpu.ASYNC_SUB * g.auto_delta())


@needs_clusters
@pytest.mark.parametrize("threads", [_gpu.ASYNC_BLOCK, _gpu.ASYNC_WIDE_BLOCK])
@pytest.mark.parametrize("delta", [30, 10**4])
def test_near_far_async_blocks_of_either_size(threads, delta):
    # Blocks of 1,024 threads run bands from 4 × Davidson's Δ on (_gpu.ASYNC_WIDE); either
    # size runs any band.
    g = random_graph(np.random.default_rng(7), 20_000, 80_000, max_weight=100)
    spec = _spec(g, "near_far_async", delta, batch=16)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(spec, async_threads=threads)
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.queue_items > 0
    wide = _spec(g, "near_far_async", _gpu.ASYNC_WIDE * g.auto_delta())
    assert _gpu._async_threads(wide) == _gpu.ASYNC_WIDE_BLOCK
    narrow = _spec(g, "near_far_async", _gpu.ASYNC_WIDE * g.auto_delta() - 1)
    assert _gpu._async_threads(narrow) == _gpu.ASYNC_BLOCK


@needs_clusters
@pytest.mark.parametrize(("capacity", "delta"), [(1, 50), (1, 10**6), (2048, 10**6)])
def test_near_far_async_hands_over_when_a_ring_fills(capacity, delta):
    # A ring of one slot takes nothing (every entry goes to the global list); one of 2,048
    # fills once a band of the whole graph spreads (a band of Δ 50 leaves each of the GPU's
    # blocks fewer entries than that; a ring keeps room for a ticket per thread of its
    # block), and with no held list its overflow goes to the global list too. The
    # synchronous batches then finish the search.
    g = random_graph(np.random.default_rng(3), 50_000, 200_000, max_weight=100)
    spec = _spec(g, "near_far_async", delta, batch=16)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(
        spec, ring_capacity=capacity, stage_capacity=capacity, held_capacity=0, async_sub=0
    )
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.iterations > 0 and (counters.queue_items > 0) == (capacity > 1)
    assert counters.host_syncs > -(-counters.iterations // 16)


@needs_clusters
@pytest.mark.parametrize(("sub", "held"), [(0, 64), (0, 65536), (1, 64), (1, 8)])
def test_near_far_async_holds_back_a_full_rings_entries_and_later_sub_bands(sub, held):
    # A band of the whole graph on rings of 2,048 slots: the overflow waits in the blocks'
    # held lists until the rings drain, as do nodes beyond the sub-band (sub × the auto Δ
    # wide); held lists too small for them send the rest to the global list, and the
    # batches finish (iterations). Every order gives the same distances and phases.
    g = random_graph(np.random.default_rng(3), 50_000, 200_000, max_weight=100)
    spec = _spec(g, "near_far_async", 10**6, batch=16)
    _gpu.prepare(g, spec)
    options = dict(ring_capacity=2048, stage_capacity=2048, held_capacity=held, async_sub=sub)
    dist, counters, _ = _gpu.run(spec, **options)
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.held_back > 0
    if held == 65536:
        assert counters.iterations == 0 and counters.phases == 1


@needs_clusters
@pytest.mark.parametrize("factor", [1, 4, 16, 64])
def test_near_far_async_sub_bands_keep_every_distance(factor):
    # Bands of 1-64 x the auto Δ, in sub-bands where wider than ASYNC_SUB x it: from 8 x on the
    # blocks hold nodes back (below it only what overflows a ring: the first band's nodes
    # all come from the block that took the source); the phases are Near-Far's either way.
    g = random_graph(np.random.default_rng(12), 30_000, 120_000, max_weight=1000)
    delta = factor * g.auto_delta()
    r = sssp(g, 5, method="near_far_async", backend="gpu", delta=delta)
    assert np.array_equal(r.distances, sssp(g, 5, method="dijkstra").distances)
    assert r.counters.held_back > 0 or factor <= _gpu.ASYNC_SUB
    assert r.counters.phases == sssp(g, 5, backend="cpu", delta=delta).counters.phases


@needs_clusters
def test_near_far_async_skips_the_arc_back_to_the_parent():
    # One band: each node is improved once, by the node before it, and its ring entry relaxes
    # only the arc onward; the synchronous kernel relaxes both ways.
    n = 100
    g = path_graph(n, 3)
    r = sssp(g, 0, method="near_far_async", backend="gpu", delta=10**6)
    assert r.distances.tolist() == list(range(0, 3 * n, 3))
    assert r.counters.edges_relaxed == n - 1
    assert sssp(g, 0, backend="gpu", delta=10**6).counters.edges_relaxed == 2 * (n - 1)


@needs_clusters
def test_near_far_async_entries_from_the_far_pile_relax_every_arc():
    # Arcs of 1,000 with a Delta of 10: each node is its own band, reached from the far pile,
    # whose entries have no parent: every arc is relaxed.
    n = 30
    g = path_graph(n, 1000)
    r = sssp(g, 0, method="near_far_async", backend="gpu", delta=10)
    c = r.counters
    assert r.distances.tolist() == list(range(0, 1000 * n, 1000))
    assert c.phases == n and c.far_compactions == n - 1
    assert c.edges_relaxed == 2 * (n - 1)


@needs_clusters
def test_scopes_switch_by_frontier_size(monkeypatch):
    # Thresholds low enough that the search crosses them both ways many times.
    monkeypatch.setattr(_gpu, "CLUSTER_MAX", 40)
    monkeypatch.setattr(_gpu, "GRID_MIN", 20)
    seen = []
    real = _gpu._next_scope
    monkeypatch.setattr(_gpu, "_next_scope", lambda c, n: seen.append(real(c, n)) or seen[-1])
    rng = np.random.default_rng(8)
    g = random_graph(rng, 5_000, 20_000, max_weight=100)
    for method in ("near_far", "delta_stepping", "bucketing", "bellman_ford"):
        seen.clear()
        r = sssp(g, 0, method=method, backend="gpu", delta=40, batch_size=1000)
        assert np.array_equal(r.distances, sssp(g, 0, method="dijkstra").distances)
        assert {"grid", "cluster"} <= set(seen), method
        assert r.counters.host_syncs == len(seen)


def test_auto_backend_crossover():
    small, big = grid_graph(20, 20), grid_graph(50, 50)
    assert small.n_nodes < AUTO_GPU_MIN_NODES <= big.n_nodes
    assert sssp(small, 0).backend == "cpu"
    assert sssp(big, 0).backend == "gpu"


@pytest.mark.parametrize(
    ("max_weight", "dtype"), [(0, np.uint32), (40, np.uint32), (2**31, np.uint64)]
)
def test_phasts_one_tree_by_the_cores_table_equals_the_searched_core(
    max_weight, dtype, monkeypatch
):
    # Zero weights, unreachable parts (a sparse random graph) and 64-bit distances; kernel
    # phast_tree (climb, core table, sweep, the last level swept as the distances are written)
    # against the core searched (a core too large, or levels too many for the climb).
    g = random_graph(np.random.default_rng(3), 3_000, 9_000, max_weight=max_weight)
    c = engine.contraction.of(g, "hierarchy")
    spec = RunSpec(c.graph, 0, METHODS["phast"], 1, 64, None, c.graph.distance_dtype(), None,
                   contraction=c)  # fmt: skip
    assert c.n_core > 0 and spec.dtype == dtype and _gpu.tree_by_table(spec)
    monkeypatch.setattr(_gpu, "CLIMB_LEVELS", c.n_rounds)
    assert not _gpu.tree_by_table(spec)
    monkeypatch.undo()
    monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", c.n_core - 1)
    assert not _gpu.tree_by_table(spec)
    last = engine.contraction.levels(c).nodes[-1]  # a node of the last level
    for source in (0, 17, 2_999, int(last), int(np.flatnonzero(c.round_of < 0)[0])):
        reference = sssp(g, source, method="dijkstra").distances
        assert (reference == engine.UNREACHABLE).any()
        searched = sssp(g, source, method="phast", backend="gpu").distances
        monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", c.n_core)
        by_table = sssp(g, source, method="phast", backend="gpu")
        monkeypatch.setattr(gpu_memory, "CORE_TABLE_NODES", c.n_core - 1)
        np.testing.assert_array_equal(searched, reference)
        np.testing.assert_array_equal(by_table.distances, reference)
        if (reference != engine.UNREACHABLE).sum() > 1:  # its climb relaxed an arc at least
            assert by_table.counters.edges_relaxed > c.n_down
    # The table (Floyd and Warshall on the GPU) is SciPy's distances within the core.
    core = engine.contraction.levels(c).nodes[: c.n_core]
    within = dijkstra(c.graph.scipy_matrix()[core][:, core], directed=True)
    table = np.full(within.shape, np.iinfo(dtype).max, dtype=dtype)
    table[np.isfinite(within)] = within[np.isfinite(within)]
    np.testing.assert_array_equal(gpu_memory.core_table(c, dtype).get(), table)
