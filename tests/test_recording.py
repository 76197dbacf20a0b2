"""The recording's derived views: bucket sizes by bucket index over the search."""

import engine

from .graphs import grid_graph


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
