// BokehJS's visuals read without the page's computed style.
//
// Before painting each line, fill, hatch or text, BokehJS looks for a CSS custom property
// overriding it (--bk-line-color and the like) with getComputedStyle on the view's element:
// a dozen lookups for each axis of a chart at every paint, ≈ 1,300 a second while the 1M-node
// city played, which also recalculated the style that each frame's new text had made stale,
// on the renderer's main thread that limits the frame rate (bench/NOTES.md, issue 19). This
// page sets no such property (nor do Bokeh's or Panel's style sheets), so every lookup found
// nothing: here they find nothing at once. The method is BokehJS 3.9's private
// VisualProperties._get_css_value, found through any view's visuals; where there is none,
// nothing changes.
const seen = new Set();
const index = Bokeh.index;
const views = index != null && typeof index[Symbol.iterator] === "function" ? [...index] : [];
let patched = false;
while (views.length && !patched) {
  const view = views.pop();
  if (view == null || seen.has(view)) {
    continue;
  }
  seen.add(view);
  const visuals = view.visuals;
  if (visuals != null && typeof visuals[Symbol.iterator] === "function") {
    for (const visual of visuals) {
      let proto = Object.getPrototypeOf(visual);
      while (proto != null && !Object.prototype.hasOwnProperty.call(proto, "_get_css_value")) {
        proto = Object.getPrototypeOf(proto);
      }
      if (proto != null) {
        proto._get_css_value = () => "";
        patched = true;
        break;
      }
    }
  }
  views.push(...(typeof view.children_views === "function" ? view.children_views() : []));
}
