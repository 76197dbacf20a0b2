"""DIMACS 9th-challenge ``.gr`` (``p sp N M`` / ``a u v w``) and PACE road (``p tw N M`` /
``u v``) files, plain or compressed (``.gz``, ``.xz``, ``.bz2``).

Every node is kept; the CSR index is the file's id − 1. PACE lines are undirected edges,
each becoming two arcs of the same weight. For weights:

* ``weights=None``: the file's weights (DIMACS) or unit weights (PACE, which has none);
* ``"unit"``: every arc weighs 1;
* ``"random:SEED"``: the k-th edge line weighs
  ``numpy.random.default_rng(SEED).integers(1, 1001, size=M)[k]`` (both arcs of a PACE edge
  the same), so results are comparable across tools.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
from pathlib import Path

import numpy as np

from ._errors import GraphFormatError, ParameterError
from .graph import CSRGraph, from_arcs

_HEADER = re.compile(rb"^p[ \t]+(sp|tw)[ \t]+(\d+)[ \t]+(\d+)[ \t]*$", re.MULTILINE)
_OPENERS = {".gz": gzip.decompress, ".xz": lzma.decompress, ".bz2": bz2.decompress}


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed by suffix; format errors become `GraphFormatError`."""
    data = path.read_bytes()
    opener = _OPENERS.get(path.suffix.lower())
    if opener is not None:
        try:
            data = opener(data)
        except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
            msg = f"{path.name}: cannot decompress ({exc}); the file is corrupt or truncated"
            raise GraphFormatError(msg) from None
    if not data.strip():
        msg = f"{path.name} is empty; give a graph file with a 'p sp' or 'p tw' header"
        raise GraphFormatError(msg)
    return data


def looks_like_dimacs(data: bytes) -> bool:
    """Whether ``data`` has a DIMACS or PACE problem line."""
    return _HEADER.search(data[: 1 << 16]) is not None


def parse_weights(spec: str | None) -> tuple[str, int | None] | None:
    """Parse ``"unit"`` or ``"random:SEED"``; None stays None."""
    if spec is None:
        return None
    if spec == "unit":
        return ("unit", None)
    if spec.startswith("random:") and spec[7:].isdigit():
        return ("random", int(spec[7:]))
    msg = f"weights must be 'unit' or 'random:SEED' (SEED a non-negative integer), got {spec!r}"
    raise ParameterError(msg)


def random_weights(seed: int, count: int) -> np.ndarray:
    """The documented seeded weights: one integer in 1..1000 per edge line."""
    return np.random.default_rng(seed).integers(1, 1001, size=count)


def read_dimacs(path: Path, *, weights: str | None = None, name: str | None = None) -> CSRGraph:
    """Read a DIMACS ``.gr`` or PACE file into a `CSRGraph`.

    Raises
    ------
    GraphFormatError
        On a missing or malformed header, a truncated body, or ids out of range.
    """
    choice = parse_weights(weights)
    data = read_bytes(path)
    header = _HEADER.search(data)
    if header is None:
        msg = f"{path.name}: no 'p sp N M' or 'p tw N M' line; not a DIMACS or PACE file"
        raise GraphFormatError(msg)
    kind, n, m = header.group(1).decode(), int(header.group(2)), int(header.group(3))
    body = data[: header.start()] + data[header.end() :]
    table = _parse_table(body, kind == "sp", path.name)
    if len(table) != m:
        msg = (
            f"{path.name}: the header promises {m} {'arcs' if kind == 'sp' else 'edges'} but "
            f"the file has {len(table)}; it is truncated or corrupt"
        )
        raise GraphFormatError(msg)
    ends = table[:, :2]
    if m and (ends.min() < 1 or ends.max() > n):
        msg = f"{path.name}: a node id is outside 1..{n}; the file is corrupt"
        raise GraphFormatError(msg)
    tails, heads = ends[:, 0] - 1, ends[:, 1] - 1
    if choice is None:
        w = table[:, 2] if kind == "sp" else np.ones(m, dtype=np.int64)
        weight_kind = "file" if kind == "sp" else "unit"
    elif choice[0] == "unit":
        w, weight_kind = np.ones(m, dtype=np.int64), "unit"
    else:
        w, weight_kind = random_weights(choice[1], m), f"random:{choice[1]}"
    if kind == "tw":
        tails, heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
        w = np.concatenate([w, w])
    return from_arcs(
        n,
        tails,
        heads,
        w,
        name=name or path.name,
        weight_kind=weight_kind,
        node_ids=np.arange(1, n + 1, dtype=np.int64),
    )


def _parse_table(body: bytes, arcs: bool, filename: str) -> np.ndarray:
    """The numbers of the edge lines: ``u v w`` of ``a u v w`` lines, or ``u v``."""
    import pandas as pd

    usecols = [1, 2, 3] if arcs else [0, 1]
    width = len(usecols)

    if re.search(rb"^[ \t]*c", body, re.MULTILINE):
        body = b"\n".join(ln for ln in body.splitlines() if not ln.lstrip().startswith(b"c"))
    text = body.strip()
    if not text:
        return np.zeros((0, width), dtype=np.int64)
    try:
        frame = pd.read_csv(
            io.BytesIO(text),
            sep=r"\s+",
            header=None,
            usecols=usecols,
            dtype=np.int64,
            engine="c",
        )
    except (ValueError, pd.errors.ParserError) as exc:
        first = str(exc).splitlines()[0]
        msg = f"{filename}: malformed line ({first}); the file is corrupt"
        raise GraphFormatError(msg) from None
    if arcs:
        tags = set(re.findall(rb"^[ \t]*(\S+)", text[: 1 << 16], re.MULTILINE))
        if tags != {b"a"}:
            msg = f"{filename}: arc lines must start with 'a'; the file is corrupt"
            raise GraphFormatError(msg)
    table = frame.to_numpy(dtype=np.int64)
    if table.shape[1] != width:
        msg = f"{filename}: lines need {width} numbers; the file is corrupt"
        raise GraphFormatError(msg)
    return table
