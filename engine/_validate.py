"""Checks of user input, each failing with a one-line message saying what to do."""

from __future__ import annotations

import numbers
from collections.abc import Iterator

import numpy as np

from engine import adaptive as _adaptive
from engine._errors import GraphTooLargeError, NodeNotFoundError, ParameterError
from engine.graphs.csr import CSRGraph
from engine.methods import BACKENDS, METHODS, Method


def method(name: str) -> Method:
    """Return the registered method called ``name``."""
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        known = ", ".join(METHODS)
        msg = f"unknown method {name!r}; known methods: {known}"
        raise ParameterError(msg) from None


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


def matrices_fit(rows: int, width: int, *, copies: int = 1, advice: str) -> None:
    """Refuse ``copies`` host matrices of ``rows`` × ``width`` ``int64`` values that need more
    memory than is free here, before any is allocated (a 1,000-source matrix of a 16M-node
    city is 128 GB: the process would be killed midway, its work lost); ``advice`` says
    what to do instead."""
    from engine.graphs._validate import available_memory

    need, free = 8 * rows * width * copies, available_memory()
    if need > free:
        held = "a matrix" if copies == 1 else f"{copies} matrices"
        msg = (
            f"{held} of {rows:,} × {width:,} distances would need {need / 2**30:,.1f} GiB, but "
            f"{free / 2**30:,.1f} GiB is free here; {advice}"
        )
        raise GraphTooLargeError(msg)
