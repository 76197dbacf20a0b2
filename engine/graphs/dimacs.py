"""DIMACS 9th-challenge ``.gr`` (``p sp N M`` / ``a u v w``) and PACE road (``p tw N M`` /
``u v``) files, plain or compressed (``.gz``, ``.xz``, ``.bz2``).

Every node is kept; the CSR index is the file's id − 1. PACE lines are undirected edges,
each becoming two arcs of the same weight. Coordinates come from a DIMACS ``.co`` file
(``p aux sp co N``, ``v ID X Y`` with longitude and latitude × 10^6), found beside the graph
under the same stem (``USA-road-d.NY.gr`` → ``USA-road-d.NY.co``, plain or compressed) or
named. For weights:

* ``weights=None``: the file's weights (DIMACS) or unit weights (PACE, which has none);
* ``"unit"``: every arc weighs 1;
* ``"random:SEED"``: the k-th edge line weighs
  ``numpy.random.default_rng(SEED).integers(1, 1001, size=M)[k]`` (both arcs of a PACE edge
  the same), so results are comparable across tools.
"""

from __future__ import annotations

import bz2
import concurrent.futures
import contextlib
import gzip
import io
import itertools
import lzma
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine._errors import FrontierError, GraphFormatError, ParameterError, WeightOverflowError
from engine._text import ascii_int
from engine.graphs import _validate
from engine.graphs.csr import MAX_WEIGHT, CSRGraph, from_arcs

#: How much of a file is read first for its problem line (its declared size).
HEAD_BYTES = 1 << 16
_HEADER = re.compile(rb"^p[ \t]+(sp|tw)[ \t]+(\d+)[ \t]+(\d+)[ \t\r]*$", re.MULTILINE)
#: The first line that is neither blank, a comment, nor an arc (``a U V W``) or edge (``U V``)
#: line; the problem line is taken out before this looks.
_BAD_LINE = {
    kind: re.compile(rb"^(?![ \t]*(?:c[^\n]*|" + line + rb"[ \t]*)?$).*$", re.MULTILINE)
    for kind, line in (("sp", rb"a[ \t]+\d+[ \t]+\d+[ \t]+-?\d+"), ("tw", rb"\d+[ \t]+\d+"))
}
_CO_HEADER = re.compile(rb"^p[ \t]+aux[ \t]+sp[ \t]+co[ \t]+(\d+)[ \t\r]*$", re.MULTILINE)
_CO_BAD_LINE = re.compile(
    rb"^(?![ \t]*(?:c[^\n]*|v[ \t]+\d+[ \t]+-?\d+[ \t]+-?\d+[ \t]*)?$).*$", re.MULTILINE
)
_OPENERS = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}
#: Magic numbers of the compressed formats, for files whose name does not say.
_MAGIC = {b"\x1f\x8b": ".gz", b"\xfd7zXZ": ".xz", b"BZh": ".bz2"}


def compression(path: Path) -> str | None:
    """``.gz``, ``.xz`` or ``.bz2`` when the file is compressed (by its first bytes), else
    None."""
    with path.open("rb") as f:
        head = f.read(6)
    return next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)


def open_text(path: Path):
    """``path`` opened for reading bytes, decompressed when it is compressed."""
    return _OPENERS.get(compression(path) or "", open)(path, "rb")


def read_bytes(
    path: Path,
    *,
    max_bytes: int | None = None,
    head: int | None = None,
    want: str = "a graph file with a 'p sp' or 'p tw' header",
) -> bytes:
    """The file's bytes, decompressed when compressed, at most ``max_bytes`` of them once
    decompressed (or only the first ``head`` bytes); format errors become
    `GraphFormatError` (an empty file asks for ``want``)."""
    limit = max_bytes if max_bytes is not None else -1
    try:
        with open_text(path) as f:
            if head is not None:
                data = f.read(head).removeprefix(BOM)
                _no_nul(data, path.name)
                return data
            data = _read_text(f, limit, path.name)
    except (EOFError, lzma.LZMAError, ValueError, OSError) as exc:
        if isinstance(exc, FileNotFoundError | GraphFormatError):
            raise
        msg = f"{path.name}: cannot decompress ({exc}); the file is corrupt or truncated"
        raise GraphFormatError(msg) from None
    if not data.strip():
        msg = f"{path.name} is empty; give {want}"
        raise GraphFormatError(msg)
    return data


#: A comment line's text (its newline stays, so line numbers keep their meaning).
_COMMENT = re.compile(rb"^[ \t]*c[^\n]*", re.MULTILINE)
#: The byte order mark some editors put before UTF-8 text.
BOM = b"\xef\xbb\xbf"
#: Bytes read and filtered at a time.
CHUNK_BYTES = 1 << 22


def _read_text(f, limit: int, name: str) -> bytes:
    """The text of ``f`` read a chunk at a time, without its comments: each comment line is
    kept as an empty line, and CRLF ends become LF, so a file of a gigabyte of comments
    holds one byte a line. A NUL byte is refused at once, naming its line and byte; more
    than ``limit`` bytes of text (when ``limit`` ≥ 0) too."""
    kept, size, lines, rest = [], 0, 0, b""
    while chunk := f.read(CHUNK_BYTES):
        if not size:
            chunk = chunk.removeprefix(BOM)  # an editor's mark of UTF-8, not text
        size += len(chunk)
        if 0 <= limit < size:
            msg = (
                f"{name} holds more than {limit / 2**20:,.0f} MiB of text once decompressed, "
                "the most allowed here; the CLI takes more with --max-text-mb"
            )
            raise GraphFormatError(msg)
        _no_nul(chunk, name, lines=lines, before=size - len(chunk))  # rest holds no newline
        text = rest + chunk
        end = text.rfind(b"\n") + 1
        lines += text.count(b"\n", 0, end)
        kept.append(_filtered(text[:end]))
        rest = text[end:]
    kept.append(_filtered(rest))
    return b"".join(kept)


def _filtered(text: bytes) -> bytes:
    if b"\r" in text:
        text = text.replace(b"\r\n", b"\n")  # CRLF files; a lone CR is a malformed line
    return _COMMENT.sub(b"", text) if b"c" in text else text


def _no_nul(chunk: bytes, name: str, *, lines: int = 0, before: int = 0) -> None:
    """Refuse ``chunk`` (of a file whose earlier ``before`` bytes hold ``lines`` lines) if
    it holds a NUL byte: a graph file is text, and a file cut short or padded with zeros
    shows it at once."""
    at = chunk.find(b"\x00")
    if at >= 0 and not before and chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
        msg = f"{name} is UTF-16 text; Frontier reads UTF-8: convert it (iconv -f UTF-16 -t UTF-8)"
        raise GraphFormatError(msg)
    if at >= 0:
        line = lines + chunk.count(b"\n", 0, at) + 1
        msg = (
            f"{name}, line {line:,}, byte {before + at + 1:,}: a NUL byte; a graph file is "
            "text (is it padded with zeros, or not a graph file?)"
        )
        raise GraphFormatError(msg)


def looks_like_dimacs(data: bytes) -> bool:
    """Whether ``data`` has a DIMACS or PACE problem line."""
    return _HEADER.search(data[: 1 << 16]) is not None


def parse_weights(spec: str | None) -> tuple[str, int | None] | None:
    """Parse ``"unit"`` or ``"random:SEED"``; None stays None."""
    if spec is None:
        return None
    if spec == "unit":
        return ("unit", None)
    seed = ascii_int(spec.removeprefix("random:")) if spec.startswith("random:") else None
    if seed is not None:
        return ("random", seed)
    msg = f"weights must be 'unit' or 'random:SEED' (SEED a non-negative integer), got {spec!r}"
    raise ParameterError(msg)


def random_weights(seed: int, count: int) -> np.ndarray:
    """The documented seeded weights: one integer in 1..1000 per edge line."""
    return np.random.default_rng(seed).integers(1, 1001, size=count)


def read_dimacs(
    path: Path,
    *,
    weights: str | None = None,
    name: str | None = None,
    max_nodes: int | None = None,
    max_bytes: int | None = None,
    coordinates: str | Path | None = "auto",
    progress: Callable[[str], None] | None = None,
) -> CSRGraph:
    """Read a DIMACS ``.gr`` or PACE file into a `CSRGraph`.

    ``coordinates``: ``"auto"`` reads the ``.co`` file beside it when there is one
    (`coordinates_beside`), a path reads that file, None reads none.

    The sizes its problem line declares are checked (against ``max_nodes`` and the memory
    free here) from the file's first `HEAD_BYTES` before the rest is read; ``max_bytes``
    bounds the file's text once decompressed (by default what the memory free can read,
    `engine.graphs._validate.text_fits`: a file known to be larger is refused before it is
    read, others as soon as their text passes the bound). ``progress(stage)`` is called as
    each stage begins (reading, parsing, coordinates, CSR); an exception it raises stops the read.

    Raises
    ------
    GraphFormatError
        On a missing or malformed header, a malformed line (named by its number), a
        truncated body, or ids out of range.
    GraphTooLargeError
        When the declared graph is over ``max_nodes`` or would not fit in memory.
    GraphNotFoundError
        When a named coordinate file does not exist.
    """
    say = progress or (lambda _stage: None)
    choice = parse_weights(weights)
    say("reading the file")
    early = _HEADER.search(read_bytes(path, head=HEAD_BYTES))
    if early is not None:  # a huge declared size is refused before the body is read
        _declared(early, path.name, max_nodes)
    pace = early is not None and early.group(1) == b"tw"
    limit = _validate.text_fits(path, "pace" if pace else "dimacs", max_bytes)
    data = read_bytes(path, max_bytes=limit)
    say("parsing the arcs")
    header = _HEADER.search(data)
    if header is None:
        msg = f"{path.name}: no 'p sp N M' or 'p tw N M' line; not a DIMACS or PACE file"
        raise GraphFormatError(msg)
    kind, n, m = _declared(header, path.name, max_nodes)
    want, letter, fields = ("'a U V W'", b"a", 4) if kind == "sp" else ("'U V'", b"", 2)
    lines = _Lines(data, header, _BAD_LINE[kind], f"a comment or a {want} line", path.name,
                   letter=letter, fields=fields)  # fmt: skip
    body = data[: header.start()] + data[header.end() :]
    bounds = f"node ids are at most {n:,} and weights at most {MAX_WEIGHT:,}"
    with lines.checked(body) as check:
        table = _parse_table(body, [1, 2, 3] if kind == "sp" else [0, 1], path.name, bounds)
        check.count(len(table))
    if len(table) != m:
        msg = (
            f"{path.name}: the header promises {m} {'arcs' if kind == 'sp' else 'edges'} but "
            f"the file has {len(table)}; it is truncated or corrupt"
        )
        raise GraphFormatError(msg)
    ends = table[:, :2]
    what = "arc" if kind == "sp" else "edge"
    if m and (ends.min() < 1 or ends.max() > n):
        k = int(np.flatnonzero(((ends < 1) | (ends > n)).any(axis=1))[0])
        u, v = (int(x) for x in ends[k])
        bad = u if not 1 <= u <= n else v
        msg = (
            f"{path.name}, line {_row_line(body, k, letter):,}: {what} {u} → {v} names node "
            f"{bad}, but node ids run from 1 to {n:,} (the 'p' line); the file is corrupt"
        )
        raise GraphFormatError(msg)
    if kind == "sp" and m and (table[:, 2].min() < 0 or table[:, 2].max() > MAX_WEIGHT):
        k = int(np.flatnonzero((table[:, 2] < 0) | (table[:, 2] > MAX_WEIGHT))[0])
        u, v, w = (int(x) for x in table[k])
        msg = (
            f"{path.name}, line {_row_line(body, k, letter):,}: arc {u} → {v} weighs {w:,}; "
            f"weights are whole numbers from 0 to {MAX_WEIGHT:,}: fix or rescale them"
        )
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
    where = coordinates_beside(path) if coordinates == "auto" else coordinates
    lon = lat = None
    if where is not None:
        say("reading the coordinates")
        lon, lat = read_coordinates(Path(where), n, max_bytes=max_bytes)
    say("building the CSR")
    return from_arcs(
        n,
        tails,
        heads,
        w,
        name=name or path.name,
        weight_kind=weight_kind,
        node_ids=np.arange(1, n + 1, dtype=np.int64),
        lon=lon,
        lat=lat,
    )


class _Lines:
    """The check that every line of a file is blank, a comment or a data line, naming the
    first that is not (``bad_line``, a regular expression over the whole text).

    The expression took 1.7 s of a 1M-node city's 2 s parse (decisions/0081), so a plain text
    skips it: one whose lines are blank or ``LETTER`` and digits, one space apart, with no
    other byte (`plain`, a few passes of bytes operations). Its parse must then give one row
    a line that begins with ``LETTER``, and ``FIELDS - 1`` spaces a row; a parse that fails,
    or counts that differ, run the expression after all, so that every bad file is refused
    with the same words as before.
    """

    def __init__(self, data: bytes, header: re.Match, bad_line: re.Pattern, want: str, name: str,
                 *, letter: bytes, fields: int):  # fmt: skip
        self.data, self.header, self.bad_line = data, header, bad_line
        self.want, self.name, self.letter, self.fields = want, name, letter, fields
        self.plain: tuple[int, int] | None = None

    def refuse_bad_line(self) -> None:
        data, header = self.data, self.header
        bad = self.bad_line.search(data, 0, header.start()) or self.bad_line.search(
            data, header.end() + 1
        )
        if bad is not None:
            line = data.count(b"\n", 0, bad.start()) + 1
            text = bad.group().decode(errors="replace")[:60]
            msg = f"{self.name}, line {line}: {text!r} is not {self.want}"
            raise GraphFormatError(msg)

    @contextlib.contextmanager
    def checked(self, body: bytes):
        """Check the lines of ``body`` around its parse (see the class); the parse calls
        `count` with its rows."""
        self.plain = plain(body, self.letter)
        if self.plain is None:
            self.refuse_bad_line()
        try:
            yield self
        except ValueError as exc:  # the engine's errors are ValueErrors too
            if self.plain is None:
                raise
            self.refuse_bad_line()  # the words the line regex has for it
            if not isinstance(exc, FrontierError):  # pandas' own: a row short of a column
                msg = f"{self.name}: malformed line ({exc}); the file is corrupt"
                raise GraphFormatError(msg) from None
            raise

    def count(self, rows: int) -> None:
        if self.plain is not None:
            led, spaces = self.plain
            if spaces != rows * (self.fields - 1) or (self.letter and led != rows):
                self.refuse_bad_line()


def _row_line(body: bytes, k: int, letter: bytes) -> int:
    """The line of the ``k``-th (from 0) data row of ``body``: the ``k``-th line that
    begins with ``letter`` (or a digit where there is none); comments and blank lines hold
    no row. Only a refusal asks, so it may read the whole text."""
    start = re.compile(rb"^[ \t]*" + (re.escape(letter) if letter else rb"[0-9]"), re.MULTILINE)
    for j, found in enumerate(start.finditer(body)):
        if j == k:
            return body.count(b"\n", 0, found.start()) + 1
    return 0


def plain(body: bytes, letter: bytes) -> tuple[int, int] | None:
    """For a text whose every line is blank or ``letter`` (or nothing) and digits, one space
    apart, with no other byte: the lines that begin with ``letter`` and the spaces; None for
    any other text (tabs, signs, double spaces, other letters, a letter inside a line).
    A long text is read in pieces of whole lines on every core (`_pieces`)."""
    found = _each_piece(lambda piece: _plain_piece(piece, letter), _pieces(body))
    if any(f is None for f in found):
        return None
    return sum(f[0] for f in found), sum(f[1] for f in found)


def _plain_piece(piece: bytes, letter: bytes) -> tuple[int, int] | None:
    """`plain` of a piece that begins a line, by NumPy (which lets go of the interpreter: the
    pieces are read side by side)."""
    a = np.frombuffer(piece, dtype=np.uint8)
    space, newline = a == ord(" "), a == ord("\n")
    digit = (a >= ord("0")) & (a <= ord("9"))
    others = a.size - np.count_nonzero(space | newline | digit)
    code = ord(letter) if letter else -1
    if others != (np.count_nonzero(a == code) if letter else 0):  # a byte other than these
        return None
    if a.size and (space[0] or space[-1]):
        return None
    if np.any((space[:-1] | newline[:-1]) & space[1:]) or np.any(space[:-1] & newline[1:]):
        return None  # two spaces, a space ending a line or beginning one
    led = 0
    if letter:
        led = np.count_nonzero(newline[:-2] & (a[1:-1] == code) & space[2:])
        led += piece.startswith(letter + b" ")
        if led != others:  # a letter that does not begin its line, or stands alone
            return None
    return int(led), int(np.count_nonzero(space))


def _declared(header: re.Match, name: str, max_nodes: int | None) -> tuple[str, int, int]:
    """The kind (``sp``, ``tw``), node count and line count a problem line declares, once
    the size is checked (`_validate.graph_size`; a ``tw`` edge is two arcs)."""
    kind, n, m = header.group(1).decode(), int(header.group(2)), int(header.group(3))
    _validate.graph_size(n, m * (2 if kind == "tw" else 1), name, max_nodes=max_nodes)
    return kind, n, m


def coordinates_beside(path: Path) -> Path | None:
    """The ``.co`` file of ``path``'s stem beside it (plain, ``.gz``, ``.xz`` or ``.bz2``):
    ``X.gr``, ``X.gr.gz`` and ``X`` look for ``X.co``; None when there is none."""
    stem = path.name
    for suffix in (*_OPENERS, ".gr"):
        stem = stem.removesuffix(suffix)
    for suffix in ("", *_OPENERS):
        candidate = path.with_name(f"{stem}.co{suffix}")
        if candidate != path and candidate.is_file():
            return candidate
    return None


def coordinate_file(given: str | Path) -> Path:
    """The named ``.co`` file's path; `GraphNotFoundError` when it does not exist."""
    hint = "give the .co file of the graph"
    return _validate.readable_file(Path(given).expanduser(), "coordinate file", hint)


def read_coordinates(
    path: Path, n: int, *, max_bytes: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Longitudes and latitudes in degrees of nodes 1..``n`` from a DIMACS ``.co`` file.

    Its declared count is checked against ``n`` before the body is read.

    Raises
    ------
    GraphNotFoundError
        When the file does not exist.
    GraphFormatError
        On a missing header, a count other than ``n``, a malformed line (named by its
        number), ids out of range, repeated or missing, or a coordinate outside ±180° of
        longitude or ±90° of latitude.
    """
    path = coordinate_file(path)
    limit = _validate.text_fits(path, "dimacs", max_bytes)
    data = read_bytes(path, max_bytes=limit, want="a coordinate file ('p aux sp co N')")
    header = _CO_HEADER.search(data)
    if header is None:
        msg = f"{path.name}: no 'p aux sp co N' line; not a DIMACS coordinate file"
        raise GraphFormatError(msg)
    count = int(header.group(1))
    if count != n:
        msg = f"{path.name} has coordinates for {count:,} nodes but the graph has {n:,}"
        raise GraphFormatError(msg)
    lines = _Lines(data, header, _CO_BAD_LINE, "a comment or a 'v ID X Y' line", path.name,
                   letter=b"v", fields=4)  # fmt: skip
    bounds = f"node ids are at most {n:,} and coordinates millionths of a degree (±180,000,000)"
    body = data[: header.start()] + data[header.end() :]
    with lines.checked(body) as check:
        table = _parse_table(body, [1, 2, 3], path.name, bounds)
        check.count(len(table))
    ids = table[:, 0]
    if ids.size and (ids.min() < 1 or ids.max() > n):
        k = int(np.flatnonzero((ids < 1) | (ids > n))[0])
        msg = (
            f"{path.name}, line {_row_line(body, k, b'v'):,}: node id {ids[k]} is outside "
            f"1..{n:,}, the graph's nodes"
        )
        raise GraphFormatError(msg)
    seen = np.zeros(n + 1, dtype=np.int64)
    np.add.at(seen, ids, 1)
    if (seen[1:] != 1).any():
        twice, missing = np.flatnonzero(seen > 1), np.flatnonzero(seen[1:] == 0) + 1
        if twice.size:
            again = np.flatnonzero(ids == twice[0])[1]
            detail = f"line {_row_line(body, int(again), b'v'):,}: node {twice[0]} appears twice"
        else:
            detail = f"node {missing[0]} is missing"
        sep = ", " if detail.startswith("line") else ": "
        msg = f"{path.name}{sep}{detail}; each of the {n:,} nodes needs one 'v' line"
        raise GraphFormatError(msg)
    lon, lat = np.empty(n), np.empty(n)
    lon[ids - 1], lat[ids - 1] = table[:, 1] / 1e6, table[:, 2] / 1e6
    outside = (np.abs(lon) > 180) | (np.abs(lat) > 90)
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        msg = (
            f"{path.name}: node {k + 1} lies at ({lon[k]:g}, {lat[k]:g}), outside ±180° of "
            "longitude or ±90° of latitude (the file gives degrees × 10^6)"
        )
        raise GraphFormatError(msg)
    return lon, lat


def _parse_table(body: bytes, usecols: list[int], filename: str, bounds: str) -> np.ndarray:
    """The numbers of the data lines in columns ``usecols``: ``u v w`` of ``a u v w`` lines,
    ``u v`` of PACE lines, ``id x y`` of ``v id x y`` lines; ``bounds`` says what the
    numbers may be, for a number too big for 64 bits. A long text is parsed in pieces of
    whole lines on every core (`_pieces`); a piece that fails has the whole text parsed
    again, so that a bad file is refused in the same words."""
    text = body.strip()  # comment lines were emptied as the file was read (`_read_text`)
    if not text:
        return np.zeros((0, len(usecols)), dtype=np.int64)
    pieces = _pieces(text)
    if len(pieces) > 1:
        try:
            return np.concatenate(_each_piece(lambda t: _parse(t, usecols), pieces))
        except (ValueError, OverflowError):  # pandas' ParserError is a ValueError
            pass  # said below, of the whole text
    return _checked_parse(text, usecols, filename, bounds)


#: Texts longer than this are read (`plain`) and parsed (`_parse_table`) in pieces of about
#: this size, one a core (NumPy and pandas' C tokenizer let go of the interpreter): a
#: 1M-node city's arcs took 0.81 s to parse in one piece, 0.36 s in two (decisions/0088).
PIECE_BYTES = 8 * 2**20


def _pieces(text: bytes) -> list[bytes]:
    """``text`` cut after newlines into at most one piece a core, each `PIECE_BYTES` or more."""
    k = max(1, min(os.cpu_count() or 1, len(text) // PIECE_BYTES))
    cuts = [0]
    for i in range(1, k):
        at = text.find(b"\n", max(cuts[-1], len(text) * i // k))
        if at < 0:
            break
        cuts.append(at + 1)
    cuts.append(len(text))
    return [text[a:b] for a, b in itertools.pairwise(cuts) if b > a]


def _each_piece(work: Callable, pieces: list[bytes]) -> list:
    """``work`` of each piece, in order: side by side on threads where there are several."""
    if len(pieces) < 2:
        return [work(piece) for piece in pieces]
    with concurrent.futures.ThreadPoolExecutor(len(pieces)) as pool:
        return list(pool.map(work, pieces))


def _parse(text: bytes, usecols: list[int]) -> np.ndarray:
    """pandas' C parser over whitespace-separated integer lines (its errors raised)."""
    import pandas as pd

    frame = pd.read_csv(
        io.BytesIO(text), sep=r"\s+", header=None, usecols=usecols, dtype=np.int64, engine="c"
    )
    return frame.to_numpy(dtype=np.int64)


def _checked_parse(text: bytes, usecols: list[int], filename: str, bounds: str) -> np.ndarray:
    width = len(usecols)
    try:
        table = _parse(text, usecols)
    except (ValueError, OverflowError) as exc:
        huge = re.search(rb"\d{19,}", text)  # every line is well formed: a number is too big
        if huge is not None:
            msg = (
                f"{filename}: the number {huge.group()[:30].decode()} does not fit 64 bits; "
                f"{bounds}"
            )
            raise WeightOverflowError(msg) from None
        first = str(exc).splitlines()[0]
        msg = f"{filename}: malformed line ({first}); the file is corrupt"
        raise GraphFormatError(msg) from None
    if table.shape[1] != width:
        msg = f"{filename}: lines need {width} numbers; the file is corrupt"
        raise GraphFormatError(msg)
    return table
