"""`engine.testing.hostile`'s corpora through ``frontier info``: every hostile file loads
into the right graph or is refused in one line of plain words (exit 2, no Python exception
named), each in a child process within its time and within the stated multiple of its
decompressed size in memory (issue 70)."""

import numpy as np
import pytest

from engine.cli import main
from engine.graphs.io import load_graph
from engine.testing import hostile, measured


def _wrong(files: dict, loads: frozenset, args) -> dict[str, str]:
    """The files whose outcome through ``frontier`` (``args`` of the file), each in a
    measured child, is not the one they must have (load, or a refusal in one line), with
    what went wrong."""
    base = measured.measured(lambda: 0).peak_bytes
    wrong = {}
    for name, path in files.items():
        m = measured.measured(lambda path=path: main(args(path)))
        outcome, why = measured.judged(m, peak_bytes=measured.peak_bound(path, base))
        if outcome != ("ok" if name in loads else "refused"):
            wrong[name] = f"{outcome} ({why or m.output.strip()[-160:]})"
    return wrong


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    pytest.importorskip("osmium")
    pytest.importorskip("pyrosm")
    return {kind: (files, loads, args) for kind, files, loads, args in
            hostile.corpora(tmp_path_factory.mktemp("hostile"))}  # fmt: skip


@pytest.fixture(scope="module")
def osm_files(corpora):
    return corpora["osm"][0]


@pytest.mark.parametrize(("kind", "least"), [("osm", 100), ("graphml", 40), ("dimacs", 30)])
def test_hostile_files_load_or_are_one_line(corpora, kind, least):
    files, loads, args = corpora[kind]
    assert len(files) >= least
    assert not _wrong(files, loads, args)


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
