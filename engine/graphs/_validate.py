"""Checks of the files and sizes of graphs, before anything is read or allocated, each failing
with a one-line message saying what to do. Imports nothing of the engine but its errors and
`engine.graphs.csr`."""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

from engine._errors import GraphNotFoundError, GraphTooLargeError
from engine.graphs.csr import MAX_NODES


def file_problem(path: str | os.PathLike) -> str | None:
    """What keeps ``path`` from being read as a file, in words ("does not exist", "is a
    folder, not a file", ...), or None when it is a regular file."""
    try:
        mode = Path(path).stat().st_mode
    except FileNotFoundError:
        return "does not exist"
    except ValueError:  # os.stat's "embedded null byte"
        return "holds a NUL character, which no file name can"
    except PermissionError:
        return "cannot be read (permission denied)"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link that leads back to itself"
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a pipe, a device or a socket)"
    return None


def readable_file(path: str | os.PathLike, what: str, hint: str) -> Path:
    """``path`` as a `Path` when it names a regular file; else `GraphNotFoundError`:
    "``what`` 'PATH' PROBLEM; ``hint``"."""
    problem = file_problem(path)
    if problem is not None:
        msg = f"{what} {os.fspath(path)!r} {problem}; {hint}"
        raise GraphNotFoundError(msg)
    return Path(path)


#: Peak bytes of memory reading an OSM file's nodes and ways takes per byte of its text
#: once decompressed (a PBF's blocks; dense nodes of one-byte deltas take 33), and building
#: the roads per way reference (240 measured, whatever the file: decision 0104).
READ_PEAK = {"pbf": 48, "xml": 6}
ROAD_BYTES_PER_REF = 256
#: The most a load may take per byte of text (a PBF's blocks) beyond `LOAD_FIXED`, by
#: loader: for OSM, reading and building the roads of a way reference in each byte of a
#: PBF (one in each 12 of XML, ``<nd ref="1"/>``); DIMACS ``.gr`` and ``.co``, PACE and
#: GraphML as measured, with room (``bench/loaders.py``, a 1M-node city: 7.3, 18.8 and 6.1
#: bytes a byte; PBF 13.6, OSM XML 3.8; decision 0105).
TEXT_PEAK = {
    "pbf": READ_PEAK["pbf"] + ROAD_BYTES_PER_REF, "xml": READ_PEAK["xml"] + 22,
    "dimacs": 10, "pace": 24, "graphml": 8,
}  # fmt: skip
LOAD_FIXED = 256 * 2**20
#: The most text a file may hold once decompressed, whatever the memory free.
MAX_TEXT_BYTES = 4 * 2**30


def text_bound(kind: str) -> int:
    """The most text a file of this loader (a key of `TEXT_PEAK`) may hold once
    decompressed here: what the memory free can read (`TEXT_PEAK`), at most
    `MAX_TEXT_BYTES`."""
    return min(MAX_TEXT_BYTES, available_memory() // TEXT_PEAK[kind])


def text_size(path: Path) -> int | None:
    """What ``path`` holds once decompressed, where that is known before it is read: a
    plain file's size, a gzip file's own record of it (modulo 4 GiB, so a floor); None for
    bzip2 and xz, which record none (their text is counted as it is read)."""
    with open(path, "rb") as f:
        head = f.read(6)
        if head.startswith(b"\x1f\x8b"):
            f.seek(-4, 2)
            return int.from_bytes(f.read(4), "little")
        if head.startswith((b"BZh", b"\xfd7zXZ")):
            return None
        return f.seek(0, 2)


def text_fits(path: Path, kind: str, max_bytes: int | None) -> int:
    """The bound on the text of the file ``path`` of this loader (``max_bytes``, or
    `text_bound`); refuse the file, before it is read, when it is known to hold more."""
    bound = text_bound(kind) if max_bytes is None else max_bytes
    size = text_size(path)
    if size is not None and size > bound:
        why = (
            "the most allowed here (--max-text-mb raises it)" if max_bytes is not None else
            f"what the {available_memory() / 2**30:,.1f} GiB free can read at about "
            f"{TEXT_PEAK[kind]} bytes a byte (--max-text-mb sets another bound)"
        )  # fmt: skip
        msg = (
            f"{path.name} holds {size / 2**20:,.0f} MiB of text once decompressed, more than "
            f"{bound / 2**20:,.0f} MiB, {why}"
        )
        raise GraphTooLargeError(msg)
    return bound


def text_budget(fmt: str, name: str) -> Callable[[int], None]:
    """A counter of the bytes of text (a PBF's blocks, decompressed) read so far, thread
    safe, that refuses the file once reading it would take more than the memory free when
    the count began (`READ_PEAK` a byte)."""
    lock, most = threading.Lock(), available_memory() // READ_PEAK[fmt]
    read = [0]

    def take(n: int) -> None:
        with lock:
            read[0] += n
            if read[0] > most:
                msg = (
                    f"{name} holds more than {most / 2**20:,.0f} MiB of data once decompressed; "
                    f"reading it takes about {READ_PEAK[fmt]} bytes a byte, more than the "
                    f"{most * READ_PEAK[fmt] / 2**30:,.1f} GiB free here"
                )
                raise GraphTooLargeError(msg)

    return take


def road_size(n_refs: int) -> None:
    """Refuse to build the roads of ``n_refs`` way references that would need more than
    the memory free here (`ROAD_BYTES_PER_REF` each)."""
    need, free = ROAD_BYTES_PER_REF * n_refs, available_memory()
    if need > free:
        msg = (
            f"its ways name {n_refs:,} nodes, about {need / 2**30:,.1f} GiB to build as roads, "
            f"but {free / 2**30:,.1f} GiB is free"
        )
        raise GraphTooLargeError(msg)


#: Peak bytes of memory a load takes per node and per arc (parsed table, sorting, CSR).
LOAD_BYTES_PER_NODE, LOAD_BYTES_PER_ARC = 48, 96


def available_memory() -> int:
    """Bytes of memory free for a new allocation here: the least of Linux's
    ``MemAvailable``, what the process's data limit (``RLIMIT_DATA``) leaves it, and what
    its cgroup's ``memory.max`` leaves (a container's limit)."""
    free = _meminfo("/proc/meminfo", "MemAvailable:")
    if free is None:
        free = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_DATA)[0]
        if limit != resource.RLIM_INFINITY:
            free = min(free, max(limit - (_meminfo("/proc/self/status", "VmData:") or 0), 0))
    except (ImportError, OSError, ValueError):
        pass
    try:
        top = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if top != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text())
            free = min(free, max(int(top) - used, 0))
    except (OSError, ValueError):
        pass
    return free


def _meminfo(path: str, key: str) -> int | None:
    """The bytes of a ``KEY: N kB`` line of a /proc file, or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


#: Peak bytes of memory contracting a graph takes per arc (160–240 measured on the PACE
#: graphs, a city and a synthetic city of a million nodes: decisions/0072).
CONTRACT_BYTES_PER_ARC = 256


def contraction_size(n_arcs: int, name: str) -> None:
    """Refuse to contract a graph of ``n_arcs`` arcs that would need more than the memory
    free here."""
    need = CONTRACT_BYTES_PER_ARC * n_arcs
    free = available_memory()
    if need > free:
        msg = (
            f"contracting {name} ({n_arcs:,} arcs) takes about {need / 2**30:,.1f} GiB, but "
            f"{free / 2**30:,.1f} GiB is free; search it with near_far_async instead"
        )
        raise GraphTooLargeError(msg)


def graph_size(n_nodes: int, n_arcs: int, name: str, *, max_nodes: int | None = None) -> None:
    """Refuse a graph, from the sizes it declares, before anything is allocated for it:
    over ``max_nodes``, over `MAX_NODES`, or more than the memory free here."""
    limit = MAX_NODES if max_nodes is None else min(max_nodes, MAX_NODES)
    if n_nodes > limit:
        if max_nodes is None:
            msg = f"{name} has {n_nodes:,} nodes; Frontier takes at most {limit:,}"
        else:
            msg = f"{name} has {n_nodes:,} nodes; at most {limit:,} are allowed here"
        raise GraphTooLargeError(msg)
    need = LOAD_BYTES_PER_NODE * n_nodes + LOAD_BYTES_PER_ARC * n_arcs
    free = available_memory()
    if need > free:
        msg = (
            f"{name} has {n_nodes:,} nodes and {n_arcs:,} arcs, about "
            f"{need / 2**30:,.1f} GiB to load, but {free / 2**30:,.1f} GiB is free"
        )
        raise GraphTooLargeError(msg)
