"""GPU-only behaviour: kernels agree with the CPU twin, the far pile survives overflow,
memory is checked before upload."""

import numpy as np
import pytest

import engine
from engine import _gpu, sssp
from engine.methods import METHODS, RunSpec
from engine.search import AUTO_GPU_MIN_NODES

from .graphs import grid_graph, random_graph

pytestmark = pytest.mark.gpu


def _spec(g, method, delta, batch=8):
    return RunSpec(g, 0, METHODS[method], delta, batch, None, g.distance_dtype(), None)


@pytest.mark.parametrize("method", ["near_far", "delta_stepping"])
def test_far_pile_overflow_is_rebuilt(method):
    g = grid_graph(40, 40, seed=9)
    spec = _spec(g, method, 25)
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(spec, pile_capacity=4)
    ref = sssp(g, 0, method="dijkstra").distances
    assert np.array_equal(dist.astype(np.int64), ref)
    assert counters.pile_rebuilds > 0


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


def test_helsinki_recording_on_gpu():
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
    dist, counters, _ = _gpu.run(spec, blocks=blocks)
    assert np.array_equal(dist, sssp(g, 0, method="dijkstra").distances)
    assert counters.edges_relaxed >= g.n_arcs


def test_grid_sync_probe():
    assert 0 < _gpu.grid_sync_us(rounds=1000) < 100


def test_auto_backend_crossover():
    small, big = grid_graph(20, 20), grid_graph(50, 50)
    assert small.n_nodes < AUTO_GPU_MIN_NODES <= big.n_nodes
    assert sssp(small, 0).backend == "cpu"
    assert sssp(big, 0).backend == "gpu"
