"""Captions of the narrated step mode, on a hand-made graph and on the embedded city."""

import numpy as np
import pytest

import engine
from engine.adaptive import AdaptiveDelta
from viz import narration
from viz.narration import Caption, caption
from viz.runs import Reference, Run, Settings

#: A path 0 → 1 → 2 → 3 with weights 1, 1, 10 and a shortcut 0 → 3 of 30.
LINE = engine.from_arcs(4, [0, 1, 2, 0], [1, 2, 3, 3], [1, 1, 10, 30], name="line")


def _run(method, delta, target=None):
    r = engine.sssp(LINE, 0, method=method, delta=delta, target=target, record=True)
    route = np.asarray(r.path_to(target), dtype=np.int64) if target is not None else np.zeros(0)
    return Run(Settings(method, delta, 64, "cpu"), r, Reference(0.0, 0, None), route, {})


def test_near_far_on_a_line_says_what_happened():
    run = _run("near_far", 5)
    rec = run.result.recording
    assert caption(run, 0).startswith("The search starts: the source is the only near node")
    first = caption(run, 1)
    assert first.startswith("Iteration 1: 1 near node relaxed its arcs (2 arcs); 2 nodes")
    assert "1 node waits in the far pile" in first  # node 3, by the shortcut of 30
    phases = np.flatnonzero(np.diff(rec.column("phase")) > 0) + 1
    end = caption(run, int(phases[0]))
    assert "The near set is empty, so phase 1 ends." in end
    assert "The threshold rises to" in end and "·Δ = " in end and "now settled" in end
    assert caption(run, len(rec) - 1).endswith("every distance is final.")


def test_delta_stepping_heavy_arcs_and_the_target():
    run = _run("delta_stepping", 5, target=3)
    rec = run.result.recording
    texts = [caption(run, k) for k in range(len(rec))]
    assert any("relaxed its light arcs (≤ Δ)" in t for t in texts)
    assert any("its heavy arcs are relaxed once" in t for t in texts)
    assert texts[-1].endswith(
        "The target is settled at 12: the search stops and the route is drawn."
    )


def test_bucketing_says_where_the_next_bucket_comes_from():
    run = _run("bucketing", 5)
    rec = run.result.recording
    end = caption(run, int(np.flatnonzero(np.diff(rec.column("phase")) > 0)[0] + 1))
    assert "phase 1 ends. The next bucket is taken from the sorted far nodes." in end
    assert "sorted far nodes" not in caption(_run("near_far", 5), 2)


def test_the_fastest_methods_are_told_phase_by_phase_and_step_by_step(session):
    """Issue 54: a recording by phase is told a phase's end at a time, and the core's sweep
    a step at a time, with what the asynchronous phase and the sweep do differently; the
    readouts count phases ended, and the charts say what a frame is."""
    from viz.charts import ChartsView, Readouts

    session.configs[0].method = "near_far_async"
    run = session.runs[0]
    rec = run.result.recording
    assert rec.by_phase and run.step_noun == "phase end"
    assert caption(run, 0).endswith(
        "Each step is a whole phase: this search has no iterations to show."
    )
    first = caption(run, 1)
    assert first.startswith("Phase 1 ends:") and "synchronous twin ran the same phase" in first
    assert "The threshold rises to" in first and "in the far pile" in first
    assert caption(run, len(rec) - 1).endswith(": it stops.")  # the page's query has a target
    assert "Phases ended" in Readouts(session).__panel__().object
    assert ChartsView(session)._sets.title.text.endswith("per phase end")
    session.configs[0].method = "near_far_core"
    run = session.runs[0]
    rec = run.result.recording
    assert caption(run, rec.sweep_from - 1).endswith(
        ("The core is done; the contracted nodes wait for the sweep, which gives each its "
         "distance from the nodes it was contracted between.",
         "the core's search stops; the sweep follows.")
    )  # fmt: skip
    sweep = caption(run, rec.sweep_from)
    assert sweep.startswith(f"Sweep step 1 of {len(rec) - 1 - rec.sweep_from}: the ")
    assert "no queue and no threshold" in sweep
    assert caption(run, len(rec) - 1).startswith("Done: the sweep gave every contracted node")
    assert run.readout(len(rec) - 1)["iteration"] == rec.sweep_from - 1  # phases ended
    # every phase's end, the sweep's first step, the target settling (here in the sweep)
    # and the end
    target = int(rec.settled_at[run.result.target])
    expected = sorted({*range(rec.sweep_from + 1), target, len(rec) - 1})
    assert narration.events(run).tolist() == expected


def test_phasts_captions_say_it_climbs_then_sweeps_levels(session):
    session.configs[0].method = "phast"
    run = session.runs[0]
    rec = run.result.recording
    assert "PHAST contracted the city's nodes into a hierarchy" in caption(run, 0)
    climb = caption(run, rec.sweep_from - 1)
    assert climb.startswith("The search up ends:") and "in one band, no threshold" in climb
    assert climb.endswith("the least over its arcs from the levels above.")
    steps = len(rec) - 1 - rec.sweep_from
    assert caption(run, rec.sweep_from).startswith(
        f"Sweep step 1 of {steps}: the "
    ) and f"contracted in level {steps} (the top level goes first)" in caption(run, rec.sweep_from)
    assert "up the hierarchy and through its core" in caption(run, len(rec) - 1)


def test_bellman_ford_and_dijkstra(session):
    run = _run("bellman_ford", None)
    assert "Bellman-Ford has no threshold" in caption(run, 1)
    session.configs[0].method = "dijkstra"
    assert caption(session.runs[0], 0).startswith("SciPy's Dijkstra settles one node at a time")


@pytest.mark.parametrize("frame", [0, 5, 40, 10_000])
def test_every_frame_of_the_default_has_one_caption(session, frame):
    text = caption(session.runs[0], frame)
    assert text and "\n" not in text


def test_an_adaptive_delta_says_how_it_moved():
    rule = AdaptiveDelta(1, 40, 2, phase_cost=100)  # no waste on a line: Δ doubles
    run = _run("near_far", rule)
    rec = run.result.recording
    ends = np.flatnonzero(np.diff(rec.column("phase")) > 0) + 1
    texts = [caption(run, int(k)) for k in ends]
    assert all("adaptive Δ" in t and "·Δ = " not in t for t in texts)
    assert any("widens from" in t or "narrows from" in t for t in texts)


def test_a_screen_reader_hears_the_caption_at_once_when_stepping_and_once_a_second_playing(
    session, monkeypatch
):
    clock = [100.0]
    monkeypatch.setattr(narration.time, "monotonic", lambda: clock[0])
    view = Caption(session)
    session.pause()
    session.seek(3)

    def spoken() -> str:
        return view._spoken.object

    assert 'aria-live="polite"' in spoken() and "Iteration 3:" in spoken()
    session.play()
    for frame, later in ((4, 0.0), (5, 0.5), (6, 0.6)):
        clock[0] += later
        session.seek(frame)
        assert f"Iteration {frame}:" in view._layout.object  # the page shows every frame
        assert narration.CAPTION_HEIGHT in view._layout.object  # a steady height, no relayout
    assert "Iteration 6:" in spoken()  # 1.1 s after frame 3; frames 4 and 5 were not read
    clock[0] += 0.2
    session.seek(7)
    assert "Iteration 6:" in spoken()
    session.pause()
    session.seek(8)
    assert "Iteration 8:" in spoken()


def test_describe_says_the_whole_frame(session):
    run = session.runs[0]
    rec = run.result.recording
    frame = int(np.flatnonzero(rec.column("phase") == 3)[0]) + 2  # near nodes in phase 3
    text = narration.describe(run, frame, session.loaded.geometry)
    s = rec.snapshot(frame)
    assert text.startswith(f"Frame {frame:,} of {run.n_frames - 1:,}, Near-Far, phase 3.")
    assert f"{s.settled:,} are settled, {s.near:,} near and {s.far:,} far" in text
    assert f"{s.unreached:,} are not reached yet" in text
    assert "The near nodes lie mostly" in text and "as the crow flies" in text
    assert text.endswith("The target is unreached.")
    last = narration.describe(run, run.n_frames - 1, session.loaded.geometry)
    assert "0 near" in last and last.endswith("The target is settled.")
    line = _run("near_far", 5)  # a graph without coordinates: no directions
    assert "lie mostly" not in narration.describe(line, 1, None)


def test_the_describe_button_answers_for_this_frame_only(session):
    view = narration.Describe(session)
    session.seek(10)
    view._button.clicks += 1
    assert 'role="status"' in view._text.object and "Frame 10 of" in view._text.object
    session.seek(11)
    assert view._text.object == ""


def test_presentation_captions_change_when_something_happens(session):
    """Issue 52: presentation mode's caption changed 20 times a second. Playing, it now
    tells the last phase end or the target's settling, and stays until the next; paused,
    it tells the frame on screen."""
    caption_view = Caption(session)
    run = session.runs[0]
    rec = run.result.recording
    phases = rec.frames[:, engine.recording.FRAME_FIELDS.index("phase")]
    ends = set((np.flatnonzero(np.diff(phases)) + 1).tolist())
    marks = ends | {0, run.n_frames - 1, int(rec.settled_at[run.result.target])}
    assert narration.events(run).tolist() == sorted(marks)
    session.presenting(True)
    assert session.present and session.playing
    shown, changes = caption_view._layout.object, []
    for frame in range(run.n_frames):
        session.seek(frame)
        if caption_view._layout.object != shown:
            shown = caption_view._layout.object
            changes.append(frame)
        told = max(m for m in marks if m <= frame)
        assert caption(run, told).split(":")[0] in shown  # "Iteration N" of the event
    assert set(changes) <= marks and len(changes) >= len(ends)
    assert len(changes) < run.n_frames / 4  # few enough to read
    session.seek(run.n_frames // 2 + 1)
    session.pause()
    assert caption(run, session.frame).split(":")[0] in caption_view._layout.object
    session.presenting(False)
