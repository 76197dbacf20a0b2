"""Shareable links: the session's state to the query string and back."""

import pytest

import engine
from viz.links import LinkKeeper, apply_query, query_of, tolerate_any_query
from viz.state import GraphChoice, Session


def _as_panel_gives_them(query: dict) -> dict:
    return {k: [v.encode()] for k, v in query.items()}


def test_every_setting_round_trips(session):
    session.configs[0].param.update(method="delta_stepping", auto_delta=False, delta=5000)
    session.configs[1].param.update(method="bellman_ford", batch_size=8, backend="cpu")
    session.compare = True
    session.layer = "work"
    session.set_query(source=session.loaded.graph.index_of(25291537), target=17)
    session.seek(9)
    query = query_of(session)
    other = Session()
    assert other.load_graph(GraphChoice(network="walk", weight="travel_time"))
    assert apply_query(other, _as_panel_gives_them(query)), other.error
    assert query_of(other) == query
    assert [r.settings for r in other.runs] == [r.settings for r in session.runs]
    assert (other.source, other.target, other.frame) == (session.source, 17, 9)
    assert other.loaded.choice == session.loaded.choice and other.layer == "work"


def test_auto_delta_and_no_target_round_trip(session):
    session.set_query(target=None)
    query = query_of(session)
    assert query["delta"] == "auto" and "target" not in query and "b_method" not in query
    other = Session()
    assert other.load_graph(GraphChoice())
    assert apply_query(other, query) and other.target is None and other.configs[0].auto_delta


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"method": "warp"}, "link: method='warp' is not one of near_far"),
        ({"batch": "0"}, "link: batch='0' must be an integer ≥ 1"),
        ({"frame": "-3"}, "link: frame='-3' must be an integer ≥ 0"),
        ({"network": "boat"}, "link: network='boat'"),
        ({"source": "123"}, "link: source='123' is not a node of helsinki"),
        ({"graph": "/etc/passwd"}, "only files under"),
        ({"graph": "city:4:x"}, "'city:4:x' is not a city; write city:NODES"),
        ({"graph": "city:99000000"}, "city:99000000 has 99,002,500 nodes; at most"),
        ({"delta": "0"}, "link: delta='0' must be an integer ≥ 1"),
        # issue 50: ASCII digits only, and no NUL in a path
        ({"delta": "²"}, "link: delta='²' must be an integer ≥ 1"),
        ({"batch": "٢"}, "link: batch='٢' must be an integer ≥ 1"),
        ({"source": "²"}, "link: source='²' is not a node of helsinki"),
        ({"graph": "\x00"}, "a file path cannot hold a NUL character"),
        ({"graph": "f/ok3.gr\x00.txt"}, "a file path cannot hold a NUL character"),
        ({"graph": "helsinki", "coords": "x\x00.co"}, "a file path cannot hold a NUL character"),
        ({"compare": "yes"}, "link: compare='yes' is not one of 0, 1"),
        ({"b_delta": "adaptive:1-2"}, "b_delta='adaptive:1-2' must be an integer ≥ 1, 'auto'"),
        ({"b_method": "delta_stepping", "compare": "1", "backend": "gpu"}, "backend 'gpu'"),
    ],
)
def test_bad_or_stale_links_notify_and_keep_the_view(session, query, message):
    if "backend" in query and engine.gpu_available():
        pytest.skip("the GPU backend is available here")
    before = (query_of(session), session.runs)
    assert not apply_query(session, query)
    assert message in session.error and "\n" not in session.error
    assert (query_of(session), session.runs) == before


def test_the_url_follows_runs_and_paused_frames(session):
    class Location:
        search = ""

    keeper = LinkKeeper(session, Location)
    keeper.update()
    assert "frame=0" in Location.search and "graph=helsinki" in Location.search
    session.configs[0].batch_size = 8
    assert "batch=8" in Location.search
    session.play()
    seen = Location.search
    session.seek(5)
    assert Location.search == seen  # no URL change per frame while playing
    session.pause()
    assert "frame=5" in Location.search


def test_an_adaptive_delta_round_trips(session):
    session.configs[0].adaptive_delta = True
    query = query_of(session)
    assert query["delta"] == "adaptive"
    other = Session()
    assert other.load_graph(GraphChoice())
    assert apply_query(other, _as_panel_gives_them(query)), other.error
    assert other.configs[0].adaptive_delta and other.runs[0].settings.delta == "adaptive"
    assert query_of(other) == query


def test_a_link_opens_a_synthetic_city(tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(tmp_path))
    other = Session()
    assert other.load_graph(GraphChoice())
    assert apply_query(other, _as_panel_gives_them({"graph": "city:3000:7"})), other.error
    assert other.loaded.graph.n_nodes >= 3000 and other.loaded.geometry is not None
    assert query_of(other)["graph"] == "city:3000:7"


def test_presentation_mode_round_trips_and_a_bad_value_keeps_the_view(session):
    session.presenting(True)
    query = query_of(session)
    assert query["present"] == "1"
    other = Session()
    assert other.load_graph(GraphChoice())
    assert apply_query(other, _as_panel_gives_them(query)), other.error
    assert other.present and other.playing
    runs = other.runs
    assert not apply_query(other, {"present": "yes"})
    assert "link: present='yes' is not one of 0, 1" in other.error
    assert other.present and other.runs is runs


def test_a_link_naming_no_node_keeps_the_route(session):
    """Issue 52: ``?present=1`` (the README's own link) keeps the default query's target."""
    target = session.target
    assert target is not None
    assert apply_query(session, _as_panel_gives_them({"present": "1", "method": "bucketing"}))
    assert session.target == target and session.present


def test_panel_reads_a_query_it_cannot_parse_as_text():
    """Issue 50: Panel's own query parsing raised on ``?foo=²`` and dropped the link."""
    import panel.io.location

    tolerate_any_query()
    tolerate_any_query()  # once is enough; twice wraps nothing more
    assert panel.io.location.parse_query("?foo=%C2%B2&a=3") == {"foo": "²", "a": "3"}
    assert panel.io.location.parse_query("?a=3") == {"a": 3}  # Panel's own where it can
