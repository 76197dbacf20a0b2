"""Sweeps and Dijkstra-rank studies (engine.studies.experiments, `frontier sweep` /
`frontier ranks`)."""

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

import engine
from engine.cli import main
from engine.studies import experiments

from .graphs import grid_graph, heap_dijkstra, random_graph


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, timeout=300
    )


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_rank_targets_follow_dijkstras_settle_order():
    rng = np.random.default_rng(4)
    for _ in range(20):
        g = random_graph(rng, 60, 200, max_weight=5)  # many ties
        source = int(rng.integers(0, 60))
        ref = experiments.dijkstra_reference(g, source)
        dist = heap_dijkstra(g, source)
        reached = np.flatnonzero(dist != engine.UNREACHABLE)
        order = sorted(reached, key=lambda v: (v != source, dist[v], v))  # ties by index
        assert ref.order.tolist() == order and ref.order[0] == source
        targets = experiments.rank_targets(ref)
        assert all(order[2**r] == t for r, t in targets.items())
        assert max(targets, default=-1) == (int(np.log2(len(order) - 1)) if len(order) > 1 else -1)
        degree = np.diff(g.indptr)
        assert ref.edges_until(g, None) == degree[order].sum()  # from the reached set, unsorted
        assert ref.edges_until(g, 0) == degree[source]


def test_parse_lists():
    g = grid_graph(5, 5)
    auto = g.auto_delta()
    assert experiments.parse_deltas("50, auto,x4,x0.5", g) == [
        ("50", 50), ("auto", auto), ("x4", 4 * auto), ("x0.5", round(0.5 * auto))
    ]  # fmt: skip
    assert experiments.parse_batches("1,8,64") == [1, 8, 64]
    for bad in ("", "0", "-5", "abc", "x", "5,,y"):
        with pytest.raises(engine.ParameterError, match="--deltas"):
            experiments.parse_deltas(bad, g)
    for bad in ("", "0", "1,-2", "a"):
        with pytest.raises(engine.ParameterError, match="--batches"):
            experiments.parse_batches(bad)
    with pytest.raises(engine.ParameterError, match=r"^Δ list: Δ must be ≥ 1"):
        experiments.parse_deltas("0", g, name="Δ list")


def test_run_cells_stops_when_asked_and_rows_make_a_csv():
    g = grid_graph(6, 6)
    rows = []
    ran = experiments.run_cells(
        g, [(0, None, None)], methods=["near_far", "bellman_ford"],
        deltas=experiments.parse_deltas("x0.5,auto", g), batches=[1, 8], repeat=2,
        on_row=rows.append, stop=lambda: len(rows) >= 5,
    )  # fmt: skip
    assert ran == len(rows) == 5
    assert (
        experiments.searches_per_query(["near_far", "bellman_ford"], [("a", 1)] * 2, [1, 8], 2)
        == 12
    )
    text = experiments.csv_text(rows)
    back = list(csv.DictReader(text.splitlines()))
    assert tuple(back[0]) == experiments.COLUMNS and len(back) == 5
    assert back == [{k: str(v) for k, v in row.items()} for row in rows]


def _sweep(tmp_path, name="out", *more):
    args = ["sweep", "helsinki", "--deltas", "x0.5,auto", "--batches", "1,64", "--sources",
            "2", "--seed", "3", "--methods", "near_far,delta_stepping", "--backend", "cpu",
            "--out", str(tmp_path / name), *more]  # fmt: skip
    return main(args)


def test_sweep_writes_csv_json_png(tmp_path):
    assert _sweep(tmp_path) == 0
    rows = _rows(tmp_path / "out" / "sweep.csv")
    assert len(rows) == 2 * 2 * 2 * 2 and tuple(rows[0]) == experiments.COLUMNS
    assert all(r["exact"] == "True" for r in rows)
    g = engine.load_graph("helsinki")
    ids = set(g.node_ids.tolist())
    assert {int(r["source"]) for r in rows} <= ids and len({r["source"] for r in rows}) == 2
    assert all(float(r["dijkstra_ms"]) > 0 and int(r["dijkstra_edges"]) > 0 for r in rows)
    meta = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert meta["seed"] == 3 and meta["graph"].startswith("helsinki") and meta["device"]
    assert meta["weights"] == "length" and "finished" in meta
    png = (tmp_path / "out" / "sweep.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_a_sweep_takes_adaptive_rows(tmp_path):
    assert _sweep(tmp_path, "ad", "--deltas", "auto,adaptive,adaptive:50-500000") == 0
    rows = _rows(tmp_path / "ad" / "sweep.csv")
    assert {r["delta_spec"] for r in rows} == {"auto", "adaptive", "adaptive:50-500000"}
    assert all(r["exact"] == "True" for r in rows)
    meta = json.loads((tmp_path / "ad" / "sweep.json").read_text())
    auto = engine.load_graph("helsinki").auto_delta()
    low, high = auto // engine.adaptive.SPAN, auto * engine.adaptive.SPAN
    assert meta["deltas"] == [auto, f"adaptive:{low}-{high}", "adaptive:50-500000"]
    assert (tmp_path / "ad" / "sweep.png").read_bytes().startswith(b"\x89PNG")
    assert _sweep(tmp_path, "bad", "--deltas", "auto,adaptive:9-1") == 2


def test_two_runs_with_one_seed_agree_but_for_times(tmp_path):
    assert _sweep(tmp_path, "a") == 0 and _sweep(tmp_path, "b") == 0
    timing = {"time_ms", "dijkstra_ms"}

    def strip(rows):
        return [{k: v for k, v in r.items() if k not in timing} for r in rows]

    assert strip(_rows(tmp_path / "a" / "sweep.csv")) == strip(_rows(tmp_path / "b" / "sweep.csv"))


def test_an_interrupted_sweep_resumes_without_redoing_cells(tmp_path):
    assert _sweep(tmp_path) == 0
    path = tmp_path / "out" / "sweep.csv"
    full = _rows(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:6]) + lines[6][:12])  # killed mid-line after 5 rows
    assert _sweep(tmp_path) == 2  # the folder has a sweep: --resume is needed
    assert _sweep(tmp_path, "out", "--resume") == 0
    resumed = _rows(path)
    assert len(resumed) == len(full)
    keys = [experiments.cell_key(r) for r in resumed]
    assert sorted(keys) == sorted(experiments.cell_key(r) for r in full)
    assert resumed[:5] == full[:5]  # the finished cells were kept, not redone


def test_resume_from_another_graph_is_refused(tmp_path):
    assert _sweep(tmp_path) == 0
    done = _cli("sweep", "helsinki", "--network", "drive", "--sources", "2", "--seed", "3",
                "--backend", "cpu", "--out", str(tmp_path / "out"), "--resume")  # fmt: skip
    assert done.returncode == 2 and "another study" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert len(_rows(tmp_path / "out" / "sweep.csv")) == 16  # nothing lost


def test_sweep_to_a_target_rank(tmp_path):
    assert _sweep(tmp_path, "r", "--target-rank", "6") == 0
    rows = _rows(tmp_path / "r" / "sweep.csv")
    g = engine.load_graph("helsinki")
    for row in rows:
        source, target = g.index_of(row["source"]), g.index_of(row["target"])
        ref = experiments.dijkstra_reference(g, source)
        assert ref.rank_of(target) == 64 and row["rank"] == "6" and row["exact"] == "True"
        assert int(row["dijkstra_edges"]) == ref.edges_until(g, 64)


def test_rank_study(tmp_path):
    out = tmp_path / "ranks"
    assert main(["ranks", "helsinki", "--sources", "2", "--seed", "1", "--deltas", "auto,x4",
                 "--backend", "cpu", "--out", str(out)]) == 0  # fmt: skip
    rows = _rows(out / "ranks.csv")
    ranks = sorted({int(r["rank"]) for r in rows})
    assert ranks[0] == 0 and ranks[-1] >= 10  # Helsinki's 2,508 nodes: ranks up to 2^11
    assert all(r["exact"] == "True" for r in rows)
    assert (out / "ranks.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--deltas", ""], "--deltas needs"),
        (["--deltas", "0"], "Δ must be ≥ 1"),
        (["--batches", "0"], "--batches needs"),
        (["--target-rank", "40"], "beyond the graph"),
        (["--methods", "dijkstra"], "no Δ or batch"),
        (["--out", "/no/such/place/out"], "does not exist"),
    ],
)
def test_bad_study_input_is_one_line(tmp_path, args, needle):
    base = ["sweep", "helsinki", "--sources", "1", "--backend", "cpu"]
    if "--out" not in args:
        base += ["--out", str(tmp_path / "o")]
    done = _cli(*base, *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], done.stderr


def test_the_cores_method_reads_delta_specs_of_its_core():
    g = grid_graph(20, 20, seed=3)
    core = engine.contraction.of(g).graph
    rows = []
    experiments.run_cells(
        g, [(0, None, None)], methods=["near_far", "near_far_core"],
        deltas=experiments.parse_deltas("auto,x2,150", g), batches=[8], backend="cpu",
        on_row=rows.append,
    )  # fmt: skip
    deltas = {(r["method"], r["delta_spec"]): r["delta"] for r in rows}
    assert deltas[("near_far", "auto")] == g.auto_delta() != core.auto_delta()
    assert deltas[("near_far_core", "auto")] == core.auto_delta()
    assert deltas[("near_far_core", "x2")] == 2 * core.auto_delta()
    assert deltas[("near_far_core", "150")] == deltas[("near_far", "150")] == 150
    assert all(r["exact"] for r in rows)


def test_cells_are_exact_on_each_backend(backend):
    g = random_graph(np.random.default_rng(8), 3_000, 12_000, max_weight=100)
    sources = experiments.seeded_sources(g, 2, 1)
    rows = []
    experiments.run_cells(
        g, experiments.study_queries(g, sources, "sweep", target_rank=6),
        methods=["near_far", "near_far_async", "delta_stepping", "bellman_ford"],
        deltas=experiments.parse_deltas("x0.25,auto,x8", g), batches=[1, 16],
        backend=backend, on_row=rows.append,
    )  # fmt: skip
    assert len(rows) == 2 * (3 * 3 * 2 + 2) and all(r["exact"] for r in rows)
    assert {r["rank"] for r in rows} == {6}


def test_a_second_writer_into_a_study_folder_is_refused(tmp_path):
    """Issue 50: two sweeps at once into one folder wrote every cell twice."""
    meta = {"graph": "g"}
    first = experiments.StudyFiles(tmp_path / "o", "sweep", meta, resume=False)
    with pytest.raises(engine.ParameterError, match="another sweep is writing into"):
        experiments.StudyFiles(tmp_path / "o", "sweep", meta, resume=True)
    first.start()
    first.close()
    experiments.StudyFiles(tmp_path / "o", "sweep", meta, resume=True).close()


def test_ranks_of_sources_that_reach_nothing_are_refused_and_write_nothing(tmp_path):
    """Issue 50: it said "wrote .../ranks.csv (0 searches)" and wrote no CSV."""
    (tmp_path / "u.gr").write_text("p sp 3 0\n")
    done = _cli("ranks", str(tmp_path / "u.gr"), "--sources", "2", "--out", str(tmp_path / "rk"))
    assert done.returncode == 2 and "no other node" in done.stderr, done.stderr
    assert not (tmp_path / "rk").exists()
