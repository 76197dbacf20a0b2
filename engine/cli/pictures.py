"""``frontier animate`` and ``frontier frame``: a recorded search drawn frame by frame (GIF,
MP4, CSV, replay) or one frame (PNG)."""

from __future__ import annotations

import sys
from pathlib import Path

from engine import _validate
from engine._errors import ParameterError
from engine.media import replay
from engine.media.export import FORMATS, export, format_of, frame_range
from engine.media.render import parse_size
from engine.media.replay import SUFFIX
from engine.search import sssp
from engine.studies.bench import RECORDABLE

from . import _options as opts


def add_parsers(sub) -> None:
    for name, what in (
        ("animate", "draw a recorded search frame by frame (GIF, MP4), or save its frames"),
        ("frame", "draw one frame of a recorded search (PNG)"),
    ):
        _add_parser(sub, name, what)


def _add_parser(sub, name: str, what: str) -> None:
    formats = "; ".join(f"{k}: {v}" for k, v in FORMATS.items())
    p = sub.add_parser(
        name,
        help=what,
        epilog=opts.EPILOG
        + f" GRAPH may also be a replay ({SUFFIX}): its search is drawn as saved.",
        description=f"{what[0].upper()}{what[1:]}. The search runs with recording on (a "
        f"replay is reopened instead). Formats by the name of --out: {formats}.",
    )
    opts.graph_options(p)
    opts.search_options(p)
    if name == "animate":
        p.add_argument("--out", required=True, metavar="FILE", help="FILE.gif, .mp4, .csv or "
                       f"{SUFFIX}")  # fmt: skip
        p.add_argument("--fps", type=opts.count_type("--fps"), default=10, help="frames per second")
        p.add_argument("--frames", metavar="A:B", help="frames A to B only (default: all)")
    else:
        p.add_argument("--out", required=True, metavar="FILE.png")
        p.add_argument("--frame", type=opts.count_type("--frame", 0), metavar="K",
                       help="the frame to draw (default: the last)")  # fmt: skip
    p.add_argument("--size", metavar="WxH", help="picture size (default: 800 wide, the "
                   "graph's shape)")  # fmt: skip
    p.set_defaults(
        parser=p, run=run
    )  # a replay refuses the search options given (`_not_for_replay`)


#: The options that choose a graph or a search, which a replay has recorded already.
SEARCH_FLAGS = ("network", "weight", "weights", "coords", "source", "target", "method",
                "delta", "batch", "backend")  # fmt: skip


def _not_for_replay(args) -> None:
    """Refuse search options given with a replay: it is drawn as it was recorded."""
    given = [f"--{d}" for d in SEARCH_FLAGS if getattr(args, d) != args.parser.get_default(d)]
    if given:
        msg = (
            f"{', '.join(given)} cannot change a replay, which draws its recorded search; "
            "leave them out, or give the graph instead of the replay"
        )
        raise ParameterError(msg)


def run(args) -> int:
    from tqdm import tqdm

    kind = format_of(args.out)
    if args.command == "frame" and kind != ".png":
        msg = f"--out {args.out} must end in .png (frontier animate writes the other formats)"
        raise ParameterError(msg)
    if args.command == "animate" and kind == ".png":
        msg = f"--out {args.out}: frontier frame draws PNGs; animate writes {', '.join(FORMATS)}"
        raise ParameterError(msg)
    opts.output(args.out, Path(args.out).suffix.lower())
    size = parse_size(args.size) if args.size else None
    if args.graph.lower().endswith(SUFFIX):
        _not_for_replay(args)
        result, source = replay.load(args.graph)
    else:
        m = _validate.method(args.method)
        if m.name not in RECORDABLE:  # before the graph loads
            msg = f"{m.name} has no iterations to draw; give one of {', '.join(RECORDABLE)}"
            raise ParameterError(msg)
        graph = opts.load(args, args.graph)
        result = sssp(
            graph,
            graph.index_of(args.source) if args.source is not None else 0,
            method=args.method,
            backend=args.backend,
            delta=args.delta,
            batch_size=args.batch,
            target=graph.index_of(args.target) if args.target is not None else None,
            record=True,
        )
        source = {"spec": args.graph, "network": args.network, "weight": args.weight,
                  "weights": args.weights}  # fmt: skip
    options = dict(size=size, source=source)
    if args.command == "frame":
        options["frame"] = args.frame
    elif kind in (".gif", ".mp4"):
        frames = frame_range(args.frames, len(result.recording))
        bar = tqdm(total=len(frames), unit="frame", file=sys.stderr, desc=Path(args.out).name)
        options |= dict(fps=args.fps, frames=args.frames, progress=lambda k: bar.update(1))
    try:
        out = export(result, args.out, **options)
    finally:
        if "progress" in options:
            bar.close()
    print(f"wrote {out} ({out.stat().st_size:,} bytes, {len(result.recording)} frames recorded)")
    return 0
