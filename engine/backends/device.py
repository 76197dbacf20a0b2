"""The only module that imports CuPy, lazily.

Everything else asks this module whether a GPU is usable, for CuPy itself and for
compiled kernels, so that the engine imports and runs where CuPy is absent.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from types import ModuleType

import numpy as np

from engine._errors import BackendUnavailableError

KERNEL_DIR = Path(__file__).parent / "kernels"


@functools.cache
def _cupy_or_reason() -> tuple[ModuleType | None, str]:
    if os.environ.get("FRONTIER_DISABLE_GPU"):
        return None, "the GPU is disabled by FRONTIER_DISABLE_GPU"
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        return None, f"CuPy is not installed ({type(exc).__name__})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CUDA reports no GPU"
    except Exception as exc:
        return None, f"CUDA is not usable ({type(exc).__name__}: {exc})"
    return cupy, ""


def gpu_available() -> bool:
    """Return whether CuPy is installed and a CUDA device can be used."""
    return _cupy_or_reason()[0] is not None


def gpu_count() -> int:
    """How many CUDA GPUs this process sees (0 without CUDA or CuPy)."""
    cp = _cupy_or_reason()[0]
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def cupy() -> ModuleType:
    """Return the CuPy module, or raise `BackendUnavailableError` saying why not."""
    cp, reason = _cupy_or_reason()
    if cp is None:
        msg = f"backend 'gpu' is not available: {reason}; use --backend cpu (or auto)"
        raise BackendUnavailableError(msg)
    return cp


def device_name(backend: str) -> str:
    """Return a human-readable name of the device running ``backend``."""
    if backend != "gpu":
        import platform

        return f"CPU ({platform.processor() or platform.machine()}, NumPy {np.__version__})"
    return _gpu_name(cupy().cuda.Device().id)


@functools.cache
def _gpu_name(device_id: int) -> str:
    # Asked once per device: each query costs ≈ 0.7 ms, 7 % of a Near-Far search on PACE NE.
    name = cupy().cuda.runtime.getDeviceProperties(device_id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def array_module(array) -> ModuleType:
    """NumPy for a NumPy array, CuPy for a CuPy one."""
    return np if isinstance(array, np.ndarray) else cupy()


def pinned_empty(shape: int | tuple[int, ...], dtype) -> np.ndarray:
    """Return an uninitialised NumPy array in page-locked host memory (CuPy's pinned pool):
    copies from the GPU into it run ≈ 3× faster than into ordinary memory, and may run behind
    other work on the GPU (``get(out=..., blocking=False)``)."""
    import cupyx

    return cupyx.empty_pinned(shape, dtype=dtype)


def host_pointer(array: np.ndarray) -> np.uint64:
    """A kernel argument for ``array``'s page-locked host memory, which a kernel reads and
    writes through the host's own pointer (unified addressing). Raise `ValueError` when the
    memory is not page-locked: a kernel's access there would fault."""
    ptr = array.ctypes.data
    if cupy().cuda.runtime.pointerGetAttributes(ptr).type != _HOST_MEMORY:
        msg = "a kernel can only write page-locked host memory; make it with pinned_empty"
        raise ValueError(msg)
    return np.uint64(ptr)


#: ``cudaMemoryTypeHost``: page-locked host memory, as CUDA's pointer attributes say.
_HOST_MEMORY = 1


def module_for(nbytes: int) -> ModuleType:
    """CuPy when a GPU is usable and has ``nbytes`` free, else NumPy: for array work whose
    result is the same on both (`engine.contraction.contract`)."""
    if gpu_available() and nbytes < 0.9 * free_gpu_memory():
        return cupy()
    return np


def free_gpu_memory() -> int:
    """Return the free memory of the current GPU in bytes, counting CuPy's pooled blocks."""
    cp = cupy()
    free, _total = cp.cuda.runtime.memGetInfo()
    return int(free) + int(cp.get_default_memory_pool().free_bytes())


def multiprocessor_count() -> int:
    """Return the number of streaming multiprocessors of the current GPU."""
    return _multiprocessors(cupy().cuda.Device().id)


@functools.cache
def _multiprocessors(device: int) -> int:
    # Reading the whole attribute table took 1.2 ms on an H200: once per device.
    return int(cupy().cuda.Device(device).attributes["MultiProcessorCount"])


def resident_blocks(kernel, threads: int) -> int:
    """Blocks of ``threads`` threads of ``kernel`` (a CuPy function) that one multiprocessor
    holds at once by its registers (65,536 a multiprocessor, allocated per warp in units of
    256) and its 2,048 threads; at least 1."""
    per_warp = -(-max(int(kernel.num_regs), 1) * 32 // 256) * 256
    warps = -(-threads // 32)
    return max(1, min(65536 // (per_warp * warps), 2048 // threads))


@functools.cache
def copy_bandwidth(nbytes: int = 2**30, repeats: int = 7) -> float:
    """This GPU's device-to-device copy speed in bytes a second, counting the bytes read and
    those written (the ceiling a memory-bound kernel is measured against, as the device's
    notes ask): the median of ``repeats`` copies of ``nbytes``, timed by events."""
    cp = cupy()
    src = cp.ones(nbytes // 4, dtype=np.uint32)
    dst = cp.empty_like(src)
    dst[...] = src  # warm
    seconds = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        dst[...] = src
        stop.record()
        stop.synchronize()
        seconds.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    del src, dst
    return 2 * nbytes / float(np.median(seconds))


def compute_capability() -> int:
    """Return the current GPU's compute capability as an integer (90 for 9.0)."""
    return int(cupy().cuda.Device().compute_capability)


#: ``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`` in CUDA's driver API.
_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14


def allow_large_clusters(kernel) -> None:
    """Let ``kernel`` (a CuPy ``RawKernel``) run clusters of more than 8 blocks."""
    from cupy_backends.cuda.api import driver

    driver.funcSetAttribute(kernel.kernel.ptr, _NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)


def kernel_source(filename: str) -> str:
    """The text of ``kernels/filename`` with its ``#include "NAME.cuh"`` lines replaced by the
    headers' text (each once; ``#pragma once`` dropped), as the compiler would read it: so
    CuPy's cache of compiled kernels, keyed by the source, follows every header."""
    seen: set[str] = set()

    def expand(name: str) -> str:
        out = []
        for line in (KERNEL_DIR / name).read_text().splitlines(keepends=True):
            match = _INCLUDE.match(line)
            if match is None:
                out.append("" if line.strip() == "#pragma once" else line)
            elif match[1] not in seen:
                seen.add(match[1])
                out.append(expand(match[1]))
        return "".join(out)

    return expand(filename)


_INCLUDE = re.compile(r'^\s*#include "([\w.]+\.cuh)"\s*$')


@functools.cache
def kernel_module(filename: str, name_expressions: tuple[str, ...], *, cooperative: bool = True):
    """Compile ``kernels/filename`` once per process and return the CuPy ``RawModule``.

    A ``cooperative`` module's kernels are launched cooperatively: CuPy then cuts a grid
    larger than the GPU holds at once down to that size (with a warning), so a kernel of
    one thread per item must not be compiled so.
    """
    cp = cupy()
    source = kernel_source(filename)
    module = cp.RawModule(
        code=source,
        options=("-std=c++17",),
        name_expressions=name_expressions,
        enable_cooperative_groups=cooperative,
    )
    module.compile()
    return module
