"""The contraction on the GPU: which array module makes a graph's contraction
(`contraction_module`), and the witness search of its rounds as a kernel
(kernels/witness.cu), which `engine.contraction` runs for CuPy's arrays in place of its
array passes (`engine.contraction.use_witness_kernel`): the same witnesses, without listing
every pair of a shortcut and an arc out of its tail (a thousand million on a 1M-node city's
hierarchy).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from engine import contraction
from engine.backends import device as _backend
from engine.graphs._validate import CONTRACT_BYTES_PER_ARC

KERNEL_FILE = "witness.cu"
#: Threads of a block of kernel ``witness_search``.
BLOCK = 256


def contraction_module(graph) -> ModuleType:
    """The array module that contracts ``graph`` (a `CSRGraph`): CuPy where a GPU has the
    memory (the same contraction, decisions/0083), its witness search by kernel, else
    NumPy."""
    return _backend.module_for(CONTRACT_BYTES_PER_ARC * graph.n_arcs)


def witnessed(s_tails, s_heads, s_weights, starts, heads, weights, fanout):
    """Which shortcuts (CuPy arrays) have a witness over the arcs the round keeps, by kernel
    ``witness_search`` (`engine.contraction.use_witness_kernel` says the arguments)."""
    found = _backend.cupy().zeros(s_tails.size, dtype=bool)
    n = int(s_tails.size)
    if n:
        kernel = _backend.kernel_module(KERNEL_FILE, (), cooperative=False)
        blocks = max(1, min(-(-n // BLOCK), 32 * _backend.multiprocessor_count()))
        kernel.get_function("witness_search")(
            (blocks,), (BLOCK,),
            (s_tails, s_heads, s_weights, np.int64(n), starts, heads, weights, np.int64(fanout),
             found),
        )  # fmt: skip
    return found


contraction.use_witness_kernel("cupy", witnessed)
