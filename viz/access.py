"""Accessible names for the parts of Bokeh's widgets that render without one, and a focus
ring that shows where the keyboard is.

Bokeh draws a slider's handle as a ``role="slider"`` element with no name, a spinner's
arrows as empty buttons, and a checkbox or a select without a visible label as an unnamed
form element; axe-core counts each as a critical or serious violation, and a screen reader
says only "slider" or "button". `Accessible` gives each one the name a sighted user reads beside
it (the slider's title, the widget's label) or, where there is none, one given here by the
widget's CSS class. The widgets live in shadow roots that Bokeh renders and re-renders, so
the page looks for unnamed ones again each second (a walk of a few thousand elements).

Bokeh's own focus mark is a 1-pixel dotted light grey outline, and Panel's card headers have
none; every shadow root the walk meets also adopts `FOCUS_CSS`, a 3-pixel ring in the
palette's source blue (5.3:1 against white) around whatever has the keyboard focus. And
Bokeh draws a button anew when its label changes (Play becomes Pause), which drops the
focus on the page's body; the focus goes back to the control drawn in its place.
"""

from __future__ import annotations

import json

import panel as pn

#: The focus ring, in every shadow root of the page.
FOCUS_CSS = ":focus-visible { outline: 3px solid #0072b2 !important; outline-offset: 2px; }"

#: Names of unlabelled widgets, by a CSS class the app gives them (or one of their parents:
#: a Panel discrete slider's label is a sibling of its Bokeh slider).
NAMED = {
    "frontier-fps": "Playback speed",
    "frontier-loop": "Loop playback",
    "frontier-delta-slider": "Δ (log scale)",
    "frontier-batch-slider": "Batch size",
}


class Accessible(pn.custom.JSComponent):
    """Put on the page once: it names the unnamed controls of every widget and rings the
    focused one (see the module)."""

    _esm = (
        f"const NAMED = {json.dumps(NAMED)}, FOCUS_CSS = {json.dumps(FOCUS_CSS)};"
        + """
    const ring = new CSSStyleSheet();
    ring.replaceSync(FOCUS_CSS);
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
      if (root !== document && !root.adoptedStyleSheets.includes(ring))
        root.adoptedStyleSheets = [...root.adoptedStyleSheets, ring];
      const unnamed = root.querySelectorAll(
        '[role="slider"]:not([aria-label]), button.bk-spin-btn:not([aria-label]), ' +
        'input[type="checkbox"]:not([aria-label]), select:not([aria-label])');
      for (const el of unnamed) {
        const name = label(root, el);
        if (name) el.setAttribute("aria-label", name);
      }
      for (const el of root.querySelectorAll("*")) if (el.shadowRoot) fix(el.shadowRoot);
    }
    function refocus(e) {  // a focused control drawn anew: focus the one in its place
      const gone = e.composedPath()[0], root = gone.getRootNode && gone.getRootNode();
      if (!root || !root.host) return;
      setTimeout(() => {
        const now = document.activeElement;
        if (gone.isConnected || (now && now !== document.body)) return;
        const again = root.host.shadowRoot.querySelector(gone.tagName);
        if (again) again.focus();
      }, 0);
    }
    export function render({ model }) {
      if (!document.adoptedStyleSheets.includes(ring))
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, ring];
      fix(document);
      const timer = setInterval(() => fix(document), 1000);
      document.addEventListener("focusout", refocus);
      model.on("remove", () => {
        clearInterval(timer);
        document.removeEventListener("focusout", refocus);
      });
      return document.createElement("span");
    }
    """
    )


class PhoneViewport(pn.custom.JSComponent):
    """Put on the page once: the ``viewport`` meta tag Panel's page lacks, so that a phone
    lays the page out at its own width (390 px, say) instead of a desktop's 980 px shrunk."""

    _esm = """
    export function render() {
      if (!document.querySelector('meta[name="viewport"]')) {
        const meta = document.createElement("meta");
        meta.name = "viewport";
        meta.content = "width=device-width, initial-scale=1";
        document.head.appendChild(meta);
      }
      return document.createElement("span");
    }
    """
