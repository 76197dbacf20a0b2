"""The recording's derived views: bucket sizes by bucket index over the search; a GPU
recording's rows and settled stamps, made from what the search kernels write; the
asynchronous methods recorded by phase (and the core's sweep by step)."""

import dataclasses
import itertools

import numpy as np
import pytest

import engine
from engine.backends.contract import CONTROL_SLOTS, ROW_FIELDS, TALLY_FIELDS, Control
from engine.backends.gpu_rows import count_rows
from engine.recording import BUCKET_BINS, FRAME_FIELDS

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
    from engine.backends.cpu import _CpuSearch

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


def test_bucket_sizes_may_come_in_blocks():
    # A GPU recording appends its rows at once and the batches' bucket sizes as they were
    # copied, in blocks whose rows follow each other.
    rec = engine.Recording(5, delta=1, with_buckets=True)
    rows = np.arange(4 * len(FRAME_FIELDS)).reshape(4, -1)
    sizes = np.arange(4 * BUCKET_BINS).reshape(4, BUCKET_BINS)
    rec.append(rows[:1], sizes[:1])
    rec.append(rows[1:], [sizes[1:3], sizes[3:]])
    np.testing.assert_array_equal(rec.frames, rows)
    np.testing.assert_array_equal(rec.buckets, sizes)


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


@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bucketing", "bellman_ford"])
def test_settled_stamps_follow_from_near_stamps_and_phase_ends(method, backend):
    # The GPU derives each settled stamp as the first phase end after the node's near stamp
    # (the search writes the phase ends, kernel stamp_nodes); the CPU twin stamps nodes as it
    # settles them, so the rule must give its stamps back. The phase ends are the iterations
    # after which the phase counter went up, and the last one.
    g = random_graph(np.random.default_rng(3), 400, 2400, max_weight=40)
    rec = engine.sssp(g, 0, backend=backend, method=method, delta=25, record=True).recording
    phase = rec.column("phase")
    ends = np.append(np.flatnonzero(np.diff(phase) > 0) + 1, len(phase) - 1)
    assert ends.size == phase[-1]  # each phase ends once
    at = np.minimum(np.searchsorted(ends, rec.near_at, side="right"), ends.size - 1)
    derived = np.where(rec.near_at >= 0, ends[at], -1)
    np.testing.assert_array_equal(derived, rec.settled_at)


@pytest.mark.gpu
@pytest.mark.parametrize("target", [None, 700])
@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bellman_ford"])
def test_gpu_rows_add_up_to_the_twins_frames(method, target):
    # The kernels write each row's own numbers and what its iteration added (after a phase
    # end, also what the compaction kept); kernel finish_batch makes the running totals and
    # the pile's size after each batch, count_rows adds the node counts (from the stamps).
    # Fed the twin's frames taken apart so, batch by batch, they must give them back.
    import cupy as cp

    from engine.backends import gpu_kernels

    g = grid_graph(30, 30, seed=4)  # 60-134 iterations
    r = engine.sssp(g, 0, backend="cpu", method=method, delta=25, target=target, record=True)
    rec = r.recording
    frames = rec.frames
    col = {name: frames[:, k] for k, name in enumerate(FRAME_FIELDS)}
    width = len(FRAME_FIELDS)
    raw = np.zeros((len(frames) - 1, ROW_FIELDS), dtype=np.int64)
    raw[:, :width] = frames[1:]
    for name in ("settled", "reached", "neared", "edges_relaxed", "improving"):
        raw[:, FRAME_FIELDS.index(name)] = -7  # not the kernel's to write
    raw[:, FRAME_FIELDS.index("far_pile")] = 0  # bucketing's store only
    ended = np.diff(col["phase"]) > 0
    # On the GPU each improving relaxation makes one entry, of the next frontier or of the
    # pile (the twin drops a frontier's duplicates): improvements made so from the twin's.
    appended = np.diff(col["far_pile"]) + np.append(col["frontier"][2:], 0)
    improving = np.where(ended, np.diff(col["improving"]), appended)
    improving[-1] = np.diff(col["far_pile"])[-1]  # a last phase end appends to no frontier
    tallies = {
        "edges": np.diff(col["edges_relaxed"]),
        "improving": improving,
        "logged": np.diff(col["relaxed_entries"]),
        "kept": np.where(ended, col["far_pile"][1:], 0),
    }
    for name, values in tallies.items():
        raw[:, width + TALLY_FIELDS.index(name)] = values
    iterations = np.arange(len(frames))
    stamps = (rec.reached_at, rec.near_at, rec.settled_at)
    counts = np.array([[np.sum((s >= 0) & (s <= k)) for k in iterations] for s in stamps])
    # Bucket rows as the GPU sums them (kernel finish_batch): the sizes ahead of the band.
    bins = None
    if rec.buckets is not None:
        bins = rec.buckets[1:].copy()
        bins[:, 0] -= (col["neared"] - col["settled"])[1:]  # the band's: count_rows adds it
    rows, sizes = [], []
    # batches of one row, and of fewer and more rows than the kernel's warp has threads
    cuts = sorted({0, 1, 6, 7, 20, *range(60, len(raw), 70), len(raw)})
    assert max(np.diff(cuts)) > 32
    ctl = np.zeros(CONTROL_SLOTS, dtype=np.uint64)
    ctl[Control.RPHASE] = 1
    ctl = cp.asarray(ctl)
    for a, b in itertools.pairwise(cuts):
        done = (1 if target is None else 2) if b == len(raw) else 0
        left = col["frontier"][b + 1] if b < len(raw) else 0
        # a batch's bucket rows in two parts, as several batches come to one count_rows
        mid = (a + b) // 2
        parts = None if bins is None else [bins[a:mid].copy(), bins[mid:b].copy()]
        ctl[Control.ITER], ctl[Control.CNT0 + b % 3], ctl[Control.DONE] = b, left, done
        ctl[Control.RFROM] = a  # as the search kernel leaves them
        table = cp.asarray(raw[a:b])
        gpu_kernels.finish_batch(table, ctl, 10**9)
        assert (table[:, width:] == 0).all()  # the next batch's tallies start from zero
        batch = table.get()[:, :width]
        count_rows(batch, counts, done=done, buckets=parts)
        rows.append(batch)
        sizes += parts or []
    expected = frames[1:].copy()
    expected[:, FRAME_FIELDS.index("improving")] = np.cumsum(improving)
    np.testing.assert_array_equal(np.concatenate(rows), expected)
    if bins is not None:
        np.testing.assert_array_equal(np.concatenate(sizes), rec.buckets[1:])
    assert int(ctl[Control.REDGES]) == col["edges_relaxed"][-1]


@pytest.mark.gpu
def test_gpu_sums_bucket_rows_batch_after_batch():
    # Kernel finish_batch: each batch's bucket rows (changes of the sizes) become the sizes,
    # from the sizes the batch before left, and are zeroed for the next batch; runs of rows
    # cross a block's 32 threads per column whatever the number of rows, and rows after the
    # batch's are left alone.
    import cupy as cp

    from engine.backends import gpu_kernels
    from engine.recording import BUCKET_BINS

    rng = np.random.default_rng(11)
    changes = [rng.integers(-50, 50, (k, BUCKET_BINS)) for k in (1, 5, 31, 32, 33, 1000, 3654)]
    sizes = cp.zeros(BUCKET_BINS, dtype=np.int64)
    before = np.zeros(BUCKET_BINS, dtype=np.int64)
    ctl = cp.zeros(CONTROL_SLOTS, dtype=np.uint64)
    done = 0
    for batch in changes:
        ctl[Control.RFROM], ctl[Control.ITER] = done, done + len(batch)
        done += len(batch)
        table = cp.asarray(np.vstack([batch, np.full((2, BUCKET_BINS), 7)]))
        out = cp.full((len(batch) + 1, BUCKET_BINS), 5, dtype=np.int64)
        frames = cp.zeros((len(batch), ROW_FIELDS), dtype=np.int64)
        gpu_kernels.finish_batch(frames, ctl, 10**9, (table, sizes, out))
        expected = before + np.cumsum(batch, axis=0)
        np.testing.assert_array_equal(out[: len(batch)].get(), expected)
        assert (out[len(batch) :] == 5).all()
        assert (table[: len(batch)] == 0).all()
        assert (table[len(batch) :] == 7).all()
        np.testing.assert_array_equal(sizes.get(), expected[-1])
        before = expected[-1]


# -- recorded by phase: near_far_async, near_far_core and phast (issues 54, 55) -------------


def _phase_graphs():
    rng = np.random.default_rng(54)
    return [grid_graph(25, 25, seed=4), random_graph(rng, 3_000, 9_000, max_weight=50)]


def _check_by_phase(graph, r):
    """A recording by phase against its run: the states only move forward; while the search
    runs, frame k's settled nodes are exactly those of distance below its ``lo`` (Near-Far
    settles a band at each phase end; every node below the band it begins is final), its
    near ones the reached nodes of the band it begins; the sweep then gives each contracted
    node its distance, one step a frame; at the end the settled nodes are those whose
    distances are final, and those equal SciPy's."""
    from engine.contraction import of, sweep_steps

    rec = r.recording
    ref = engine.sssp(graph, r.source, method="dijkstra").distances
    final = ref < r.settled_below
    assert rec.by_phase and np.array_equal(r.distances[final], ref[final])
    searched = np.ones(graph.n_nodes, dtype=bool)
    steps = None
    kind = engine.METHODS[r.method].contraction
    if kind:
        c = of(graph, kind)
        steps = sweep_steps(c)
        searched = (c.round_of < 0) | (np.arange(graph.n_nodes) == r.source)
        assert rec.sweep_from == r.counters.phases + 1 == len(rec) - c.n_rounds - 1
    else:
        assert rec.sweep_from is None and len(rec) == r.counters.phases + 1
    col = {name: rec.column(name) for name in FRAME_FIELDS}
    before = np.zeros(graph.n_nodes, dtype=np.uint8)
    for k in range(len(rec)):
        states = rec.states(k)
        assert (states >= before).all(), k
        before = states
        counts = np.bincount(states, minlength=4)
        assert counts[3] == col["settled"][k] and counts[1:].sum() == col["reached"][k]
        if rec.sweep_from is None or k < rec.sweep_from:
            lo, hi = col["lo"][k], col["hi"][k]
            settled = states[searched] == engine.recording.SETTLED
            assert np.array_equal(settled, r.distances[searched] < lo), k
            near = states[searched] == engine.recording.NEAR
            band = (r.distances[searched] >= lo) & (r.distances[searched] < hi)
            assert not (near & ~band).any(), k
        else:
            step = k - rec.sweep_from  # its nodes are near (found), the last step's settled
            found = (steps == step) & ~searched & final
            assert (states[found] == engine.recording.NEAR).all(), k
            assert (states[(steps >= 0) & (steps < step) & ~searched & final] == 3).all(), k
    assert np.array_equal(before == engine.recording.SETTLED, final)
    assert col["edges_relaxed"][-1] == r.counters.edges_relaxed


@pytest.mark.parametrize("method", ["near_far_async", "near_far_core", "phast"])
@pytest.mark.parametrize("target", [None, 300])
def test_the_fastest_methods_are_recorded_by_phase(backend, method, target):
    for g in _phase_graphs():
        deltas = (g.auto_delta(), "adaptive", 3) if engine.METHODS[method].uses_delta else ("auto",)
        for delta in deltas:
            r = engine.sssp(g, 0, method=method, backend=backend, delta=delta, record=True,
                            target=target)  # fmt: skip
            _check_by_phase(g, r)
            plain = engine.sssp(g, 0, method=method, backend=backend, delta=delta, target=target)
            assert np.array_equal(plain.distances, r.distances)


#: The frame columns a recording by phase has alike on both backends (the GPU relaxes and
#: piles up otherwise within a phase).
_SAME = ("iteration", "phase", "lo", "hi", "delta", "reached", "neared", "settled")


def test_phasts_climb_shows_before_its_sweep(backend):
    """The contracted nodes PHAST's search up the hierarchy reaches are reached (far: their
    distance waits for the sweep) from the phase that reached them; the sweep makes them
    near, then settled."""
    g = grid_graph(25, 25, seed=4)
    c = engine.contraction.of(g, "hierarchy")
    r = engine.sssp(g, 0, method="phast", backend=backend, record=True)
    up = engine.sssp(c.graph, 0, method="near_far", backend="cpu").distances != engine.UNREACHABLE
    rec = r.recording
    climbed = rec.states(rec.sweep_from - 1)
    contracted = c.round_of >= 0
    assert (up & contracted).sum() > 10
    assert np.array_equal(climbed != engine.recording.UNREACHED, up)
    far = climbed == engine.recording.FAR
    assert np.array_equal(far, up & contracted & (np.arange(g.n_nodes) != 0))
    assert (rec.states(len(rec) - 1) == engine.recording.SETTLED).all()


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["near_far_async", "near_far_core", "phast"])
def test_a_recording_by_phase_is_the_same_on_the_gpu_as_on_the_cpu(method):
    # With a fixed Δ both backends end the same phases at the same thresholds, and a node is
    # first reached in the phase that first relaxes one of its in-neighbours, whatever the
    # order inside the phase: the stamps are equal, and so are the frames' bands and counts.
    for g in _phase_graphs():
        runs = [
            engine.sssp(g, 7, method=method, backend=b, delta=g.auto_delta() * 2, record=True)
            for b in ("cpu", "gpu")
        ]
        cpu, gpu = (r.recording for r in runs)
        assert np.array_equal(cpu.stamps, gpu.stamps)
        for name in _SAME:
            assert np.array_equal(cpu.column(name), gpu.column(name)), name


@pytest.mark.gpu
def test_a_recorded_search_that_would_hand_over_is_recorded_by_its_twin():
    from engine.backends import gpu as _gpu
    from engine.backends.gpu_kernels import clusters_available

    if not clusters_available():
        pytest.skip("needs a GPU of compute capability 9.0 or later")
    g = random_graph(np.random.default_rng(3), 20_000, 80_000, max_weight=100)
    cpu = engine.sssp(g, 0, method="near_far_async", backend="cpu", delta=10**6, record=True)
    spec = dataclasses.replace(_spec_of(cpu), recording=_pinned_recording(g))
    _gpu.prepare(g, spec)
    dist, counters, _ = _gpu.run(spec, ring_capacity=1, stage_capacity=1, held_capacity=0)
    assert counters.iterations > 0  # the synchronous twin ran
    assert np.array_equal(dist, cpu.distances)
    assert np.array_equal(spec.recording.stamps, cpu.recording.stamps)
    for name in _SAME:
        assert np.array_equal(spec.recording.column(name), cpu.recording.column(name)), name


def _spec_of(result):
    from engine.methods import METHODS, RunSpec

    g = result.graph
    return RunSpec(g, result.source, METHODS[result.method], result.delta, 16, None,
                   g.distance_dtype(), None)  # fmt: skip


def _pinned_recording(graph):
    from engine.backends import device

    n = graph.n_nodes
    stamps = device.pinned_empty(3 * n, np.int32).reshape(3, n)
    return engine.recording.Recording(n, delta=10**6, with_buckets=False, stamps=stamps)


def test_phase_stamps_read_a_node_s_phase_from_its_distance():
    # Three phases below 10, 20 and 30; node 3 was reached in phase 2 but lies beyond the
    # last threshold (the search stopped at its target); node 4 is unreached. Nodes 5 and 6
    # are contracted, found by sweep steps 0 and 1; node 6's distance is above the last
    # threshold and the search stopped early, so it is found but not final.
    from engine.recording import phase_stamps

    dist = np.array([0, 12, 25, 31, engine.UNREACHABLE, 18, 40])
    reached = np.array([0, 1, 1, 2, -1, -1, -1], dtype=np.int32)
    steps = np.array([-1, -1, -1, -1, -1, 0, 1], dtype=np.int32)
    stamps = phase_stamps(dist, reached, np.array([10, 20, 30]), done=False, source=0,
                          sweep_step=steps)  # fmt: skip
    assert stamps.tolist() == [
        [0, 1, 1, 2, -1, 4, 5],  # reached
        [0, 1, 2, -1, -1, 4, -1],  # near: the phase before its own, once reached
        [1, 2, 3, -1, -1, 5, -1],  # settled: its phase; a swept node the frame after
    ]
