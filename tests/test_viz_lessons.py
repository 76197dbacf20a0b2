"""Lessons (issue 20): each opens and steps, on the city on screen or on the embedded one;
bad names are one line."""

import pytest

from viz.lessons import LAST, LESSONS, Lessons, LessonView
from viz.state import GraphChoice


@pytest.mark.parametrize("name", list(LESSONS))
def test_every_lesson_opens_and_steps_to_its_end(session, name):
    lessons = Lessons(session)
    view = LessonView(lessons)
    assert lessons.open(name), session.error
    steps = LESSONS[name].steps
    assert 3 <= len(steps) <= 6
    for k, step in enumerate(steps):
        assert lessons.step == k and lessons.text == step.say(session)
        assert f"Step {k + 1} of {len(steps)}." in view.text.object
        assert session.compare == (step.b is not None) and session.layer == step.layer
        assert not session.playing
        last = session.n_frames - 1
        assert session.frame == (last if step.frame == LAST else step.frame)
        for key, value in step.a.items():
            assert getattr(session.configs[0], key) == value, (name, k, key)
        assert session.runs[0].settings.method == step.a["method"]
        lessons.go(1)
    assert lessons.step == len(steps) - 1 and view.next.disabled  # the last step stays
    lessons.go(-99)
    assert lessons.step == 0 and view.back.disabled


def test_the_numbers_a_lesson_says_are_the_runs(session):
    lessons = Lessons(session)
    assert lessons.open("batch-size")
    lessons.go(2)
    a, b = (run.result.counters.host_syncs for run in session.runs)
    assert f"A {a:,}, B {b:,}" in lessons.text and a > b
    assert session.runs[0].n_frames == session.runs[1].n_frames  # batch changes speed only


def test_a_lesson_opens_the_embedded_city_and_the_menu_opens_lessons(session, tmp_path):
    two = tmp_path / "two.gr"
    two.write_text("p sp 3 2\na 1 2 5\na 2 3 5\n")
    assert session.load_graph(GraphChoice(str(two)))
    lessons = Lessons(session)
    view = LessonView(lessons)
    view.menu.value = "delta-large"
    assert lessons.lesson == "delta-large" and session.loaded.choice.spec == "helsinki"
    assert (
        session.notice == "two.gr has no coordinates to draw: the lesson opens on the embedded city"
    )
    view.close.clicks += 1
    assert lessons.lesson == "" and not view.text.visible and view.menu.value == ""


def test_an_unknown_lesson_is_one_line_and_changes_nothing(session):
    lessons, runs = Lessons(session), session.runs
    assert not lessons.open("warp-drive")
    assert "there is no lesson 'warp-drive'; the lessons are delta-small" in session.error
    assert lessons.lesson == "" and session.runs is runs


def test_a_lesson_runs_on_the_city_on_screen(session, tmp_path):
    """A city with coordinates (a shared one, or this small one written as DIMACS) keeps
    the lesson; its words follow the graph's weights."""
    from engine import synthetic

    gr, _ = synthetic.write_city(tmp_path / "town", 900, seed=4)
    assert session.load_graph(GraphChoice(str(gr)))
    lessons = Lessons(session)
    assert lessons.open("delta-small") and session.loaded.choice.spec == str(gr)
    assert "tiny Δ (1,000)" in lessons.text and not session.notice
    lessons.go(2)
    assert lessons.step == 2 and session.compare


def test_a_lesson_on_a_shared_city(session):
    from .graphs import shared_path

    city = shared_path("osm", "liechtenstein.osm.pbf")
    if not city.is_file():
        pytest.skip("the shared data is not beside the project")
    assert session.load_graph(GraphChoice(str(city), network="drive"))
    lessons = Lessons(session)
    assert lessons.open("near-far-vs-delta-stepping")
    assert "liechtenstein" in session.loaded.graph.name
    lessons.go(2)
    b = session.runs[1].result
    assert b.method == "bucketing" and f"{b.counters.bucket_sorts:,} sorts" in lessons.text
