/* Attention Lab: the book's explorers, live without Python.
 *
 * Every explorer on a page is a <div class="attnlab-live"> holding its data: gzip + base64 JSON
 * written by tools/site/live/live_pages.py (inline: no fetch, so file:// works). The data says
 * which controls it has (the Python explorer's own: kinds, values, labels, default) and either
 *   - "grid": every reachable state computed by the explorer's compute()/describe()/web_view() at
 *     build time (strings stored once, a state = indices), or
 *   - "formula": the name of a function below that recomputes a state from the controls (for a
 *     grid too large), and the explorer's texts as templates ("templates": its readout, written once
 *     in Python) that the function fills as describe() does; tests/series/test_live_site.py holds each
 *     to Python's compute() and describe() on random states.
 * One renderer (DRAW) draws every explorer's panels as SVG. Its producer is beside this file
 * (helpers/render/web/__init__.py), whose PANELS declares the panel kinds and the fields of each
 * once: DRAW.<kind> reads a panel as p (a line of lines as s), and tests/unit/test_web.py holds
 * what it reads to that declaration.
 * Nothing here names a colour: colours come with the data, from helpers/render/palette.py.
 */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

  // ---- numbers written exactly as Python's f"{x:.{d}f}" (helpers/render/format.py) -------------
  function fixed(x, d) {
    if (x === -Infinity) return "−∞";
    if (Object.is(x, -0)) return "-" + (0).toFixed(d);
    var s = x.toFixed(d);
    var exact = Math.abs(x) < 1e21 ? Math.abs(x).toFixed(Math.min(100, d + 60)) : null;
    if (exact !== null) {  // a tie in the exact binary value: Python rounds half to even, JS up
      var dot = exact.indexOf("."), tail = exact.slice(dot + 1 + d);
      if (/^50*$/.test(tail)) {
        var lastDigit = d === 0 ? exact.charAt(dot - 1) : exact.charAt(dot + d);
        if (Number(lastDigit) % 2 === 0) {  // round down (toward the even digit): truncate
          s = (x < 0 ? "-" : "") + exact.slice(0, d === 0 ? dot : dot + 1 + d);
        }
      }
    }
    return s;
  }
  function fmt(x, d) { return fixed(x, d === undefined ? 3 : d); }
  // helpers.render.format.unsigned_zeros: a number written as a negative zero ("-0.000") loses its sign
  // (whether a sum that cancels keeps it depends on the order of its additions, not on the lesson)
  function unsignedZeros(t) { return t.replace(/(^|[^\w.])-(?=0(?:\.0+)?(?![\w.]))/g, "$1"); }
  function fmtVec(v, d) { return "[" + v.map(function (x) { return fmt(x, d); }).join(", ") + "]"; }
  // a template's fields written from values by helpers.render.format.fill's rules: {name:.Nf} a number
  // or a vector with N decimals (a zero unsigned), {name[i]:.Nf} entry i of a vector, {name} a text;
  // {{ and }} braces
  function fill(template, values) {
    return template.replace(/\{\{|\}\}|\{(\w+)(?:\[(\d+)\])?(?::\.(\d+)f)?\}|[{}]/g, function (whole, name, index, digits) {
      if (whole === "{{" || whole === "}}") return whole.charAt(0);
      if (name === undefined) throw new Error("template has a lone " + whole + ": " + template);
      if (!values.hasOwnProperty(name)) throw new Error("template field " + whole + " has no value");
      var v = index === undefined ? values[name] : values[name][Number(index)];
      if (typeof v === "string") { if (digits !== undefined) throw new Error("template field " + whole + " gives decimals to a text"); return v; }
      if (digits === undefined) throw new Error("template field " + whole + " is a number: say its decimals");
      return unsignedZeros(Array.isArray(v) ? fmtVec(v, Number(digits)) : fmt(v, Number(digits)));
    });
  }

  // ---- small linear algebra for the formulas --------------------------------------------------
  function dot(a, b) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i] * b[i]; return s; }
  function vecMat(x, m) {  // x (n) @ m (n × k), summed in order like numpy's small matmul
    var out = [];
    for (var j = 0; j < m[0].length; j++) { var s = 0; for (var i = 0; i < x.length; i++) s += x[i] * m[i][j]; out.push(s); }
    return out;
  }
  function softmax(s) {
    var m = Math.max.apply(null, s), e = s.map(function (v) { return Math.exp(v - m); });
    var t = e.reduce(function (a, b) { return a + b; }, 0);
    return e.map(function (v) { return v / t; });
  }
  function largest(v) {  // helpers.render.panels.largest: every index of a tie
    var m = Math.max.apply(null, v), out = [];
    v.forEach(function (x, i) { if (x >= m - 1e-12) out.push(i); });
    return out;
  }
  function argmax(v) { var k = 0; for (var i = 1; i < v.length; i++) if (v[i] > v[k]) k = i; return k; }
  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function esc(t) { return String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }

  // ---- browser formulas: name → function(values, data) → {title, readout, panels} -------------
  var FORMULAS = {};
  var api = { fmt: fmt, fmtVec: fmtVec, fill: fill, dot: dot, vecMat: vecMat, softmax: softmax, argmax: argmax,
              clone: clone, formulas: FORMULAS };

  function sum(v) { var s = 0; for (var i = 0; i < v.length; i++) s += v[i]; return s; }
  function withValues(panel, values) { var p = clone(panel); p.values = values; return p; }

  // 01: helpers.weighting.normalise_weights and weighted_average
  FORMULAS.weighted_average = function (values, data) {
    var w = [values.w0, values.w1, values.w2, values.w3], top = Math.max.apply(null, w);
    if (top > 0) w = w.map(function (x) { return x / top; });
    var total = sum(w);
    w = total === 0 ? w.map(function () { return 1 / w.length; }) : w.map(function (x) { return x / total; });
    var vector = vecMat(w, data.X);
    return { state: { weights: w, vector: vector }, title: "",
             readout: fill(data.templates.readout, { total: sum(w), weights: w, vector: vector }),
             panels: [withValues(data.view.panels[0], w), withValues(data.view.panels[1], vector)] };
  };

  // 02: x → q, k, v through W_Q, W_K, W_V; the picker follows the sliders (QKVExplorer.matching_token)
  function matchingToken(x, data) {
    for (var t = 0; t < data.X.length; t++) {
      if (data.X[t].every(function (a, i) { return Math.abs(a - x[i]) <= 1e-8 + 1e-5 * Math.abs(x[i]); })) return t;  // np.allclose(row, x)
    }
    return -1;
  }
  FORMULAS.qkv = function (values, data, live) {
    var x = [values.x0, values.x1, values.x2, values.x3];
    var q = vecMat(x, data.W_Q), k = vecMat(x, data.W_K), v = vecMat(x, data.W_V), t = matchingToken(x, data);
    if (live && live.actionInputs) live.actionInputs.token.value = t < 0 ? data.tokens.length : t;
    var p = clone(data.view.panels[0]); p.vectors = [q, k, v];
    var named = t < 0 ? "" : fill(data.templates.named, { token: data.tokens[t] }), state = { x: x, q: q, k: k, v: v };
    return { state: state, title: fill(data.templates.title, { x: x, named: named }),
             readout: fill(data.templates.readout, state), panels: [p] };
  };
  FORMULAS.qkv.onAction = function (live, name, k) {
    if (k >= live.data.X.length) return;  // （自定义）loads nothing
    live.data.X[k].forEach(function (a, i) { live.index[i] = nearest(live.controls[i].values, a); });
  };
  function nearest(values, a) {
    var best = 0;
    for (var i = 1; i < values.length; i++) if (Math.abs(values[i] - a) < Math.abs(values[best] - a)) best = i;
    return best;
  }

  // 03: helpers.example.hand_row on 申请's q and every token's k, v (the picked token's row from the sliders)
  var KV = ["k1", "k2", "v1", "v2"];
  function handRows(values, data, extra) {
    var k = clone(extra.k || data.k0), v = clone(extra.v || data.v0), t = extra.token === undefined ? data.actions[0].default : extra.token;
    k[t] = [values.k1, values.k2]; v[t] = [values.v1, values.v2];
    return { k: k, v: v, t: t };
  }
  FORMULAS.hand_calculation = function (values, data, live) {
    var rows = handRows(values, data, (live && live.extra) || {}), q = [values.q1, values.q2];
    var dots = rows.k.map(function (kr) { return kr[0] * q[0] + kr[1] * q[1]; });
    var scores = dots.map(function (d) { return d * data.scale; }), top = Math.max.apply(null, scores);
    var shift = Math.abs(top) <= 700 ? 0 : top;
    var exps = scores.map(function (x) { return Math.exp(x - shift); }), total = sum(exps), weights = softmax(scores);
    var parts = rows.v.map(function (vr, i) { return [weights[i] * vr[0], weights[i] * vr[1]]; });
    var output = [sum(parts.map(function (p) { return p[0]; })), sum(parts.map(function (p) { return p[1]; }))];
    var vectors = parts.concat([output]), reach = 0, tail = [0, 0];
    vectors.forEach(function (vec, i) {  // helpers.render.panels.arrow_points (chain) → chain_zoom
      var from = i < vectors.length - 1 ? tail : [0, 0], to = [from[0] + vec[0], from[1] + vec[1]];
      if (i < vectors.length - 1) tail = to;
      reach = Math.max(reach, Math.abs(from[0]), Math.abs(from[1]), Math.abs(to[0]), Math.abs(to[1]));
    });
    var zoom = data.zooms[data.zooms.length - 1];
    for (var z = 0; z < data.zooms.length; z++) if (reach <= 0.92 * data.zooms[z]) { zoom = data.zooms[z]; break; }
    var bars = withValues(data.view.panels[0], weights); bars.highlight = largest(weights);
    var chain = clone(data.view.panels[1]); chain.vectors = vectors; chain.lim = [[-zoom, zoom], [-zoom, zoom]];
    var state = { dots: dots, scores: scores, exps: exps, total: total, weights: weights, parts: parts, output: output };
    return { state: state, title: "", readout: fill(data.templates.readout, state), panels: [bars, chain] };
  };
  FORMULAS.hand_calculation.onChange = function (live, i) {  // a k or v slider edits the picked token's row
    var name = live.controls[i].name;
    if (KV.indexOf(name) < 0) return;
    var rows = handRows(live.values(), live.data, live.extra);
    live.extra.k = rows.k; live.extra.v = rows.v; live.extra.token = rows.t;
  };
  FORMULAS.hand_calculation.onAction = function (live, name, t) {
    var rows = handRows(live.values(), live.data, live.extra);
    live.extra = { k: rows.k, v: rows.v, token: t };
    [rows.k[t][0], rows.k[t][1], rows.v[t][0], rows.v[t][1]].forEach(function (a, j) {
      var i = live.controls.map(function (c) { return c.name; }).indexOf(KV[j]);
      live.index[i] = nearest(live.controls[i].values, a);
    });
  };

  // ---- drawing ---------------------------------------------------------------------------------
  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    if (attrs && attrs["font-size"] !== undefined) e.style.fontSize = attrs["font-size"] + "px";  // over the stylesheet's size for the class
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function hexToRgb(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }
  function colourAt(stops, t) {  // t in 0…1 along the colormap's stops
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    var i = Math.min(stops.length - 2, Math.floor(t)), f = t - i, a = hexToRgb(stops[i]), b = hexToRgb(stops[i + 1]);
    return [0, 1, 2].map(function (c) { return Math.round(a[c] + f * (b[c] - a[c])); });
  }
  // matrices (helpers.render.web.cells: one byte a cell, 255 masked) as one small picture, a pixel a
  // cell, which the SVG <image> scales up crisp
  function levels(c) { var bin = atob(c.bytes), out = new Uint8Array(bin.length); for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i); return out; }
  function palette(p) {
    var lut = [];
    for (var v = 0; v < 255; v++) lut.push(colourAt(p.stops, v / 254));
    lut.push(hexToRgb(p.masked));
    return lut;
  }
  function matrixImage(mats, layout, p) {
    var canvas = document.createElement("canvas");
    canvas.width = layout.w; canvas.height = layout.h;
    var ctx = canvas.getContext("2d"), img = ctx.createImageData(layout.w, layout.h), lut = palette(p);
    mats.forEach(function (c, k) {
      var lv = levels(c), rows = c.shape[0], cols = c.shape[1], ox = layout.ox[k], oy = layout.oy[k];
      for (var i = 0; i < rows; i++) for (var j = 0; j < cols; j++) {
        var rgb = lut[lv[i * cols + j]], o = 4 * ((oy + i) * layout.w + ox + j);
        img.data[o] = rgb[0]; img.data[o + 1] = rgb[1]; img.data[o + 2] = rgb[2]; img.data[o + 3] = 255;
      }
    });
    ctx.putImageData(img, 0, 0);
    return canvas.toDataURL();
  }
  // ---- sizes: a panel is W units wide (a wide one, WIDE) and drawn no narrower than a 390 px phone's
  // column (~358 px), so no text is under MIN_FONT units there: 12 units ≥ 10.7 CSS px. A line of
  // text is ~1.5 em tall (a CJK font's ascent + descent): rows of MIN_FONT text are ROW apart, a
  // title's lines TITLE_LINE, so no two of them touch
  var W = 400, WIDE = 760, MIN_FONT = 12, TITLE_FONT = 14, ROW = 19, TITLE_LINE = 22;
  function textWidth(t, size) {  // about: a CJK character is one em, a Latin one a little over half
    var w = 0;
    t = String(t);
    for (var i = 0; i < t.length; i++) w += t.charCodeAt(i) > 0x2e80 ? size : 0.56 * size;
    return w;
  }
  function breakAt(t) {  // where a line too wide is cut: after a separator (· ， ；) or at a space, nearest the middle
    var best = -1;
    for (var i = 1; i < t.length - 1; i++) {
      var c = t.charAt(i), at = "·，；：、".indexOf(c) >= 0 ? i + 1 : c === " " ? i : -1;
      if (at > 0 && (best < 0 || Math.abs(at - t.length / 2) < Math.abs(best - t.length / 2))) best = at;
    }
    return best;
  }
  // a title as lines that fit `width`: its own line breaks (the still's), then a line too wide at
  // TITLE_FONT drawn smaller but never under MIN_FONT, then one still too wide cut in two
  function titleLines(title, width) {
    if (!title) return { lines: [], size: TITLE_FONT, height: 0 };
    var lines = String(title).split("\n"), size = TITLE_FONT, out = [];
    var widest = Math.max.apply(null, lines.map(function (t) { return textWidth(t, TITLE_FONT); }));
    if (widest > width) size = Math.max(MIN_FONT, TITLE_FONT * width / widest);
    lines.forEach(function (t) {
      var cut;
      while (textWidth(t, size) > width && (cut = breakAt(t)) > 0) { out.push(t.slice(0, cut).trim()); t = t.slice(cut).trim(); }
      out.push(t);
    });
    return { lines: out, size: size, height: TITLE_LINE * (out.length - 1) };
  }
  // title and axis labels round a plot box (under: room for the tick labels; width: the panel's)
  function frame(svg, box, p, under, width, title) {
    width = width || W;
    title = title || titleLines(p.title, width - 8);
    title.lines.forEach(function (line, i) {  // over the box, moved in where it would leave the panel
      var half = textWidth(line, title.size) / 2, x = Math.max(half + 2, Math.min(width - half - 2, box.x + box.w / 2));
      svg.appendChild(el("text", { x: x, y: 16 + i * TITLE_LINE, "text-anchor": "middle", class: "al-ptitle",
                                   "font-size": title.size !== TITLE_FONT ? title.size : undefined }, line));
    });
    if (p.xlabel) svg.appendChild(el("text", { x: box.x + box.w / 2, y: box.y + box.h + (under || 24) + 18, "text-anchor": "middle", class: "al-axlabel" }, p.xlabel));
    if (p.ylabel) svg.appendChild(el("text", { x: 14, y: box.y + box.h / 2, "text-anchor": "middle", class: "al-axlabel",
                                             transform: "rotate(-90 14 " + (box.y + box.h / 2) + ")" }, p.ylabel));
  }
  function scale(lo, hi, a, b, log) {
    if (log) { var L = Math.log(lo), H = Math.log(hi); return function (v) { return a + (Math.log(v) - L) / (H - L) * (b - a); }; }
    return function (v) { return a + (v - lo) / (hi - lo) * (b - a); };
  }
  function niceTicks(lo, hi) {
    var span = hi - lo, step = Math.pow(10, Math.floor(Math.log10(span / 4))), out = [];
    [1, 2, 2.5, 5, 10].some(function (m) { if (span / (step * m) <= 6) { step *= m; return true; } return false; });
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * span; v += step) {
      var r = Math.round(v / step) * step, digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
      out.push([r, r.toFixed(digits)]);
    }
    return out;
  }
  // the frame and its ticks; tick labels sit off the corner, as matplotlib's: the y labels centred on
  // their ticks, the x labels a full line under the axis, so those at a shared corner never meet
  function axes(svg, box, xs, ys, xticks, yticks) {
    svg.appendChild(el("rect", { x: box.x, y: box.y, width: box.w, height: box.h, class: "al-axes" }));
    (xticks || []).forEach(function (t) {
      var x = xs(t[0]);
      svg.appendChild(el("line", { x1: x, x2: x, y1: box.y + box.h, y2: box.y + box.h + 4, class: "al-tick" }));
      svg.appendChild(el("text", { x: x, y: box.y + box.h + 22, "text-anchor": "middle", class: "al-ticklabel" }, t[1]));
    });
    (yticks || []).forEach(function (t) {
      var y = ys(t[0]);
      svg.appendChild(el("line", { x1: box.x - 4, x2: box.x, y1: y, y2: y, class: "al-tick" }));
      svg.appendChild(el("text", { x: box.x - 7, y: y + 4, "text-anchor": "end", class: "al-ticklabel" }, t[1]));
    });
  }
  var COLORBAR = 52;  // the colour bar, its tick labels and its caption beside a matrix
  function colorbar(svg, p, x, y, h) {  // the colormap from vmax (top) to vmin, three ticks, its label
    var id = "al-cb-" + Math.random().toString(36).slice(2), defs = el("defs"), grad = el("linearGradient", { id: id, x1: 0, y1: 1, x2: 0, y2: 0 });
    p.stops.forEach(function (c, i) { grad.appendChild(el("stop", { offset: i / (p.stops.length - 1), "stop-color": c })); });
    defs.appendChild(grad); svg.appendChild(defs);
    svg.appendChild(el("rect", { x: x, y: y, width: 10, height: h, fill: "url(#" + id + ")" }));
    [p.vmin, (p.vmin + p.vmax) / 2, p.vmax].forEach(function (v) {
      var ty = y + h - (v - p.vmin) / (p.vmax - p.vmin) * h;
      svg.appendChild(el("text", { x: x + 13, y: ty + 4, class: "al-ticklabel" }, String(Math.round(v * 100) / 100)));
    });
    // the caption beside the bar, read upwards (as matplotlib's): clear of the ticks and of a long title
    if (p.colorbar) svg.appendChild(el("text", { x: x + 44, y: y + h / 2, "text-anchor": "middle", class: "al-ticklabel",
                                                 transform: "rotate(-90 " + (x + 44) + " " + (y + h / 2) + ")" }, p.colorbar));
  }
  // which of a matrix's axis labels are written: every shown one (a non-empty label) as long as
  // MIN_FONT text fits between neighbours, else every k-th of them
  function labelled(labels, cell) {
    var shown = [];
    labels.forEach(function (t, j) { if (t) shown.push(j); });
    var gap = shown.length > 1 ? Math.min.apply(null, shown.slice(1).map(function (j, i) { return j - shown[i]; })) : labels.length;
    var every = Math.max(1, Math.ceil(1.2 * MIN_FONT / (gap * cell)));
    return { at: shown.filter(function (_, k) { return k % every === 0; }), room: gap * every * cell };
  }
  // a legend entry's sample: a line (a curve, a reference line: dashed or dotted) or a dot
  function sample(svg, x, y, s) {
    svg.appendChild(s.dot ? el("circle", { cx: x + 9, cy: y - 4, r: 4, fill: s.color })
                          : el("line", { x1: x, x2: x + 18, y1: y - 4, y2: y - 4, stroke: s.color, "stroke-width": s.width || 2.5,
                                         "stroke-dasharray": s.dash || null }));
  }
  function dashes(d) { return d === "dotted" ? "1.5 2.5" : d ? "4 3" : null; }  // a reference line's [value, dashed, colour?, label?]
  var DRAW = {
    bars: function (svg, p) {
      var t = titleLines(p.title, W - 8), box = { x: 52, y: 32 + t.height, w: W - 64, h: 170 }, n = p.labels.length, lo = p.ylim[0], hi = p.ylim[1];
      var ys = scale(lo, hi, box.y + box.h, box.y), bw = box.w / n;
      var longest = Math.max.apply(null, p.labels.map(function (s) { return textWidth(s, MIN_FONT); }).concat([0]));
      var turn = longest > 0.9 * bw, under = turn ? 10 + longest : null;  // labels that would run into each other stand up
      svg.setAttribute("viewBox", "0 0 " + W + " " + (254 + t.height + (turn ? under - 24 : 0)));
      axes(svg, box, null, ys, null, niceTicks(lo, hi));
      var visible = p.visible === null ? n : p.visible, top = p.highlight === null ? [] : [].concat(p.highlight);  // a tie: several
      for (var i = 0; i < visible; i++) {
        var v = p.values[i], y0 = ys(Math.max(lo, 0)), y1 = ys(Math.min(hi, Math.max(lo, v)));
        var colour = top.indexOf(i) >= 0 ? p.accent : (p.colors ? p.colors[i] : p.color);
        svg.appendChild(el("rect", { x: box.x + i * bw + 0.15 * bw, width: 0.7 * bw, y: Math.min(y0, y1),
                                     height: Math.abs(y0 - y1), fill: colour }));
        var lx = box.x + (i + 0.5) * bw, ly = box.y + box.h + 6;
        svg.appendChild(el("text", turn ? { x: lx + MIN_FONT / 3, y: ly, "text-anchor": "end", class: "al-ticklabel",
                                            transform: "rotate(-90 " + (lx + MIN_FONT / 3) + " " + ly + ")" }
                                        : { x: lx, y: box.y + box.h + 18, "text-anchor": "middle", class: "al-ticklabel" },
                                   p.labels[i]));
        if (p.digits !== null) svg.appendChild(el("text", { x: box.x + (i + 0.5) * bw, y: Math.min(y0, y1) - 4,
                                                            "text-anchor": "middle", class: "al-value" }, fmt(v, p.digits)));
      }
      frame(svg, box, p, under, W, t);
    },
    heatmap: function (svg, p) {
      var rows = p.cells.shape[0], cols = p.cells.shape[1], lv = levels(p.cells);
      var label = 6 + Math.min(80, Math.max.apply(null, p.ylabels.map(function (t) { return textWidth(t, MIN_FONT); }).concat([6])));
      var t = titleLines(p.title, W - 8);
      var size = Math.min(W - 34 - label - (p.colorbar ? COLORBAR : 8), 330), cell = size / Math.max(rows, cols);
      var xs = labelled(p.xlabels, cell), ysh = labelled(p.ylabels, cell);
      var longest = Math.max.apply(null, xs.at.map(function (j) { return textWidth(p.xlabels[j], MIN_FONT); }).concat([0]));
      var turn = longest > 0.9 * xs.room;  // labels that would run into each other stand up
      var under = turn ? 8 + Math.min(80, longest) : 20;
      var box = { x: 28 + label, y: 28 + t.height, w: cell * cols, h: cell * rows };
      svg.setAttribute("viewBox", "0 0 " + W + " " + (box.y + box.h + under + (p.xlabel ? 30 : 8)));
      var href = matrixImage([p.cells], { w: cols, h: rows, ox: [0], oy: [0] }, p);
      svg.appendChild(el("image", { x: box.x, y: box.y, width: box.w, height: box.h, href: href,
                                    preserveAspectRatio: "none", style: "image-rendering:pixelated" }));
      ysh.at.forEach(function (i) {
        svg.appendChild(el("text", { x: box.x - 4, y: box.y + (i + 0.5) * cell + MIN_FONT / 3, "text-anchor": "end", class: "al-ticklabel" }, p.ylabels[i]));
      });
      xs.at.forEach(function (j) {
        var x = box.x + (j + 0.5) * cell, y = box.y + box.h + 4 + (turn ? 2 : MIN_FONT);
        svg.appendChild(el("text", turn ? { x: x + MIN_FONT / 3, y: y, "text-anchor": "end", class: "al-ticklabel",
                                            transform: "rotate(-90 " + (x + MIN_FONT / 3) + " " + y + ")" }
                                        : { x: x, y: y, "text-anchor": "middle", class: "al-ticklabel" }, p.xlabels[j]));
      });
      if ((p.hatch || []).length) {  // rows a figure marks as not meaningful: faded, hatched
        var pid = "al-hatch-" + Math.random().toString(36).slice(2), pdefs = el("defs");
        var pat = el("pattern", { id: pid, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
        pat.appendChild(el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: p.hatchcolor, "stroke-width": 1.5 }));
        pdefs.appendChild(pat); svg.appendChild(pdefs);
        p.hatch.forEach(function (i) {
          svg.appendChild(el("rect", { x: box.x, y: box.y + i * cell, width: box.w, height: cell, fill: "#ffffff", "fill-opacity": 0.6 }));
          svg.appendChild(el("rect", { x: box.x, y: box.y + i * cell, width: box.w, height: cell, fill: "url(#" + pid + ")" }));
        });
      }
      function cx(v) { return box.x + (v + 0.5) * cell; }  // matplotlib's cell coordinates: cell j centred at j
      function cy(v) { return box.y + (v + 0.5) * cell; }
      (p.vlines || []).forEach(function (v) { svg.appendChild(el("line", { x1: cx(v), x2: cx(v), y1: box.y, y2: box.y + box.h,
        stroke: p.markcolor, "stroke-width": 1, "stroke-dasharray": "4 3" })); });
      (p.hlines || []).forEach(function (v) { svg.appendChild(el("line", { x1: box.x, x2: box.x + box.w, y1: cy(v), y2: cy(v),
        stroke: p.markcolor, "stroke-width": 1, "stroke-dasharray": "4 3" })); });
      (p.marks || []).forEach(function (c) { svg.appendChild(el("circle", { cx: cx(c[1]), cy: cy(c[0]), r: Math.max(2.5, cell * 0.4),
        fill: "none", stroke: p.markcolor, "stroke-width": 1.1 })); });
      (p.numbers || []).forEach(function (c) {
        var v = lv[c[0] * cols + c[1]], light = v < 255 && v / 254 < 0.6;  // light text on the dark end
        svg.appendChild(el("text", { x: box.x + (c[1] + 0.5) * cell, y: box.y + (c[0] + 0.5) * cell + 4, "text-anchor": "middle",
                                     class: light ? "al-cell al-cell-light" : "al-cell" }, c[2]));
      });
      if (p.highlight !== null) svg.appendChild(el("rect", { x: box.x, y: box.y + p.highlight * cell, width: box.w, height: cell,
                                                             fill: "none", stroke: p.accent, "stroke-width": 2.5 }));
      if (p.colorbar) colorbar(svg, p, box.x + box.w + 8, box.y, box.h);
      frame(svg, box, { title: p.title, xlabel: p.xlabel, ylabel: p.ylabel }, under, W, t);
    },
    // one tile per matrix, cols to a row, across the whole column (WIDE); in a narrow one (a phone)
    // the layout p.narrow gives, fewer to a row, so that a tile stays as large
    tiles: function (svg, p, narrow) {
      var layout = narrow && p.narrow ? p.narrow : { cols: p.cols, row_labels: p.row_labels }, width = narrow ? W : WIDE;
      if (!narrow) svg.classList.add("al-wide");
      var k = p.cells.length, n = k ? p.cells[0].shape[0] : 0, cols = layout.cols, rows = Math.ceil(k / cols), labels = layout.row_labels || [];
      var left = labels.length ? 10 + Math.max.apply(null, labels.map(function (t) { return textWidth(t, MIN_FONT); })) : 0;
      var right = p.colorbar ? COLORBAR + 6 : 0, t = titleLines(p.title, width - 8);  // room for the row labels, the colour bar and its caption
      var pw = (n + 1) * cols - 1, ph = (n + 1) * rows - 1, cell = Math.min((width - 20 - left - right) / pw, (narrow ? 640 : 420) / ph);
      var box = { x: left + (width - left - right - cell * pw) / 2, y: 28 + t.height, w: cell * pw, h: cell * ph }, place = { w: pw, h: ph, ox: [], oy: [] };
      for (var h = 0; h < k; h++) { place.ox.push((h % cols) * (n + 1)); place.oy.push(Math.floor(h / cols) * (n + 1)); }
      var notes = p.note ? p.note.split("；") : [];  // a long note in short lines (a phone is 390 px wide)
      svg.setAttribute("viewBox", "0 0 " + width + " " + (box.y + box.h + 16 + ROW * notes.length));
      svg.appendChild(el("image", { x: box.x, y: box.y, width: box.w, height: box.h, href: matrixImage(p.cells, place, p),
                                    preserveAspectRatio: "none", style: "image-rendering:pixelated" }));
      var sep = Math.max(2.5, cell);  // as wide as the gap between tiles, never thinner than 2.5
      labels.forEach(function (text, r) {
        svg.appendChild(el("text", { x: box.x - 6, y: box.y + (r * (n + 1) + n / 2) * cell + 4, "text-anchor": "end", class: "al-ticklabel" }, text));
      });
      for (h = 0; h < k; h++) {  // a line between neighbours that read different K, V
        var r = Math.floor(h / cols), c = h % cols, g = Math.floor(h / p.group), u = (n + 1) * cell;
        if (c + 1 < cols && h + 1 < k && Math.floor((h + 1) / p.group) !== g) {
          var x = box.x + (c + 1) * u - cell / 2;
          svg.appendChild(el("line", { x1: x, x2: x, y1: box.y + r * u, y2: box.y + r * u + n * cell, stroke: p.separator, "stroke-width": sep }));
        }
        if (h + cols < k && Math.floor((h + cols) / p.group) !== g) {
          var y = box.y + (r + 1) * u - cell / 2;
          svg.appendChild(el("line", { x1: box.x + c * u, x2: box.x + c * u + n * cell, y1: y, y2: y, stroke: p.separator, "stroke-width": sep }));
        }
      }
      if (p.colorbar) colorbar(svg, p, box.x + box.w + 8, box.y, Math.min(box.h, 300));
      notes.forEach(function (text, i) { svg.appendChild(el("text", { x: width / 2, y: box.y + box.h + 22 + ROW * i, "text-anchor": "middle", class: "al-axlabel" }, text)); });
      frame(svg, box, { title: p.title }, null, width, t);
    },
    lines: function (svg, p) {
      var t = titleLines(p.title, W - 8), box = { x: 58, y: 32 + t.height, w: W - 72, h: 170 }, all = { x: [], y: [] };
      p.series.forEach(function (s) { all.x = all.x.concat(s.x.filter(function (v) { return v !== null; }));
                                      all.y = all.y.concat(s.y.filter(function (v) { return v !== null; })); });
      var xl = p.xlim || [Math.min.apply(null, all.x), Math.max.apply(null, all.x)];
      var yl = p.ylim || [Math.min.apply(null, all.y), Math.max.apply(null, all.y)];
      var xs = scale(xl[0], xl[1], box.x, box.x + box.w, p.xlog), ys = scale(yl[0], yl[1], box.y + box.h, box.y, p.ylog);
      // the legend: each labelled curve, then each labelled reference line (once per label)
      var entries = [], seen = {};
      if (p.legend) {
        p.series.forEach(function (s) { if (s.label) entries.push({ label: s.label, color: s.color, dot: s.marker && !s.line, dash: s.dash ? "5 3" : null }); });
        p.vlines.concat(p.hlines).forEach(function (r) {
          if (r[3] && !seen[r[3]]) { seen[r[3]] = true; entries.push({ label: r[3], color: r[2] || p.refcolor, dash: dashes(r[1]), width: r[1] === "dotted" ? 3.2 : 1.5 }); }
        });
      }
      var legendTop = box.y + box.h + (p.xlabel ? 66 : 48);  // the legend under the x caption, not on its line
      svg.setAttribute("viewBox", "0 0 " + W + " " + (entries.length ? legendTop + ROW * (entries.length - 1) + 8 : box.y + box.h + 52));
      axes(svg, box, xs, ys, p.xticks || (p.xlog ? null : niceTicks(xl[0], xl[1])), p.yticks || (p.ylog ? null : niceTicks(yl[0], yl[1])));
      var clip = "al-clip-" + Math.random().toString(36).slice(2);
      var defs = el("defs"), cp = el("clipPath", { id: clip });
      cp.appendChild(el("rect", { x: box.x, y: box.y, width: box.w, height: box.h })); defs.appendChild(cp); svg.appendChild(defs);
      var g = el("g", { "clip-path": "url(#" + clip + ")" }); svg.appendChild(g);
      // dotted reference lines wide and first: a dashed one at the same place is drawn over it, both seen
      function byStyle(a, b) { return (b[1] === "dotted") - (a[1] === "dotted"); }
      p.hlines.slice().sort(byStyle).forEach(function (h) { g.appendChild(el("line", { x1: box.x, x2: box.x + box.w, y1: ys(h[0]), y2: ys(h[0]), stroke: h[2] || p.refcolor,
                                                                 "stroke-dasharray": dashes(h[1]), "stroke-width": h[1] === "dotted" ? 3.2 : 1 })); });
      p.vlines.slice().sort(byStyle).forEach(function (v) { g.appendChild(el("line", { y1: box.y, y2: box.y + box.h, x1: xs(v[0]), x2: xs(v[0]), stroke: v[2] || p.refcolor,
                                                                 "stroke-dasharray": dashes(v[1]), "stroke-width": v[1] === "dotted" ? 3.2 : 1.2 })); });
      if (p.bars) {  // bars under the curves (07's scores, coloured by block)
        var bw = Math.abs(xs(1) - xs(0)) * 0.8, y0 = ys(0);
        p.bars.x.forEach(function (x, i) {
          var y1 = ys(p.bars.y[i]);
          g.appendChild(el("rect", { x: xs(x) - bw / 2, width: bw, y: Math.min(y0, y1), height: Math.abs(y1 - y0), fill: p.bars.colors[i] }));
        });
      }
      p.series.forEach(function (s) {
        if (s.marker) {
          s.x.forEach(function (x, i) { if (s.y[i] !== null) g.appendChild(el("circle", { cx: xs(x), cy: ys(s.y[i]), r: s.line ? 3 : 5, fill: s.color })); });
          if (!s.line) return;
        }
        var pts = [];
        if (s.step) {  // stairs: x holds the edges (one more than y)
          for (var i = 0; i < s.y.length; i++) { pts.push([xs(s.x[i]), ys(s.y[i])]); pts.push([xs(s.x[i + 1] !== undefined ? s.x[i + 1] : s.x[i]), ys(s.y[i])]); }
        } else {
          s.x.forEach(function (x, i) { if (s.y[i] !== null) pts.push([xs(x), ys(s.y[i])]); });
        }
        var d = pts.map(function (q, i) { return (i ? "L" : "M") + q[0].toFixed(1) + " " + q[1].toFixed(1); }).join("");
        if (s.fill && pts.length) {
          var base = ys(Math.max(yl[0], 0));
          g.appendChild(el("path", { d: d + "L" + pts[pts.length - 1][0].toFixed(1) + " " + base + "L" + pts[0][0].toFixed(1) + " " + base + "Z",
                                     fill: s.color, "fill-opacity": 0.85, stroke: "none" }));
        } else {
          g.appendChild(el("path", { d: d, fill: "none", stroke: s.color, "stroke-width": s.width, "stroke-dasharray": s.dash ? "5 3" : null }));
        }
      });
      entries.forEach(function (e, row) {
        var y = legendTop + ROW * row;
        sample(svg, box.x, y, e);
        svg.appendChild(el("text", { x: box.x + 24, y: y, class: "al-ticklabel" }, e.label));
      });
      frame(svg, box, p, null, W, t);
    },
    arrows: function (svg, p) {
      var yl = p.ylabel ? 24 : 0, xl = p.xlabel ? 20 : 0, t = titleLines(p.title, W - 8);  // room for the axis labels
      var lim = p.lim, k = Math.min((340 - yl) / (lim[0][1] - lim[0][0]), 300 / (lim[1][1] - lim[1][0]));  // equal x, y units
      var box = { x: yl + (W - yl - k * (lim[0][1] - lim[0][0])) / 2, y: 28 + t.height,
                                               w: k * (lim[0][1] - lim[0][0]), h: k * (lim[1][1] - lim[1][0]) };
      var xs = scale(lim[0][0], lim[0][1], box.x, box.x + box.w), ys = scale(lim[1][0], lim[1][1], box.y + box.h, box.y);
      var legend = Math.ceil(p.labels.length / 3);
      svg.setAttribute("viewBox", "0 0 " + W + " " + (box.y + box.h + 48 + xl + ROW * legend));
      axes(svg, box, xs, ys, niceTicks(lim[0][0], lim[0][1]), niceTicks(lim[1][0], lim[1][1]));
      svg.appendChild(el("line", { x1: xs(0), x2: xs(0), y1: box.y, y2: box.y + box.h, class: "al-zero" }));
      svg.appendChild(el("line", { x1: box.x, x2: box.x + box.w, y1: ys(0), y2: ys(0), class: "al-zero" }));
      var tail = [0, 0], n = p.vectors.length, ends = p.vectors.map(function (v, i) {
        var from = p.chain && i < n - 1 ? tail : [0, 0], to = [from[0] + v[0], from[1] + v[1]];
        if (p.chain && i < n - 1) tail = to;
        return [from, to];
      });
      var order = p.order || ends.map(function (_, i) { return i; });
      order.forEach(function (i) {  // drawing order: later on top
        var from = ends[i][0], to = ends[i][1];
        var x1 = xs(from[0]), y1 = ys(from[1]), x2 = xs(to[0]), y2 = ys(to[1]), w = p.widths ? p.widths[i] : 2.5;
        var a = Math.atan2(y2 - y1, x2 - x1), h = 9, len = Math.hypot(x2 - x1, y2 - y1);
        if (len < 0.5) return;  // a zero vector: its dot (below) shows it
        svg.appendChild(el("line", { x1: x1, y1: y1, x2: x2 - Math.cos(a) * Math.min(h, len) * 0.8, y2: y2 - Math.sin(a) * Math.min(h, len) * 0.8,
                                     stroke: p.colors[i], "stroke-width": w }));
        var hh = Math.min(h, len) + w;
        svg.appendChild(el("path", { d: "M" + x2 + " " + y2 + "L" + (x2 - hh * Math.cos(a - 0.4)) + " " + (y2 - hh * Math.sin(a - 0.4)) +
                                        "L" + (x2 - hh * Math.cos(a + 0.4)) + " " + (y2 - hh * Math.sin(a + 0.4)) + "Z", fill: p.colors[i] }));
      });
      // a dot at every tip, over the arrows (as the still's): each joint of a chain shows, a zero vector too
      order.forEach(function (i) {
        var from = ends[i][0], to = ends[i][1], zero = Math.hypot(xs(to[0]) - xs(from[0]), ys(to[1]) - ys(from[1])) < 0.5;
        svg.appendChild(el("circle", { cx: xs(to[0]), cy: ys(to[1]), r: zero ? 4 : 2.6, fill: p.colors[i], stroke: "#ffffff", "stroke-width": 0.8 }));
      });
      p.labels.forEach(function (text, i) {
        var x = 20 + (i % 3) * 128, y = box.y + box.h + 44 + xl + ROW * Math.floor(i / 3);
        svg.appendChild(el("line", { x1: x, x2: x + 16, y1: y - 4, y2: y - 4, stroke: p.colors[i], "stroke-width": 3 }));
        svg.appendChild(el("text", { x: x + 22, y: y, class: "al-ticklabel" }, text));
      });
      frame(svg, box, p, null, W, t);
    }
  };

  function drawPanels(host, panels, narrow) {
    var old = host.children;
    panels.forEach(function (p, i) {
      var svg = el("svg", { class: "al-svg al-" + p.kind, role: "img", "aria-label": p.title || p.kind });
      DRAW[p.kind](svg, p, narrow);
      if (old[i]) host.replaceChild(svg, old[i]); else host.appendChild(svg);
    });
    while (host.children.length > panels.length) host.removeChild(host.lastChild);
  }

  // ---- data ---------------------------------------------------------------------------------
  function b64bytes(text) {
    var bin = atob(text.trim()), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  // ---- a slider under a finger ------------------------------------------------------------------
  // A touch on a range input sets its value where it lands, before anyone knows whether it is a tap,
  // a drag along the slider or the start of a vertical swipe that scrolls the page (the CSS lets the
  // page pan vertically: touch-action: pan-y). So while a touch is undecided the slider's moves are
  // held back (the input shows the value it had): a move of SLOP px decides, along the slider a drag
  // (the held value, then every move, goes through), across it a scroll (nothing changes); a touch
  // that ends undecided is a tap and sets the value it landed on.
  var SLOP = 8;
  function touchSlider(input, set, current) {
    var touch = null;
    function held() { return touch && touch.mode !== "drag"; }
    input.addEventListener("input", function () {
      var k = Number(input.value);
      if (held()) { touch.value = k; input.value = current(); return; }
      set(k);
    });
    input.addEventListener("touchstart", function (e) {
      touch = { x: e.touches[0].clientX, y: e.touches[0].clientY, mode: "wait", value: null };
    }, { passive: true });
    input.addEventListener("touchmove", function (e) {
      if (!touch || touch.mode !== "wait") return;
      var dx = Math.abs(e.touches[0].clientX - touch.x), dy = Math.abs(e.touches[0].clientY - touch.y);
      if (Math.max(dx, dy) < SLOP) return;
      touch.mode = dx > dy ? "drag" : "scroll";
      if (touch.mode === "drag" && touch.value !== null) set(touch.value);
    }, { passive: true });
    function end() {
      var tap = touch && touch.mode === "wait" && touch.value !== null ? touch.value : null;
      touch = null;
      if (tap !== null) set(tap); else input.value = current();
    }
    input.addEventListener("touchend", end);
    input.addEventListener("touchcancel", function () { touch = null; input.value = current(); });
  }

  // ---- one explorer --------------------------------------------------------------------------
  function Live(root, data) {
    this.root = root; this.data = data; this.controls = data.controls;
    this.index = this.controls.map(function (c) { return c.default; });
    this.extra = {};  // what a formula keeps besides its controls (03's edited k, v rows)
    if (data.grid) this.grid = data.grid;
    this.build();
    this.show();
  }
  Live.prototype.key = function (index) { return index.join(","); };
  Live.prototype.has = function (index) { return !this.grid || this.grid.states.hasOwnProperty(this.key(index)); };
  Live.prototype.values = function () {
    var self = this, out = {};
    this.controls.forEach(function (c, i) { out[c.name] = c.values[self.index[i]]; });
    return out;
  };
  Live.prototype.state = function () {
    if (this.grid) {
      var s = this.grid.states[this.key(this.index)], strings = this.grid.strings, places = this.grid.places;
      return { title: strings[s[0]], readout: strings[s[1]], panels: s.slice(2).map(function (refs, i) {
        var place = places[i], p = {};  // the place's fields that never change, then this state's own
        for (var a in place.base) p[a] = place.base[a];
        place.keys.forEach(function (k, j) { p[k] = JSON.parse(strings[refs[j]]); });
        return p;
      }) };
    }
    return FORMULAS[this.data.formula](this.values(), this.data, this);
  };
  Live.prototype.build = function () {
    var self = this, root = this.root;
    var bar = document.createElement("div"); bar.className = "al-controls";
    this.inputs = this.controls.map(function (c, i) {
      var wrap = document.createElement("label"); wrap.className = "al-control al-" + c.kind;
      var name = document.createElement("span"); name.className = "al-label"; name.textContent = c.label;
      wrap.appendChild(name);
      var input, out = null;
      if (c.kind === "range") {
        input = document.createElement("input"); input.type = "range"; input.min = 0; input.max = c.values.length - 1; input.step = 1;
        input.setAttribute("aria-label", c.label);
        out = document.createElement("output"); out.className = "al-value-out";
        touchSlider(input, function (k) { self.change(i, k); }, function () { return self.index[i]; });
      } else if (c.kind === "check") {
        input = document.createElement("input"); input.type = "checkbox";
        input.addEventListener("change", function () { self.change(i, input.checked ? 1 : 0); });
      } else {
        input = document.createElement("select"); input.setAttribute("aria-label", c.label);
        c.shown.forEach(function (t, k) { var o = document.createElement("option"); o.value = k; o.textContent = t; input.appendChild(o); });
        input.addEventListener("change", function () { self.change(i, Number(input.value)); });
      }
      input.dataset.control = c.name;
      wrap.appendChild(input);
      if (out) wrap.appendChild(out);
      bar.appendChild(wrap);
      return { input: input, out: out };
    });
    (this.data.actions || []).forEach(function (a) {  // a formula's pickers (02, 03): they act through the formula
      var wrap = document.createElement("label"); wrap.className = "al-control al-select";
      var name = document.createElement("span"); name.className = "al-label"; name.textContent = a.label; wrap.appendChild(name);
      var input = document.createElement("select"); input.setAttribute("aria-label", a.label); input.dataset.action = a.name;
      a.shown.forEach(function (t, k) { var o = document.createElement("option"); o.value = k; o.textContent = t; input.appendChild(o); });
      input.value = a.default;
      input.addEventListener("change", function () { self.act(a.name, Number(input.value)); });
      wrap.appendChild(input); bar.insertBefore(wrap, bar.firstChild);
      self.actionInputs = self.actionInputs || {}; self.actionInputs[a.name] = input;
    });
    var reset = document.createElement("button"); reset.type = "button"; reset.className = "al-reset";
    reset.textContent = this.data.reset_label; reset.title = "把每个控件放回初始值";
    reset.addEventListener("click", function () { self.reset(); });
    bar.appendChild(reset);
    this.readout = document.createElement("div"); this.readout.className = "al-readout"; this.readout.setAttribute("aria-live", "polite");
    this.title = document.createElement("div"); this.title.className = "al-title";
    this.panels = document.createElement("div"); this.panels.className = "al-panels";
    root.appendChild(bar); root.appendChild(this.readout); root.appendChild(this.title); root.appendChild(this.panels);
  };
  // a control moved: if the combination is not one the explorer can show (05's query row past the
  // sequence, 06's KV heads not dividing the heads), every other control goes to its nearest
  // value below that is (what the Python explorer's observers do), else above
  Live.prototype.change = function (i, k) {
    var next = this.index.slice(); next[i] = k;
    if (this.grid && !this.has(next)) {
      for (var j = 0; j < next.length; j++) {
        if (j === i) continue;
        var best = null, c = this.controls[j];
        for (var d = 0; d < c.values.length && best === null; d++) {
          [next[j] - d, next[j] + d].forEach(function (v) {
            if (best === null && v >= 0 && v < c.values.length) { var t = next.slice(); t[j] = v; if (this.has(t)) best = v; }
          }, this);
        }
        if (best !== null) { next[j] = best; break; }
      }
    }
    if (!this.has(next)) { this.sync(); return; }
    this.index = next;
    if (this.data.formula && FORMULAS[this.data.formula].onChange) FORMULAS[this.data.formula].onChange(this, i);
    this.show();
  };
  // a column narrower than NARROW px (a phone's) takes a panel's narrow layout (06's tiles, fewer to a row)
  var NARROW = 560;
  Live.prototype.isNarrow = function () { var w = this.panels.clientWidth; return w > 0 && w < NARROW; };
  Live.prototype.act = function (name, k) {
    FORMULAS[this.data.formula].onAction(this, name, k);
    this.show();
  };
  Live.prototype.reset = function () {
    this.index = this.controls.map(function (c) { return c.default; });
    this.extra = {};
    var self = this;
    (this.data.actions || []).forEach(function (a) { self.actionInputs[a.name].value = a.default; });
    this.show();
  };
  Live.prototype.sync = function () {  // the inputs show this.index; a range's max is the last value reachable now
    var self = this;
    this.inputs.forEach(function (w, i) {
      var c = self.controls[i], k = self.index[i];
      if (c.kind === "range") {
        var top = c.values.length - 1;
        if (self.grid) while (top > 0) { var t = self.index.slice(); t[i] = top; if (self.has(t)) break; top--; }
        if (Number(w.input.max) !== top) w.input.max = top;
        if (Number(w.input.value) !== k) w.input.value = k;
        w.out.textContent = c.shown[k];
      } else if (c.kind === "check") {
        w.input.checked = !!k;
      } else {
        for (var o = 0; o < w.input.options.length; o++) {
          var t2 = self.index.slice(); t2[i] = o; w.input.options[o].disabled = !self.has(t2); w.input.options[o].hidden = !self.has(t2);
        }
        if (Number(w.input.value) !== k) w.input.value = k;
      }
    });
  };
  Live.prototype.show = function () {
    var t0 = performance.now();
    this.sync();
    var s = this.state();
    this.readout.innerHTML = s.readout;
    this.title.textContent = s.title || "";
    this.title.hidden = !s.title;
    this.narrow = this.isNarrow();
    drawPanels(this.panels, s.panels, this.narrow);
    this.root.dataset.renders = String(Number(this.root.dataset.renders || 0) + 1);
    this.root.dataset.key = this.key(this.index);
    this.lastDraw = performance.now() - t0;
    requestAnimationFrame(function () { api.frameAt = performance.now(); api.frames = (api.frames || 0) + 1; });
  };
  // for make bench (tools/site/live/live_bench.py): when the last key went down, when a frame followed a redraw
  document.addEventListener("keydown", function () { api.keyAt = performance.now(); }, true);

  function start() {
    var roots = document.querySelectorAll(".attnlab-live");
    var jobs = Array.prototype.map.call(roots, function (root) {
      var source = root.querySelector("script.al-data");
      return gunzip(b64bytes(source.textContent)).then(function (text) {
        var data = JSON.parse(text);
        root.live = new Live(root, data);
        root.classList.add("al-ready");
        // the cell's still picture and its "static preview" caption give way on screen (print keeps them)
        Array.prototype.forEach.call(root.parentNode.querySelectorAll(".cell_output, .attnlab-preview-caption"), function (e) {
          e.classList.add("al-replaced");
        });
      }).catch(function (err) {
        root.classList.add("al-failed");
        root.textContent = "（这个交互控件没能在这个浏览器里启动：" + err + "；下面是它的静态图。）";
        console.warn("attnlab live:", err);
      });
    });
    Promise.all(jobs).then(function () {
      api.readyAt = performance.now();
      document.documentElement.dataset.liveReady = String(roots.length);
    });
  }
  var resizing = null;  // a window turned or resized across NARROW: the panels drawn again in their layout
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      Array.prototype.forEach.call(document.querySelectorAll(".attnlab-live.al-ready"), function (root) {
        if (root.live.isNarrow() !== root.live.narrow) root.live.show();
      });
    }, 150);
  });
  window.AttnLabLive = api;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
