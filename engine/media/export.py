"""Things to take away from a recorded search: animations, pictures, the frame table, replays.

``export(result, path)`` picks the format from the file name: ``.gif`` and ``.mp4`` (the map,
frame by frame, through Pillow and imageio-ffmpeg's own ffmpeg), ``.png`` (one frame),
``.csv`` (the frame table, one row per iteration) and ``.frontier.npz`` (a replay that the
dashboard and ``frontier animate`` reopen without searching again). Every file is written
to a temporary file first and renamed, so a failed export leaves nothing half-written.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import numpy as np

from engine._errors import ParameterError
from engine.graphs.io import write_atomic, write_atomic_path
from engine.media import replay
from engine.media.render import MapPainter, rgb
from engine.search import SSSPResult

#: File name endings `export` writes, and what each holds.
FORMATS = {
    ".gif": "animated GIF of the map",
    ".mp4": "MP4 video of the map",
    ".png": "one frame of the map",
    ".csv": "the frame table",
    replay.SUFFIX: "a replay",
}
#: Columns of the frame table.
TABLE = (
    "frame", "iteration", "phase", "near", "far", "settled", "unreached", "settled_below",
    "threshold", "frontier", "far_pile", "edges_relaxed", "buckets",
)  # fmt: skip
_RANGE = re.compile(r"^\s*(-?\d*)\s*:\s*(-?\d*)\s*$")


def format_of(path: str | os.PathLike) -> str:
    """The format `export` would write to ``path``, by its ending; unknown endings are
    refused with the known ones."""
    name = Path(path).name.lower()
    for suffix in sorted(FORMATS, key=len, reverse=True):
        if name.endswith(suffix):
            return suffix
    known = ", ".join(FORMATS)
    msg = f"{path}: unknown format; the file name must end in one of {known}"
    raise ParameterError(msg)


def frame_range(text: str | None, n_frames: int) -> range:
    """The frames ``"A:B"`` names (from A up to B, B included; either may be left out), all
    frames for None; a range outside ``0..n_frames-1`` is refused."""
    if text is None:
        return range(n_frames)
    m = _RANGE.match(str(text))
    last = n_frames - 1
    if m is None:
        msg = f"--frames must look like A:B (frames A to B, 0 to {last}), got {text!r}"
        raise ParameterError(msg)
    start = int(m.group(1)) if m.group(1) else 0
    stop = int(m.group(2)) if m.group(2) else last
    if not 0 <= start <= stop <= last:
        msg = f"--frames {text} is outside the run: its frames are 0 to {last}"
        raise ParameterError(msg)
    return range(start, stop + 1)


def spread(frames: range, most: int | None) -> range | list[int]:
    """``frames``, or, where there are more than ``most`` (at least 2), ``most`` of them
    spread evenly, the first and the last among them."""
    if most is None or len(frames) <= most:
        return frames
    if most < 2:
        msg = f"an animation keeps at least 2 frames (its first and last), got {most}"
        raise ParameterError(msg)
    picked = np.rint(np.linspace(0, len(frames) - 1, most)).astype(np.int64)
    return [frames[int(i)] for i in picked]


def frame_table(result: SSSPResult) -> str:
    """The recording's frame table as CSV: one row per frame, bucket sizes (Δ-stepping) as
    ``index:size`` pairs separated by spaces (``rest`` for the last bin)."""
    out = StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TABLE)
    for s in _recording(result):
        buckets = ""
        if s.buckets is not None:
            buckets = " ".join(f"{'rest' if k == -1 else k}:{v}" for k, v in s.buckets.items())
        writer.writerow([
            s.frame, s.iteration, s.phase, s.near, s.far, s.settled, s.unreached,
            s.settled_below, s.threshold, s.frontier, s.far_pile, s.edges_relaxed, buckets,
        ])  # fmt: skip
    return out.getvalue()


def _recording(result: SSSPResult):
    if result.recording is None:
        msg = "this search was not recorded: there are no frames to export"
        raise ParameterError(msg)
    return result.recording


def export(
    result: SSSPResult,
    path: str | os.PathLike,
    *,
    fps: int = 10,
    frames: str | None = None,
    frame: int | None = None,
    size: tuple[int, int] | None = None,
    source: dict | None = None,
    progress: Callable[[int], None] | None = None,
    most: int | None = None,
) -> Path:
    """Write ``result`` to ``path`` in the format its name says (see `FORMATS`).

    ``frames`` (``"A:B"``) limits an animation, and ``most`` keeps at most that many of
    them, spread evenly (`spread`); ``frame`` picks the PNG's frame (the last by default);
    ``size`` is the picture's (width, height); ``source`` says where the graph came from (kept
    in a replay); ``progress(k)`` is called after each frame drawn.
    """
    kind = format_of(path)
    rec = _recording(result)
    if not 1 <= fps <= 60:
        msg = f"--fps must be 1–60, got {fps}"
        raise ParameterError(msg)
    if kind == replay.SUFFIX:
        return replay.save(result, path, source=source)
    if kind == ".csv":
        text = frame_table(result)
        return write_atomic(path, lambda f: f.write(text.encode()))
    if kind == ".png":
        last = len(rec) - 1
        k = last if frame is None else frame
        if not 0 <= k <= last:
            msg = f"--frame {k} is outside the run: its frames are 0 to {last}"
            raise ParameterError(msg)
        picture = MapPainter(result.graph, size).frame(result, k)
        return write_atomic(path, lambda f: picture.convert("RGB").save(f, format="PNG"))
    chosen = spread(frame_range(frames, len(rec)), most)
    painter = MapPainter(result.graph, size)

    def pictures():
        for done, k in enumerate(chosen, 1):
            yield painter.frame(result, k)
            if progress is not None:
                progress(done)

    if kind == ".gif":
        return write_atomic(path, lambda f: _gif(pictures(), f, fps))
    return write_atomic_path(path, lambda tmp: _mp4(pictures(), tmp, fps, painter.size))


def _gif(pictures, f, fps: int) -> None:
    first = next(pictures)
    first.save(
        f,
        format="GIF",
        save_all=True,
        append_images=pictures,
        duration=round(1000 / fps),
        loop=0,
        optimize=False,
    )


def _mp4(pictures, tmp: Path, fps: int, size: tuple[int, int]) -> None:
    import imageio_ffmpeg

    width, height = size
    writer = imageio_ffmpeg.write_frames(
        str(tmp),
        (width - width % 2, height - height % 2),  # H.264 wants even sides
        fps=fps,
        codec="libx264",
        pix_fmt_out="yuv420p",
        macro_block_size=1,
        output_params=["-f", "mp4"],
        ffmpeg_log_level="error",
    )
    writer.send(None)  # start ffmpeg
    try:
        for picture in pictures:
            frame = rgb(picture)[: height - height % 2, : width - width % 2]
            writer.send(np.ascontiguousarray(frame))
    finally:
        writer.close()
