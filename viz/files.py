"""Which files the dashboard may open, and where uploads go.

A typed path or a link opens a file only under the folders of ``$FRONTIER_DATA_DIRS`` (or
the folder the server was started in) or the uploads folder; an upload is stored under the
cache by its content and removed once unused for `UPLOAD_LIFETIME_S`. Imports nothing of the
dashboard.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

from engine import FrontierError
from engine.graphs.io import cache_dir, prune_temporary, write_atomic

#: Largest accepted upload, and the most text a graph file of up to `viz.state.MAX_NODES` nodes
#: may hold once decompressed (`viz.state.max_text_bytes`).
MAX_UPLOAD_MB, MAX_TEXT_MB = 64, 512
#: Uploads unused for this long are removed when another upload arrives.
UPLOAD_LIFETIME_S = 7 * 24 * 3600


class DashboardError(FrontierError):
    """A request the dashboard refuses (outside allowed folders, too big to draw, ...)."""


def allowed_roots() -> list[Path]:
    """Folders a typed path may point into: ``$FRONTIER_DATA_DIRS`` (``os.pathsep``-separated),
    else the folder the server was started in; uploads are always allowed."""
    env = os.environ.get("FRONTIER_DATA_DIRS")
    roots = [Path(p) for p in env.split(os.pathsep) if p] if env else [Path.cwd()]
    return [r.expanduser().resolve() for r in roots]


def upload_dir() -> Path:
    return cache_dir() / "uploads"


def checked_path(text: str) -> str:
    """The resolved path of a typed file name, if it lies under `allowed_roots`."""
    text = text.strip()
    if not text:
        msg = "empty file path; type the path of a graph file"
        raise DashboardError(msg)
    if "\x00" in text:
        msg = f"{text!r}: a file path cannot hold a NUL character; type the path of a graph file"
        raise DashboardError(msg)
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    path = path.resolve()
    roots = [*allowed_roots(), upload_dir().resolve()]
    if not any(path.is_relative_to(root) for root in roots):
        shown = ", ".join(str(r) for r in roots[:-1])
        msg = (
            f"{text}: only files under {shown} can be loaded here; "
            "set FRONTIER_DATA_DIRS before `panel serve` to allow another folder"
        )
        raise DashboardError(msg)
    return str(path)


def save_upload(filename: str, data: bytes) -> str:
    """Store an uploaded file (a graph, or a graph's coordinates) under the cache, named by
    content, and return its path."""
    if len(data) > MAX_UPLOAD_MB * 2**20:
        msg = f"{filename} is larger than {MAX_UPLOAD_MB} MB; put it in a data folder instead"
        raise DashboardError(msg)
    name = Path(filename).name
    digest = hashlib.sha256(data).hexdigest()[:16]
    prune_uploads()
    folder = upload_dir() / digest
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if not path.is_file():
        write_atomic(path, lambda f: f.write(data))
    os.utime(folder)  # in use: kept another UPLOAD_LIFETIME_S
    return str(path)


def prune_uploads(now: float | None = None) -> int:
    """Remove uploads untouched for `UPLOAD_LIFETIME_S`, and temporary files that a killed
    write left behind; return how many uploads went."""
    root = upload_dir()
    if not root.is_dir():
        return 0
    now = time.time() if now is None else now
    gone = 0
    for folder in root.iterdir():
        try:
            if folder.is_dir() and now - folder.stat().st_mtime > UPLOAD_LIFETIME_S:
                shutil.rmtree(folder)
                gone += 1
            elif folder.is_dir():
                prune_temporary(folder, now=now)
        except OSError:
            continue  # another server removed or is writing it
    return gone
