import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import UNREACHABLE, sssp
from engine.recording import FAR, NEAR, SETTLED, UNREACHED

from .graphs import (
    RANDOM_GRAPH,
    check_tree,
    grid_graph,
    heap_dijkstra,
    property_settings,
    random_graph,
)

ITERATIVE = ["near_far", "delta_stepping", "bucketing", "bellman_ford"]
#: Every method with a schedule of its own; near_far_async, near_far_core and phast have no
#: iterations to count.
SEARCHES = [*ITERATIVE, "near_far_async", "near_far_core", "phast"]
BATCHES = [1, 2, 7, 64]


def scipy_distances(graph, source):
    return sssp(graph, source, method="dijkstra").distances


@property_settings(60)
@given(
    n=st.integers(1, 40),
    **RANDOM_GRAPH,
    delta=st.sampled_from([1, 2, 7, 50, "auto", 10**6]),
    batch=st.sampled_from(BATCHES),
)
def test_random_graphs_match_dijkstra(backend, seed, n, density, max_weight, delta, batch):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n, int(density * n), max_weight)
    source = int(rng.integers(0, n))
    ref = heap_dijkstra(g, source)
    assert np.array_equal(scipy_distances(g, source), ref)
    for method in SEARCHES:
        r = sssp(g, source, method=method, backend=backend, delta=delta, batch_size=batch)
        assert r.distances.dtype == np.int64
        assert np.array_equal(r.distances, ref), (method, delta, batch)
        check_tree(r)


@pytest.mark.parametrize("method", ITERATIVE)
@pytest.mark.parametrize("delta", [1, 37, 400, "auto"])
@pytest.mark.parametrize("batch", BATCHES)
def test_grid(backend, method, delta, batch):
    g = grid_graph(30, 40, seed=3)
    r = sssp(g, 17, method=method, backend=backend, delta=delta, batch_size=batch)
    assert np.array_equal(r.distances, scipy_distances(g, 17))
    assert r.counters.host_syncs == -(-r.counters.iterations // batch)


def test_one_node_and_unreachable(backend):
    g = engine.from_arcs(1, [], [], [])
    for method in SEARCHES:
        r = sssp(g, 0, method=method, backend=backend)
        assert r.distances.tolist() == [0]
    g = engine.from_arcs(4, [0, 2], [1, 3], [5, 0])
    r = sssp(g, 0, backend=backend, record=True)
    assert r.distances.tolist() == [0, 5, UNREACHABLE, UNREACHABLE]
    assert r.path_to(1) == [0, 1] and r.path_to(3) == []
    assert r.recording.states(len(r.recording) - 1).tolist() == [3, 3, 0, 0]


def test_zero_weight_cycles_give_a_tree(backend):
    # 0 -> 1 (5), 0 -> 2 (5), 1 <-> 2 weight 0, 2 -> 3 weight 0, 3 -> 1 weight 0
    g = engine.from_arcs(4, [0, 0, 1, 2, 2, 3], [1, 2, 2, 1, 3, 1], [5, 5, 0, 0, 0, 0])
    for method in SEARCHES:
        r = sssp(g, 0, method=method, backend=backend, delta=1)
        assert r.distances.tolist() == [0, 5, 5, 5]
        check_tree(r)


def test_parallel_arcs_keep_lightest():
    g = engine.from_arcs(2, [0, 0, 0], [1, 1, 1], [9, 4, 6])
    assert g.n_arcs == 1 and g.weights.tolist() == [4]


def test_uint64_distances(backend):
    big = 2**32 - 10
    g = engine.from_arcs(4, [0, 1, 2], [1, 2, 3], [big, big, 7])
    assert g.distance_dtype() == np.uint64
    for method in SEARCHES:
        r = sssp(g, 0, method=method, backend=backend, delta=2**31)
        assert r.distances.tolist() == [0, big, 2 * big, 2 * big + 7]


# Issue #21: a relaxation's sum passed 2^32 in 32-bit distances, wrapped, and the search went
# on from a wrong, smaller distance (or never ended). Each case has a watchdog.
@pytest.mark.timeout(60)
@pytest.mark.parametrize("method", SEARCHES)
@pytest.mark.parametrize("batch", [1, 64])
def test_sum_past_32_bits_does_not_wrap(backend, method, batch):
    g = engine.from_arcs(2, [0, 1], [1, 1], [4294966375, 4294966935])
    r = sssp(g, 0, method=method, backend=backend, batch_size=batch)
    assert r.distances.tolist() == [0, 4294966375]
    g = engine.from_arcs(3, [0, 1, 2], [1, 2, 1], [2**31 - 1] * 3)
    r = sssp(g, 0, method=method, backend=backend, batch_size=batch)
    assert r.distances.tolist() == [0, 2147483647, 4294967294]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("method", SEARCHES)
def test_distances_at_the_32_bit_edge(backend, method):
    rng = np.random.default_rng(21)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        m = int(rng.integers(1, 3 * n))
        w = (2**32 - 2) // (n - 1) - rng.integers(0, 4, size=m)
        g = engine.from_arcs(n, rng.integers(0, n, m), rng.integers(0, n, m), w)
        source = int(rng.integers(0, n))
        for delta in ("auto", 1, 2**31, 2**32 + 5):
            r = sssp(g, source, method=method, backend=backend, delta=delta)
            assert np.array_equal(r.distances, scipy_distances(g, source))


def test_distance_type_holds_every_relaxation():
    """No d(u) + w(u, v) exceeds `candidate_bound`, so the chosen type never wraps."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        m = int(rng.integers(0, 4 * n))
        g = random_graph(rng, n, m, max_weight=int(rng.choice([3, 1000, 2**32 - 1])))
        for source in range(n):
            d = scipy_distances(g, source)
            reach = d[g.sources] != UNREACHABLE
            sums = d[g.sources][reach] + g.weights[reach].astype(np.int64)
            assert sums.max(initial=0) <= g.candidate_bound()
        if g.candidate_bound() < 2**32 - 1:
            assert g.distance_dtype() == np.uint32


@pytest.mark.parametrize("delta", [2**32 - 1, 2**32, 2**40, 2**70])
def test_any_delta_is_clamped_alike(backend, delta):
    g = grid_graph(6, 6, seed=2)
    assert g.distance_dtype() == np.uint32 and g.max_delta() == 2**32 - 1
    for method in ("near_far", "near_far_async", "delta_stepping"):
        r = sssp(g, 0, method=method, backend=backend, delta=delta)
        assert r.delta == 2**32 - 1
        assert r.counters.phases == 1
        assert np.array_equal(r.distances, scipy_distances(g, 0))


def test_auto_delta_is_clamped_for_heavy_weights(backend):
    g = engine.from_arcs(2, [0], [1], [2**31 - 1])  # c·w̄/d̄ = 2^37 with 32-bit distances
    assert g.distance_dtype() == np.uint32
    assert g.auto_delta() == g.max_delta() == 2**32 - 1
    r = sssp(g, 0, backend=backend)
    assert r.delta == 2**32 - 1 and r.distances.tolist() == [0, 2**31 - 1]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(
    ("method", "delta"),
    [("bellman_ford", "auto"), ("near_far", 2**63 + 1), ("delta_stepping", 2**64 + 3)],
)
def test_recorded_thresholds_of_64_bit_searches(backend, method, delta):
    """Thresholds beyond every distance are recorded as UNREACHABLE, never wrapped."""
    g = engine.from_arcs(3, [0, 1], [1, 2], [2**32 - 1, 2**32 - 1])
    r = sssp(g, 0, method=method, backend=backend, delta=delta, record=True)
    assert r.distances.tolist() == [0, 2**32 - 1, 2**33 - 2]
    lo, hi = r.recording.column("lo"), r.recording.column("hi")
    assert (lo >= 0).all() and (hi >= lo).all()
    assert hi[-1] == UNREACHABLE
    assert r.recording.snapshot(len(r.recording) - 1).settled == 3


@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing"])
def test_target_stops_early_with_final_distance(backend, method):
    g = grid_graph(40, 40, seed=5)
    ref = scipy_distances(g, 0)
    target = 41
    r = sssp(g, 0, method=method, backend=backend, delta=60, target=target)
    full = sssp(g, 0, method=method, backend=backend, delta=60)
    assert r.distances[target] == ref[target]
    assert r.counters.iterations < full.counters.iterations
    final = r.distances < r.settled_below
    assert final[target]
    assert np.array_equal(r.distances[final], ref[final])
    check_tree(r)


@pytest.mark.parametrize("delta", [1, 37, 400, "auto"])
def test_near_far_async_matches_near_far(backend, delta):
    g = grid_graph(30, 40, seed=3)
    sync = sssp(g, 17, backend=backend, delta=delta)
    r = sssp(g, 17, method="near_far_async", backend=backend, delta=delta)
    assert np.array_equal(r.distances, scipy_distances(g, 17))
    assert r.counters.phases == sync.counters.phases  # the same bands, however relaxed
    if r.backend == "cpu":  # the synchronous twin
        assert r.counters == sync.counters
    check_tree(r)


def test_near_far_async_target_settles_early(backend):
    g = grid_graph(40, 40, seed=5)
    ref = scipy_distances(g, 0)
    r = sssp(g, 0, method="near_far_async", backend=backend, delta=60, target=41)
    full = sssp(g, 0, method="near_far_async", backend=backend, delta=60)
    assert r.distances[41] == ref[41] and r.counters.phases < full.counters.phases
    final = r.distances < r.settled_below
    assert final[41] and np.array_equal(r.distances[final], ref[final])


def test_batch_changes_syncs_not_answers(backend):
    g = grid_graph(20, 20, seed=1)
    runs = [sssp(g, 0, backend=backend, delta=50, batch_size=b) for b in BATCHES]
    for r in runs:
        assert np.array_equal(r.distances, runs[0].distances)
    syncs = [r.counters.host_syncs for r in runs]
    assert syncs == sorted(syncs, reverse=True) and syncs[0] > syncs[-1]


def test_delta_trades_phases_for_work():
    g = grid_graph(30, 30, seed=2)
    small = sssp(g, 0, backend="cpu", delta=1)
    large = sssp(g, 0, backend="cpu", delta=10**6)
    assert small.counters.phases > large.counters.phases
    assert small.counters.edges_relaxed < large.counters.edges_relaxed
    # Δ=1 relaxes each reachable node once: exactly Dijkstra's work
    dij = sssp(g, 0, method="dijkstra")
    assert small.counters.edges_relaxed == dij.counters.edges_relaxed


@property_settings(40)
@given(n=st.integers(1, 40), **RANDOM_GRAPH, method=st.sampled_from(SEARCHES))
def test_dijkstras_counts_from_any_exact_search(n, density, max_weight, seed, method):
    # What SciPy's search does (with a target: up to it), from another method's distances.
    g = random_graph(np.random.default_rng(seed), n, int(density * n), max_weight=max_weight)
    exact = sssp(g, 0, method=method, backend="cpu").distances
    for target in (None, 0, n - 1):
        dij = sssp(g, 0, method="dijkstra", target=target).counters
        counted = engine.search.dijkstra_counters(g, exact, target)
        assert (counted.iterations, counted.edges_relaxed) == (dij.iterations, dij.edges_relaxed)


def test_bucketing_takes_most_buckets_from_its_sorted_store(backend):
    # Δ = 1 spreads the far nodes over more buckets than the store's segments, so the last
    # segment (every bucket beyond) is reached and sorted again too.
    g = grid_graph(40, 40, seed=6)
    r = sssp(g, 0, method="bucketing", backend=backend, delta=1)
    assert np.array_equal(r.distances, scipy_distances(g, 0))
    assert r.distances.max() > engine.methods.SEGMENTS
    assert 0 < r.counters.bucket_sorts < r.counters.phases / 4
    assert sssp(g, 0, method="near_far", backend=backend, delta=1).counters.bucket_sorts == 0


def test_bellman_ford_is_one_phase():
    g = grid_graph(10, 10)
    r = sssp(g, 0, method="bellman_ford", backend="cpu")
    assert r.delta is None and r.counters.phases == 1 and r.counters.far_compactions == 0


def test_auto_delta_is_reported():
    g = grid_graph(10, 10)
    r = sssp(g, 0, backend="cpu")
    assert r.delta == g.auto_delta() > 0


@pytest.mark.parametrize(
    ("shape", "delta"),
    [("grid", 40), ("heavy", 2)],  # heavy: far nodes beyond the last bucket bin too
)
@pytest.mark.parametrize("method", ITERATIVE)
# The GPU queues the end (distances, stamps) after the last batch at 7, behind each batch at
# 20 and 1024 (`_gpu.END_AHEAD_BATCH`); 1024 runs the whole search in one batch.
@pytest.mark.parametrize("batch", [7, 20, 1024])
def test_recording_invariants(backend, method, shape, delta, batch):
    if shape == "grid":
        g = grid_graph(25, 25, seed=4)
    else:
        g = random_graph(np.random.default_rng(5), 300, 1500, max_weight=1000)
    r = sssp(g, 3, method=method, backend=backend, delta=delta, batch_size=batch, record=True)
    rec = r.recording
    assert len(rec) == r.counters.iterations + 1
    reachable = r.distances != UNREACHABLE
    prev_settled = -1
    prev_edges = -1
    for k, snap in enumerate(rec):
        states = snap.states()
        counts = np.bincount(states, minlength=4)
        assert counts[UNREACHED] == snap.unreached and counts[FAR] == snap.far
        assert counts[NEAR] == snap.near and counts[SETTLED] == snap.settled
        assert snap.iteration == k
        assert snap.settled >= prev_settled and snap.edges_relaxed >= prev_edges
        prev_settled, prev_edges = snap.settled, snap.edges_relaxed
        if method in ("delta_stepping", "bucketing"):
            assert sum(snap.buckets.values()) == snap.near + snap.far
        assert snap.far_pile >= snap.far  # every far node is on the pile (or in the store)
    last = rec.snapshot(len(rec) - 1)
    assert np.array_equal(last.states() == SETTLED, reachable)
    assert rec.snapshot(0).near == 1 and rec.snapshot(0).states()[3] == NEAR
    if shape == "heavy" and rec.buckets is not None:
        assert rec.buckets[:, -1].any()  # the bin of every bucket beyond was used
    assert last.edges_relaxed == r.counters.edges_relaxed
    assert rec.column("improving")[-1] == r.counters.improving_relaxations
    assert rec.column("relaxed_entries")[-1] == rec.relax_log.size
    assert last.far_pile == 0


@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing"])
def test_settled_nodes_are_final_at_their_frame(backend, method):
    g = grid_graph(20, 20, seed=8)
    r = sssp(g, 0, backend=backend, method=method, delta=30, batch_size=6, record=True)
    rec = r.recording
    for k in range(len(rec)):
        snap = rec.snapshot(k)
        states = snap.states()
        assert np.all(r.distances[states == SETTLED] < snap.settled_below)
        near = r.distances[states == NEAR]
        assert np.all((near >= snap.settled_below) & (near < snap.threshold))


def test_recording_is_compact():
    rec = engine.Recording(100_000, delta=1, with_buckets=False)
    rec.append(np.zeros((10_000, len(engine.recording.FRAME_FIELDS)), dtype=np.int64))
    assert rec.nbytes() < 2_500_000


@pytest.mark.parametrize("batch", [4, 32])  # the GPU's distances queued after or behind batches
def test_stream_yields_while_running(backend, batch):
    g = grid_graph(20, 20)
    s = engine.stream(g, 0, backend=backend, delta=20, batch_size=batch)
    frames = []
    for snap in s:  # each frame's node states agree with its counts as it arrives
        frames.append(snap.iteration)
        counts = np.bincount(snap.states(), minlength=4)
        assert (counts[SETTLED], counts[NEAR], counts[FAR]) == (snap.settled, snap.near, snap.far)
    assert frames == list(range(len(frames)))
    assert s.result is not None and len(frames) == s.result.counters.iterations + 1


def test_record_callback_sees_every_frame():
    g = grid_graph(12, 12)
    seen = []
    r = sssp(g, 0, backend="cpu", delta=25, batch_size=3, record=seen.append)
    assert [s.iteration for s in seen] == list(range(r.counters.iterations + 1))


def test_dijkstra_counters_and_backend():
    g = grid_graph(10, 10)
    r = sssp(g, 0, method="dijkstra")
    assert r.backend == "cpu" and r.counters.iterations == 100
    with pytest.raises(engine.ParameterError, match="SciPy"):
        sssp(g, 0, method="dijkstra", backend="gpu")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "astar"}, engine.ParameterError, "near_far_async, near_far_core, phast, delta"),
        ({"backend": "tpu"}, engine.ParameterError, "known backends"),
        ({"delta": 0}, engine.ParameterError, "delta must be"),
        ({"method": "bucketing", "delta": 0}, engine.ParameterError, "delta must be"),
        ({"delta": -3}, engine.ParameterError, "delta must be"),
        ({"delta": 2.5}, engine.ParameterError, "integer"),
        ({"batch_size": 0}, engine.ParameterError, "batch size"),
        ({"target": 10**6}, engine.NodeNotFoundError, "not a node index"),
        ({"record": "yes"}, engine.ParameterError, "record"),
    ],
)
def test_bad_options(kwargs, error, match):
    g = grid_graph(3, 3)
    with pytest.raises(error, match=match):
        sssp(g, 0, **kwargs)


@pytest.mark.parametrize("given", [None, "helsinki", np.zeros((3, 3))])
def test_a_graph_that_is_not_one_is_one_line(given):
    with pytest.raises(engine.ParameterError, match="graph must be a CSRGraph"):
        sssp(given, 0)
    with pytest.raises(engine.ParameterError, match="graph must be a CSRGraph"):
        engine.many_to_many(given, [0])


def test_bad_source():
    g = grid_graph(3, 3)
    with pytest.raises(engine.NodeNotFoundError):
        sssp(g, 9)
    with pytest.raises(engine.NodeNotFoundError):
        sssp(g, -1)


def test_gpu_unavailable_message(monkeypatch):
    from engine.backends import device as _backend

    monkeypatch.setenv("FRONTIER_DISABLE_GPU", "1")
    _backend._cupy_or_reason.cache_clear()
    try:
        with pytest.raises(engine.BackendUnavailableError, match="--backend cpu"):
            sssp(grid_graph(2, 2), 0, backend="gpu")
        assert sssp(grid_graph(2, 2), 0, backend="auto").backend == "cpu"
    finally:
        monkeypatch.delenv("FRONTIER_DISABLE_GPU")
        _backend._cupy_or_reason.cache_clear()


def test_memory_check_message():
    from engine.backends import gpu_memory

    with pytest.raises(engine.GPUMemoryError, match="--backend cpu"):
        gpu_memory.check_fits(10 * 2**30, 2**30)
    gpu_memory.check_fits(2**20, 2**30)


def test_the_registry_answers_which_methods_can_record():
    """Issue 53: one query of the registry, not lists kept by hand, and it tells the truth."""
    from engine.methods import METHODS, names

    g = engine.from_arcs(3, [0, 1], [1, 2], [1, 2])
    assert names(recordable=True) == names(iterative=True)
    assert names(recorded_by_phase=True) == ("near_far_async", "near_far_core", "phast")
    assert names(batched=True) == ("near_far", "near_far_async", "phast")
    assert names(contracted=True) == ("near_far_core", "phast")
    assert set(names()) == set(METHODS)
    for name in METHODS:
        recording = sssp(g, 0, method=name, backend="cpu", record=True).recording
        assert (recording is not None) == (name in names(recordable=True)), name
        if recording is not None:
            assert recording.by_phase == METHODS[name].recorded_by_phase
