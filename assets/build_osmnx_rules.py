"""Rebuild ``osmnx_rules.json`` from the installed osmnx: the road rules Frontier's OSM
reader (`engine.graphs.roads`) takes from osmnx without importing it (an import of osmnx,
with scikit-learn beside it, took 4.5 s of a 1M-node PBF's cold load).

    python assets/build_osmnx_rules.py

Holds each network type's way filter (osmnx's Overpass query), the network types whose roads
go both ways, and osmnx's implicit speeds (``maxspeed=DE:urban`` and the like).
`tests/test_osm.py` fails when the installed osmnx's rules differ from the file's.
"""

import json
from importlib.metadata import version
from pathlib import Path

PATH = Path(__file__).resolve().parent / "osmnx_rules.json"


def build() -> dict:
    import osmnx as ox
    from osmnx import _overpass
    from osmnx.routing import _IMPLICIT_MAXSPEEDS

    from engine.graphs import osm

    return {
        "osmnx": version("osmnx"),
        "filters": {
            network: _overpass._get_network_filter(name)
            for network, (_, name) in osm.NETWORKS.items()
        },
        "two_way": [
            network
            for network, (_, name) in osm.NETWORKS.items()
            if name in ox.settings.bidirectional_network_types
        ],
        "implicit_maxspeeds": dict(_IMPLICIT_MAXSPEEDS),
    }


def main() -> None:
    PATH.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
    print(f"{PATH.name}: osmnx {version('osmnx')}")


if __name__ == "__main__":
    main()
