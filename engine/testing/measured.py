"""A command run on a hostile input, measured: in a forked child (the parent's imports are
shared, so a case costs no interpreter start) whose output is captured and whose private
memory is capped, with its exit status, peak resident memory and time (`measured`); the
outcome judged (`judged`: it worked, it was refused in one line of plain words, or it was
bad) within the loaders' stated memory bounds (`peak_bound`).
"""

from __future__ import annotations

import dataclasses
import io
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: What a hostile case may take: seconds, and peak resident bytes of its process.
TIME_S = 60.0
PEAK_BYTES = 2 * 2**30
#: What a child may allocate before an allocation fails (so that a case that would take
#: tens of GB fails fast instead of taking the machine): RLIMIT_DATA, private writable
#: memory, which the loaders count as the memory free (`available_memory`).
GUARD_BYTES = 2 * 2**30
#: Words of Python's that no message to a user may hold: exception names and wordings.
PYTHON_WORDS = (
    "Traceback", "Error:", "Exception", "object has no attribute", "bytes-like object",
    "could not convert", "invalid literal", "NoneType", "is not subscriptable",
    "unsupported operand", "codec can't", "KeyError", "IndexError", "TypeError",
    "ValueError", "RuntimeError", "AttributeError", "OverflowError", "UnicodeDecodeError",
    "InvalidLocationError", "InvalidOSMFileError", "ParseError", "ExpatError",
)  # fmt: skip


def text_bytes(path: Path) -> int:
    """How many bytes ``path`` holds once decompressed: its PBF blocks', its text's, or
    (unreadable) the file's own size."""
    from engine.graphs import dimacs, io, pbf

    try:
        if io.sniff(path) == "pbf":
            with open(path, "rb") as f:
                return sum(len(pbf.block(f, o, n)) for _, o, n in pbf.blobs(path))
        total = 0
        with dimacs.open_text(path) as f:
            while chunk := f.read(1 << 22):
                total += len(chunk)
        return total
    except Exception:  # a damaged file: its own size
        return path.stat().st_size


def peak_bound(path: Path, base: int) -> int:
    """The most memory a load of ``path`` may take, by the stated bounds of the loaders
    (`engine.graphs._validate.TEXT_PEAK`): ``base`` (the process before it), plus
    `LOAD_FIXED` and the loader's multiple of the file's `text_bytes`, within
    `PEAK_BYTES`."""
    from engine.graphs import _validate, io

    try:
        kind = io.sniff(path) or "dimacs"
    except Exception:  # a file no reader takes
        kind = "dimacs"
    per_byte = _validate.TEXT_PEAK.get(kind, max(_validate.TEXT_PEAK.values()))
    return min(base + _validate.LOAD_FIXED + per_byte * text_bytes(path), PEAK_BYTES)


@dataclasses.dataclass(frozen=True)
class Measured:
    """A command's run in a child: exit status (None when killed at `TIME_S`), what it
    wrote (stdout and stderr together), peak resident bytes, seconds."""

    code: int | None
    output: str
    peak_bytes: int
    seconds: float


def measured(
    run: Callable[[], int], *, timeout_s: float = TIME_S, guard: int = GUARD_BYTES
) -> Measured:
    """``run()`` in a forked child whose stdout and stderr are captured and whose private
    memory is capped at ``guard`` bytes: its exit status, output, peak memory and time.

    The child shares the parent's imports, so its peak counts their pages too. A child
    still running after ``timeout_s`` is killed."""
    read, write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            os.close(read)
            resource.setrlimit(resource.RLIMIT_DATA, (guard, guard))
            os.dup2(write, 1)
            os.dup2(write, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), write_through=True)
            sys.stderr = sys.stdout
            code = run()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 70
        finally:
            try:
                sys.stdout.flush()
            finally:
                os._exit(code if isinstance(code, int) else 70)
    os.close(write)
    chunks, status, usage = [], None, None
    deadline = start + timeout_s
    while True:
        ready, _, _ = select.select([read], [], [], 0.05)
        if ready:
            chunk = os.read(read, 1 << 16)
            if chunk:
                chunks.append(chunk)
                continue
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            status = None
            break
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    seconds = time.perf_counter() - start
    code = None if status is None else os.waitstatus_to_exitcode(status)
    text = b"".join(chunks).decode("utf-8", "replace")
    return Measured(code, text, usage.ru_maxrss * 1024, seconds)


def judged(m: Measured, *, peak_bytes: int = PEAK_BYTES, time_s: float = TIME_S) -> tuple[str, str]:
    """A measured run's outcome: ``ok`` (exit 0), ``refused`` (exit 2 with one line of
    plain words) or ``bad`` (anything else: a traceback, several lines, Python's words, an
    out-of-memory refusal, more than ``peak_bytes`` or ``time_s``), and why when bad."""
    lines = [ln for ln in m.output.splitlines() if ln.strip() and "%|" not in ln]
    if m.code is None:
        return "bad", f"still running after {time_s:.0f} s"
    if m.peak_bytes > peak_bytes:
        return "bad", f"peak memory {m.peak_bytes / 2**20:,.0f} MiB"
    if m.seconds > time_s:
        return "bad", f"took {m.seconds:.0f} s"
    if m.code == 0:
        return "ok", ""
    words = next((w for w in PYTHON_WORDS if w in m.output), None)
    if words:
        return "bad", f"Python's words ({words!r})"
    if "out of memory" in m.output:
        return "bad", "refused as out of memory"
    if m.code == 2 and len([ln for ln in lines if not ln.startswith("frontier: warning")]) == 1:
        return "refused", ""
    return "bad", f"exit {m.code}, {len(lines)} lines"
