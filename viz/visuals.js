// BokehJS's painting with fewer reads of the page's computed style.
//
// Every getComputedStyle after a frame's new text recalculates the style that text made
// stale, on the renderer's main thread that limits the frame rate (decisions/0040, issue
// 19). Two of BokehJS 3.9's private readers are changed here, each found through the page's
// views; where one is missing, nothing changes for it.
//
// - VisualProperties._get_css_value: before painting each line, fill, hatch or text,
//   BokehJS looks for a CSS custom property overriding it (--bk-line-color and the like), a
//   dozen lookups for each axis of a chart at every paint, ≈ 1,300 a second while the
//   1M-node city played. This page sets no such property (nor do Bokeh's or Panel's style
//   sheets), so every lookup found nothing: here they find nothing at once.
// - PlotView.base_font_size: each paint of a chart, even of its cursor alone, checks whether
//   its axes' labels changed size, which reads the plot's font size from the computed style,
//   ≈ 50 ms a second of the main thread while the city played. Here a plot reads it at most
//   once a second and reuses it in between.
const Plot = typeof Bokeh.Models?.get === "function" ? Bokeh.Models.get("Plot") : null;
const FONT_READ_EVERY_MS = 1000;

function cache_font_size(proto) {
  const read = Object.getOwnPropertyDescriptor(proto, "base_font_size")?.get;
  if (read == null || proto.frontier_font_cached) {
    return;
  }
  proto.frontier_font_cached = true;
  Object.defineProperty(proto, "base_font_size", {
    configurable: true,
    get() {
      const now = performance.now();
      if (this.frontier_font_at == null || now - this.frontier_font_at > FONT_READ_EVERY_MS) {
        this.frontier_font = read.call(this);
        this.frontier_font_at = now;
      }
      return this.frontier_font;
    },
  });
}

const seen = new Set();
const index = Bokeh.index;
const views = index != null && typeof index[Symbol.iterator] === "function" ? [...index] : [];
let css_patched = false;
let font_patched = Plot == null;
while (views.length && !(css_patched && font_patched)) {
  const view = views.pop();
  if (view == null || seen.has(view)) {
    continue;
  }
  seen.add(view);
  if (!font_patched && view.model instanceof Plot) {
    let proto = Object.getPrototypeOf(view);
    while (proto != null && !Object.prototype.hasOwnProperty.call(proto, "base_font_size")) {
      proto = Object.getPrototypeOf(proto);
    }
    if (proto != null) {
      cache_font_size(proto);
      font_patched = true;
    }
  }
  const visuals = view.visuals;
  if (!css_patched && visuals != null && typeof visuals[Symbol.iterator] === "function") {
    for (const visual of visuals) {
      let proto = Object.getPrototypeOf(visual);
      while (proto != null && !Object.prototype.hasOwnProperty.call(proto, "_get_css_value")) {
        proto = Object.getPrototypeOf(proto);
      }
      if (proto != null) {
        proto._get_css_value = () => "";
        css_patched = true;
        break;
      }
    }
  }
  views.push(...(typeof view.children_views === "function" ? view.children_views() : []));
}
