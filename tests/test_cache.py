"""The cache folder cannot lie: a graph or contraction file truncated, corrupted, emptied,
replaced by garbage, by another graph's file or by one of an older layout is noticed, made
again, and the distances are the same; two processes writing one file at once both get the
graph, and the file is whole (issue 67)."""

import multiprocessing
import shutil

import numpy as np
import pytest

import engine
from engine import contraction
from engine.graphs import io

from .graphs import grid_graph, heap_dijkstra

GR = "p sp 5 6\nc a small graph\na 1 2 7\na 2 3 1\na 3 4 2\na 4 5 9\na 5 1 3\na 1 3 20\n"


def _damaged(path, how: str, other=None) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        middle = bytearray(data)
        middle[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(middle))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(np.random.default_rng(3).bytes(len(data)))
    elif how == "another":
        shutil.copyfile(other, path)
    elif how == "older":  # a valid file of the layout before the cache files held their name
        with np.load(path) as z:
            kept = {k: z[k] for k in z.files if k != "cache_key"}
        with open(path, "wb") as f:
            np.savez(f, **kept)


DAMAGES = ["truncated", "flipped", "empty", "garbage", "another", "older"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_graph_file_is_made_again(tmp_path, monkeypatch, how):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "g.gr").write_text(GR)
    (tmp_path / "h.gr").write_text(GR.replace("a 4 5 9", "a 4 5 1"))
    fresh = engine.load_graph(tmp_path / "g.gr", cache=False)
    engine.load_graph(tmp_path / "h.gr")
    other = next((tmp_path / "cache").glob("*.npz"))
    engine.load_graph(tmp_path / "g.gr")
    (cached,) = set((tmp_path / "cache").glob("*.npz")) - {other}
    _damaged(cached, how, other)
    again = engine.load_graph(tmp_path / "g.gr")
    for key in ("indptr", "indices", "weights", "node_ids"):
        assert np.array_equal(getattr(again, key), getattr(fresh, key)), key
    ref = heap_dijkstra(fresh, 0)
    assert np.array_equal(engine.sssp(again, 0, backend="cpu").distances, ref)
    assert np.array_equal(engine.load_graph(tmp_path / "g.gr").weights, fresh.weights)  # whole


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_contraction_file_is_made_again(tmp_path, monkeypatch, how):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(contraction.cache, "DISK_MIN_NODES", 0)
    other = contraction.of(grid_graph(9, 9, seed=2), "core")
    assert not other.from_cache
    engine.graphs.io.cache_written()
    (other_file,) = tmp_path.glob("core-*.npz")
    made = contraction.of(grid_graph(12, 12, seed=1), "core")
    engine.graphs.io.cache_written()
    (path,) = set(tmp_path.glob("core-*.npz")) - {other_file}
    _damaged(path, how, other_file)
    graph = grid_graph(12, 12, seed=1)  # a new object: read from the folder, not the memo
    again = contraction.of(graph, "core")
    assert not again.from_cache  # noticed and made again
    assert np.array_equal(again.order, made.order)
    for source in (0, 77):
        r = engine.sssp(graph, source, method="near_far_core", backend="cpu")
        assert np.array_equal(r.distances, heap_dijkstra(graph, source))
    engine.graphs.io.cache_written()
    assert contraction.of(grid_graph(12, 12, seed=1), "core").from_cache  # written whole


def _load_in_child(path: str, cache: str, out) -> None:
    import os

    os.environ["FRONTIER_CACHE_DIR"] = cache
    out.put(int(engine.load_graph(path).weights.sum()))


def test_two_processes_writing_one_cache_file_both_get_the_graph(tmp_path):
    (tmp_path / "g.gr").write_text(GR)
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    children = [
        context.Process(target=_load_in_child, args=(str(tmp_path / "g.gr"), str(tmp_path), out))
        for _ in range(2)
    ]
    for child in children:
        child.start()
    sums = [out.get(timeout=120) for _ in children]
    for child in children:
        child.join(60)
    assert sums == [42, 42]
    (cached,) = tmp_path.glob("dimacs-*.npz")
    assert not list(tmp_path.glob(".*.tmp"))
    assert io._load_keyed(cached.name, cached).weights.sum() == 42
