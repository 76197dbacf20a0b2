"""Predict the next step: each question's answer is what the recording did next."""

import numpy as np
import pytest

import engine
from engine.recording import NEAR, SETTLED
from viz.quiz import KINDS, Quiz, QuizView, ask
from viz.runs import Reference, Run, Settings

from .graphs import grid_graph

GRID = grid_graph(8, 8, seed=20)


def _run(target=None, method="near_far", delta=30):
    r = engine.sssp(GRID, 0, method=method, delta=delta, target=target, record=True)
    return Run(Settings(method, delta, 64, "cpu"), r, Reference(0.0, 0, None), np.zeros(0), {})


@pytest.mark.parametrize("frame", [1, 5, 12])
def test_settles_first_is_the_marked_node_the_recording_settles_first(frame):
    run = _run()
    q = ask(run, frame, KINDS.index("settles-first"))
    rec = run.result.recording
    assert q.kind == "settles-first" and len(q.marked) == 3 and q.options == ("A", "B", "C")
    at = rec.settled_at[list(q.marked)]
    assert np.all(at > frame) and len(set(at.tolist())) == 3  # one clear first
    assert q.answer == int(np.argmin(at))
    assert not np.any(rec.states(frame)[list(q.marked)] == SETTLED)
    assert q.explain.startswith(f"{'ABC'[q.answer]} settles first")


@pytest.mark.parametrize("frame", [0, 3, 9])
def test_near_or_far_is_the_state_one_iteration_later(frame):
    run = _run()
    q = ask(run, frame, KINDS.index("near-or-far"))
    (v,) = q.marked
    after = run.result.recording.states(frame + 1)[v]
    assert q.options == ("Near", "Far") and q.answer == (0 if after == NEAR else 1)


def test_target_phases_counts_the_phase_ends_left():
    run = _run(target=63)
    rec = run.result.recording
    q = ask(run, 2, KINDS.index("target-phases"))
    ends = int(np.count_nonzero(np.diff(rec.column("phase")[2:]) > 0)) + 1  # and the last
    assert q.kind == "target-phases" and q.options[q.answer] == str(ends)
    assert len(set(q.options)) == len(q.options) >= 3
    # Without a target the turn passes to the next kind.
    assert ask(_run(), 2, KINDS.index("target-phases")).kind == "settles-first"


def test_nothing_to_ask_at_the_last_frame_or_without_a_recording(session):
    run = _run()
    assert ask(run, run.n_frames - 1, 0) is None
    session.configs[0].method = "dijkstra"
    quiz = Quiz(session)
    assert not quiz.new() and "Nothing to ask here" in quiz.feedback and not session.marked


def test_right_wrong_and_a_question_of_another_run(session):
    quiz, view = Quiz(session), None
    view = QuizView(quiz)
    session.seek(3)
    assert quiz.new() and not session.playing  # asking pauses
    q = quiz.question
    assert session.marked == list(q.marked)
    view.options.value = q.options[q.answer]
    view._check()
    assert (
        quiz.answered and quiz.feedback.startswith("Right!") and (quiz.right, quiz.asked) == (1, 1)
    )
    assert quiz.check(q.answer) is None and quiz.asked == 1  # answered once only
    assert "Score: 1 of 1" in view.text.object and not view.submit.visible
    assert quiz.new()
    wrong = (quiz.question.answer + 1) % len(quiz.question.options)
    assert quiz.check(wrong) is False
    assert quiz.feedback.startswith("Not quite.") and (quiz.right, quiz.asked) == (1, 2)
    session.step(1)
    assert session.marked == []  # answered: the marks go when the frame moves on
    assert quiz.new()
    session.configs[0].batch_size = 3  # another run
    assert session.marked == []
    assert quiz.check(quiz.question.answer) is None and quiz.asked == 2
    assert "earlier search" in quiz.feedback and quiz.question.run is session.runs[0]
    assert session.notice == quiz.feedback  # a notification too


@pytest.mark.parametrize("method", ["near_far_async", "near_far_core"])
def test_a_search_recorded_by_phase_asks_about_the_next_phase_end(method):
    """Issue 54: the questions speak of phase ends, and none asks whether a node is near or
    far across the core's sweep (a sweep step finds distances; no threshold decides)."""
    r = engine.sssp(grid_graph(20, 20, seed=2), 0, method=method, delta=200, record=True)
    run = Run(Settings(method, 200, 64, "cpu"), r, Reference(0.0, 0, None), np.zeros(0), {})
    rec = r.recording
    asked = [ask(run, frame, k) for frame in range(len(rec)) for k in range(3)]
    near_or_far = [q for q in asked if q is not None and q.kind == "near-or-far"]
    assert near_or_far and all("next phase end" in q.text for q in near_or_far)
    assert all(q.frame + 1 < (rec.sweep_from or len(rec)) for q in near_or_far)
    for q in near_or_far:
        after = rec.states(q.frame + 1)[q.marked[0]]
        assert q.answer == (0 if after == NEAR else 1)
