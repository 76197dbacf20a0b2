"""`load_graph`: every supported source of road graphs, with a disk cache.

Specs
-----
``"helsinki"``
    The embedded default (central Helsinki, © OpenStreetMap contributors).
``"place:Berlin, Germany"``
    Downloaded with osmnx when online.
``"city:16000000"`` or ``"city:16000000:19"``
    A seeded synthetic city of about that many crossings (`engine.graphs.synthetic.city`,
    seed 0 unless given), its size checked before it is laid out: a country-sized graph
    without a file.
a path
    OSM PBF and OSM XML (``.osm``/``.osm.gz``/``.osm.bz2``), both built by osmnx's road
    rules in arrays (`engine.graphs.osm.arcs_from_osm`), ``.graphml`` of any tool
    (`engine.graphs.graphml`), DIMACS ``.gr`` or PACE (``p sp``/``p tw``), plain or compressed.

The cache folder is ``$FRONTIER_CACHE_DIR``, else ``$XDG_CACHE_HOME/frontier``, else
``~/.cache/frontier``. osmnx's HTTP cache goes in its ``osmnx`` subfolder.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import struct
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from pathlib import Path
from typing import BinaryIO, TypeVar

import numpy as np

from engine._errors import GraphFormatError, ParameterError
from engine._text import ascii_int
from engine.graphs import _validate, dimacs, graphml, osm, pbf
from engine.graphs.csr import CSRGraph, graph_arrays, graph_from_arrays

T = TypeVar("T")

#: Bumped whenever the cached CSR layout or its conversion changes.
CACHE_VERSION = 4  # 2: one set of OSM road rules for XML and PBF, walking and cycling speeds;
# 3: OSM roads timed before they are merged (decision 0100); 4: a node given twice at two
# places refused, ways cut at missing nodes noted (issue 70)
DEFAULT_NETWORK = "all"
DEFAULT_WEIGHT = "length"
_FIRST_TAG = re.compile(rb"<([A-Za-z][\w:.-]*)")


#: The process's file-creation mask, read once at import (reading it means setting it).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Write the file at ``path`` whole or not at all.

    ``write(f)`` fills a temporary file in the same folder, which then replaces ``path`` in
    one rename: a crash or a kill mid-write leaves the previous file as it was (and at most
    a ``.NAME.*.tmp`` file beside it). Every file Frontier writes goes through here.
    """

    def fill(tmp: Path) -> None:
        with tmp.open("wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())

    return write_atomic_path(path, fill)


def write_atomic_path(path: str | os.PathLike, fill: Callable[[Path], None]) -> Path:
    """`write_atomic` for writers that need a file name (ffmpeg): ``fill(tmp)`` writes the
    temporary file ``tmp``, which then replaces ``path``."""
    path = Path(path)
    mode = path.stat().st_mode & 0o777 if path.is_file() else 0o666 & ~_UMASK
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, f"cannot write there ({exc.strerror})", str(path)) from None
    os.close(fd)
    tmp = Path(name)
    try:
        fill(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | os.PathLike, value) -> Path:
    """Write ``value`` as indented JSON to ``path`` through `write_atomic`."""
    text = json.dumps(value, indent=2) + "\n"
    return write_atomic(path, lambda f: f.write(text.encode()))


#: A temporary file of `write_atomic` older than this was left by a killed process.
STALE_TEMPORARY_S = 3600


def prune_temporary(folder: Path, *, now: float | None = None) -> int:
    """Remove the temporary files of `write_atomic` (``.NAME.*.tmp``) in ``folder`` that are
    older than `STALE_TEMPORARY_S`; return how many."""
    import time

    now = time.time() if now is None else now
    gone = 0
    for tmp in Path(folder).glob(".*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_TEMPORARY_S:
                tmp.unlink()
                gone += 1
        except OSError:
            continue
    return gone


def cache_dir() -> Path:
    """The folder of cached graphs (created on demand)."""
    if env := os.environ.get("FRONTIER_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "frontier"


#: The cache folder's graphs and contraction cores are kept within this many MiB
#: (``$FRONTIER_CACHE_MB``): PACE NE's graph and core take about 150.
DEFAULT_CACHE_MB = 4096


def cache_limit() -> int:
    """The bytes the cache folder's files may take (`DEFAULT_CACHE_MB`, or
    ``$FRONTIER_CACHE_MB``)."""
    text = os.environ.get("FRONTIER_CACHE_MB", "").strip()
    if not text:
        return DEFAULT_CACHE_MB * 2**20
    mb = ascii_int(text)
    if mb is None or mb < 1:
        msg = f"FRONTIER_CACHE_MB must be a whole number of MiB ≥ 1, got {text!r}"
        raise ParameterError(msg)
    return mb * 2**20


#: The names of the cache folder's files: graphs (``KIND-KEY.npz``) and contraction cores
#: (``core-CODE-KEY.npz``). `prune_cache` removes no other file, whatever folder
#: ``$FRONTIER_CACHE_DIR`` names.
CACHE_FILE = re.compile(r"[a-z]+(?:-[0-9a-f]{12})?-[0-9a-f]{24}\.npz")


def prune_cache(folder: Path, *, keep: Path, limit: int) -> None:
    """Remove the least recently used cache files (`CACHE_FILE`) of ``folder``, never
    ``keep``, until they take at most ``limit`` bytes. `through_cache`
    marks a file used when it reads it; uploads and downloads live in subfolders, and other
    files are neither counted nor touched."""
    files = []
    for path in folder.glob("*.npz"):
        if not CACHE_FILE.fullmatch(path.name):
            continue
        with contextlib.suppress(OSError):  # another process may remove it meanwhile
            stat = path.stat()
            files.append((stat.st_mtime_ns, stat.st_size, path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= limit:
            break
        if path == keep:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
        total -= size


def sniff(path: Path) -> str | None:
    """The format of a graph file by its content: ``pbf`` (an ``OSMHeader`` blob first),
    ``xml`` (an ``<osm>`` root, plain or compressed), ``graphml``, ``dimacs`` (a
    ``p sp``/``p tw`` line), or None."""
    if dimacs.compression(path) is None:
        with path.open("rb") as f:
            head = f.read(1 << 16)
        length = int.from_bytes(head[:4], "big") if len(head) > 4 else 0
        if b"OSMHeader" in head[:32] or (head[:2] == b"\0\0" and 0 < length <= pbf.MAX_HEADER):
            return "pbf"  # a blob header's length first, 64 KiB at most: no text file's start
    head = dimacs.read_bytes(path, head=1 << 16)
    first = _FIRST_TAG.search(head[:4096])
    if first is not None and first.group(1) in (b"osm", b"graphml"):
        return {b"osm": "xml", b"graphml": "graphml"}[first.group(1)]
    if dimacs.looks_like_dimacs(head):
        return "dimacs"
    return None


def _cache_key(kind: str, ident: str, options: dict, path: Path | None) -> str:
    payload = {"v": CACHE_VERSION, "kind": kind, "id": ident, "options": options}
    if path is not None:
        stat = path.stat()
        payload |= {"size": stat.st_size, "mtime": stat.st_mtime_ns}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]


def load_graph(
    spec: str | os.PathLike,
    *,
    network: str = DEFAULT_NETWORK,
    weight: str = DEFAULT_WEIGHT,
    weights: str | None = None,
    cache: bool = True,
    max_nodes: int | None = None,
    max_bytes: int | None = None,
    coordinates: str | os.PathLike | None = "auto",
    progress: Callable[[str], None] | None = None,
) -> CSRGraph:
    """Load a road graph as an integer-weight `CSRGraph`.

    Parameters
    ----------
    spec : str or path
        ``"helsinki"``, ``"place:NAME"``, ``"city:NODES"`` or a file path (see the module
        docstring).
    network : str
        OSM network type: ``drive``, ``walk``, ``bike`` or ``all`` (Helsinki, PBF, places).
    weight : str
        OSM weight: ``length`` (centimetres) or ``travel_time`` (milliseconds); for GraphML
        also the name of any other weight on its edges (whole numbers, kept as they are).
    weights : str, optional
        DIMACS/PACE only: ``"unit"`` or ``"random:SEED"`` instead of the file's weights.
    cache : bool
        Use the disk cache (a second load of the same spec and options is near-instant).
    max_nodes : int, optional
        Refuse larger graphs; DIMACS/PACE files are refused from their declared size, before
        anything is allocated.
    max_bytes : int, optional
        Refuse text files (DIMACS/PACE, GraphML, OSM XML) whose text is larger once
        decompressed; by default, what the memory free here can read
        (`engine.graphs._validate.text_bound`), at most 4 GiB.
    coordinates : str or path, optional
        DIMACS/PACE only: the ``.co`` file of node coordinates; ``"auto"`` (default) reads
        the one beside the graph under the same stem when there is one, None none.
    progress : callable, optional
        Called with a few words as each stage begins (reading, parsing, building the CSR,
        the cache); an exception it raises stops the load and nothing is cached.

    Files are read by their content, whatever their name (`sniff`).

    Raises
    ------
    GraphNotFoundError, GraphFormatError, GraphTooLargeError, OfflineError, ParameterError
    """
    osm.check_network(network)
    _check_weight_name(weight)
    dimacs.parse_weights(weights)
    progress = progress or _quiet
    if not isinstance(spec, str | os.PathLike):
        msg = f"graph must be a file path, 'helsinki', 'place:NAME' or 'city:NODES', got {spec!r}"
        raise ParameterError(msg)
    if coordinates is not None and not isinstance(coordinates, str | os.PathLike):
        msg = f"coordinates must be a file path, 'auto' or None, got {coordinates!r}"
        raise ParameterError(msg)
    text = os.fspath(spec)
    named = coordinates not in ("auto", None)
    stray = "a coordinate file goes with a DIMACS/PACE graph; OSM graphs carry their own"
    if named and (text.strip().lower() == "helsinki" or text.startswith("place:")):
        raise ParameterError(stray)
    if text.strip().lower() == "helsinki":
        osm.check_weight(weight)
        graph = osm.load_helsinki(network, weight)
        if max_nodes is not None:
            _validate.graph_size(graph.n_nodes, graph.n_arcs, graph.name, max_nodes=max_nodes)
        return graph
    if text.startswith("city:"):
        if named:
            raise ParameterError(stray)
        return _city(text, cache, max_nodes, progress)
    if text.startswith("place:"):
        place = text[len("place:") :].strip()
        if not place:
            msg = "empty place name; write it like place:Berlin, Germany"
            raise ParameterError(msg)
        osm.check_weight(weight)
        reader = functools.partial(osm.networkx_from_place, place, network, cache_dir())
        label = f"place:{place} ({network})"
        net = {"network": network}
        arcs = functools.partial(_networkx_arcs, reader, network)
        return _cached_osm(
            "place", place, None, label, net, arcs, weight, cache, max_nodes, progress
        )
    hint = "give a file path, 'helsinki', 'place:NAME' or 'city:NODES'"
    path = _validate.readable_file(Path(text).expanduser(), "graph file", hint)
    kind = sniff(path)
    if named and kind != "dimacs":
        raise ParameterError(stray)
    if kind in ("graphml", "xml"):  # DIMACS files are bounded by their kind, as they are read
        _validate.text_fits(path, kind, max_bytes)
    ident = str(path.resolve())
    net = {"network": network}
    if kind == "graphml":  # any tool's; osmnx's chose its network when it was made
        label = path.name if weight in osm.WEIGHTS else f"{path.name} (weight: {weight})"

        def build() -> CSRGraph:
            progress("reading the GraphML")
            return graphml.read_graphml(path, weight, label)

        options = {"weight": weight}
        return _cached("graphml", ident, options, path, cache, build, max_nodes, progress)
    osm.check_weight(weight)
    if kind in ("pbf", "xml"):  # one reader: osmnx's rules whatever the format
        arcs = functools.partial(osm.arcs_from_osm, path, network, fmt=kind)
        label = f"{path.name} ({network})"
        return _cached_osm(kind, ident, path, label, net, arcs, weight, cache, max_nodes, progress)
    if kind == "dimacs":
        where = dimacs.coordinates_beside(path) if coordinates == "auto" else coordinates
        options = {"weights": weights, "coordinates": None}
        if where is not None:
            where = dimacs.coordinate_file(where)
            stat = where.stat()  # a changed .co file is read again
            options["coordinates"] = [str(where.resolve()), stat.st_size, stat.st_mtime_ns]
        return _cached(
            "dimacs",
            ident,
            options,
            path,
            cache,
            lambda: dimacs.read_dimacs(
                path,
                weights=weights,
                max_nodes=max_nodes,
                max_bytes=max_bytes,
                coordinates=where,
                progress=progress,
            ),
            max_nodes,
            progress,
        )
    msg = (
        f"{path.name}: not a graph file Frontier reads; give OSM PBF or XML (.osm, .osm.gz, "
        ".osm.bz2), GraphML, or a DIMACS/PACE file with a 'p sp'/'p tw' line"
    )
    raise GraphFormatError(msg)


def _check_weight_name(weight) -> None:
    """Refuse a weight that is no name: OSM sources take `osm.WEIGHTS`, GraphML any name of
    its edges' values."""
    if not isinstance(weight, str) or not 0 < len(weight) <= 100 or not weight.isprintable():
        msg = (
            f"weight must be {' or '.join(osm.WEIGHTS)} (or, for GraphML, the name of its "
            f"edges' weight), got {str(weight)[:40]!r}"
        )
        raise ParameterError(msg)


def _quiet(_stage: str) -> None:
    """The progress callback of a load nobody watches."""


def _networkx_arcs(reader, network: str | None, *, progress) -> dict:
    """The arcs of the osmnx graph ``reader()`` gives."""
    progress("reading the OSM data")
    return osm.arcs_from_networkx(reader(), network)


def _cached_osm(
    kind, ident, path, label, options, arcs, weight, use_cache, max_nodes, progress
) -> CSRGraph:
    """`_cached` for OSM sources: ``arcs(progress=...)`` gives the road graph's arrays,
    built with ``weight``."""

    def build() -> CSRGraph:
        made = arcs(progress=progress)
        progress("building the CSR")
        return osm.graph_from_arcs(made, weight, label)

    options = options | {"weight": weight}
    return _cached(kind, ident, options, path, use_cache, build, max_nodes, progress)


def _city(spec: str, use_cache: bool, max_nodes: int | None, progress) -> CSRGraph:
    """The synthetic city ``city:N[:SEED]`` names, refused by its size before it is laid
    out, kept in the cache folder by its size, seed and the code that lays it out."""
    from engine.graphs import synthetic  # it writes its files through this module

    parts = spec[len("city:") :].split(":")
    n, seed = ascii_int(parts[0]), ascii_int(parts[1]) if len(parts) == 2 else 0
    if len(parts) > 2 or n is None or seed is None or n < 4:
        msg = f"{spec!r} is not a city; write city:NODES or city:NODES:SEED, as city:1000000"
        raise ParameterError(msg)
    rows, cols = synthetic.grid_of(n)
    nodes = rows * cols
    _validate.graph_size(nodes, 4 * nodes, spec, max_nodes=max_nodes)  # 4 arcs a node at most

    def build() -> CSRGraph:
        progress("laying out the synthetic city")
        return synthetic.city(n, seed=seed)

    code = hashlib.sha256(Path(synthetic.__file__).read_bytes()).hexdigest()
    options = {"seed": seed, "code": code}
    return _cached("city", str(n), options, None, use_cache, build, max_nodes, progress)


def _cached(kind, ident, options, path, use_cache, build, max_nodes, progress) -> CSRGraph:
    graph = _cached_graph(kind, ident, options, path, use_cache, build, progress)
    if max_nodes is not None:  # sources that declare no size up front are checked here
        _validate.graph_size(graph.n_nodes, graph.n_arcs, graph.name, max_nodes=max_nodes)
    return graph


def _cached_graph(kind, ident, options, path, use_cache, build, progress) -> CSRGraph:
    if not use_cache:
        return build()
    name = f"{kind}-{_cache_key(kind, ident, options, path)}.npz"
    return through_cache(
        name,
        build,
        load=functools.partial(_load_keyed, name),
        save=functools.partial(_save_keyed, name),
        progress=progress,
    )


def _save_keyed(name: str, graph: CSRGraph, f) -> None:
    """`save_npz` with the cache file's own name inside it (`_load_keyed`)."""
    np.savez(f, cache_key=np.array(name), **graph_arrays(graph))


def _load_keyed(name: str, path: Path) -> CSRGraph:
    """The graph of the cache file ``path``, refused (`DAMAGED`) unless it holds the name
    ``name``: a file copied over another, or of a layout before the names, is made again."""
    z = read_npz(path)
    if str(z["cache_key"]) != name:
        msg = f"{path.name} holds another graph's file"
        raise ValueError(msg)
    return graph_from_arrays(z)


def read_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file ``path``, as `np.load` gives them, read faster.

    A member `np.savez` stored (not compressed) is read straight into its array and its
    CRC checked, the members on threads (the reads and CRCs let go of the GIL): a 16M-node
    city's contraction, about 1 GB, took `np.load` over a second, mostly copies and CRCs one
    after another (decision 0111). A file with a compressed member is read by `np.load`.
    Raises what `DAMAGED` names where the file is short, damaged or holds objects.
    """
    with zipfile.ZipFile(path) as z:
        members = z.infolist()
    if any(m.compress_type != zipfile.ZIP_STORED for m in members):
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    with open(path, "rb") as f, ThreadPoolExecutor(min(8, len(members) or 1)) as pool:
        return dict(pool.map(functools.partial(_npz_member, f.fileno()), members))


def _npz_member(fd: int, member: zipfile.ZipInfo) -> tuple[str, np.ndarray]:
    """One stored member of an ``.npz`` file (`read_npz`): its name and its array."""
    local = os.pread(fd, 30, member.header_offset)  # the local header: its name, its extra
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        msg = f"{member.filename}: not a zip member"
        raise zipfile.BadZipFile(msg)
    start = member.header_offset + 30 + sum(struct.unpack("<HH", local[26:30]))
    head = os.pread(fd, min(member.file_size, 1 << 17), start)
    stream = BytesIO(head)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    if dtype.hasobject:
        msg = f"{member.filename} holds objects"
        raise ValueError(msg)
    skip = stream.tell()
    data = np.empty(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, dtype=np.uint8)
    if skip + data.size != member.file_size:
        msg = f"{member.filename}: its size does not fit its header"
        raise ValueError(msg)
    done = 0
    while done < data.size:
        got = os.preadv(fd, [memoryview(data)[done:]], start + skip + done)
        if got == 0:
            raise EOFError(member.filename)
        done += got
    if zlib.crc32(data, zlib.crc32(head[:skip])) != member.CRC:
        msg = f"{member.filename}: bad CRC"
        raise zipfile.BadZipFile(msg)
    array = data.view(dtype).reshape(shape, order="F" if fortran else "C")
    return member.filename.removesuffix(".npy"), array


#: What reading a damaged ``.npz`` file raises (a zip member's CRC, a short file, bad arrays).
DAMAGED = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)


def through_cache(
    name: str,
    build: Callable[[], T],
    *,
    load: Callable[[Path], T],
    save: Callable[[T, BinaryIO], None],
    progress: Callable[[str], None] = _quiet,
    behind: bool = False,
) -> T:
    """``build()``'s value, kept in the file ``name`` of the `cache_dir`.

    The file is read with ``load(path)`` when it is there, and marked used; one that
    ``load`` cannot read (damaged: see `DAMAGED`) is removed and made again. A value built is
    written with ``save(value, f)`` through `write_atomic`, and the folder's least recently
    used files are then removed beyond `cache_limit` bytes (`prune_cache`); a cache folder
    that cannot be written only costs speed. ``behind``: the value is returned at once and
    written on a thread of its own, which the process waits for before it ends
    (`cache_written` waits for it sooner); ``save`` must then only read the value.
    """
    folder = cache_dir()
    target = folder / name
    limit = cache_limit()  # a bad $FRONTIER_CACHE_MB is refused before any work
    if target.is_file():
        progress("reading the cache")
        try:
            value = load(target)
        except DAMAGED:
            with contextlib.suppress(OSError):
                target.unlink()
        else:
            with contextlib.suppress(OSError):
                os.utime(target)  # used now: pruned last
            return value
    value = build()

    def keep() -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            prune_temporary(folder)  # left by a write killed mid-way
            write_atomic(target, lambda f: save(value, f))
            prune_cache(folder, keep=target, limit=limit)
        except OSError:
            pass

    if behind:

        def quietly() -> None:  # on its thread, a file not written only costs the next process
            with contextlib.suppress(Exception):
                keep()

        writer = threading.Thread(target=quietly, name=f"frontier cache {name}")
        writer.start()  # not a daemon: the interpreter waits for it at exit
        _writers.append(writer)
    else:
        progress("writing the cache")
        keep()
    return value


#: The cache files being written behind (`through_cache`).
_writers: list[threading.Thread] = []


def cache_written() -> None:
    """Wait until every cache file `through_cache` writes behind is written."""
    while _writers:
        _writers.pop().join()
