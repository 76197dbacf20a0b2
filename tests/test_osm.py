"""`engine.graphs.osm`: osmnx's road rules, kept in ``assets/osmnx_rules.json`` so that an
OSM file is read without importing osmnx, are the installed osmnx's."""

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.graphs import osm, roads

from .graphs import shared_path

ROOT = Path(__file__).resolve().parents[1]


def test_rules_asset_is_the_installed_osmnxs():
    pytest.importorskip("osmnx")
    sys.path.insert(0, str(osm.ASSET_DIR))
    try:
        import build_osmnx_rules
    finally:
        sys.path.pop(0)
    assert osm.rules() == build_osmnx_rules.build(), "rebuild: python assets/build_osmnx_rules.py"


def _same(a, b) -> bool:
    return a == b or (
        isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    )


def _maxspeeds() -> set[str]:
    """Every maxspeed value of the shared extracts, and words osmnx reads specially."""
    values = set(osm.rules()["implicit_maxspeeds"])
    values |= {"50", "50 mph", "50mph", "30 km/h", "7 knots", "50|30", "40|50 mph", "1,5",
               "5.5", "", " ", "none", "walk", "signals", "50;30", "mph", "0", "00", "3.",
               "50 MPH", "DE:urban|50", "RU:urban"}  # fmt: skip
    osmium = pytest.importorskip("osmium")
    for city in ("baltimore", "porto_alegre", "liechtenstein", "manhattan", "harrisburg"):
        path = shared_path("osm", f"{city}.osm.pbf")
        if path.exists():
            for way in osmium.FileProcessor(str(path), osmium.osm.WAY):
                if "maxspeed" in way.tags:
                    values.add(way.tags["maxspeed"])
    return values


def test_maxspeeds_read_as_osmnx_reads_them():
    pytest.importorskip("osmnx")
    from osmnx.routing import _clean_maxspeed

    implicit = osm.rules()["implicit_maxspeeds"]
    values = _maxspeeds()
    assert len(values) > 160
    for value in values:
        assert _same(roads.clean_maxspeed(value, implicit), _clean_maxspeed(value)), value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.,| mphkm/hknotsDE:urban", max_size=12))
def test_any_maxspeed_reads_as_osmnx_reads_it(value):
    pytest.importorskip("osmnx")
    from osmnx.routing import _clean_maxspeed

    implicit = osm.rules()["implicit_maxspeeds"]
    assert _same(roads.clean_maxspeed(value, implicit), _clean_maxspeed(value))


def test_an_osm_file_loads_without_osmnx(tmp_path):
    """osmnx's import (4.5 s on the H100 machine's host, scikit-learn beside it) is no part
    of reading an OSM file."""
    pytest.importorskip("osmium")
    from .graphs import write_osm_grid

    path = write_osm_grid(tmp_path / "grid.osm", 4, 4)
    code = (
        "import sys, engine\n"
        f"g = engine.load_graph({str(path)!r}, weight='travel_time', cache=False)\n"
        "assert g.n_nodes == 12, g.n_nodes  # the corners merged into their roads\n"
        "print('osmnx' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)  # fmt: skip
    assert out.stdout.strip() == "False", out.stderr
