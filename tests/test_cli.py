import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import engine.cli
from engine import contraction, load_graph, sssp
from engine.cli import main

from .graphs import grid_graph


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_solve_json_and_out(tmp_path, capsys):
    g = load_graph("helsinki")
    src, dst = int(g.node_ids[0]), int(g.node_ids[100])
    out = tmp_path / "r.npz"
    assert (
        main(
            [
                "solve",
                "helsinki",
                "--source",
                str(src),
                "--target",
                str(dst),
                "--method",
                "delta_stepping",
                "--delta",
                "5000",
                "--batch",
                "7",
                "--backend",
                "cpu",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["method"] == "delta_stepping" and report["delta"] == 5000
    assert report["source_id"] == src and report["target_distance"] > 0
    with np.load(out) as z:
        assert z["node_ids"].tolist() == g.node_ids.tolist()
        assert z["dist"][g.index_of(dst)] == report["target_distance"]
        assert z["pred"][g.index_of(src)] == -1


def test_solve_text(capsys):
    assert main(["solve", "helsinki", "--backend", "cpu"]) == 0
    text = capsys.readouterr().out
    assert "near_far on cpu" in text and "iterations" in text and "sorts" not in text
    assert main(["solve", "helsinki", "--backend", "cpu", "--method", "bucketing"]) == 0
    assert re.search(r"buckets +[1-9]\d* sorts of the far nodes", capsys.readouterr().out)
    assert main(["solve", "helsinki", "--method", "bucketing", "--delta", "0"]) == 2
    assert (
        capsys.readouterr().err.strip().endswith("delta must be ≥ 1, 'auto' or 'adaptive', got 0")
    )


def _grid_file(path):
    """A grid graph written as a PACE file at ``path``; the graph."""
    g = grid_graph(30, 30, seed=6)
    arcs = zip(g.sources, g.indices, g.weights, strict=True)
    path.write_text(
        f"p sp {g.n_nodes} {g.n_arcs}\n" + "".join(f"a {t + 1} {h + 1} {w}\n" for t, h, w in arcs)
    )
    return g


def test_solve_on_the_contraction_core(tmp_path, capsys):
    # A fresh graph (not one cached in memory): the core is made with a line of progress.
    path = tmp_path / "grid.gr"
    g = _grid_file(path)
    out = tmp_path / "r.npz"
    args = ["solve", str(path), "--method", "near_far_core", "--backend", "cpu", "--out"]
    assert main([*args, str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert re.search(r"making .*'s contraction core: round 1, [\d,]+ nodes left", captured.err)
    assert json.loads(captured.out)["method"] == "near_far_core"
    with np.load(out) as z:
        assert z["dist"].tolist() == sssp(g, 0, method="dijkstra").distances.tolist()


def test_bench_records_near_far_core(tmp_path, capsys):
    path = tmp_path / "grid.gr"
    _grid_file(path)
    args = ["bench", str(path), "--methods", "near_far_core", "--record", "--backend", "cpu"]
    assert main([*args, "--json", "--sources", "2"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["record"] and row["identical"] and row["method"] == "near_far_core"


def test_a_later_run_reads_the_contraction_core_from_the_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(contraction.cache, "DISK_MIN_NODES", 100)
    path = tmp_path / "grid.gr"
    _grid_file(path)
    args = ["solve", str(path), "--method", "near_far_core", "--backend", "cpu"]
    assert main(args) == 0
    assert "round 1" in capsys.readouterr().err
    assert main(args) == 0
    err = capsys.readouterr().err
    assert re.search(r"grid.gr's contraction core read from the cache \(\d+\.\d\d s\)", err)
    assert "round 1" not in err
    assert main([*args, "--no-cache"]) == 0
    assert "round 1" in capsys.readouterr().err


def test_the_delta_help_names_the_methods_an_adaptive_delta_runs(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    named = re.search(r"chosen per phase, for ([\w, ]+)\)", text).group(1).split(", ")
    assert named == ["near_far", "near_far_async", "near_far_core", "delta_stepping", "bucketing"]
    g = grid_graph(6, 6, seed=2)
    for method in named:
        assert sssp(g, 0, method=method, delta="adaptive").adaptive is not None
    for method in ("bellman_ford", "phast", "dijkstra"):
        with pytest.raises(engine.ParameterError, match="no buckets to adapt"):
            sssp(g, 0, method=method, delta="adaptive")


def test_running_out_of_memory_is_one_line(monkeypatch, capsys):
    def exhausted(_args):
        raise MemoryError

    monkeypatch.setattr(engine.cli.solve, "run_info", exhausted)
    assert main(["info", "helsinki"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("frontier: error: out of memory") and err.count("\n") == 1


def test_info(capsys, tmp_path):
    path = tmp_path / "g.gr"
    path.write_text("p tw 3 2\n1 2\n2 3\n")
    assert main(["info", str(path), "--weights", "random:1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["nodes"] == 3 and info["arcs"] == 4 and info["weight"] == "random:1"
    assert info["auto_delta"] >= 1
    assert info["has_coordinates"] is False


def test_info_says_whether_coordinates_were_found(capsys, tmp_path):
    from engine.graphs import synthetic

    gr, co = synthetic.write_city(tmp_path / "town", 100, seed=1)
    assert main(["info", str(gr), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["has_coordinates"] is True
    moved = co.rename(tmp_path / "elsewhere.co")
    assert main(["info", str(gr), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["has_coordinates"] is False
    assert main(["info", str(gr), "--coords", str(moved), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["has_coordinates"] is True
    assert main(["info", str(gr), "--coords", str(tmp_path / "nope.co")]) == 2
    err = capsys.readouterr().err
    assert "nope.co' does not exist" in err and len(err.strip().splitlines()) == 1
    moved.write_text("p aux sp co 5\n")
    assert main(["info", str(gr), "--coords", str(moved), "--no-cache"]) == 2
    assert "coordinates for 5 nodes but the graph has 100" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "missing.gr"], "does not exist"),
        (["solve", "helsinki", "--source", "1"], "not in graph"),
        (["solve", "helsinki", "--target", "abc"], "not an integer"),
        (["solve", "helsinki", "--delta", "0"], "delta must be"),
        (["solve", "helsinki", "--batch", "0"], "--batch must be an integer ≥ 1"),
        (["solve", "helsinki", "--method", "astar"], "known methods"),
        (["solve", "helsinki", "--backend", "tpu"], "known backends"),
        (["solve", "place:Nowhere", "--backend", "cpu"], "no network connection"),
        (["solve", "helsinki", "--out", "/no/such/dir/x.npz"], "does not exist"),
        (["info", "helsinki", "--weights", "heavy"], "random:SEED"),
        # issue 12: argument errors, bench options and output paths
        (["solve", "helsinki", "--delta", "abc"], "--delta must be an integer"),
        (["solve", "helsinki", "--network", "boat"], "invalid choice: 'boat'"),
        (["solve", "helsinki", "--source", "inf"], "not an integer"),
        (["solve", "helsinki", "--source", "1.7"], "not an integer"),
        (["bench", "helsinki", "--sources", "0"], "--sources must be an integer ≥ 1"),
        (["bench", "helsinki", "--sources", "-1"], "--sources must be an integer ≥ 1"),
        (["bench", "helsinki", "--seed", "-1"], "--seed must be an integer ≥ 0"),
        (["matrix", "helsinki", "--sources", "0"], "--sources must be a count ≥ 1"),
        (["matrix", "helsinki", "--sources", "2", "--targets", "0"], "--targets must be a count"),
        (["solve", "helsinki", "--out", "/tmp"], "is a folder"),
        (["solve", "helsinki", "--out", "/tmp/result.bin"], "must end in .npz"),
        (["solve", "helsinki", "--out", ".npz"], "has no name before .npz"),
        (["solve", "helsinki", "--out", ""], "--out is empty"),
        (["bench", "helsinki", "--out", "/tmp/rows.txt"], "must end in .json"),
        (["bogus"], "invalid choice: 'bogus'"),
        (["animate", "helsinki", "--method", "dijkstra", "--out", "/tmp/a.gif"], "no iterations"),
        (["frame", "helsinki", "--method", "dijkstra", "--out", "/tmp/f.png"], "to draw"),
        # issue 14: an adaptive Δ
        (["solve", "helsinki", "--method", "bellman_ford", "--delta", "adaptive"], "no buckets"),
        (["solve", "helsinki", "--delta", "adaptive:9-1"], "1 ≤ low ≤ high"),
        (["solve", "helsinki", "--delta", "adaptive:9"], "two integers LOW-HIGH"),
        # issue 50: integers are ASCII digits everywhere ('²' passes str.isdigit, not int)
        (["solve", "helsinki", "--weights", "random:²"], "random:SEED"),
        (["solve", "helsinki", "--delta", "adaptive:²-3"], "two integers LOW-HIGH"),
        (["solve", "helsinki", "--delta", "²"], "--delta must be an integer"),
        (["solve", "helsinki", "--source", "²"], "not an integer"),
        (["solve", "helsinki", "--source", "٢"], "not an integer"),
        (["matrix", "helsinki", "--sources", "²"], "not an integer"),
        (["sweep", "helsinki", "--batches", "²", "--out", "/tmp/never"], "--batches needs"),
        (["sweep", "helsinki", "--deltas", "x0", "--out", "/tmp/never"], "Δ must be ≥ 1"),
        (["sweep", "helsinki", "--deltas", "x²", "--out", "/tmp/never"], "is not an integer"),
    ],
)
def test_errors_are_one_line(args, needle):
    done = run_cli(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], done.stderr


def test_bad_file_formats_are_one_line(tmp_path):
    for name, data in [("e.gr", b""), ("n.gr", b"p sp 2 1\na 1 2 -1\n"), ("x.bin", b"\x00\x01")]:
        path = tmp_path / name
        path.write_bytes(data)
        done = run_cli("info", str(path))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_gpu_without_gpu_is_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "engine.cli", "solve", "helsinki", "--backend", "gpu"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FRONTIER_DISABLE_GPU": "1"},
    )
    assert done.returncode == 2 and "--backend cpu" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_help_everywhere():
    for args in (["--help"], ["solve", "--help"], ["info", "--help"]):
        done = run_cli(*args)
        assert done.returncode == 0 and "GRAPH" in done.stdout


def test_bench_on_a_graph_without_nodes(tmp_path):
    (tmp_path / "z.gr").write_bytes(b"p sp 0 0\n")
    done = run_cli("bench", str(tmp_path / "z.gr"), "--backend", "cpu")
    assert done.returncode == 2 and "has no nodes" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_out_is_written_exactly_and_whole(tmp_path):
    out = tmp_path / "result.npz"
    assert main(["solve", "helsinki", "--backend", "cpu", "--out", str(out)]) == 0
    with np.load(out) as z:
        first = z["dist"].copy()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.npz"]
    # a failed run leaves the previous file as it was
    done = run_cli("solve", "helsinki", "--source", "1", "--out", str(out))
    assert done.returncode == 2
    with np.load(out) as z:
        assert np.array_equal(z["dist"], first)


def test_an_adaptive_delta_from_the_cli(tmp_path, capsys):
    assert main(["solve", "helsinki", "--backend", "cpu", "--delta", "adaptive", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    g = load_graph("helsinki")
    # the synchronous methods start at 4 x Davidson's Δ (engine.adaptive)
    assert summary["delta_rule"].startswith("adaptive:") and summary["delta"] == 4 * g.auto_delta()
    out = tmp_path / "rows.json"
    args = ["bench", "helsinki", "--backend", "cpu", "--sources", "2", "--delta", "adaptive"]
    assert main([*args, "--out", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["method"] for r in rows] == [
        "near_far",
        "near_far_async",
        "near_far_core",
        "delta_stepping",
        "bucketing",
    ]
    assert all(r["identical"] for r in rows)
    a = g.auto_delta()  # near_far_async steers within [2, 3] x Davidson's Δ (engine.adaptive)
    c = contraction.of(g).graph.auto_delta()  # near_far_core too, of its core's Δ
    assert {r["method"]: r["delta_rule"] for r in rows} == {
        "near_far": summary["delta_rule"],
        "near_far_async": f"adaptive:{2 * a}-{3 * a}",
        "near_far_core": f"adaptive:{2 * c}-{3 * c}",
        "delta_stepping": summary["delta_rule"],
        "bucketing": summary["delta_rule"],
    }
