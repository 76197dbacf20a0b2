"""The recording's derived views: bucket sizes by bucket index over the search."""

import numpy as np
import pytest

import engine

from .graphs import grid_graph, random_graph


def test_bucket_matrix_counts_each_node_in_its_bucket():
    g = grid_graph(12, 12, seed=3)
    delta = 40
    r = engine.sssp(g, 0, method="delta_stepping", delta=delta, record=True)
    rec = r.recording
    matrix = rec.bucket_matrix()
    assert matrix.shape[0] == len(rec)
    seen = set()
    for frame in range(len(rec)):
        snap = rec.snapshot(frame)
        direct = {k: v for k, v in (snap.buckets or {}).items() if k >= 0}
        row = matrix[frame]
        assert {int(k): int(v) for k, v in enumerate(row) if v} == direct
        seen |= set(direct)
    assert matrix.shape[1] == max(seen) + 1  # every bucket ever occupied, no more
    assert engine.sssp(g, 0, method="near_far", record=True).recording.bucket_matrix() is None
    assert rec.bucket_matrix(limit=3).shape[1] == 3


def _direct_counts(monkeypatch, graph, source, **options):
    """Each node's relax work up to each frame, counted by watching the CPU twin relax."""
    from engine._cpu import _CpuSearch

    events = []  # (iteration, nodes whose arcs it relaxed)
    relax = _CpuSearch.relax

    def counting(self, nodes, starts, ends, hi=None):
        if np.array_equal(starts, self.indptr[nodes]):  # a near set's arcs, not heavy arcs
            events.append((self.c.iterations, nodes[ends > starts]))
        return relax(self, nodes, starts, ends, hi)

    monkeypatch.setattr(_CpuSearch, "relax", counting)
    r = engine.sssp(graph, source, backend="cpu", record=True, **options)
    monkeypatch.undo()
    frames = []
    for frame in range(len(r.recording)):
        counted = np.zeros(graph.n_nodes, dtype=np.int64)
        for iteration, nodes in events:
            if iteration <= frame:
                np.add.at(counted, nodes, 1)
        frames.append(counted)
    return r.recording, frames


@pytest.mark.parametrize("method", ["near_far", "bellman_ford"])
def test_relax_counts_equal_a_direct_count(monkeypatch, method):
    g = random_graph(np.random.default_rng(5), 300, 1500, max_weight=30)
    rec, direct = _direct_counts(monkeypatch, g, 0, method=method, delta=12)
    for frame in range(len(rec)):
        np.testing.assert_array_equal(rec.relax_counts(frame), direct[frame])
    assert rec.relax_counts(len(rec) - 1).max() > 1  # this graph has wasted work to show


def test_relax_counts_on_each_backend(backend):
    rng = np.random.default_rng(9)
    n = 5_000
    parents = rng.integers(0, np.arange(1, n))  # a tree: one way to reach each node
    tree = engine.from_arcs(n, parents, np.arange(1, n), rng.integers(1, 50, n - 1))
    mesh = random_graph(rng, 4_000, 20_000, max_weight=100)
    for g, method in ((tree, "near_far"), (mesh, "near_far"), (mesh, "delta_stepping")):
        cpu = engine.sssp(g, 0, backend="cpu", method=method, delta=40, record=True).recording
        run = engine.sssp(g, 0, backend=backend, method=method, delta=40, batch_size=5,
                          record=True).recording  # fmt: skip
        last = len(run) - 1
        for frame in (1, last // 2, last):
            counts = run.relax_counts(frame)
            column = run.frames[frame, engine.recording.FRAME_FIELDS.index("relaxed_entries")]
            assert counts.sum() == column
        # every settled node with arcs relaxed them at least once (the GPU, whose threads see
        # each other's improvements within an iteration, may relax a node fewer times)
        settled = run.settled_at >= 0
        if method == "near_far":
            has_arcs = np.diff(g.indptr) > 0
            assert np.all(run.relax_counts(last)[settled & has_arcs] >= 1)
        if g is tree:  # one path to each node: the same work everywhere
            np.testing.assert_array_equal(run.relax_counts(last), cpu.relax_counts(last))


def test_the_relax_log_grows_on_the_gpu(backend):
    k = 300  # arcs i → j of weight (j - i)²: Bellman-Ford improves node j in j iterations
    tails, heads = np.triu_indices(k, 1)
    g = engine.from_arcs(k, tails, heads, (heads - tails) ** 2)
    r = engine.sssp(g, 0, backend=backend, method="bellman_ford", batch_size=1000, record=True)
    rec = r.recording
    assert rec.relax_log.size > 4 * g.n_nodes  # Bellman-Ford relaxes nodes many times
    cpu = engine.sssp(g, 0, backend="cpu", method="bellman_ford", record=True).recording
    assert rec.relax_log.size >= cpu.relax_log.size
    np.testing.assert_array_equal(r.distances, engine.sssp(g, 0, method="dijkstra").distances)
