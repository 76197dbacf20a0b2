// At most one played frame applied per rendering of the page.
//
// The player sends a frame every 1/30 s, but a frame's message that reaches the page while
// its main thread is still busy with the last one waits, and the two are applied in one
// task: the first is never painted (3–5 frames in 8 s of the 1M-node city here;
// decisions/0052, issue 19). Here a frame's batch of changes (the one that moves the
// player's pacing number, `sent`, which the server changes last in a frame's batch) is
// applied only once the page has rendered since the last such batch; one that comes sooner
// waits for the next rendering, and so do the batches behind it, in their order. A page that
// does not render (hidden) applies them on a timer. Installed once per page on BokehJS's
// Document.apply_json_patch; where that is missing, nothing changes.
const FALLBACK_MS = 100;

function moves_pacer(patch) {
  const events = patch?.events;
  return Array.isArray(events) && events.some((e) => e?.kind === "ModelChanged" && e.attr === "sent");
}

const docs = Bokeh.documents != null && typeof Bokeh.documents[Symbol.iterator] === "function"
  ? [...Bokeh.documents] : [];
const Doc = docs.length ? Object.getPrototypeOf(docs[0]) : null;
if (Doc != null && typeof Doc.apply_json_patch === "function" && !Doc.frontier_paced) {
  const apply = Doc.apply_json_patch;
  Doc.frontier_paced = true;

  // Apply queued batches in order up to and including the next frame's.
  function drain(doc, pace) {
    while (pace.queue.length) {
      const [patch, buffers, frame] = pace.queue.shift();
      try {
        apply.call(doc, patch, buffers);
      } catch (error) {
        console.error("frontier: a change from the server could not be applied", error);
      }
      if (frame) {
        wait_for_rendering(doc, pace);
        return;
      }
    }
  }

  // Mark the page as owing a rendering; once it has rendered, go on with the queue.
  function wait_for_rendering(doc, pace) {
    pace.rendered = false;
    const turn = ++pace.turn;
    const go_on = () => {
      if (turn !== pace.turn || pace.rendered) {
        return;
      }
      clearTimeout(pace.timer);
      pace.rendered = true;
      drain(doc, pace);
    };
    // a task queued from an animation frame callback runs after that rendering
    requestAnimationFrame(() => setTimeout(go_on, 0));
    pace.timer = setTimeout(go_on, FALLBACK_MS);
  }

  Doc.apply_json_patch = function (patch, buffers) {
    const pace = (this.frontier_pace ??= { rendered: true, queue: [], turn: 0, timer: null });
    const frame = moves_pacer(patch);
    pace.queue.push([patch, buffers, frame]);
    if (pace.queue.length === 1 && (pace.rendered || !frame)) {
      drain(this, pace); // nothing ahead of it, and a frame only once the last is rendered
    }
  };
}
