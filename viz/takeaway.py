"""Things to take away from the dashboard: the run on show as GIF, MP4, PNG, CSV or replay.

The files are drawn on the server by `engine.media.export`, the same code as ``frontier animate``,
so a download and the command line give the same pictures. Each chart's own PNG comes from
its toolbar's save button.
"""

from __future__ import annotations

import dataclasses
import tempfile
from functools import partial
from io import BytesIO
from pathlib import Path

import panel as pn
from panel.viewable import Viewer

from engine.media import export, replay

from .runs import Run
from .state import Session
from .style import file_stem

#: (file ending, button label): what the buttons offer, in order.
DOWNLOADS = (
    (".gif", "GIF"),
    (".mp4", "MP4"),
    (".png", "PNG of this frame"),
    (".csv", "Frame table (CSV)"),
    (replay.SUFFIX, "Replay"),
)
_MAP_ONLY = (".gif", ".mp4", ".png")
#: A GIF or MP4 of a longer run shows this many of its frames, spread evenly: a 16M-node
#: city's run has thousands, each drawn in about half a second on the server (issue 54).
MAX_ANIMATION_FRAMES = 300


def file_name(session: Session, run: Run, suffix: str) -> str:
    """``frontier-GRAPH-METHOD-dDELTA-bBATCH[-fFRAME].SUFFIX``, in safe characters."""
    r = run.result
    delta = "inf" if r.delta is None else "adaptive" if r.adaptive is not None else r.delta
    name = f"frontier-{file_stem(r.graph.name)}-{r.method}-d{delta}-b{r.batch_size}"
    if suffix == ".png":
        name += f"-f{session.frame}"
    return name + suffix


class TakeawayView(Viewer):
    """Download buttons for search A (or B, while comparing)."""

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self.side = pn.widgets.RadioButtonGroup(
            options={"Search A": 0, "Search B": 1}, value=0, color="light",
            visible=session.param.compare,
        )  # fmt: skip
        self.buttons = {
            suffix: pn.widgets.FileDownload(
                callback=partial(self.file, suffix),
                label=label,
                color="light",
                css_classes=[f"frontier-export-{suffix.split('.')[-1]}"],
            )
            for suffix, label in DOWNLOADS
        }
        self.side.param.watch(self._sync, "value")
        session.param.watch(self._sync, ["runs", "compare"])
        session.param.watch(self._on_frame, ["frame", "playing"])
        self._sync()

    @property
    def run(self) -> Run:
        runs = self.session.runs
        return runs[min(self.side.value, len(runs) - 1)]

    def file(self, suffix: str) -> BytesIO | None:
        """The run on show as a file of type ``suffix`` (None, with a notification, when
        it cannot be made)."""
        s = self.session
        source = dataclasses.asdict(s.loaded.choice)
        frame = s.frame if suffix == ".png" else None
        most = MAX_ANIMATION_FRAMES if suffix in (".gif", ".mp4") else None
        try:
            with tempfile.TemporaryDirectory(prefix="frontier-export-") as folder:
                path = Path(folder) / f"run{suffix}"
                export.export(
                    self.run.result, path, frame=frame, fps=s.fps, source=source, most=most
                )
                data = BytesIO(path.read_bytes())
        except Exception as exc:
            s.fail(exc)
            return None
        n = self.run.n_frames
        if most is not None and n > most:
            s.notice = (
                f"The {suffix[1:].upper()} shows {most} of the run's {n:,} frames, spread "
                "evenly (the first and the last among them); frontier animate draws them all"
            )
        return data

    def _sync(self, *_events) -> None:
        run = self.run
        recorded = run.result.recording is not None
        for suffix, button in self.buttons.items():
            button.disabled = not recorded or (
                suffix in _MAP_ONLY and self.session.loaded.geometry is None
            )
            button.filename = file_name(self.session, run, suffix)

    def _on_frame(self, *_events) -> None:
        if not self.session.playing:  # a name per frame would cost every frame's message
            self.buttons[".png"].filename = file_name(self.session, self.run, ".png")

    def __panel__(self):
        return pn.Column(
            "### Take away",
            self.side,
            pn.pane.HTML(
                "<small>Files drawn on the server, as <code>frontier animate</code> draws "
                "them; a replay reopens here (File path or Upload) and in "
                "<code>frontier animate</code> without searching again. Each chart saves "
                "its own PNG from its toolbar.</small>"
            ),
            *self.buttons.values(),
            sizing_mode="stretch_width",
        )
