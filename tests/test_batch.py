"""Distance matrices (engine.many_to_many and `frontier matrix`) against SciPy's Dijkstra."""

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import engine
from engine import UNREACHABLE, many_to_many
from engine.search import from_scipy
from engine.studies import batch

from .graphs import check_tree, grid_graph, random_graph


def _reference(graph, sources):
    return from_scipy(np.atleast_2d(dijkstra(graph.scipy_matrix(), indices=sources)))


def _check_trees(graph, sources, dist, trees):
    assert trees.shape == (len(sources), graph.n_nodes) and trees.dtype == np.int64
    for source, row, tree in zip(sources, dist, trees, strict=True):
        run = SimpleNamespace(graph=graph, distances=row, predecessors=tree, source=source,
                              settled_below=UNREACHABLE)  # fmt: skip
        check_tree(run)


def _awkward_graph(seed: int):
    """Zero weights, parallel arcs, loops, and a part the first half cannot reach."""
    rng = np.random.default_rng(seed)
    g = random_graph(rng, 400, 1_200, max_weight=9)
    tails, heads = g.sources, g.indices
    keep = ~((tails < 200) & (heads >= 300))  # nothing from the first half into the last part
    return engine.from_arcs(400, tails[keep], heads[keep], g.weights[keep])


@pytest.mark.parametrize(
    "method", ["near_far", "phast", "delta_stepping", "bucketing", "bellman_ford", "dijkstra"]
)
def test_matrices_equal_scipy(backend, method):
    if method == "dijkstra" and backend == "gpu":
        pytest.skip("SciPy's Dijkstra runs on the CPU")
    g = _awkward_graph(3)
    sources = [0, 7, 7, 150, 399, 0]  # repeated sources give repeated rows
    m = many_to_many(g, sources, method=method, backend=backend, delta=5)
    reference = _reference(g, sources)
    np.testing.assert_array_equal(m.dist, reference)
    assert (m.dist == UNREACHABLE).any() and m.dist.dtype == np.int64
    targets = [399, 0, 250, 12]
    part = many_to_many(g, sources, targets, method=method, backend=backend, delta=5)
    np.testing.assert_array_equal(part.dist, reference[:, targets])
    assert part.edges_relaxed.shape == (6,) and part.edges_relaxed[1] == part.edges_relaxed[2]


@pytest.mark.parametrize("method", ["near_far", "phast", "delta_stepping", "dijkstra"])
def test_predecessors_are_shortest_path_trees(backend, method):
    if method == "dijkstra" and backend == "gpu":
        pytest.skip("SciPy's Dijkstra runs on the CPU")
    g = _awkward_graph(5)  # zero-weight cycles: parents must still form trees
    sources = [3, 3, 200, 399]
    m = many_to_many(g, sources, [0, 5], method=method, backend=backend, delta=4,
                     predecessors=True, workers=2 if method == "dijkstra" else 1)  # fmt: skip
    reference = _reference(g, sources)
    np.testing.assert_array_equal(m.dist, reference[:, [0, 5]])
    _check_trees(g, sources, reference, m.predecessors)
    with pytest.raises(engine.ParameterError, match="keep=False would drop them"):
        many_to_many(g, sources, predecessors=True, keep=False, on_chunk=lambda r, d: None)


def test_chunks_streaming_and_workers_give_the_same_matrix():
    g = _awkward_graph(4)
    sources = np.arange(0, 400, 9)
    whole = many_to_many(g, sources)
    bound = 8 * g.n_nodes * 5  # five rows a chunk
    seen = []
    chunked = many_to_many(g, sources, memory_bytes=bound,
                           on_chunk=lambda rows, d: seen.append((rows, d.copy())))  # fmt: skip
    assert chunked.chunks == -(-len(sources) // 5) == len(seen)
    np.testing.assert_array_equal(chunked.dist, whole.dist)
    streamed = np.zeros_like(whole.dist)
    for rows, d in seen:
        streamed[rows] = d
    np.testing.assert_array_equal(streamed, whole.dist)
    lean = many_to_many(g, sources, memory_bytes=bound, keep=False, on_chunk=lambda r, d: None)
    assert lean.dist.shape == (0, g.n_nodes)
    pooled = many_to_many(g, sources, workers=2, memory_bytes=bound)
    np.testing.assert_array_equal(pooled.dist, whole.dist)
    np.testing.assert_array_equal(pooled.iterations, whole.iterations)
    scipy = many_to_many(g, sources, method="dijkstra", workers=2, memory_bytes=bound)
    np.testing.assert_array_equal(scipy.dist, whole.dist)
    alone = many_to_many(g, sources, method="dijkstra")
    np.testing.assert_array_equal(scipy.edges_relaxed, alone.edges_relaxed)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (dict(sources=[]), "sources: give at least one node"),
        (dict(sources=[0, 400]), "sources: 400 is not a node index"),
        (dict(sources=[0.5]), "must be node indices"),
        (dict(sources=[0], targets=[-1]), "targets: -1 is not a node index"),
        (dict(sources=[0], memory_bytes=100), "more than the memory bound"),
        (dict(sources=[0], workers=0), "workers must be ≥ 1"),
        (dict(sources=[0], method="warp"), "warp"),
        # issue 50
        (dict(sources={0, 1}), "a set has no order; give a list"),
        (dict(sources=3), "must be a list or an array of node indices, got 3; give"),
        (dict(sources=[0], workers=2.0), "workers must be an integer"),
        (dict(sources=[[0, 1]]), "must be a flat list of node indices, got an array of shape"),
    ],
)
def test_bad_input_is_one_line(call, message):
    g = _awkward_graph(5)
    with pytest.raises(engine.FrontierError, match=message):
        many_to_many(g, **call)


def test_a_matrix_larger_than_the_free_memory_is_refused_first(monkeypatch):
    # 5 × 400 distances are 16,000 bytes: nothing searched, the caller told what to do
    monkeypatch.setattr(engine.graphs._validate, "available_memory", lambda: 15_999)
    searched = []
    real = batch.sssp
    monkeypatch.setattr(batch, "sssp", lambda *a, **k: searched.append(a) or real(*a, **k))
    with pytest.raises(engine.GraphTooLargeError, match=r"a matrix of 5 × 400 distances .*"
                       "give fewer sources or targets"):  # fmt: skip
        many_to_many(_awkward_graph(5), [0, 1, 2, 3, 4], method="near_far", backend="cpu")
    assert not searched
    streamed = many_to_many(_awkward_graph(5), [0, 1], keep=False, on_chunk=lambda *_: None)
    assert streamed.dist.size == 0 and searched  # streamed: no matrix held


def test_workers_are_bounded_by_the_cores_and_the_sources(monkeypatch):
    """Issue 50: ``workers=3000`` for 3 trees started 3,000 processes; a NumPy integer and a
    generator of sources are taken."""
    started = []

    class Pool(batch.ProcessPoolExecutor):
        def __init__(self, workers, **kwargs):
            started.append(workers)
            super().__init__(workers, **kwargs)

    monkeypatch.setattr(batch, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(batch, "default_workers", lambda: 2)
    g = _awkward_graph(5)
    m = many_to_many(g, (v for v in (0, 1, 2)), method="dijkstra", workers=3000)
    np.testing.assert_array_equal(m.dist, _reference(g, [0, 1, 2]))
    many_to_many(g, [4], method="dijkstra", workers=np.int64(2))
    assert started == [2]  # one source alone runs in this process


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "engine.cli", "matrix", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)  # fmt: skip


def test_cli_matrix_files(tmp_path):
    g = engine.load_graph("helsinki")
    ids = "25291537,6388100055"
    done = _cli("helsinki", "--sources", "12", "--targets", ids, "--out", "m.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tree/s" in done.stderr and "trees/s" in done.stdout
    with np.load(tmp_path / "m.npz") as z:
        sources = [g.index_of(i) for i in z["sources"]]
        targets = [g.index_of(i) for i in z["targets"]]
        assert z["targets"].tolist() == [25291537, 6388100055] and len(sources) == 12
        np.testing.assert_array_equal(z["dist"], _reference(g, sources)[:, targets])
    (tmp_path / "ids.txt").write_text("25291537\n6388100055\n")
    done = _cli("helsinki", "--sources", "ids.txt", "--out", "m.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "m.parquet").to_pydict()
    assert len(table["distance"]) == 2 * g.n_nodes and "predecessor" not in table
    args = ("helsinki", "--sources", "ids.txt", "--predecessors", "--targets", "4", "--out")
    done = _cli(*args, "t.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    sources = [g.index_of(i) for i in (25291537, 6388100055)]
    with np.load(tmp_path / "t.npz") as z:
        assert z["pred"].shape == (2, g.n_nodes) and z["nodes"].tolist() == g.node_ids.tolist()
        lookup = {int(i): k for k, i in enumerate(g.node_ids)} | {-1: -1}
        trees = np.array([[lookup[int(i)] for i in row] for row in z["pred"]])
        _check_trees(g, sources, _reference(g, sources), trees)
    done = _cli(*args, "t.parquet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    linked = pq.read_table(tmp_path / "t.parquet").to_pydict()
    assert len(linked["predecessor"]) == 8 and set(linked["source"]) == {25291537, 6388100055}
    first = _reference(g, [g.index_of(25291537)])[0]
    assert table["source"][0] == 25291537 and table["distance"][: g.n_nodes] == first.tolist()
    assert table["target"][: g.n_nodes] == g.node_ids.tolist()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sources", "25291537,25291537"), "names node 25291537 twice"),
        (("--sources", "1,2"), "node id 1 is not in graph"),
        (("--sources", ","), "give at least one node id"),
        (("--sources", "2", "--out", "x.csv"), "must end in .npz or .parquet"),
        (("--sources", "2", "--out", "nowhere/x.npz"), "does not exist"),
    ],
)
def test_cli_bad_input(tmp_path, args, message):
    done = _cli("helsinki", *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("delta", [1, 7, "auto", 2**40])
def test_the_batched_kernel_reuses_blocks_and_stamps(delta):
    from engine.backends import gpu_many as _gpu_many

    g = _awkward_graph(6)
    sources = np.arange(0, 400, 3)  # many more searches than the two blocks
    step = engine._validate.delta(delta, g)
    dist, _, counters = _gpu_many.rows(g, sources, None, delta=step, blocks=2)
    np.testing.assert_array_equal(dist.get(), _reference(g, sources))
    reached = _reference(g, sources) != UNREACHABLE  # each reached node relaxes its arcs
    edges, iterations = counters.get().T
    assert (edges >= reached @ np.diff(g.indptr)).all() and (iterations > 0).all()
    part, _, _ = _gpu_many.rows(g, sources, np.array([5, 399, 0]), delta=step, blocks=3)
    np.testing.assert_array_equal(part.get(), _reference(g, sources)[:, [5, 399, 0]])
    whole, trees, _ = _gpu_many.rows(g, sources, None, delta=step, parents=True, blocks=2)
    np.testing.assert_array_equal(whole.get(), _reference(g, sources))
    _check_trees(g, sources, whole.get(), trees.get())


@pytest.mark.gpu
def test_searches_stop_once_their_targets_are_final():
    g = grid_graph(80, 80, seed=1)
    sources = np.array([0, 3_200, 6_399])
    near = np.array([1, 80, 81])  # beside the first source
    reference = _reference(g, sources)
    whole = many_to_many(g, sources, backend="gpu")
    part = many_to_many(g, sources, near, backend="gpu")
    np.testing.assert_array_equal(part.dist, reference[:, near])
    assert part.edges_relaxed[0] * 20 < whole.edges_relaxed[0]
    assert part.edges_relaxed[2] > 10 * part.edges_relaxed[0]  # its targets are far away


@pytest.mark.gpu
def test_wide_distances_and_results_kept_on_the_gpu():
    rng = np.random.default_rng(7)
    g = random_graph(rng, 3_000, 12_000, max_weight=2**31)  # sums pass 2^32: 64-bit
    assert g.distance_dtype() == np.uint64
    sources = rng.choice(3_000, 40, replace=False)
    m = many_to_many(g, sources, backend="gpu", keep_on_gpu=True, memory_bytes=8 * 3_000 * 16)
    assert m.chunks == 3 and type(m.dist).__module__.startswith("cupy")
    np.testing.assert_array_equal(m.dist.get(), _reference(g, sources))
    with pytest.raises(engine.ParameterError, match="keep_on_gpu needs"):
        many_to_many(g, sources, backend="cpu", keep_on_gpu=True)
    trees = many_to_many(g, sources[:5], [0, 9], backend="gpu", predecessors=True)
    _check_trees(g, sources[:5], _reference(g, sources[:5]), trees.predecessors)
    with pytest.raises(engine.ParameterError, match="predecessors needs near_far's kernel"):
        many_to_many(g, sources, backend="gpu", keep_on_gpu=True, predecessors=True)
    small = engine.from_arcs(4, [0, 1, 2], [1, 2, 3], [0, 5, 0])  # 32-bit: packed parents
    kept = many_to_many(small, [0, 2], backend="gpu", keep_on_gpu=True, predecessors=True)
    assert kept.predecessors.get().tolist() == [[-1, 0, 1, 2], [-1, -1, -1, 2]]


@pytest.mark.gpu
def test_a_row_larger_than_the_gpu_is_one_line(monkeypatch):
    from engine.backends import device as _backend

    g = _awkward_graph(2)
    monkeypatch.setattr(_backend, "free_gpu_memory", lambda: 1_000)
    with pytest.raises(engine.FrontierError, match="more than half its free memory"):
        many_to_many(g, [0, 1], backend="gpu")


@pytest.mark.parametrize(
    ("side", "backend", "gpu", "spread"),
    [(5, "auto", True, True), (5, "auto", False, True), (40, "cpu", True, True),
     (40, "auto", False, True), (40, "auto", True, False)],
)  # fmt: skip
def test_cli_matrix_spreads_over_cores_where_the_searches_run_on_the_cpu(
    monkeypatch, side, backend, gpu, spread
):
    """`frontier matrix` starts a process per core where `batch.plan` puts the searches on
    the CPU: a graph too small for the GPU too (a 5 × 5 grid; 40 × 40 passes
    `AUTO_GPU_MIN_NODES`)."""
    from engine import cli
    from engine.backends import device as _backend
    from engine.cli import _options
    from engine.studies import batch

    seen = {}

    def many(graph, sources, targets, *, workers, **options):
        seen["workers"] = workers
        msg = "stop here"
        raise engine.FrontierError(msg)

    monkeypatch.setattr(_backend, "gpu_available", lambda: gpu)
    monkeypatch.setattr(batch, "default_workers", lambda: 7)
    monkeypatch.setattr(batch, "many_to_many", many)
    monkeypatch.setattr(_options, "load", lambda *_: grid_graph(side, side))
    assert cli.main(["matrix", "x.gr", "--sources", "2", "--backend", backend]) == 2
    assert seen["workers"] == (7 if spread else 1)
