"""The base of the views that draw one run of a `Session`."""

from __future__ import annotations

from panel.viewable import Viewer

from .runs import Run
from .state import Session


class RunView(Viewer):
    """A view of run ``slot`` (0, or 1 in the comparison). Subclasses build ``_layout``,
    redraw what a new run changes in ``_on_runs`` and what a frame changes in ``_on_frame``,
    then call ``_follow``."""

    def __init__(self, session: Session, slot: int = 0, **params):
        super().__init__(**params)
        self.session, self.slot = session, slot

    def _follow(self, *, frames: bool = True) -> None:
        self.session.param.watch(self._on_runs, "runs")
        if frames:
            self.session.param.watch(self._on_frame, "frame")
        self._on_runs()

    @property
    def _run(self) -> Run | None:
        runs = self.session.runs
        return runs[self.slot] if self.slot < len(runs) else None

    def _on_runs(self, *_events) -> None:
        self._on_frame()

    def _on_frame(self, *_events) -> None:
        """Nothing changes with the frame unless a subclass says so."""

    def __panel__(self):
        return self._layout
