"""The contract between the CUDA launchers and the kernels, written once: the control block's
slots, the frame and tally columns, the capacities, the byte sizes of the structures the
host allocates for, and the search kernels' parameters.

The kernels include ``kernels/contract.cuh``, which `header` makes from this module
(``python -m engine.backends.contract`` writes it; tests/test_contract.py fails while the
file differs from what this module says, and when a kernel file defines one of its names
itself). The kernels' ``static_assert`` s compare their structures with the sizes here, so
a struct that grows stops the compilation instead of corrupting memory; the launchers build
a kernel's arguments by name from `SEARCH_PARAMS` (`kernel_args`), in the order the header
gives the kernel's signature.

May import: `engine.recording` and `engine.methods` (the frame columns, the bucket bins and
bucketing's segments, which the CPU twin shares).
"""

from __future__ import annotations

import enum
from pathlib import Path

import numpy as np

from engine.methods import SEGMENTS
from engine.recording import BUCKET_BINS, FRAME_FIELDS, PHASE_FIELDS

HEADER = Path(__file__).parent / "kernels" / "contract.cuh"

#: The control block (``u64`` slots): name and what the kernels keep there.
CONTROL = (
    ("CNT0", "C_CNT0 + k % 3: entries in global memory of the frontier made by iteration k"),
    ("CNT1", "(rotating, so that the slot being reset is one that no thread still reads);"),
    ("CNT2", "all of them at the end of a batch"),
    ("PILE0", "appends to far pile 0 (may exceed capacity: overflow)"),
    ("PILE1", "appends to far pile 1"),
    ("PPAR", "which pile buffer is current"),
    ("FPAR", "which frontier buffer is current"),
    ("BAND", "appends to the band list (nodes that have been near, in order)"),
    ("BSTART", "start of the current phase's band in the band list"),
    ("ITER", "iterations done"),
    ("PHASE", "phases begun"),
    ("LO", "settled below"),
    ("HI", "threshold"),
    ("DONE", "0 running, 1 finished, 2 target settled"),
    ("EDGES", "arcs relaxed"),
    ("IMPROVED", "improving relaxations"),
    ("COMPACT", "far-pile compactions"),
    ("DUPS", "duplicates dropped by compaction"),
    ("STALE", "settled (stale) entries dropped by compaction"),
    ("REBUILDS", "far piles rebuilt by a scan after an overflow"),
    ("PMIN", "smallest far distance (reduction)"),
    ("QUEUED", "near entries taken from the rings (asynchronous Near-Far)"),
    ("DELTA", "the current band's Delta (an adaptive Delta changes it at phase ends)"),
    ("ENTRIES", "near entries relaxed in the current phase, between batches (a frame row's "
                "last_entries; the asynchronous kernel, never recorded, counts none)"),
    ("AGAIN", "re-improvements: improving relaxations of a node already near"),
    ("AGAIN_MARK", "C_AGAIN at the last phase end (the last phase's waste is the difference)"),
    ("LENTRIES", "near entries relaxed in the last finished phase"),
    ("LWASTE", "re-improvements in the last finished phase (the Delta rule's input)"),
    ("SCURSOR", "bucketing: the store's first segment not taken yet"),
    ("SBASE", "bucketing: the bucket (distance / Delta) of the store's segment 0"),
    ("SORTS", "bucketing: sorts of the far nodes into the store"),
    ("LOGPOS", "recording: relax-log slots used (one per near entry relaxed; -1 where the "
               "entry had no arc, dropped when the log is read)"),
    ("REDGES", "recording: where the next batch's frame rows go on from (finish_batch): the "
               "running totals of T_EDGES,"),
    ("RIMPROVED", "T_IMPROVING and T_LOGGED after the last row finished, the far pile's size"),
    ("RLOGGED", "and the phase there (search_init sets C_RPHASE to 1)"),
    ("RPILE", ""),
    ("RPHASE", ""),
    ("RFROM", "recording: the iterations done when the last batch started"),
    ("HELD", "asynchronous Near-Far: near entries held back for a later sub-band"),
)  # fmt: skip
#: Slots of the control block (one spare beyond the last named).
CONTROL_SLOTS = 40
#: The control block's slots by name: ``ctl[Control.ITER]``.
Control = enum.IntEnum("Control", [(name, k) for k, (name, _) in enumerate(CONTROL)])

#: What an iteration adds to the counters, after its frame row's own numbers (``T_*``; the
#: host makes the running totals of `engine.recording.FRAME_FIELDS` from them).
TALLY_FIELDS = ("edges", "improving", "kept", "logged")
#: Columns of a frame row as the kernels write it: the frame's, then the tallies.
ROW_FIELDS = len(FRAME_FIELDS) + len(TALLY_FIELDS)

#: What a search kernel records (its template argument ``REC``): nothing; the node stamps,
#: frame rows and relax log; those and the sizes of the buckets ahead (Δ-stepping and
#: bucketing).
REC_NONE, REC_FRAMES, REC_BUCKETS = 0, 1, 2
#: Threads that sum one column of bucket rows (kernel ``finish_batch``).
SUM_RUNS = 32
#: Cluster scope: blocks, threads per block and shared-memory capacities per block (entries
#: of the frontier, far appends staged). 512 threads beat 1024 by 13 % on PACE NE: every
#: warp pays each iteration's bookkeeping and barriers, and 16 warps per SM are enough for
#: road frontiers.
CLUSTER, CLUSTER_BLOCK, QUEUE_CAPACITY, STAGE_CAPACITY = 16, 512, 6144, 8192
#: Asynchronous Near-Far: entries of each block's ring.
RING_CAPACITY = 8192
#: Threads of an asynchronous block: ASYNC_BLOCK, or ASYNC_WIDE_BLOCK (the most, the
#: kernel's launch bounds) for wide bands (`engine.backends.gpu`).
ASYNC_BLOCK, ASYNC_WIDE_BLOCK = 512, 1024
#: The most asynchronous blocks, one a multiprocessor.
ASYNC_MAX_BLOCKS = 1024
#: PHAST's many trees (kernels/phast.cu): trees of a group (a warp's lanes), threads of a
#: block, and the columns of a tile of its int64 matrix and threads of a block of kernel
#: ``phast_widen``.
PHAST_TREES, PHAST_BLOCK, PHAST_TILE, PHAST_WIDEN = 32, 512, 128, 256
#: PHAST's core by its table (kernel ``phast_core``): a block's tile of core nodes by trees,
#: the core nodes it reads through shared memory at a time, and its threads (4 × 4 sums a
#: thread: a tile of 64 takes 16 × 16).
CORE_TILE, CORE_STEP, CORE_THREADS = 64, 32, 256
#: Method phast's one tree (kernel ``phast_tree``): the most levels of a hierarchy whose
#: climb keeps their counts and starts in shared memory (a hierarchy of more takes the search).
CLIMB_LEVELS = 256

#: Bytes of an arc in the kernels' arc table (``Arc``: head, weight, head's arc range).
ARC_BYTES = 16
#: A frontier entry (``Entry``: a node and its arc range) and a ring's (``RingEntry``: an
#: entry and the node whose relaxation made it, in one 16-byte store).
ENTRY = np.dtype([("v", np.int32), ("start", np.int32), ("end", np.int32)], align=True)
RING_ENTRY_BYTES = 16


def _aligned(n: int, to: int) -> int:
    return -(-n // to) * to


#: Dynamic shared memory of a cluster block (``ClusterShared``: two mbarriers, the frontier
#: parts by parity, the far stage, the part sizes sent, two counts and one), padded as the
#: compiler pads it (to its ``u64``).
CLUSTER_SHARED_BYTES = _aligned(
    16 + 2 * QUEUE_CAPACITY * ENTRY.itemsize + 4 * STAGE_CAPACITY + 4 * 2 * CLUSTER + 12, 8
)
#: Dynamic shared memory of an asynchronous block (``AsyncShared``: the ring and its
#: sequence numbers, the far stage, four counts, two distances and two counts), padded to
#: its 16-byte entries.
ASYNC_SHARED_BYTES = _aligned(
    (RING_ENTRY_BYTES + 4) * RING_CAPACITY + 4 * STAGE_CAPACITY + 16 + 16 + 8, 16
)

#: The search kernels' parameters (``frontier_grid``, ``frontier_cluster``; the header's
#: ``KERNEL_PARAMS``), in order: C type and name; ``D`` is the distance type.
SEARCH_PARAMS = (
    ("const long long*", "indptr"), ("const long long*", "light_end"), ("const Arc*", "arcs"),
    ("D*", "dist"), ("Entry*", "front0"), ("Entry*", "front1"), ("int*", "pile0"),
    ("int*", "pile1"), ("long long", "pile_cap"), ("int*", "band"), ("int*", "mark"),
    ("int*", "store"), ("long long*", "seg"), ("int*", "reached_at"), ("int*", "near_at"),
    ("int*", "relax_log"), ("long long", "log_cap"), ("u64*", "ctl"), ("long long*", "frames"),
    ("long long*", "buckets"), ("int*", "ends"), ("long long", "n"), ("D", "delta_low"),
    ("D", "delta_high"), ("long long", "phase_cost"), ("long long", "target"),
    ("int", "light_heavy"), ("int", "lanes_log2"), ("int", "batch"),
    ("long long", "leave_below"), ("long long", "leave_above"), ("int", "qcap"),
    ("int", "fcap"),
)  # fmt: skip
#: The asynchronous kernel's (``frontier_async``; ``ASYNC_PARAMS``): the search's, then its
#: blocks' held lists, their capacity and the sub-band's width. Its ``qcap`` is the ring's
#: capacity.
ASYNC_PARAMS = (
    *SEARCH_PARAMS, ("RingEntry*", "held"), ("long long", "held_cap"), ("D", "sub_width"),
)  # fmt: skip

_SCALARS = {"long long": np.int64, "int": np.int32}


def kernel_args(params: tuple, values: dict, dtype: np.dtype) -> tuple:
    """The arguments of a kernel of ``params`` from ``values`` by name, each of its C type
    (``D``: ``dtype``; an absent array, None, is a null pointer)."""
    names = [name for _, name in params]
    if set(values) != set(names):
        missing, extra = set(names) - set(values), set(values) - set(names)
        msg = f"kernel arguments: missing {sorted(missing)}, unknown {sorted(extra)}"
        raise ValueError(msg)
    out = []
    for ctype, name in params:
        value = values[name]
        if ctype.endswith("*"):
            out.append(0 if value is None else value)
        elif ctype == "D":
            out.append(np.dtype(dtype).type(value))
        else:
            out.append(_SCALARS[ctype](value))
    return tuple(out)


def _macro(name: str, items: list[str]) -> str:
    lines, line = [], f"#define {name}"
    for k, item in enumerate(items):
        piece = f" {item}" + ("," if k < len(items) - 1 else "")
        if len(line) + len(piece) > 92:
            lines.append(line.ljust(95) + "\\")
            line = "   "
        line += piece
    return "\n".join([*lines, line])


def header() -> str:
    """The text of ``kernels/contract.cuh``."""
    out = [
        "// The contract between engine/backends/gpu.py and the kernels. Generated by",
        "// engine/backends/contract.py (python -m engine.backends.contract); do not edit.",
        "#pragma once",
        "",
        "// Control block slots (u64 each).",
        "enum {",
    ]
    for k, (name, what) in enumerate(CONTROL):
        out.append((f"    C_{name} = {k},".ljust(24) + (f"// {what}" if what else "")).rstrip())
    out += [f"    C_SLOTS = {CONTROL_SLOTS}", "};", ""]
    out.append("// Frame table columns (engine/recording.py FRAME_FIELDS).")
    fields = [f"F_{f.upper()} = {k}" for k, f in enumerate(FRAME_FIELDS)]
    out += ["enum {", *(f"    {f}," for f in fields), f"    F_FIELDS = {len(FRAME_FIELDS)}", "};"]
    out.append("// What an iteration adds to the counters, after its frame row's own numbers.")
    tallies = [f"T_{f.upper()} = {k}" for k, f in enumerate(TALLY_FIELDS)]
    out += ["enum {", *(f"    {t}," for t in tallies), f"    T_FIELDS = {len(TALLY_FIELDS)}", "};"]
    out += ["enum { ROW_FIELDS = F_FIELDS + T_FIELDS };"]
    out.append("// A recording by phase's row of each phase (engine/recording.py PHASE_FIELDS).")
    phases = [f"P_{f.upper()} = {k}" for k, f in enumerate(PHASE_FIELDS)]
    out += ["enum {", *(f"    {p}," for p in phases)]
    out += [f"    P_FIELDS = {len(PHASE_FIELDS)}", "};", ""]
    defines = {
        "BUCKET_BINS": BUCKET_BINS,
        "SEGMENTS": SEGMENTS,
        "REC_NONE": REC_NONE,
        "REC_FRAMES": REC_FRAMES,
        "REC_BUCKETS": REC_BUCKETS,
        "SUM_RUNS": SUM_RUNS,
        "CLUSTER": CLUSTER,
        "CLUSTER_THREADS": CLUSTER_BLOCK,
        "QCAP": QUEUE_CAPACITY,
        "FCAP": STAGE_CAPACITY,
        "RCAP": RING_CAPACITY,
        "ASYNC_THREADS": ASYNC_WIDE_BLOCK,
        "ASYNC_MAX_BLOCKS": ASYNC_MAX_BLOCKS,
        "PHAST_TREES": PHAST_TREES,
        "PHAST_THREADS": PHAST_BLOCK,
        "PHAST_TILE": PHAST_TILE,
        "PHAST_WIDEN": PHAST_WIDEN,
        "CORE_TILE": CORE_TILE,
        "CORE_STEP": CORE_STEP,
        "CORE_THREADS": CORE_THREADS,
        "CLIMB_LEVELS": CLIMB_LEVELS,
        "ARC_BYTES": ARC_BYTES,
        "ENTRY_BYTES": ENTRY.itemsize,
        "RING_ENTRY_BYTES": RING_ENTRY_BYTES,
        "CLUSTER_SHARED_BYTES": CLUSTER_SHARED_BYTES,
        "ASYNC_SHARED_BYTES": ASYNC_SHARED_BYTES,
    }
    out += [f"#define {name} {value}" for name, value in defines.items()]
    out += ["", "// The search kernels' parameters, in the order the launchers pass them."]
    out.append(_macro("KERNEL_PARAMS", [f"{t} {n}" for t, n in SEARCH_PARAMS]))
    out.append(_macro("KERNEL_ARGS", [n for _, n in SEARCH_PARAMS]))
    extra = ASYNC_PARAMS[len(SEARCH_PARAMS) :]
    out.append(_macro("ASYNC_PARAMS", ["KERNEL_PARAMS", *(f"{t} {n}" for t, n in extra)]))
    out.append(_macro("ASYNC_ARGS", ["KERNEL_ARGS", *(n for _, n in extra)]))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    HEADER.write_text(header())
    print(f"wrote {HEADER}")
