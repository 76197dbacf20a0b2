"""Accessible names for the parts of Bokeh's widgets that render without one.

Bokeh draws a slider's handle as a ``role="slider"`` element with no name, a spinner's
arrows as empty buttons, and a checkbox or a select without a visible label as an unnamed
form element; axe-core counts each as a critical or serious violation, and a screen reader
says only "slider" or "button". `Names` gives each one the name a sighted user reads beside
it (the slider's title, the widget's label) or, where there is none, one given here by the
widget's CSS class. The widgets live in shadow roots that Bokeh renders and re-renders, so
the page looks for unnamed ones again each second (a walk of a few thousand elements).
"""

from __future__ import annotations

import json

import panel as pn

#: Names of unlabelled widgets, by a CSS class the app gives them (or one of their parents:
#: a Panel discrete slider's label is a sibling of its Bokeh slider).
NAMED = {
    "frontier-fps": "Playback speed",
    "frontier-loop": "Loop playback",
    "frontier-delta-slider": "Δ (log scale)",
    "frontier-batch-slider": "Batch size",
}


class Names(pn.custom.JSComponent):
    """Put on the page once: it names the unnamed controls of every widget (see the module)."""

    _esm = (
        "const NAMED = "
        + json.dumps(NAMED)
        + """;
    function classed(el) {  // the name of a class in NAMED on el or above, across roots
      for (let n = el; n; n = n.parentElement || n.getRootNode().host) {
        for (const [cls, name] of Object.entries(NAMED))
          if (n.classList.contains(cls)) return name;
      }
      return "";
    }
    function label(root, el) {
      if (el.classList.contains("bk-spin-btn-up")) return "Increase";
      if (el.classList.contains("bk-spin-btn-down")) return "Decrease";
      const title = root.querySelector(".bk-slider-title");
      const titled = title ? title.textContent.split(":")[0].trim() : "";
      if (el.getAttribute("role") === "slider" && titled) return titled;
      const near = root.querySelector("label");
      return classed(el) || (near ? near.textContent.trim() : "");
    }
    function fix(root) {
      const unnamed = root.querySelectorAll(
        '[role="slider"]:not([aria-label]), button.bk-spin-btn:not([aria-label]), ' +
        'input[type="checkbox"]:not([aria-label]), select:not([aria-label])');
      for (const el of unnamed) {
        const name = label(root, el);
        if (name) el.setAttribute("aria-label", name);
      }
      for (const el of root.querySelectorAll("*")) if (el.shadowRoot) fix(el.shadowRoot);
    }
    export function render({ model }) {
      fix(document);
      const timer = setInterval(() => fix(document), 1000);
      model.on("remove", () => clearInterval(timer));
      return document.createElement("span");
    }
    """
    )
