"""Checks of user input, each failing with a one-line message saying what to do."""

from __future__ import annotations

import errno
import numbers
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from . import adaptive as _adaptive
from ._errors import GraphNotFoundError, GraphTooLargeError, NodeNotFoundError, ParameterError
from .graph import MAX_NODES, CSRGraph
from .methods import BACKENDS, METHODS, Method


def method(name: str) -> Method:
    """Return the registered method called ``name``."""
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        known = ", ".join(METHODS)
        msg = f"unknown method {name!r}; known methods: {known}"
        raise ParameterError(msg) from None


def recordable(m: Method) -> None:
    """Refuse to record a method that has no iterations."""
    if m.asynchronous:  # SciPy's Dijkstra takes record=True and records nothing
        msg = f"{m.name} has no iterations to record; record near_far instead"
        raise ParameterError(msg)


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


def backend(name: str) -> str:
    """Return ``name`` if it is a known backend."""
    if name not in BACKENDS:
        msg = f"unknown backend {name!r}; known backends: {', '.join(BACKENDS)}"
        raise ParameterError(msg)
    return name


def _integer(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = f"{what} must be an integer, got {value!r}"
        raise ParameterError(msg)
    return int(value)


def delta(value, graph: CSRGraph) -> int:
    """Return Δ: ``"auto"`` gives the graph's heuristic value; an integer must be ≥ 1 and is
    clamped to `CSRGraph.max_delta` (a wider band than every distance is one phase)."""
    if isinstance(value, str) and value == "auto":
        return graph.auto_delta()
    if _adaptive.is_adaptive(value):
        msg = (
            "an adaptive Δ is for one search at a time; searches run together share one "
            "fixed Δ: give an integer or 'auto'"
        )
        raise ParameterError(msg)
    value = _integer(value, "delta")
    if value < 1:
        msg = f"delta must be ≥ 1, 'auto' or 'adaptive', got {value}"
        raise ParameterError(msg)
    return min(value, graph.max_delta())


def adaptive(value, graph: CSRGraph, method: Method) -> _adaptive.AdaptiveDelta | None:
    """The adaptive Δ rule that ``value`` names, checked and with the method's phase cost
    where it names none, or None for any other Δ."""
    if not _adaptive.is_adaptive(value):
        return None
    if not method.uses_delta:
        takes = ", ".join(m.name for m in METHODS.values() if m.uses_delta)
        msg = f"{method.name} has no buckets to adapt; an adaptive Δ is for {takes}"
        raise ParameterError(msg)
    rule = _adaptive.parse(value, graph.auto_delta(), graph.max_delta())
    return rule.for_method(method.asynchronous)


def count(value, what: str) -> int:
    """Return ``value`` if it is an integer ≥ 1 (a NumPy integer too)."""
    value = _integer(value, what)
    if value < 1:
        msg = f"{what} must be ≥ 1, got {value}"
        raise ParameterError(msg)
    return value


def batch_size(value) -> int:
    """Return the batch size if it is an integer ≥ 1."""
    return count(value, "batch size")


def graph(value) -> CSRGraph:
    """Return ``value`` if it is a `CSRGraph`."""
    if not isinstance(value, CSRGraph):
        msg = f"graph must be a CSRGraph (engine.load_graph makes one), got {type(value).__name__}"
        raise ParameterError(msg)
    return value


def node(value, graph: CSRGraph, what: str) -> int:
    """Return ``value`` if it is a CSR index of ``graph``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        msg = f"{what} must be a node index (int), got {value!r}; use graph.index_of(id)"
        raise NodeNotFoundError(msg)
    if not 0 <= value < graph.n_nodes:
        msg = f"{what} {value} is not a node index of a graph with {graph.n_nodes} nodes"
        raise NodeNotFoundError(msg)
    return int(value)


def nodes(values, graph: CSRGraph, what: str) -> np.ndarray:
    """Return ``values`` as an ``int64`` array of CSR indices of ``graph``, each checked (an
    empty list is refused; a generator is read once; a set, which has no order, is refused)."""
    if isinstance(values, set | frozenset | dict):
        msg = f"{what}: a {type(values).__name__} has no order; give a list or an array of nodes"
        raise ParameterError(msg)
    if isinstance(values, Iterator):
        values = list(values)
    array = np.asarray(values)
    if array.ndim == 0:
        msg = f"{what} must be a list or an array of node indices, got {values!r}; give [v] for one"
        raise ParameterError(msg)
    if array.ndim != 1:
        msg = f"{what} must be a flat list of node indices, got an array of shape {array.shape}"
        raise ParameterError(msg)
    if array.size == 0:
        msg = f"{what}: give at least one node"
        raise ParameterError(msg)
    if not np.issubdtype(array.dtype, np.integer):
        msg = f"{what} must be node indices (integers); use graph.index_of(id) for ids"
        raise NodeNotFoundError(msg)
    bad = (array < 0) | (array >= graph.n_nodes)
    if bad.any():
        value = int(array[bad][0])
        msg = f"{what}: {value} is not a node index of a graph with {graph.n_nodes:,} nodes"
        raise NodeNotFoundError(msg)
    return array.astype(np.int64)


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
#: graphs, a city and a synthetic city of a million nodes: bench/NOTES.md).
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
