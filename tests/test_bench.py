"""`frontier bench` and `engine.studies.bench`: what the benchmark measures and checks."""

import json

import numpy as np
import pytest

import engine
from engine import load_graph
from engine.cli import main
from engine.studies.bench import (
    BATCH_TABLE,
    ITERATIVE,
    benchmark,
    benchmark_batch,
    table,
    tree_depth,
)

from .graphs import grid_graph


def test_tree_depth():
    assert tree_depth(np.array([-1, 0, 1, 2, 1, -1])) == 3  # 0 → 1 → 2 → 3, and 5 alone
    assert tree_depth(np.array([-1])) == 0
    assert tree_depth(np.array([-1, 0, 0, 0])) == 1


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_benchmark_rows(backend):
    g = grid_graph(30, 30, seed=2)
    rows = benchmark(g, methods=("near_far", "bellman_ford"), backend=backend, sources=3)
    assert [r["method"] for r in rows] == ["near_far", "bellman_ford"]
    for r in rows:
        assert r["identical"] and r["sources"] == 3 and r["backend"] == backend
        assert r["iterations"] > 0 and r["time_ms"] > 0 and r["scipy_ms"] > 0
        assert r["speedup"] == pytest.approx(r["scipy_ms"] / r["time_ms"])
        assert r["dijkstra_edges"] == g.n_arcs  # a full search relaxes every arc once
        assert r["hop_depth"] >= 29  # at least the grid's half diameter from any corner
        assert (r["floor_ms"] is not None) == (backend == "gpu")
    assert rows[1]["edges_relaxed"] > rows[0]["edges_relaxed"]
    text = table(rows)
    assert "near_far" in text and "× SciPy" in text


def test_cli_bench_writes_json(tmp_path, capsys):
    out = tmp_path / "rows.json"
    code = main(
        [
            "bench",
            "helsinki",
            "--sources",
            "2",
            "--backend",
            "cpu",
            "--methods",
            "near_far",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    rows = json.loads(out.read_text())
    assert rows[0]["graph"] == load_graph("helsinki").name and rows[0]["identical"]
    assert "near_far" in capsys.readouterr().out


@pytest.mark.parametrize("record", [False, True])
def test_cli_bench_default_methods(record, tmp_path):
    out = tmp_path / "rows.json"
    args = ["bench", "helsinki", "--sources", "1", "--backend", "cpu", "--out", str(out)]
    assert main(args + ["--record"] * record) == 0
    methods = [r["method"] for r in json.loads(out.read_text())]
    # every iterative method is recorded (the asynchronous ones by phase)
    assert methods == list(ITERATIVE)


def test_cli_bench_bad_method(capsys):
    assert main(["bench", "helsinki", "--methods", "near_far,warp"]) == 2
    assert "unknown method 'warp'" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_batch_rows(backend):
    g = grid_graph(20, 20, seed=3)
    lines = []
    rows = benchmark_batch(g, queries=12, methods=("near_far", "delta_stepping", "phast"),
                           backend=backend, repeats=2, progress=lines.append)  # fmt: skip
    assert [r["method"] for r in rows] == ["near_far", "delta_stepping", "phast"]
    assert len(lines) == 4
    for r in rows:
        assert r["identical"] and r["queries"] == 12 and r["backend"] == backend
        assert r["trees_per_s"] > 0 and r["scipy_trees_per_s"] > 0
        assert r["delta"] > 0 if r["method"] != "phast" else r["delta"] is None
        assert r["speedup"] == pytest.approx(r["trees_per_s"] / r["scipy_trees_per_s"])
        assert r["edges_relaxed"] >= g.n_arcs  # each tree relaxes every arc at least once
    kept = [r["trees_per_s_kept_on_gpu"] for r in rows]
    assert kept == ([kept[0], None, kept[2]] if backend == "gpu" else [None, None, None])
    # PHAST's hierarchy is made before any tree is timed, and its time reported beside them.
    made = engine.contraction.of(g, "hierarchy")  # one tree's and many trees' (decision 0111)
    assert [r["made_s"] for r in rows] == [None, None, made.seconds] and made.seconds > 0
    assert "kept on GPU" in table(rows, BATCH_TABLE) and "made in (s)" in table(rows, BATCH_TABLE)


def test_cli_bench_batch_queries(tmp_path, capsys):
    out = tmp_path / "rows.json"
    args = ["bench", "helsinki", "--batch-queries", "4", "--backend", "cpu", "--out", str(out)]
    assert main(args) == 0
    rows = json.loads(out.read_text())
    assert [r["method"] for r in rows] == ["near_far"] and rows[0]["identical"]
    captured = capsys.readouterr()
    assert "trees/s" in captured.out and "SciPy's Dijkstra from 4 sources" in captured.err
    assert main([*args, "--record"]) == 2
    assert "drop --record" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:
        main(["bench", "helsinki", "--batch-queries", "0"])
    assert bad.value.code == 2 and "--batch-queries" in capsys.readouterr().err


def test_batch_queries_whose_matrices_do_not_fit_are_refused_first(capsys, monkeypatch):
    # SciPy's matrix and a method's: refused before SciPy or a contraction runs
    monkeypatch.setattr(engine.graphs._validate, "available_memory", lambda: 2**20)
    monkeypatch.setattr(engine.contraction, "of", lambda *a, **k: pytest.fail("contracted"))
    assert main(["bench", "helsinki", "--batch-queries", "64", "--methods", "phast"]) == 2
    err = capsys.readouterr().err
    assert "2 matrices of 64 × " in err and "give fewer --batch-queries" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(engine.GraphTooLargeError, match="give fewer queries"):
        benchmark_batch(load_graph("helsinki"), queries=64)
