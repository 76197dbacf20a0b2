"""Predict the next step: questions about the paused frame, checked against the recording.

A question is computed from the run's recording at the frame where the player stands
(`ask`), so its answer is what the search did next, never a guess of ours:

- ``settles-first``: which of three marked nodes (A, B, C on the map) settles first;
- ``target-phases``: how many more phase ends until the target's distance is final;
- ``near-or-far``: will this marked node be near or far after the next iteration (the next
  phase end, for a search recorded by phase).

`Quiz` keeps the open question and the session's score; `QuizView` renders them. An answer
to a question about another run (the settings or the query changed since) is not scored:
the quiz says so and asks about the run on screen.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import panel as pn
import param
from panel.viewable import Viewer

from engine.recording import FAR, NEAR, UNREACHED

from . import style
from ._page import held
from .charts import TextPane
from .runs import Run
from .state import Session

KINDS = ("settles-first", "near-or-far", "target-phases")
LETTERS = "ABC"


@dataclasses.dataclass(frozen=True, eq=False)
class Question:
    """A question about ``run`` at ``frame``: the options, the right one, why."""

    kind: str
    text: str
    options: tuple[str, ...]
    answer: int
    explain: str
    marked: tuple[int, ...]  # CSR indices the map labels A, B, C (in order)
    run: Run = dataclasses.field(repr=False)
    frame: int


def _settles_first(run: Run, frame: int, rng: np.random.Generator) -> Question | None:
    rec, dist = run.result.recording, run.result.distances
    waiting = np.flatnonzero(rec.settled_at > frame)  # near, far or not reached yet
    # one node per settling iteration, so that exactly one settles first, among the next few
    _, first = np.unique(rec.settled_at[waiting], return_index=True)
    if first.size < 3:
        return None
    picked = rng.choice(waiting[first][:12], size=3, replace=False)
    at = rec.settled_at[picked]
    kind = run.result.graph.weight_kind
    facts = "; ".join(
        f"{LETTERS[k]}: distance {style.weight_text(int(dist[v]), kind)}, settled after "
        f"{run.step_noun} {int(at[k]):,}"
        for k, v in enumerate(picked)
    )
    best = int(np.argmin(at))
    return Question(
        "settles-first",
        "Which of the marked nodes A, B and C is settled first?",
        tuple(LETTERS),
        best,
        f"{LETTERS[best]} settles first: the search settles band by band, in order of "
        f"distance, and {LETTERS[best]} is the closest. {facts}.",
        tuple(int(v) for v in picked),
        run,
        frame,
    )


def _near_or_far(run: Run, frame: int, rng: np.random.Generator) -> Question | None:
    rec = run.result.recording
    if frame + 1 >= (len(rec) if rec.sweep_from is None else rec.sweep_from):
        return None  # (a sweep step finds its nodes' distances: no threshold decides)
    now, after = rec.states(frame), rec.states(frame + 1)
    moving = np.flatnonzero(
        ((now == UNREACHED) | (now == FAR)) & ((after == NEAR) | (after == FAR))
    )
    if moving.size == 0:
        return None
    v = int(rng.choice(moving))
    near = bool(after[v] == NEAR)
    hi = rec.snapshot(frame + 1).threshold
    kind = run.result.graph.weight_kind
    where = "below" if near else "at or beyond"
    what = "reached" if now[v] == UNREACHED else "improved"
    step = "phase" if run.by_phase else "iteration"
    return Question(
        "near-or-far",
        f"After the next {run.step_noun}, will the marked node A be near or far?",
        ("Near", "Far"),
        0 if near else 1,
        f"{'Near' if near else 'Far'}: the next {step} {what} A with a distance {where} "
        f"the threshold ({style.weight_text(int(hi), kind)} then).",
        (v,),
        run,
        frame,
    )


def _target_phases(run: Run, frame: int, rng: np.random.Generator) -> Question | None:
    rec, target = run.result.recording, run.result.target
    if target is None or not frame < rec.settled_at[target]:
        return None
    phase = rec.column("phase")
    last = int(phase[rec.settled_at[target]])
    # the phase that settles the target ends the search: its count does not move on
    ends = last - int(phase[frame]) + 1
    choices = sorted({ends, ends + 1, ends + 2, max(ends - 1, 1), max(ends - 2, 1)})[:4]
    order = rng.permutation(len(choices))
    options = tuple(str(choices[k]) for k in order)
    return Question(
        "target-phases",
        "How many more phase ends until the target's distance is final (this one included)?",
        options,
        options.index(str(ends)),
        f"{ends}: the target's distance falls in the band of phase {last:,}, and the search "
        f"is in phase {int(phase[frame]):,} now.",
        (),
        run,
        frame,
    )


_ASK = {
    "settles-first": _settles_first,
    "near-or-far": _near_or_far,
    "target-phases": _target_phases,
}


def ask(run: Run, frame: int, k: int = 0) -> Question | None:
    """A question about ``run`` at ``frame``: kinds taken in turn from ``KINDS[k % 3]`` on,
    skipping those this frame cannot ask (no target, nothing left to settle); the choices
    among nodes are seeded by ``k`` and the frame. None when nothing can be asked."""
    if run is None or run.result.recording is None:
        return None
    frame = min(max(frame, 0), run.n_frames - 1)
    rng = np.random.default_rng([k, frame])
    for j in range(len(KINDS)):
        question = _ASK[KINDS[(k + j) % len(KINDS)]](run, frame, rng)
        if question is not None:
            return question
    return None


class Quiz(param.Parameterized):
    """The open question and the session's score."""

    question = param.Parameter(default=None, doc="The open Question, or None")
    answered = param.Boolean(default=False, doc="The open question has been answered")
    feedback = param.String(default="", doc="Right or not, and why; or why nothing was asked")
    asked = param.Integer(default=0, doc="Questions answered this session")
    right = param.Integer(default=0, doc="... of which right")

    def __init__(self, session: Session, **params):
        super().__init__(**params)
        self.session = session
        self._asks = 0  # questions asked, answered or not: the next one's seed and kind
        session.param.watch(self._moved, ["runs", "frame"])

    def new(self) -> bool:
        """Pause and ask about run A at the current frame; False when nothing can be asked."""
        s = self.session
        s.pause()
        run = s.runs[0] if s.runs else None
        question = ask(run, s.frame, self._asks)
        self._asks += 1
        if question is None:
            self.param.update(question=None, answered=False, feedback=(
                "Nothing to ask here: a question needs a recorded search that has work left "
                "after this frame (Dijkstra records none); step back or pick another frame."
            ))  # fmt: skip
            s.marked = []
            return False
        self.param.update(question=question, answered=False, feedback="")
        s.marked = list(question.marked)
        return True

    def check(self, choice: int) -> bool | None:
        """Score ``choice`` (an option's index); None when it was not scored: no open
        question, answered already, or asked about a run that is no longer on screen (then
        a new question about this run is asked)."""
        q = self.question
        if q is None or self.answered:
            return None
        s = self.session
        if not s.runs or q.run is not s.runs[0]:
            self.new()
            msg = "That question was about an earlier search; here is one about this search."
            self.feedback = msg
            s.tell(msg)
            return None
        ok = choice == q.answer
        self.param.update(
            answered=True,
            asked=self.asked + 1,
            right=self.right + ok,
            feedback=f"{'Right!' if ok else 'Not quite.'} {q.explain}",
        )
        return ok

    def _moved(self, *events) -> None:
        """A new run, or the frame moved on after the answer: the marks go."""
        new_run = any(e.name == "runs" for e in events)
        if (new_run or self.answered) and self.session.marked:
            self.session.marked = []


class QuizView(Viewer):
    """Ask, the question with its options, Check, what the answer was, and the score."""

    def __init__(self, quiz: Quiz, **params):
        super().__init__(**params)
        self.quiz = quiz
        self.ask = pn.widgets.Button(label="Predict the next step", width=190)
        self.options = pn.widgets.RadioButtonGroup(options=[], width=240, sizing_mode=None)
        self.submit = pn.widgets.Button(label="Check", width=80, color="primary")
        self.text = TextPane("", sizing_mode="stretch_width")
        self.ask.on_click(held(quiz.new))
        self.submit.on_click(held(self._check))
        quiz.param.watch(self._render, ["question", "answered", "feedback", "asked"])
        self._render()

    def _check(self) -> None:
        q = self.quiz.question
        if q is not None and self.options.value in q.options:
            self.quiz.check(q.options.index(self.options.value))

    def _render(self, *_events) -> None:
        qz, q = self.quiz, self.quiz.question
        self.options.visible = self.submit.visible = q is not None and not qz.answered
        if q is not None:
            self.options.param.update(options=list(q.options), value=None)
        parts = []
        if q is not None:
            parts.append(f'<div class="frontier-question"><b>{q.text}</b></div>')
        if qz.feedback:
            parts.append(f'<div class="frontier-answer">{qz.feedback}</div>')
        parts.append(f'<div class="frontier-score">Score: {qz.right} of {qz.asked}</div>')
        self.text.object = "".join(parts)

    def __panel__(self):
        return pn.Column(
            pn.FlexBox(self.ask, self.options, self.submit, flex_wrap="wrap"),
            self.text,
            css_classes=["frontier-quiz"],
            sizing_mode="stretch_width",
        )
