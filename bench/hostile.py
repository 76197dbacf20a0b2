"""A campaign of hostile inputs: the CLI, the Python API and dashboard links, each of which
must either work or be refused in one line (issues 50, 67 and 70).

    python bench/hostile.py [--out bench/results/hostile.json] [--verbose]

The CLI, API and link cases run in this process (the CLI through ``engine.cli.main``, its
output captured) on the embedded Helsinki graph and on small files written into a
temporary folder. The corpora of `engine.testing.hostile` (OSM PBF and XML, GraphML,
DIMACS and coordinate files) run through ``frontier info`` each in a child process,
measured: its peak memory must stay within the loaders' stated multiple of the file's
decompressed size, and its time within 60 s. An outcome is ``ok`` (it worked), ``refused``
(exit status 2, or a `FrontierError` / a refused link, with one line that is not a
traceback and names no Python exception) or ``bad`` (a traceback, any other exception,
several lines, Python's words, another exit status, too much memory or time, or a corpus
file loaded that must be refused or the other way round). Prints the counts by kind and
every bad case, writes them as JSON, and exits 1 when any case was bad.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import io
import os
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("FRONTIER_OFFLINE", "1")

import engine  # noqa: E402
from engine.cli import main  # noqa: E402
from engine.graphs.io import write_json  # noqa: E402
from engine.testing import hostile, measured  # noqa: E402

GR = "p sp 4 4\na 1 2 5\na 2 3 5\na 3 4 5\na 4 1 5\n"


def files(folder: Path) -> dict[str, Path]:
    """Small hostile graph files, by name."""
    texts = {
        "negcount.gr": "p sp -3 2\na 1 2 1\n",
        "zero-id.gr": "p sp 3 1\na 0 1 1\n",
        "beyond.gr": "p sp 3 1\na 1 9 1\n",
        "neg-weight.gr": "p sp 2 1\na 1 2 -4\n",
        "w32.gr": "p sp 2 1\na 1 2 4294967296\n",
        "w64.gr": "p sp 2 1\na 1 2 18446744073709551616\n",
        "two-headers.gr": "p sp 2 1\np sp 2 1\na 1 2 1\n",
        "bom.gr": "\ufeffp sp 2 1\na 1 2 1\n",
        "tw3.gr": "p tw 3 1\n1 2 3\n",
        "short.gr": "p sp 3 5\na 1 2 1\n",
        "only-comments.gr": "c a\nc b\n",
        "lone-cr.gr": "p sp 2 1\ra 1 2 1\r",
        "unicode-ids.gr": "p sp 2 1\na ١ ٢ 1\n",
        "float-w.gr": "p sp 2 1\na 1 2 1.5\n",
        "huge-n.gr": "p sp 99999999999999 1\na 1 2 1\n",
        "tabs.gr": "p\tsp\t2\t1\na\t1\t2\t1\n",
        "x.co": "p aux sp co 4\nv 1 1 1\nv 2 1 1\nv 3 1 1\n",
        "dup.co": "p aux sp co 4\nv 1 1 1\nv 1 1 1\nv 3 1 1\nv 4 1 1\n",
        "lat.co": "p aux sp co 4\nv 1 1 95000000\nv 2 1 1\nv 3 1 1\nv 4 1 1\n",
        "empty.osm": "<osm/>",
        "dangling.osm": '<osm><way id="1"><nd ref="5"/><nd ref="6"/>'
        '<tag k="highway" v="primary"/></way></osm>',
        "entity.osm": '<?xml version="1.0"?><!DOCTYPE osm [<!ENTITY a "aaaa">]><osm>&a;</osm>',
        "empty.graphml": '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"/>',
        "edgeless.graphml": '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<graph edgedefault="directed"><node id="1"/></graph></graphml>',
        "ids.txt": "",
        "good.gr": GR,
    }
    out = {}
    for name, text in texts.items():
        out[name] = folder / name
        out[name].write_text(text)
    binary = {
        "random.gr": np.random.default_rng(5).bytes(4096),
        "truncated.gr.gz": gzip.compress(GR.encode() * 50)[:60],
        "garbage.gr.xz": b"\xfd7zXZ\x00" + b"x" * 100,
        "zip.gr.bz2": bz2.compress(b"PK\x03\x04" + bytes(200)),
        "nested.gr.gz": gzip.compress(gzip.compress(GR.encode())),
        "cut.osm.pbf": b"\x00\x00\x00\x0d\x0a\x09OSMHeader" + bytes(40),
    }
    for name, data in binary.items():
        out[name] = folder / name
        out[name].write_bytes(data)
    (folder / "dir.gr").mkdir()
    out["dir.gr"] = folder / "dir.gr"
    return out


def cli_cases(f: dict[str, Path], tmp: Path) -> list[tuple[str, list[str], dict]]:
    """(label, argv, environment) of each CLI case."""
    h = ["solve", "helsinki", "--backend", "cpu"]
    cases = []
    for v in ["", " ", "-1", "+5", "0x10", "1e3", "9" * 30, "١٢", "1_000", "NaN"]:
        cases.append((f"--source {v!r}", [*h, "--source", v], {}))
    for v in ["-5", "9" * 40, "auto ", "adaptive:", "adaptive:5-", "adaptive:-5-10",
              "adaptive:0-0", "x4", "Ⅷ", "1.5"]:  # fmt: skip
        cases.append((f"--delta {v!r}", [*h, "--delta", v], {}))
    for v in ["-1", "9" * 25, "٣", "0"]:
        cases.append((f"--batch {v!r}", [*h, "--batch", v], {}))
    for flag, v in [("--method", ""), ("--method", "NEAR_FAR"), ("--method", "near-far"),
                    ("--backend", ""), ("--backend", "GPU"), ("--network", "Drive"),
                    ("--weights", "random:"), ("--weights", "random:-1"),
                    ("--weights", "random:1.5"), ("--weights", "RANDOM:1"),
                    ("--weights", "random:" + "9" * 30), ("--target", "25291537 "),
                    ("--out", ""), ("--out", "/"), ("--out", "/proc/x.npz"),
                    ("--out", "/dev/null"), ("--out", str(tmp / "r.NPZ")),
                    ("--coords", str(f["x.co"]))]:  # fmt: skip
        cases.append((f"{flag} {v!r}", [*h, flag, v], {}))
    for name, path in f.items():
        if name.endswith((".co", ".txt")):
            continue
        cases.append((f"info {name}", ["info", str(path), "--no-cache"], {}))
    for co in ("x.co", "dup.co", "lat.co"):
        cases.append((f"--coords {co}", ["info", str(f["good.gr"]), "--coords", str(f[co]),
                                         "--no-cache"], {}))  # fmt: skip
    m = ["matrix", "helsinki", "--backend", "cpu"]
    for v in ["25291537,25291537", "25291537,,6388100055", ",", "abc", str(f["ids.txt"]),
              "999999999999", "-3"]:  # fmt: skip
        cases.append((f"matrix --sources {v!r}", [*m, "--sources", v], {}))
    cases.append(("matrix --out x.csv", [*m, "--sources", "2", "--out", str(tmp / "m.csv")], {}))
    s = ["sweep", "helsinki", "--backend", "cpu", "--sources", "1"]
    for flag, v in [("--deltas", "x-1"), ("--deltas", "x1e3"), ("--deltas", "x"),
                    ("--deltas", "adaptive:0-5"), ("--deltas", ",,"), ("--batches", "1,,"),
                    ("--batches", "0x1"), ("--batches", "-1"), ("--repeat", "0"),
                    ("--target-rank", "-1"), ("--target-rank", "99")]:  # fmt: skip
        cases.append((f"sweep {flag} {v!r}", [*s, flag, v, "--out", str(tmp / "sw")], {}))
    a = ["animate", "helsinki", "--backend", "cpu", "--out", str(tmp / "a.gif")]
    for flag, v in [("--fps", "0"), ("--fps", "1000"), ("--frames", "5:2"),
                    ("--frames", "a:b"), ("--frames", "::"), ("--size", "0x0"),
                    ("--size", "99999x99999"), ("--size", "-5x5"), ("--size", "axb")]:  # fmt: skip
        cases.append((f"animate {flag} {v!r}", [*a, flag, v], {}))
    g = ["info", str(f["good.gr"])]
    for env in [{"FRONTIER_CACHE_MB": ""}, {"FRONTIER_CACHE_MB": " 5 "},
                {"FRONTIER_CACHE_MB": "5MB"}, {"FRONTIER_CACHE_DIR": "/dev/null"},
                {"FRONTIER_CACHE_DIR": str(f["good.gr"])}]:  # fmt: skip
        cases.append((f"info with {env}", g, env))
    return cases


def api_cases(f: dict[str, Path]) -> list[tuple[str, object]]:
    """(label, thunk) of each API case."""
    g = engine.load_graph("helsinki")
    sssp, mtm, load = engine.sssp, engine.many_to_many, engine.load_graph
    cases = {
        "sssp source float64": lambda: sssp(g, np.float64(1)),
        "sssp source -1": lambda: sssp(g, -1),
        "sssp source 10**20": lambda: sssp(g, 10**20),
        "sssp delta nan": lambda: sssp(g, 0, delta=float("nan")),
        "sssp delta np.int64": lambda: sssp(g, 0, delta=np.int64(5000), backend="cpu"),
        "sssp delta '5'": lambda: sssp(g, 0, delta="5"),
        "sssp batch np.uint8": lambda: sssp(g, 0, batch_size=np.uint8(3), backend="cpu"),
        "sssp method None": lambda: sssp(g, 0, method=None),
        "sssp backend None": lambda: sssp(g, 0, backend=None),
        "sssp target list": lambda: sssp(g, 0, target=[1]),
        "sssp record 'yes'": lambda: sssp(g, 0, record="yes"),
        "mtm sources 2-D": lambda: mtm(g, np.array([[1]])),
        "mtm sources floats": lambda: mtm(g, np.array([1.0])),
        "mtm sources bools": lambda: mtm(g, [True]),
        "mtm workers -1": lambda: mtm(g, [0], workers=-1),
        "mtm memory -5": lambda: mtm(g, [0], memory_bytes=-5),
        "mtm targets dict": lambda: mtm(g, [0], targets={1: 2}),
        "mtm sources range": lambda: mtm(g, range(3), method="dijkstra"),
        "load None": lambda: load(None),
        "load 123": lambda: load(123),
        "load 'place:'": lambda: load("place:"),
        "load bytes": lambda: load(b"helsinki"),
        "load network None": lambda: load("helsinki", network=None),
        "load weight ''": lambda: load("helsinki", weight=""),
        "load coordinates 123": lambda: load(f["good.gr"], coordinates=123, cache=False),
        "load max_nodes 1": lambda: load("helsinki", max_nodes=1),
        "index_of ' 5 '": lambda: g.index_of(" 5 "),
        "index_of 1.0": lambda: g.index_of(1.0),
    }
    return list(cases.items())


def link_cases() -> list[dict[str, str]]:
    return [
        {"delta": "-1"}, {"delta": "1e5"}, {"delta": "9" * 30}, {"batch": "0x10"},
        {"frame": "99999999"}, {"source": ""}, {"target": "-5"}, {"compare": "yes"},
        {"present": "2"}, {"layer": ""}, {"graph": "../../etc/passwd"}, {"graph": "~/x.gr"},
        {"graph": "place:"}, {"coords": "/etc/passwd"}, {"network": ""},
        {"weight": "TRAVEL"}, {"weights": "random:"}, {"b_delta": "adaptive:1-2"},
        {"graph": "helsinki", "source": "25291537", "target": "25291537"},
        {"lesson": "batch-size", "graph": "/dev/zero"}, {"method": "dijkstra", "delta": "0"},
        {"b_batch": "٣", "compare": "1"}, {"frame": "-0"}, {"source": "1e3"},
        # every parameter at its bounds (issue 67)
        {"delta": "1"}, {"delta": str(2**32 - 1)}, {"delta": str(2**63)}, {"batch": "1"},
        {"batch": str(2**31)}, {"batch": str(2**63)}, {"frame": str(2**63)},
        {"source": str(2**63 - 1)}, {"source": str(-(2**63))}, {"target": str(2**64)},
        {"b_delta": str(2**40), "compare": "1"}, {"b_batch": str(2**20), "compare": "1"},
        {"backend": "gpu"}, {"layer": "work", "frame": "0"}, {"present": "1", "frame": "1"},
        {"network": "drive", "weight": "travel_time"}, {"weights": "random:" + str(2**64)},
    ]  # fmt: skip


def judge(lines: list[str], failed: BaseException | None, code: int | None) -> str:
    if failed is not None and not isinstance(failed, engine.FrontierError):
        return "bad"
    text = [ln for ln in lines if ln.strip()]
    if any("Traceback" in ln for ln in text):
        return "bad"
    if code in (0, None) and failed is None:
        return "ok"
    if (code == 2 or isinstance(failed, engine.FrontierError)) and len(text) <= 1:
        return "refused"
    return "bad"


def run_cli(argv: list[str], env: dict) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    code, failed = None, None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
    except BaseException as exc:
        failed = exc
        err.write(traceback.format_exc())
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    lines = [ln for ln in err.getvalue().splitlines() if "%|" not in ln]  # progress bars
    return judge(lines, failed, code), "\n".join(lines)[-500:]


def run_api(thunk) -> tuple[str, str]:
    try:
        thunk()
    except engine.FrontierError as exc:
        return judge(str(exc).splitlines(), exc, None), str(exc)
    except Exception as exc:
        return "bad", f"{type(exc).__name__}: {exc}"
    return "ok", ""


def run_link(query: dict[str, str]) -> tuple[str, str]:
    from viz.links import apply_query
    from viz.state import GraphChoice, Session

    session = Session()
    session.load_graph(GraphChoice())
    try:
        done = apply_query(session, {k: [v.encode()] for k, v in query.items()})
    except Exception as exc:
        return "bad", f"{type(exc).__name__}: {exc}"
    if done:
        return "ok", ""
    return judge([session.error], engine.FrontierError(session.error), None), session.error


def corpus_rows(kind: str, files: dict[str, Path], loads: frozenset, args) -> list:
    """(kind, name, outcome, output) of each corpus file through ``frontier`` (``args``
    of the file) in a measured child; a file that loads where it must be refused (or the
    other way round) is bad."""
    base = measured.measured(lambda: 0).peak_bytes
    rows = []
    for name, path in files.items():
        m = measured.measured(lambda path=path: main(args(path)))
        outcome, why = measured.judged(m, peak_bytes=measured.peak_bound(path, base))
        expected = "ok" if name in loads else "refused"
        if outcome != "bad" and outcome != expected:
            outcome, why = "bad", f"{outcome} where it must be {expected}"
        last = m.output.strip().splitlines()[-1] if m.output.strip() else ""
        detail = f"{m.peak_bytes / 2**20:,.0f} MiB, {m.seconds:.2f} s: {why or last}"
        rows.append((kind, name, outcome, detail))
    return rows


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the outcomes here as JSON")
    parser.add_argument("--verbose", action="store_true", help="print every case")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        os.environ["FRONTIER_CACHE_DIR"] = str(tmp / "cache")
        os.environ["FRONTIER_DATA_DIRS"] = str(tmp)
        f = files(tmp)
        for label, argv, env in cli_cases(f, tmp):
            rows.append(("cli", label, *run_cli(argv, env)))
        for label, thunk in api_cases(f):
            rows.append(("api", label, *run_api(thunk)))
        for query in link_cases():
            rows.append(("link", str(query), *run_link(query)))
        for kind, corpus, loads, argv in hostile.corpora(tmp / "corpora"):
            rows += corpus_rows(kind, corpus, loads, argv)
    counts: dict[str, int] = {}
    by_kind: dict[str, dict[str, int]] = {}
    for kind, label, outcome, text in rows:
        counts[outcome] = counts.get(outcome, 0) + 1
        by_kind.setdefault(kind, {}).setdefault(outcome, 0)
        by_kind[kind][outcome] += 1
        if args.verbose or outcome == "bad":
            print(f"{outcome:8} {kind:5} {label}: {text.splitlines()[-1] if text else ''}")
    for kind, tally in by_kind.items():
        print(f"{kind:5} " + ", ".join(f"{v} {k}" for k, v in sorted(tally.items())))
    print(f"{len(rows)} hostile inputs: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if args.out:
        write_json(
            args.out,
            {
                "counts": counts,
                "counts_by_kind": by_kind,
                "cases": [
                    dict(zip(("kind", "input", "outcome", "output"), row, strict=True))
                    for row in rows
                ],
            },
        )
    return 1 if counts.get("bad") else 0


if __name__ == "__main__":
    sys.exit(main_())
