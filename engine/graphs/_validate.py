"""Checks of the files and sizes of graphs, before anything is read or allocated, each failing
with a one-line message saying what to do. Imports nothing of the engine but its errors and
`engine.graphs.csr`."""

from __future__ import annotations

import errno
import os
import stat
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


#: Peak bytes of memory a load takes per node and per arc (parsed table, sorting, CSR).
LOAD_BYTES_PER_NODE, LOAD_BYTES_PER_ARC = 48, 96


def available_memory() -> int:
    """Bytes of memory free for a new allocation here (``MemAvailable`` on Linux)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


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
