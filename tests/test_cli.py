import json
import os
import subprocess
import sys

import numpy as np
import pytest

from engine import load_graph
from engine.cli import main


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
    assert "near_far on cpu" in text and "iterations" in text


def test_info(capsys, tmp_path):
    path = tmp_path / "g.gr"
    path.write_text("p tw 3 2\n1 2\n2 3\n")
    assert main(["info", str(path), "--weights", "random:1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["nodes"] == 3 and info["arcs"] == 4 and info["weight"] == "random:1"
    assert info["auto_delta"] >= 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "missing.gr"], "does not exist"),
        (["solve", "helsinki", "--source", "1"], "not in graph"),
        (["solve", "helsinki", "--target", "abc"], "not an integer"),
        (["solve", "helsinki", "--delta", "0"], "delta must be"),
        (["solve", "helsinki", "--batch", "0"], "batch size"),
        (["solve", "helsinki", "--method", "astar"], "known methods"),
        (["solve", "helsinki", "--backend", "tpu"], "known backends"),
        (["solve", "place:Nowhere", "--backend", "cpu"], "no network connection"),
        (["solve", "helsinki", "--out", "/no/such/dir/x.npz"], "does not exist"),
        (["info", "helsinki", "--weights", "heavy"], "random:SEED"),
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
