"""Things to take away from the dashboard: the run on show as GIF, MP4, PNG, CSV or replay.

The files are drawn on the server by `engine.media.export`, the same code as ``frontier animate``,
so a download and the command line give the same pictures. Each chart's own PNG comes from
its toolbar's save button.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from functools import partial
from io import BytesIO
from pathlib import Path

import panel as pn
from panel.viewable import Viewer

from engine.media import export, replay

from ._page import soon
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


@dataclasses.dataclass(frozen=True)
class _Export:
    """One file of a run, as `engine.media.export.export` writes it."""

    result: object
    suffix: str
    source: dict
    frame: int | None
    fps: int
    most: int | None
    n_frames: int

    def make(self) -> BytesIO | Exception:
        """The file's bytes, or the exception that stopped it (said on the page)."""
        try:
            with tempfile.TemporaryDirectory(prefix="frontier-export-") as folder:
                path = Path(folder) / f"run{self.suffix}"
                export.export(self.result, path, frame=self.frame, fps=self.fps,
                              source=self.source, most=self.most)  # fmt: skip
                return BytesIO(path.read_bytes())
        except Exception as exc:
            return exc


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
                callback=partial(self.download, suffix),
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
        job = self._export(suffix)
        return self._tell(job, job.make())

    async def download(self, suffix: str) -> BytesIO | None:
        """`file`, made on a worker thread (the buttons' callback): a 16M-node city's GIF
        took 40 s, in which the server's event loop, every page's frames with it, stood
        still. What the page says comes on its next tick, where it may change the page."""
        job = self._export(suffix)
        made = await asyncio.to_thread(job.make)
        soon(partial(self._tell, job, made))
        return made if isinstance(made, BytesIO) else None

    def _export(self, suffix: str) -> _Export:
        """The export of the run on show as it is now (read here, on the page's thread)."""
        s, run = self.session, self.run
        return _Export(
            result=run.result,
            suffix=suffix,
            source=dataclasses.asdict(s.loaded.choice),
            frame=s.frame if suffix == ".png" else None,
            fps=s.fps,
            most=MAX_ANIMATION_FRAMES if suffix in (".gif", ".mp4") else None,
            n_frames=run.n_frames,
        )

    def _tell(self, job: _Export, made: BytesIO | Exception) -> BytesIO | None:
        """Say what became of ``job``: its failure, or that it keeps some of the frames."""
        if isinstance(made, Exception):
            self.session.fail(made)
            return None
        if job.most is not None and job.n_frames > job.most:
            self.session.notice = (
                f"The {job.suffix[1:].upper()} shows {job.most} of the run's "
                f"{job.n_frames:,} frames, spread evenly (the first and the last among "
                "them); frontier animate draws them all"
            )
        return made

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
