"""`engine.testing.hostile`'s corpora through ``frontier info``: every hostile file loads
into the right graph or is refused in one line of plain words (exit 2, no Python exception
named), each in a child process within its time and within the stated multiple of its
decompressed size in memory (issue 70)."""

import numpy as np
import pytest

from engine.cli import main
from engine.graphs.io import load_graph
from engine.testing import hostile


def _outcomes(files: dict, argv: list[str]) -> dict[str, tuple[str, str, hostile.Measured]]:
    """Each file's outcome, why it is bad, and its run, by name."""
    base = hostile.measured(lambda: 0).peak_bytes
    out = {}
    for name, path in files.items():
        m = hostile.measured(lambda path=path: main(["info", str(path), *argv]))
        outcome, why = hostile.judged(m, peak_bytes=hostile.peak_bound(path, base))
        out[name] = (outcome, why, m)
    return out


@pytest.fixture(scope="module")
def osm_files(tmp_path_factory):
    pytest.importorskip("osmium")
    pytest.importorskip("pyrosm")
    return hostile.osm_corpus(tmp_path_factory.mktemp("hostile-osm"))


def test_hostile_osm_files_load_or_are_one_line(osm_files):
    outcomes = _outcomes(osm_files, ["--network", "drive", "--no-cache"])
    wrong = {
        name: f"{outcome} ({why or m.output.strip()[-160:]})"
        for name, (outcome, why, m) in outcomes.items()
        if outcome != ("ok" if name in hostile.OSM_LOADS else "refused")
    }
    assert not wrong
    assert len(outcomes) > 100


def test_valid_osm_files_of_the_corpus_give_the_grid(osm_files):
    good = load_graph(osm_files["good.osm"], network="drive", cache=False)
    assert good.n_nodes > 3 and not good.notes
    for name in sorted(hostile.OSM_SAME_AS_GOOD):
        g = load_graph(osm_files[name], network="drive", cache=False)
        for key in ("indptr", "indices", "weights", "node_ids", "lon", "lat"):
            assert np.array_equal(getattr(g, key), getattr(good, key)), (name, key)


@pytest.mark.parametrize("name", ["duplicate-node.osm", "duplicate-node.osm.pbf"])
def test_a_node_given_twice_at_two_places_is_refused(osm_files, name):
    with pytest.raises(Exception, match=r"node 5 is given twice, at 60\.1609000, 24\.9318000"):
        load_graph(osm_files[name], network="drive", cache=False)


@pytest.mark.parametrize("name", ["missing-node.osm", "refs-missing.osm.pbf"])
def test_ways_cut_at_missing_nodes_are_counted(osm_files, name):
    g = load_graph(osm_files[name], network="drive", cache=False)
    assert g.notes == ("1 way cut where it names 1 node the file lacks (a clipped extract), "
                       "as osmnx cuts them",)  # fmt: skip
    assert g.summary()["notes"] == g.notes[0]


def test_a_measured_child_reports_its_memory_time_and_words():
    big = hostile.measured(lambda: len(bytearray(300 * 2**20)) and 0)
    small = hostile.measured(lambda: print("frontier: error: x") or 2)
    assert big.code == 0 and big.peak_bytes > small.peak_bytes + 250 * 2**20
    assert hostile.judged(small) == ("refused", "")
    slow = hostile.measured(lambda: __import__("time").sleep(5) or 0, timeout_s=0.5)
    assert slow.code is None and hostile.judged(slow)[0] == "bad"
    leak = hostile.measured(lambda: print("frontier: error: x (KeyError: 'y')") or 2)
    assert hostile.judged(leak) == ("bad", "Python's words ('Error:')")
