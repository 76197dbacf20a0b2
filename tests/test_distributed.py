"""Sweeps and matrices on a Dask cluster (engine.studies.distributed, `--cluster`): the same
rows and the same matrix as one process, a killed worker costing no row, bad clusters one line."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from engine.backends import device as _backend
from engine.cli import main
from engine.graphs.io import load_graph
from engine.graphs.synthetic import write_city
from engine.studies import batch, experiments

pytest.importorskip("distributed")

from engine.studies import distributed

TIMES = ("time_ms", "dijkstra_ms")


@pytest.fixture(scope="module")
def city(tmp_path_factory):
    """A 6,000-node synthetic city on disk, which every worker loads by its path."""
    gr, _co = write_city(tmp_path_factory.mktemp("city") / "city", 6_000, seed=5)
    ref = distributed.GraphRef.of(str(gr))
    return ref, ref.load()


@pytest.fixture(scope="module")
def client():
    with distributed.connect("local", workers=2) as c:
        yield c


def _rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k not in TIMES} for row in csv.DictReader(f)]


def _sweep(graph, out, *more):
    return main(["sweep", graph, "--deltas", "x0.5,auto", "--batches", "1,64", "--sources", "3",
                 "--seed", "2", "--methods", "near_far,delta_stepping", "--backend", "cpu",
                 "--out", str(out), *more])  # fmt: skip


def test_a_sweep_on_two_processes_writes_the_same_csv(city, tmp_path, capsys):
    ref, _graph = city
    assert _sweep(ref.spec, tmp_path / "one") == 0
    assert _sweep(ref.spec, tmp_path / "two", "--cluster", "local", "--workers", "2") == 0
    err = capsys.readouterr().err
    assert "Dask dashboard at http" in err and "2 workers hold" in err
    one, two = _rows(tmp_path / "one" / "sweep.csv"), _rows(tmp_path / "two" / "sweep.csv")
    assert len(one) == 3 * 2 * 2 * 2 and one == two  # in the same order, times aside
    assert all(row["exact"] == "True" for row in two)
    cluster = json.loads((tmp_path / "two" / "sweep.json").read_text())["cluster"]
    assert cluster["address"].startswith("tcp://") and len(cluster["workers"]) == 2


def test_an_interrupted_cluster_sweep_resumes_from_its_csv(city, tmp_path):
    ref, _graph = city
    assert _sweep(ref.spec, tmp_path / "full") == 0
    out = tmp_path / "cut"
    assert _sweep(ref.spec, out, "--cluster", "local", "--workers", "2") == 0
    path = out / "sweep.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    kept = [*lines[:5], lines[5][:9]]  # four rows and a line the kill cut short
    path.write_bytes(b"".join(kept))
    before = path.read_bytes()[: len(b"".join(lines[:5]))]
    assert _sweep(ref.spec, out, "--cluster", "local", "--workers", "2", "--resume") == 0
    assert _rows(path) == _rows(tmp_path / "full" / "sweep.csv")
    assert path.read_bytes().startswith(before)  # the four rows kept, times and all


def test_matrices_on_the_cluster_equal_one_process(city, client):
    ref, graph = city
    sources = [5, 4_000, 17, 5, 2_999, 0]  # a repeated source, out of order
    one = batch.many_to_many(graph, sources, backend="cpu")
    two = distributed.many_to_many(client, ref, graph, sources, backend="cpu", rows_per_task=2)
    np.testing.assert_array_equal(two.dist, one.dist)
    np.testing.assert_array_equal(two.edges_relaxed, one.edges_relaxed)
    assert two.chunks == 3 and two.backend == "cpu"
    targets = [9, 3, 5_999]
    part = distributed.many_to_many(
        client, ref, graph, sources, targets, method="delta_stepping", backend="cpu",
        predecessors=True, rows_per_task=1,
    )  # fmt: skip
    want = batch.many_to_many(graph, sources, targets, method="delta_stepping", backend="cpu",
                              predecessors=True)  # fmt: skip
    np.testing.assert_array_equal(part.dist, want.dist)
    np.testing.assert_array_equal(part.predecessors, want.predecessors)
    sums = {}
    reduced = distributed.many_to_many(
        client, ref, graph, sources, backend="cpu", rows_per_task=2,
        reduce=distributed.row_checksums, on_chunk=lambda _rows, s: sums.update(s.tolist()),
    )  # fmt: skip
    assert reduced.dist.shape == (0, graph.n_nodes)
    unique, first = np.unique(sources, return_index=True)
    here = distributed.row_checksums(unique, one.dist[first])
    assert sums == dict(here.tolist()) and len(sums) == 5
    # PHAST's kernel fills a GPU with many sources only: its tasks take at least FILL.
    default = distributed.many_to_many(client, ref, graph, sources, backend="cpu")
    phast = distributed.many_to_many(client, ref, graph, sources, method="phast", backend="cpu")
    assert default.chunks == 5 and phast.chunks == 1
    np.testing.assert_array_equal(phast.dist, one.dist)


def test_the_matrix_command_on_a_cluster_writes_the_same_file(city, tmp_path):
    ref, _graph = city
    common = ["matrix", ref.spec, "--sources", "12", "--targets", "40", "--backend", "cpu"]
    assert main([*common, "--out", str(tmp_path / "a.npz")]) == 0
    assert main([*common, "--out", str(tmp_path / "b.npz"), "--cluster", "local",
                 "--workers", "2"]) == 0  # fmt: skip
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert sorted(a.files) == sorted(b.files)
    for key in a.files:
        np.testing.assert_array_equal(a[key], b[key])


def _kill_one_worker(client) -> int:
    _address, pid = sorted(client.run(os.getpid).items())[0]
    os.kill(pid, signal.SIGKILL)
    return pid


def _replaced(client, killed: list[int]) -> bool:
    """Whether the killed worker is gone and a new process has taken its place."""
    client.wait_for_workers(2, timeout=60)  # the nanny starts it again
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pids = set(client.run(os.getpid).values())
        if len(pids) == 2 and not pids & set(killed):
            return True
        time.sleep(0.2)
    return False


def test_a_worker_killed_mid_matrix_costs_no_row(city, client):
    ref, graph = city
    sources = np.arange(0, graph.n_nodes, 60)  # 100 sources, 25 tasks
    want = batch.many_to_many(graph, sources, backend="cpu")
    seen, killed = [], []

    def on_chunk(rows, _dist):
        if not seen:
            killed.append(_kill_one_worker(client))
        seen.append(len(rows))

    got = distributed.many_to_many(
        client, ref, graph, sources, backend="cpu", rows_per_task=4, on_chunk=on_chunk
    )
    np.testing.assert_array_equal(got.dist, want.dist)
    assert sum(seen) == len(sources) and _replaced(client, killed)


def test_a_worker_killed_mid_sweep_costs_no_row(city, client):
    ref, graph = city
    sources = experiments.seeded_sources(graph, 8, 1)
    queries = experiments.study_queries(graph, sources, "sweep")
    cells = dict(methods=["near_far"], deltas=experiments.parse_deltas("auto,x2", graph),
                 batches=[1, 64], backend="cpu")  # fmt: skip
    rows, killed = [], []

    def on_row(row):
        if not rows:
            killed.append(_kill_one_worker(client))
        rows.append(row)

    assert distributed.run_cells(client, ref, graph, queries, on_row=on_row, **cells) == 32
    keys = {experiments.cell_key(r) for r in rows}
    assert len(keys) == 32 and all(r["exact"] for r in rows) and _replaced(client, killed)


def test_workers_without_the_graph_file_get_one_line(city, client, tmp_path):
    _ref, graph = city
    gone = tmp_path / "gone.gr"
    with pytest.raises(distributed.ClusterError) as error:
        distributed.prepare(client, distributed.GraphRef(str(gone)), graph)
    text = str(error.value)
    assert "\n" not in text and "cannot load the graph" in text and "gone.gr" in text
    assert "same path" in text


def test_a_scheduler_that_does_not_answer_is_one_line_within_ten_seconds(city, capsys):
    ref, _graph = city
    start = time.monotonic()
    assert _sweep(ref.spec, "unused", "--cluster", "tcp://127.0.0.1:9") == 2
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err.strip()
    assert err.startswith("frontier: error: no Dask scheduler answers at tcp://127.0.0.1:9")
    assert "\n" not in err
    assert _sweep(ref.spec, "unused", "--cluster", "everywhere") == 2
    assert "give local, local-gpu or" in capsys.readouterr().err
    assert main(["matrix", ref.spec, "--sources", "2", "--cluster", "local-gpu",
                 "--backend", "cpu"]) == (0 if _backend.gpu_count() else 2)  # fmt: skip


def test_without_a_cluster_nothing_of_dask_is_imported(city, tmp_path):
    ref, _graph = city
    code = (
        "import sys; from engine.cli import main; "
        f"assert main(['matrix', {ref.spec!r}, '--sources', '3', '--backend', 'cpu']) == 0; "
        f"assert main(['sweep', {ref.spec!r}, '--sources', '1', '--backend', 'cpu', "
        f"'--out', {str(tmp_path / 's')!r}]) == 0; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[]")


def test_graph_refs_travel_by_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.gr").write_text("p sp 2 1\na 1 2 3\n")
    assert distributed.GraphRef.of("g.gr").spec == str(tmp_path / "g.gr")
    assert distributed.GraphRef.of("helsinki").spec == "helsinki"
    assert load_graph(distributed.GraphRef.of("g.gr").spec).n_nodes == 2
