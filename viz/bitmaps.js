// The page's ImageURL glyphs (the large maps' frames) decoded off the main thread.
//
// BokehJS draws each frame's <img> onto the map's canvas, and Chromium decodes it on the
// renderer's main thread when the canvas is committed, ≈ 4 ms a 1,235 × 590 frame there, on
// the thread that also runs BokehJS and was the 1M-node city's limit (decisions/0040, issue
// 19). Here each new URL becomes an ImageBitmap, decoded on a worker thread, and the glyph
// draws that. The frame on show stays until a newer one is ready; one that is ready after a
// newer one is dropped. Installed once per page on BokehJS's own view (its private _set_data,
// loaders, resolved and image, as in BokehJS 3.9); where any of it is missing, Bokeh's own
// loading stays. The page counts the frames shown so (window.frontier_bitmaps) for
// bench/metro.py.
const ImageURL = typeof Bokeh.Models?.get === "function" ? Bokeh.Models.get("ImageURL") : null;
const View = ImageURL == null ? null : ImageURL.prototype.default_view;
if (View != null && !View.prototype.frontier_bitmaps && typeof createImageBitmap === "function") {
  const load = View.prototype._set_data;
  View.prototype.frontier_bitmaps = true;
  View.prototype._set_data = function (...args) {
    load.apply(this, args);
    if (this.inherited_url || this.loaders == null || this.resolved == null) {
      return;
    }
    for (let i = 0; i < this.loaders.length; i++) {
      const loader = this.loaders[i];
      if (loader == null) {
        continue;
      }
      const element = loader.image;
      const url = element.src;
      element.onload = element.onerror = null; // Bokeh's loader stops here
      element.removeAttribute("src");
      this.loaders[i] = null;
      this.resolved.set(i);
      this.frontier_asked = (this.frontier_asked ?? 0) + 1;
      const asked = this.frontier_asked;
      fetch(url)
        .then((response) => response.blob())
        .then((blob) => createImageBitmap(blob))
        .then((bitmap) => {
          this.frontier_shown ??= [];
          if (asked <= (this.frontier_shown[i] ?? 0)) {
            bitmap.close();
            return;
          }
          const old = this.image[i];
          this.frontier_shown[i] = asked;
          this.image[i] = bitmap;
          window.frontier_bitmaps = (window.frontier_bitmaps ?? 0) + 1;
          if (old != null && typeof old.close === "function") {
            old.close();
          }
          this.renderer.request_paint();
        })
        .catch((error) => console.warn("frontier: a map frame could not be decoded", error));
    }
  };
}
