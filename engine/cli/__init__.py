"""The ``frontier`` command line, a module per command: `solve` (solve, info), `bench`,
`matrix`, `pictures` (animate, frame) and `studies` (sweep, ranks); `_options` holds what they
share. May import anything of the engine."""

from __future__ import annotations

import argparse
import sys

from engine._errors import FrontierError

from . import bench, matrix, pictures, solve, studies
from ._options import EPILOG


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is in ``--help``)."""

    def error(self, message: str):
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="frontier",
        description="Shortest-path searches (Near-Far, Δ-stepping, Bellman-Ford, Dijkstra) "
        "on road graphs, on the GPU or the CPU.",
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    solve.add_parsers(sub)
    bench.add_parser(sub)
    matrix.add_parser(sub)
    pictures.add_parsers(sub)
    studies.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``frontier`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except FrontierError as exc:
        print(f"frontier: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"frontier: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return 2
    except MemoryError:
        msg = "frontier: error: out of memory; free some, or take a smaller graph or fewer sources"
        print(msg, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("frontier: interrupted", file=sys.stderr)
        return 130
