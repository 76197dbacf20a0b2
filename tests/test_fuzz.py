"""Seeded search campaigns against SciPy (engine.testing.fuzz): a small one on the CPU in CI, a
larger one on the GPU. The seed is printed; ``FRONTIER_FUZZ_SEED`` and
``FRONTIER_FUZZ_SEARCHES`` change them."""

import os

import numpy as np
import pytest

from engine.testing import cases, fuzz

SEED = int(os.environ.get("FRONTIER_FUZZ_SEED", "21"))


def _run(searches: int, **options) -> fuzz.Report:
    print(f"fuzz campaign: seed {SEED}, {searches} searches, {options}")
    report = fuzz.campaign(searches, seed=SEED, **options)
    print(report.line())
    assert report.clean, "\n".join(f"{f['outcome']}\n  {f['reproduce']}" for f in report.failures)
    assert report.searches >= searches
    return report


def test_cpu_campaign():
    searches = int(os.environ.get("FRONTIER_FUZZ_SEARCHES", "4000"))
    report = _run(searches, backend="cpu", max_nodes=200)
    assert set(report.counts) == set(cases.METHODS)


@pytest.mark.gpu
def test_gpu_campaign():
    searches = int(os.environ.get("FRONTIER_FUZZ_SEARCHES", "2000"))
    _run(searches, backend="gpu", max_nodes=20_000)


def test_cases_are_reproducible_and_varied():
    a, b = cases.draw_case(SEED, 7), cases.draw_case(SEED, 7)
    assert np.array_equal(a.weights, b.weights) and a.runs == b.runs
    drawn = [cases.draw_case(SEED, k) for k in range(300)]
    assert {c.shape for c in drawn} == set(cases.SHAPES)
    assert {c.family for c in drawn} == set(cases.FAMILIES)
    deltas = {r.delta for c in drawn for r in c.runs}
    assert {"auto", 1} <= deltas and max(d for d in deltas if d != "auto") >= 2**32
    assert {r.batch for c in drawn for r in c.runs} == set(cases.BATCHES)
    graphs = [c.graph() for c in drawn]
    assert any(g.distance_dtype() == np.uint64 for g in graphs)
    assert any((g.weights == 0).any() for g in graphs)
    assert any((g.sources == g.indices).any() for g in graphs)  # self loops


def test_watchdog_counts_a_hang_and_goes_on():
    """A search that does not answer in time is a hang; the worker is replaced and the
    campaign finishes its searches."""
    report = fuzz.campaign(12, seed=SEED, backend="cpu", timeout_s=0)
    assert report.hangs >= 1 and not report.clean
    assert report.searches >= 12
    assert all(f["kind"] == "hangs" for f in report.failures)
    assert report.failures[0]["reproduce"].startswith("c = engine.testing.cases.draw_case(")


def test_mutated_files_load_or_are_refused_in_one_line():
    """Random byte edits of valid .gr, PACE, .osm, .graphml and .pbf files (some gzipped, some
    renamed): never a raw exception, a hang over 10 s or a wrong answer (issue 12)."""
    files = int(os.environ.get("FRONTIER_FUZZ_FILES", "300"))
    print(f"file campaign: seed {SEED}, {files} files")
    report = fuzz.file_campaign(files, seed=SEED, timeout_s=10)
    print(report.line(), report.counts)
    assert report.clean, "\n".join(f["outcome"] for f in report.failures)
    kinds = {key.split(":")[0] for key in report.counts}
    assert kinds == {"seed.gr", "seed-pace.gr", "seed.osm", "seed.graphml", "seed.osm.pbf"}
    assert any(key.endswith(":loaded") for key in report.counts)


def test_mutations_edit_the_bytes():
    rng = np.random.default_rng(SEED)
    data = b"p sp 3 2\na 1 2 5\na 2 3 4\n"
    variants = {cases.mutate(rng, data) for _ in range(50)}
    assert len(variants) > 40 and data not in variants
