/* Attention Lab · 你自己的句子 — drawing: all heads as a grid of thumbnails, one head enlarged.
 *
 * Colours come from the page's data (sentence/page/__init__.py: matplotlib's viridis in 256 levels,
 * the notebooks' colormap, 0 → 1; masked cells in helpers.render.palette.MASKED; the selected head in
 * its ACCENT). The grid is one canvas holding every map at a few canvas pixels a cell, shown scaled
 * up unsmoothed, with HTML labels round it (270 SVG heatmaps would be 270 × R² elements; a canvas at
 * the screen's resolution, 30 MB at 2×, costs as much to clear and fill as a step of the model). The enlarged
 * head is an SVG in the live explorers' look: tokens on both axes, the axis titles, a colour bar
 * 权重; its coordinates are CSS pixels (the SVG is drawn at the width it is shown at), so no label is
 * smaller than MIN_FONT on any screen.
 */
(function () {
  "use strict";
  var P = self.AttnLabSentencePage = self.AttnLabSentencePage || {};
  var D = P.draw = {};
  var SVG = "http://www.w3.org/2000/svg";
  var MIN_FONT = 10, FONT = 12;

  function rgb(hex) { return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)]; }

  /** The colour table: {levels: [[r, g, b] × 256], masked: [r, g, b], accent, stops (11 hex for gradients)}. */
  D.colours = function (palette) {
    var levels = palette.levels.map(rgb), word = function (c) { return (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) >>> 0; };
    var little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;  // canvas bytes are r, g, b, a: as a word, a b g r
    return { levels: levels, masked: rgb(palette.masked), maskedHex: palette.masked, accent: palette.accent,
      words: little ? levels.map(word) : null, maskedWord: little ? word(rgb(palette.masked)) : null,
      stops: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(function (i) { return palette.levels[Math.round(i * 25.5)]; }) };
  };
  /** The level (0…255) a weight is drawn with. */
  D.level = function (w) { return Math.max(0, Math.min(255, Math.round(w * 255))); };

  function paint(data, at, colour) { data[at] = colour[0]; data[at + 1] = colour[1]; data[at + 2] = colour[2]; data[at + 3] = 255; }

  /** Map `m` (R × R, query rows) of `g` into `img` at (ox, oy), one pixel a cell; future cells masked. */
  function fill(img, width, g, m, R, ox, oy, colours) {
    var at = m * R * R;
    for (var i = 0; i < R; i++) {
      for (var j = 0; j < R; j++) {
        var o = 4 * ((oy + i) * width + ox + j);
        paint(img.data, o, j > i ? colours.masked : colours.levels[D.level(g[at + i * R + j])]);
      }
    }
  }

  function fontFamily(el) { return getComputedStyle(el).fontFamily || "sans-serif"; }

  function label(parent, cls, text, style) {
    var d = document.createElement("div");
    d.className = cls;
    d.textContent = text;
    for (var k in style) d.style[k] = style[k];
    parent.appendChild(d);
    return d;
  }

  /**
   * The grid: rows are layers, columns heads, in `box` (its canvas, its labels, the box round the
   * `selected` head: layer × heads + head), at most `width` CSS pixels wide. The canvas holds every map at `scale` canvas pixels a cell
   * (enough that a map of a few tokens is not a blur) with a one-pixel gap, and the page shows it
   * at `pitch` CSS pixels a head, unsmoothed: one putImageData, however many heads. Returns its layout.
   */
  D.grid = function (box, canvas, mark, width, g, R, layers, heads, selected, colours) {
    var avail = Math.max(200, width - 2), left = 46, top = 24;
    var pitch = Math.max(32, Math.min(80, Math.floor((avail - left) / heads)));
    var scale = Math.max(1, Math.ceil(16 / R)), tile = R * scale + 1, w = heads * tile, h = layers * tile;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    canvas.style.width = heads * pitch + "px";
    canvas.style.height = layers * pitch + "px";
    canvas.style.left = left + "px";
    canvas.style.top = top + "px";
    box.style.width = left + heads * pitch + "px";
    box.style.height = top + layers * pitch + "px";
    var ctx = canvas.getContext("2d"), img = ctx.createImageData(w, h), data = img.data;
    var words = colours.words && new Uint32Array(data.buffer);  // a pixel a write where the bytes allow it
    for (var l = 0; l < layers; l++) {
      for (var k = 0; k < heads; k++) {
        var at = (l * heads + k) * R * R;
        for (var i = 0; i < R; i++) {
          for (var j = 0; j < R; j++) {
            var masked = j > i, v = masked ? 0 : D.level(g[at + i * R + j]);
            for (var a = 0; a < scale; a++) {
              var o = (l * tile + i * scale + a) * w + k * tile + j * scale;
              for (var b = 0; b < scale; b++, o++) {
                if (words) words[o] = masked ? colours.maskedWord : colours.words[v];
                else paint(data, 4 * o, masked ? colours.masked : colours.levels[v]);
              }
            }
          }
        }
      }
    }
    ctx.putImageData(img, 0, 0);
    if (box.dataset.labels !== layers + "×" + heads + "@" + pitch) {  // the labels, when the grid's shape changes
      box.dataset.labels = layers + "×" + heads + "@" + pitch;
      Array.prototype.slice.call(box.querySelectorAll(".al-s-grid-label")).forEach(function (e) { box.removeChild(e); });
      for (l = 0; l < layers; l++) {
        label(box, "al-s-grid-label al-s-grid-layer", "层 " + l, { top: top + l * pitch + "px", height: pitch + "px",
          lineHeight: pitch + "px", width: left - 6 + "px" });
      }
      for (k = 0; k < heads; k++) {
        label(box, "al-s-grid-label al-s-grid-head", "头 " + k, { left: left + k * pitch + "px", width: pitch + "px",
          height: top + "px", lineHeight: top + "px" });
      }
    }
    if (selected !== null && selected !== undefined) {
      mark.style.left = left + (selected % heads) * pitch - 2 + "px";
      mark.style.top = top + Math.floor(selected / heads) * pitch - 2 + "px";
      mark.style.width = mark.style.height = pitch * R * scale / tile + 4 + "px";
      mark.hidden = false;
    }
    return { left: left, top: top, pitch: pitch, tile: tile, scale: scale, layers: layers, heads: heads };
  };

  /** The head under a point of the canvas (CSS pixels from its corner; the gap after a thumbnail is
   *  its own, so a finger between two lands on one), or null outside the thumbnails. */
  D.gridHit = function (layout, x, y) {
    var k = Math.floor(x / layout.pitch), l = Math.floor(y / layout.pitch);
    if (k < 0 || l < 0 || k >= layout.heads || l >= layout.layers) return null;
    return { layer: l, head: k };
  };

  function el(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var key in attrs) if (attrs[key] !== undefined && attrs[key] !== null) e.setAttribute(key, attrs[key]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** How wide `text` is at `size` px: CJK and other wide characters one em, the rest about 0.6 em. */
  function width(text, size) {
    var w = 0;
    for (var i = 0; i < text.length; i++) w += text.charCodeAt(i) > 0x2e80 ? size : 0.6 * size;
    return w;
  }

  /** One map (R × R) as a small picture, a pixel a cell (the SVG scales it up, unsmoothed). */
  function picture(g, m, R, colours) {
    var c = document.createElement("canvas");
    c.width = R;
    c.height = R;
    var ctx = c.getContext("2d"), img = ctx.createImageData(R, R);
    fill(img, R, g, m, R, 0, 0, colours);
    ctx.putImageData(img, 0, 0);
    return c.toDataURL();
  }

  /**
   * Map `m` of `g` enlarged in `svg`: `labels` (one per run) on both axes, masked cells grey, the
   * colour bar. Drawn `available` CSS pixels wide (280 to 560). Returns its layout (D.headHit).
   */
  D.head = function (svg, available, g, m, R, labels, colours) {
    var W = Math.min(560, Math.max(280, available)), fs = FONT;
    var longest = Math.max.apply(null, labels.map(function (t) { return width(t, fs); }).concat([fs]));
    var labelW = Math.min(96, longest) + 6, bar = 60, left = 22 + labelW;
    var size = Math.min(W - left - bar - 4, 460), cell = size / R;
    var every = Math.max(1, Math.ceil(fs * 1.25 / cell));
    var across = labels.every(function (t, i) { return i % every || width(t, fs) <= cell * every - 2; });
    var under = across ? fs + 8 : Math.min(96, longest) + 10;
    var top = 6, H = top + size + under + 26;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    svg.style.fontFamily = fontFamily(svg);
    svg.appendChild(el("image", { x: left, y: top, width: size, height: size, href: picture(g, m, R, colours),
      preserveAspectRatio: "none", style: "image-rendering:pixelated", class: "al-s-cells" }));
    svg.appendChild(el("rect", { x: left, y: top, width: size, height: size, fill: "none", class: "al-s-axes" }));
    var ticks = el("g", { class: "al-s-ticks", "font-size": fs });
    labels.forEach(function (t, i) {
      if (i % every) return;
      var c = top + (i + 0.5) * cell, x = left + (i + 0.5) * cell, y = top + size + 4;
      ticks.appendChild(el("text", { x: left - 5, y: c, "text-anchor": "end", "dominant-baseline": "central", class: "al-s-ylabel" }, t));
      ticks.appendChild(el("text", across ? { x: x, y: y + fs, "text-anchor": "middle", class: "al-s-xlabel" }
        : { x: x, y: y, "text-anchor": "end", "dominant-baseline": "central", transform: "rotate(-90 " + x + " " + y + ")",
            class: "al-s-xlabel" }, t));
    });
    svg.appendChild(ticks);
    svg.appendChild(el("text", { x: left + size / 2, y: top + size + under + 18, "text-anchor": "middle",
      "font-size": fs, class: "al-s-axis-title" }, "键（被看的 token）"));
    svg.appendChild(el("text", { x: 12, y: top + size / 2, "text-anchor": "middle", "font-size": fs, class: "al-s-axis-title",
      transform: "rotate(-90 12 " + (top + size / 2) + ")" }, "查询（正在读的 token）"));
    // the colour bar: 0 at the bottom, 1 at the top, its caption read upwards
    var id = "al-s-bar-gradient", defs = el("defs"), grad = el("linearGradient", { id: id, x1: 0, y1: 1, x2: 0, y2: 0 });
    colours.stops.forEach(function (c, i) { grad.appendChild(el("stop", { offset: i / (colours.stops.length - 1), "stop-color": c })); });
    defs.appendChild(grad);
    svg.appendChild(defs);
    var bx = left + size + 10;
    svg.appendChild(el("rect", { x: bx, y: top, width: 10, height: size, fill: "url(#" + id + ")" }));
    [0, 0.5, 1].forEach(function (v) {
      svg.appendChild(el("text", { x: bx + 14, y: top + size - v * size, "dominant-baseline": "central", "font-size": MIN_FONT + 1 },
        String(v)));
    });
    svg.appendChild(el("text", { x: bx + 46, y: top + size / 2, "text-anchor": "middle", "font-size": fs,
      transform: "rotate(-90 " + (bx + 46) + " " + (top + size / 2) + ")" }, "权重"));
    var mark = el("rect", { width: cell, height: cell, fill: "none", stroke: colours.accent, "stroke-width": 2,
      visibility: "hidden", class: "al-s-mark" });
    svg.appendChild(mark);
    return { left: left, top: top, size: size, cell: cell, R: R, width: W, mark: mark };
  };

  /** The cell under a point of the enlarged head (CSS pixels from the SVG's corner), or null. */
  D.headHit = function (layout, x, y) {
    var j = Math.floor((x - layout.left) / layout.cell), i = Math.floor((y - layout.top) / layout.cell);
    if (i < 0 || j < 0 || i >= layout.R || j >= layout.R) return null;
    return { query: i, key: j };
  };

  /** Box the cell (or hide the box: null). */
  D.mark = function (layout, cell) {
    if (!cell) { layout.mark.setAttribute("visibility", "hidden"); return; }
    layout.mark.setAttribute("x", layout.left + cell.key * layout.cell);
    layout.mark.setAttribute("y", layout.top + cell.query * layout.cell);
    layout.mark.setAttribute("visibility", "visible");
  };
})();
