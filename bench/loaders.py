"""Peak memory of each loader, per MiB of text and per node: the figures docs/cli.md states
and `engine.graphs._validate.TEXT_PEAK` bounds (issues 67 and 70).

    python bench/loaders.py [--nodes 200000] [--out bench/results/loaders.json]

Writes one synthetic city (`engine.graphs.synthetic`) as DIMACS ``.gr`` with its ``.co``,
as PACE (``p tw``), as OSM PBF and XML (osmium), and as GraphML (our own writer of the
city's arcs, x and y and lengths); then loads each with ``frontier info --no-cache`` in a
forked child (`engine.testing.hostile.measured`) and reports its peak resident memory
beyond the parent's, per MiB of the file's text once decompressed (a PBF's blocks) and per
node of the graph loaded.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.cli import main  # noqa: E402
from engine.graphs import synthetic  # noqa: E402
from engine.graphs.io import write_json  # noqa: E402
from engine.testing import measured  # noqa: E402


def write_graphml(path: Path, n_nodes: int) -> Path:
    """The synthetic city as GraphML: node ids, x and y, and each arc with its length."""
    import numpy as np

    n, tails, heads, weights, lon, lat = synthetic.city_arcs(n_nodes)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
        f.write('<key id="d0" for="node" attr.name="x" attr.type="double"/>\n')
        f.write('<key id="d1" for="node" attr.name="y" attr.type="double"/>\n')
        f.write('<key id="d2" for="edge" attr.name="length" attr.type="double"/>\n')
        f.write('<graph edgedefault="directed">\n')
        for v in range(n):
            f.write(f'<node id="{v + 1}"><data key="d0">{lon[v]:.7f}</data>'
                    f'<data key="d1">{lat[v]:.7f}</data></node>\n')  # fmt: skip
        metres = np.asarray(weights) / 100
        for u, v, w in zip(tails.tolist(), heads.tolist(), metres.tolist(), strict=True):
            f.write(f'<edge source="{u + 1}" target="{v + 1}"><data key="d2">{w}</data></edge>\n')
        f.write("</graph>\n</graphml>\n")
    return path


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    import osmium

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        gr, co = synthetic.write_city(tmp / "city", args.nodes)
        pace = tmp / "pace.gr"
        with open(gr) as src, open(pace, "w") as out:  # the same city's streets, undirected
            lines = src.read().splitlines()
            n = next(int(line.split()[2]) for line in lines if line.startswith("p "))
            arcs = [line.split()[1:3] for line in lines if line.startswith("a ")]
            edges = {tuple(sorted((int(u), int(v)))) for u, v in arcs}
            out.write(f"p tw {n} {len(edges)}\n")
            out.writelines(f"{u} {v}\n" for u, v in sorted(edges))
        pbf = synthetic.write_city_pbf(tmp / "city.osm.pbf", args.nodes)
        xml = tmp / "city.osm"
        with osmium.SimpleWriter(str(xml)) as writer:
            for obj in osmium.FileProcessor(str(pbf)):
                writer.add(obj)
        graphml = write_graphml(tmp / "city.graphml", args.nodes)
        cases = [
            ("DIMACS .gr", gr, ["--coords", str(co)], gr.stat().st_size + co.stat().st_size),
            ("PACE", pace, [], None),
            ("OSM PBF", pbf, ["--network", "drive"], None),
            ("OSM XML", xml, ["--network", "drive"], None),
            ("GraphML", graphml, [], None),
        ]
        base = measured.measured(lambda: 0).peak_bytes
        for label, path, extra, size in cases:
            size = size or measured.text_bytes(path)
            m = measured.measured(
                lambda path=path, extra=extra: main(
                    ["info", str(path), "--no-cache", "--json", *extra]
                ),
                timeout_s=600,
                guard=2**40,
            )
            import json

            nodes = json.loads(m.output[m.output.index("{") :])["nodes"] if m.code == 0 else 0
            extra_bytes = m.peak_bytes - base
            rows.append({
                "loader": label, "text_mib": size / 2**20, "nodes": nodes,
                "peak_mib": extra_bytes / 2**20, "per_text_byte": extra_bytes / size,
                "per_node": extra_bytes / max(nodes, 1), "seconds": m.seconds,
            })  # fmt: skip
            print(f"{label:12} text {size / 2**20:8.1f} MiB  nodes {nodes:>9,}  peak "
                  f"{extra_bytes / 2**20:8.1f} MiB  {extra_bytes / size:5.1f} B/B  "
                  f"{extra_bytes / max(nodes, 1):6.0f} B/node  {m.seconds:6.1f} s")  # fmt: skip
    if args.out:
        write_json(args.out, {"nodes": args.nodes, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main_())
