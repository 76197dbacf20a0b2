"""engine.backends.contract: the launchers and the kernels share one definition of every slot,
column, capacity, structure size and kernel parameter (issue 53)."""

import re

import numpy as np
import pytest

from engine.backends import contract, device
from engine.backends.contract import HEADER, SEARCH_PARAMS, kernel_args

KERNELS = HEADER.parent


def _defined(text: str) -> set[str]:
    """Names a kernel text defines: macros and enum members."""
    names = set(re.findall(r"^\s*#define\s+(\w+)", text, re.MULTILINE))
    for body in re.findall(r"enum\s*\{(.*?)\}", text, re.DOTALL):
        body = re.sub(r"//[^\n]*", "", body)
        names |= {m.split("=")[0].strip() for m in body.split(",") if m.strip()}
    return names


def test_the_header_is_what_the_contract_says():
    """Fails when the Python side changed and the header was not made again (or the header
    was edited by hand): ``python -m engine.backends.contract`` writes it."""
    assert HEADER.read_text() == contract.header()


def test_a_changed_slot_is_caught(monkeypatch):
    """The check above, tried: move one slot and the header on disk no longer agrees."""
    slots = list(contract.CONTROL)
    slots[9], slots[10] = slots[10], slots[9]  # ITER and PHASE
    monkeypatch.setattr(contract, "CONTROL", tuple(slots))
    assert HEADER.read_text() != contract.header()
    assert "C_PHASE = 9," in contract.header()


def test_no_kernel_file_defines_a_name_of_the_contract():
    """Every kernel file takes the contract's names from contract.cuh, none of its own."""
    shared = _defined(HEADER.read_text())
    assert {"C_ITER", "F_FAR_PILE", "T_KEPT", "QCAP", "RCAP", "KERNEL_PARAMS"} <= shared
    for path in sorted(KERNELS.glob("*.cu*")):
        if path != HEADER:
            assert not (_defined(path.read_text()) & shared), path.name


def test_a_planted_definition_is_found():
    assert _defined("#define QCAP 1\nenum { C_ITER = 9, C_X };") == {"QCAP", "C_ITER", "C_X"}


def test_the_structures_are_checked_against_the_sizes_the_host_allocates():
    """The kernels compare each structure the host allocates for with its size here (the
    compiler then refuses a struct that grew: `gpu` tests compile them on the device)."""
    types = (KERNELS / "types.cuh").read_text()
    for struct, size in [("Arc", "ARC_BYTES"), ("Entry", "ENTRY_BYTES"),
                         ("RingEntry", "RING_ENTRY_BYTES"),
                         ("ClusterShared", "CLUSTER_SHARED_BYTES"),
                         ("AsyncShared", "ASYNC_SHARED_BYTES")]:  # fmt: skip
        assert re.search(rf"static_assert\(sizeof\({struct}\) == {size}", types), struct
    assert contract.ENTRY.itemsize == 12 and contract.CLUSTER_SHARED_BYTES % 8 == 0


def test_the_search_kernels_take_the_generated_parameters():
    source = device.kernel_source("frontier.cu")
    signatures = dict(
        re.findall(r"\b(frontier_\w+|search_\w+)\((KERNEL_PARAMS|ASYNC_PARAMS)\)", source)
    )
    assert signatures == {
        "frontier_grid": "KERNEL_PARAMS",
        "frontier_cluster": "KERNEL_PARAMS",
        "frontier_async": "ASYNC_PARAMS",
        "search_batch": "KERNEL_PARAMS",
        "search_async": "ASYNC_PARAMS",
    }
    assert "search_batch<D, false, REC, BK>(KERNEL_ARGS)" in source
    assert "search_async<D>(ASYNC_ARGS)" in source


def test_the_kernel_source_is_one_text_with_every_header_once():
    """CuPy keys its cache of compiled kernels by the source: the headers are in it."""
    source = device.kernel_source("frontier.cu")
    assert "C_HELD = 38," in source  # the control block from contract.cuh
    assert source.count("typedef unsigned long long u64;") == 1
    assert not re.search(r'#include "|#pragma once', source)
    assert device.kernel_source("many.cu").count("typedef unsigned long long u64;") == 1


def test_kernel_arguments_are_built_by_name_in_the_kernels_order():
    values = {name: None if ctype.endswith("*") else 7 for ctype, name in SEARCH_PARAMS}
    values["dist"] = dist = np.zeros(3, np.uint32)
    args = kernel_args(SEARCH_PARAMS, values, np.dtype(np.uint32))
    assert len(args) == len(SEARCH_PARAMS) == 33
    kinds = {ctype: type(arg) for (ctype, _), arg in zip(SEARCH_PARAMS, args, strict=True)}
    assert kinds["long long"] is np.int64 and kinds["int"] is np.int32
    assert kinds["D"] is np.uint32 and args[3] is dist and args[0] == 0
    with pytest.raises(ValueError, match=r"missing \['batch'\], unknown \['bath'\]"):
        kernel_args(SEARCH_PARAMS, {**{k: v for k, v in values.items() if k != "batch"},
                                    "bath": 1}, np.dtype(np.uint32))  # fmt: skip
