/* Attention Lab · 你自己的句子 — the page: a text box, the model, and what is shown.
 *
 * At start the page shows the article's sentence as the build computed it in Python (the page's
 * data, sentence/page/__init__.py), drawn by the same code as a run of the model, so the page is
 * never blank and its numbers can be read before the model is there. The model comes from a
 * download (over http), a picked file (the GGUF or the wheel) or the browser's stored copy
 * (model_source.js); each load runs in a new engine, and the one already loaded is kept until the
 * new one is ready, so a wrong file changes nothing but the sentence saying so. Every key in the
 * text box asks the engine for the text (engine.text keeps the cache for the shared start: typing
 * at the end computes one token); while it computes, only the newest text waits.
 *
 * AttnLabSentencePage.view() returns the numbers on screen (for the tests and the benchmark):
 * tokens, grouped maps, scores, rankings, top 5, the head drawn, and counters of answers and frames.
 */
(function () {
  "use strict";
  var P = self.AttnLabSentencePage = self.AttnLabSentencePage || {};
  var RANKED = 10;
  var M, N, D, S, data, colours, box;
  var state = { source: "sample", run: null, view: null, selected: null, engine: null, info: null, how: null,
    busy: false, pending: null, answered: null, answers: 0, frames: 0, inputAt: null, drawnAt: null, grid: null, head: null,
    textError: null, modelError: null, loading: false };

  function $(id) { return document.getElementById(id); }
  function show(el, on) { el.hidden = !on; }
  function fmt(x) { return x === null || x === undefined ? "—" : x.toFixed(3); }

  function decode(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }
  function encode(array) {
    var bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength), s = "";
    for (var i = 0; i < bytes.length; i += 32768) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 32768));
    return btoa(s);
  }

  // ---- what is shown ---------------------------------------------------------------------------
  function setText(el, text) { el.textContent = text; show(el, !!text); }

  function status(text) { $("al-s-status").textContent = text; }

  function modelError(text) { state.modelError = text || null; setText($("al-s-model-error"), text || ""); }

  function textError(text) { state.textError = text || null; setText($("al-s-text-error"), text || ""); }

  function notes(list) {
    var ul = $("al-s-notes");
    ul.textContent = "";
    (list || []).forEach(function (n) {
      var li = document.createElement("li");
      li.textContent = n.message;
      li.dataset.code = n.code;
      ul.appendChild(li);
    });
    show(ul, (list || []).length > 0);
  }

  function progress(text, fraction) {
    show($("al-s-progress-box"), text !== null);
    if (text === null) return;
    $("al-s-progress").value = fraction;
    $("al-s-bytes").textContent = text;
  }

  function drawTokens() {
    var run = state.run, v = state.view, ol = $("al-s-tokens");
    $("al-s-tokens-caption").textContent = M.tokens(run.length, v.R) + M.source(state.source === "sample", run.ms);
    ol.textContent = "";
    v.runs.forEach(function (r, u) {
      var li = document.createElement("li"), text = document.createElement("span"), pieces = v.pieceLabels.slice(r[0], r[1]);
      li.className = "al-s-token";
      li.dataset.pieces = JSON.stringify(pieces);
      li.title = pieces.join("  ");
      text.className = "al-s-token-text";
      text.textContent = v.runLabels[u];
      li.appendChild(text);
      if (pieces.length > 1) {
        var n = document.createElement("span");
        n.className = "al-s-token-count";
        n.textContent = "\u00d7" + pieces.length;
        li.appendChild(n);
      }
      ol.appendChild(li);
    });
    var line = $("al-s-pieces");
    line.textContent = M.pieces();
    v.pieceLabels.forEach(function (label) {
      var span = document.createElement("span");
      span.className = "al-s-piece";
      span.textContent = label;
      line.appendChild(span);
    });
    show(line, v.R !== run.length);
  }

  function drawTop() {
    var ol = $("al-s-top");
    ol.textContent = "";
    state.run.top.forEach(function (t) {
      var li = document.createElement("li"), label = document.createElement("span"), bar = document.createElement("span");
      var p = document.createElement("span");
      li.dataset.id = t.id;
      li.dataset.p = t.p;
      label.className = "al-s-top-label";
      label.textContent = t.label;
      bar.className = "al-s-bar";
      bar.style.width = (100 * t.p).toFixed(1) + "%";
      p.className = "al-s-p";
      p.textContent = t.p.toFixed(3);
      var track = document.createElement("span");
      track.className = "al-s-track";
      track.appendChild(bar);
      li.appendChild(label);
      li.appendChild(track);
      li.appendChild(p);
      ol.appendChild(li);
    });
    // a cut character's bytes (80–FF; a control character's code, ‹0D›, is below 80)
    var cut = state.run.top.some(function (t) { return /\u2039([89A-F][0-9A-F])+\u203a/.test(t.label); });
    setText($("al-s-top-note"), cut ? M.cutCharacter() : "");
  }

  function scoreOf(name, m) { var s = state.view.scores[name]; return s ? s[m] : null; }

  function drawRanks() {
    ["previous", "sink"].forEach(function (name) {
      var holder = $("al-s-rank-" + name), ol = holder.querySelector("ol"), title = holder.querySelector(".al-s-rank-title");
      var order = state.view.ranking[name], heads = state.view.heads;
      ol.textContent = "";
      title.textContent = order ? M.rankTitle[name](RANKED)
        : (name === "previous" ? M.noScore.previous() : M.noScore.sink(data.sinkSkip));
      (order || []).forEach(function (m) {
        var li = document.createElement("li"), button = document.createElement("button"), value = document.createElement("span");
        var layer = Math.floor(m / heads), head = m % heads, track = document.createElement("span"), bar = document.createElement("span");
        li.dataset.layer = layer;
        li.dataset.head = head;
        li.dataset.score = state.view.scores[name][m];
        if (m === state.selected) li.className = "al-s-selected";
        button.type = "button";
        button.textContent = M.gridLabel(layer, head);
        button.addEventListener("click", function () { select(m, true); });
        track.className = "al-s-track";
        bar.className = "al-s-bar";
        bar.style.width = Math.max(0, Math.min(100, 100 * state.view.scores[name][m])).toFixed(1) + "%";
        track.appendChild(bar);
        value.className = "al-s-p";
        value.textContent = fmt(state.view.scores[name][m]);
        li.appendChild(button);
        li.appendChild(track);
        li.appendChild(value);
        ol.appendChild(li);
      });
    });
  }

  function drawGrid() {
    var v = state.view;
    state.grid = D.grid($("al-s-grid-box"), $("al-s-grid"), $("al-s-grid-mark"), width, v.grouped, v.R, v.layers, v.heads,
      state.selected, colours);
    $("al-s-grid-caption").textContent = M.grid(v.R);
  }

  function drawHead() {
    var v = state.view, m = state.selected, layer = Math.floor(m / v.heads), head = m % v.heads;
    var svg = $("al-s-head"), kv = Math.floor(head / (v.heads / data.kvHeads));
    state.head = D.head(svg, width, v.grouped, m, v.R, v.runLabels, colours);
    svg.dataset.layer = layer;
    svg.dataset.head = head;
    $("al-s-head-title").textContent = M.headTitle(layer, head, kv);
    $("al-s-head-readout").textContent = M.headScores(fmt(scoreOf("previous", m)), fmt(scoreOf("sink", m)));
    $("al-s-cell").textContent = M.cellHint();
  }

  function frame() {
    state.answers++;
    requestAnimationFrame(function () {
      state.frames++;
      state.drawnAt = performance.now();
    });
  }

  /** Show a Run (the engine's, or the sample's): everything redrawn. */
  function showRun(run, source) {
    var started = performance.now();
    state.run = run;
    state.source = source;
    state.view = N.view(run, data.sinkSkip, RANKED);
    if (state.selected === null || state.selected >= run.layers * run.heads) {
      // the first text's strongest previous-token head, where notebook 09's text box starts too
      state.selected = state.view.ranking.previous ? state.view.ranking.previous[0] : 0;
    }
    drawTokens();
    drawTop();
    drawGrid();
    drawHead();
    drawRanks();
    state.drawMs = performance.now() - started;
    frame();
  }

  function select(m, reveal) {
    if (m === state.selected) return;
    state.selected = m;
    drawGrid();
    drawHead();
    drawRanks();
    frame();
    var view = $("al-s-head-view").getBoundingClientRect();
    if (reveal && (view.bottom < 60 || view.top > window.innerHeight - 60)) {
      $("al-s-head-view").scrollIntoView({ block: "start", behavior: "smooth" });
    }
  }

  // ---- the model -------------------------------------------------------------------------------
  function busy(on) {
    state.loading = on;
    $("al-s-download").disabled = on;
    $("al-s-file").disabled = on;
  }

  /** Load `blob` into a new engine; the page's engine until now stays until it is ready. */
  function load(blob, how) {
    var engine = AttnLabSentence.create();
    progress(M.reading(0, blob.size), 0);
    return engine.load(blob, { onProgress: function (p) { progress(M.reading(p.done, p.total), p.done / p.total); } })
      .then(function (info) {
        if (state.engine) state.engine.terminate();
        state.engine = engine;
        state.info = info;
        state.how = how;
        progress(null);
        modelError("");
        status(M.ready(M.how[how], info.ms, info.kernel));
        textError("");
        request($("al-s-text").value);
        return info;
      }, function (err) {
        engine.terminate();
        progress(null);
        throw err;
      });
  }

  function keep(blob) {
    return S.store(blob).then(function () {
      show($("al-s-forget"), true);
      status($("al-s-status").textContent + M.saved());
    }, function (err) {
      status($("al-s-status").textContent + M.notSaved(err && err.message ? err.message : String(err)));
    });
  }

  function fail(err) {
    progress(null);
    modelError(err && err.message ? err.message : String(err));
    frame();
  }

  function download() {
    if (state.loading) return;
    busy(true);
    modelError("");
    var m = data.model;
    S.download(m.href, m.bytes, function (done, total) { progress(M.downloading(done, total), done / total); })
      .then(function (blob) { return load(blob, "download").then(function () { return keep(blob); }); })
      .catch(fail)
      .then(function () { busy(false); });
  }

  function picked() {
    var input = $("al-s-file"), file = input.files && input.files[0];
    if (!file || state.loading) return;
    busy(true);
    modelError("");
    S.open(file, data.model, function (done, total) { progress(M.unpacking(done, total), done / total); })
      .then(function (o) { return load(o.blob, o.wheel ? "wheel" : "file").then(function () { return keep(o.blob); }); })
      .catch(fail)
      .then(function () { busy(false); input.value = ""; });
  }

  function fromStore() {
    return S.stored().then(function (record) {
      if (!record || !record.blob) return;
      if (record.bytes !== data.model.bytes) return S.forget();  // the site now serves another file
      busy(true);
      status(M.fromStore());
      show($("al-s-forget"), true);
      return load(record.blob, "store").catch(function (err) {
        fail(err);
        status(M.sample(data.sample.text));
        return S.forget().then(function () { show($("al-s-forget"), false); });
      }).then(function () { busy(false); });
    });
  }

  function forget() {
    S.forget().then(function () {
      show($("al-s-forget"), false);
      status($("al-s-status").textContent + M.forgotten());
    });
  }

  // ---- the text ------------------------------------------------------------------------------
  function request(text) {
    state.pending = text;
    if (!state.busy) next();
  }

  function next() {
    if (state.pending === null || !state.engine) return;
    var text = state.pending, engine = state.engine;
    state.pending = null;
    state.busy = true;
    engine.text(text).then(function (run) {
      state.busy = false;
      state.answered = text;
      if (engine === state.engine) {
        textError("");
        notes(run.tokens.notes);
        showRun(run, "model");
      }
      next();
    }, function (err) {
      state.busy = false;
      state.answered = text;
      if (engine === state.engine) {
        textError(err.message + " " + M.stale());
        notes([]);
        frame();
      }
      next();
    });
  }

  function typed() {
    state.inputAt = performance.now();
    if (!state.engine) {
      textError(state.loading ? "" : M.needModel());
      return;
    }
    request($("al-s-text").value);
  }

  // ---- pointer and keys ------------------------------------------------------------------------
  function local(event, el) {
    var r = el.getBoundingClientRect(), scale = el.viewBox && el.viewBox.baseVal && el.viewBox.baseVal.width
      ? el.viewBox.baseVal.width / r.width : 1;
    return { x: (event.clientX - r.left) * scale, y: (event.clientY - r.top) * scale };
  }

  function gridPointer(event) {
    if (!state.grid) return;
    var at = local(event, $("al-s-grid")), hit = D.gridHit(state.grid, at.x, at.y);
    if (event.type === "click") {
      if (hit) select(hit.layer * state.view.heads + hit.head, true);
    } else {
      $("al-s-grid").title = hit ? M.gridLabel(hit.layer, hit.head) : "";
    }
  }

  function gridKey(event) {
    var v = state.view, m = state.selected, layer = Math.floor(m / v.heads), head = m % v.heads;
    var moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }, d = moves[event.key];
    if (!d) return;
    event.preventDefault();
    layer = Math.max(0, Math.min(v.layers - 1, layer + d[0]));
    head = Math.max(0, Math.min(v.heads - 1, head + d[1]));
    select(layer * v.heads + head, false);
  }

  function headPointer(event) {
    if (!state.head) return;
    var at = local(event, $("al-s-head")), hit = D.headHit(state.head, at.x, at.y), v = state.view;
    D.mark(state.head, hit);
    if (!hit) { $("al-s-cell").textContent = M.cellHint(); return; }
    var q = v.runLabels[hit.query], k = v.runLabels[hit.key];
    $("al-s-cell").textContent = hit.key > hit.query ? M.future(q, k)
      : M.cell(q, k, fmt(v.grouped[(state.selected * v.R + hit.query) * v.R + hit.key]));
  }

  // the width the pictures are drawn at: read once and on a resize (reading it after the lists
  // change would make the browser lay out the whole page before each drawing)
  var width = 0;
  function resized() {
    if (!state.view || box.clientWidth === width) return;
    width = box.clientWidth;
    drawGrid();
    drawHead();
  }

  // ---- start -----------------------------------------------------------------------------------
  function start() {
    var holder = $("al-s-data");
    if (!holder || !self.AttnLabSentence) return;
    M = P.MESSAGES;
    N = P.numbers;
    D = P.draw;
    S = P.source;
    data = JSON.parse(holder.textContent);
    colours = D.colours(data.palette);
    ["accent", "base", "muted", "button", "error"].forEach(function (role) {  // the style sheet's colours: helpers/render/palette.py
      document.documentElement.style.setProperty("--al-s-" + role, data.palette[role]);
    });
    box = $("al-s-grid-scroll");
    width = box.clientWidth;
    var sample = data.sample;
    sample.attn = decode(sample.attn);
    $("al-s-text").value = sample.text;
    status(M.sample(sample.text));
    showRun(sample, "sample");
    if (location.protocol === "file:") {
      show($("al-s-download"), false);
      $("al-s-pick-label").firstChild.textContent = M.pickOnly();
      status(M.sample(sample.text) + M.offline(data.model.file));
    }
    $("al-s-download").addEventListener("click", download);
    $("al-s-file").addEventListener("change", picked);
    $("al-s-forget").addEventListener("click", forget);
    $("al-s-text").addEventListener("input", typed);
    $("al-s-grid").addEventListener("click", gridPointer);
    $("al-s-grid").addEventListener("pointermove", gridPointer);
    $("al-s-grid").addEventListener("keydown", gridKey);
    $("al-s-head").addEventListener("pointermove", headPointer);
    $("al-s-head").addEventListener("pointerdown", headPointer);
    window.addEventListener("resize", resized);
    if (document.fonts && document.fonts.load) {  // the canvas draws its labels in the page's font once it is there
      document.fonts.load("12px " + getComputedStyle(box).fontFamily, "层头键查询权重年").then(function () { drawGrid(); drawHead(); });
    }
    fromStore().then(function () { document.documentElement.dataset.sentenceStore = "1"; });
    document.documentElement.dataset.sentenceReady = "1";
  }

  /** The numbers on screen (tests, benchmark): maps as base64 float64, little-endian, layers × heads × R × R. */
  P.view = function () {
    var v = state.view, run = state.run, m = state.selected, svg = $("al-s-head");
    return {
      source: state.source, text: $("al-s-text").value, ids: Array.from(run.ids), length: run.length, from: run.from,
      pieceLabels: v.pieceLabels, runLabels: v.runLabels, runs: v.runs, R: v.R, layers: v.layers, heads: v.heads,
      grouped: encode(v.grouped),
      scores: { previous: v.scores.previous && Array.from(v.scores.previous), sink: v.scores.sink && Array.from(v.scores.sink) },
      ranking: v.ranking, top: run.top, selected: { layer: Math.floor(m / v.heads), head: m % v.heads },
      drawn: { layer: Number(svg.dataset.layer), head: Number(svg.dataset.head) }, grid: state.grid,
      headLayout: state.head && { left: state.head.left, top: state.head.top, size: state.head.size, cell: state.head.cell },
      answers: state.answers, frames: state.frames, textError: state.textError, modelError: state.modelError,
      loaded: state.info ? { how: state.how, kernel: state.info.kernel, ms: state.info.ms } : null, loading: state.loading,
    };
  };
  /** When the last key was typed and the last frame after an answer was drawn (performance.now(), ms),
   *  how long the engine computed the last Run (engineMs, in its Worker) and the page took to group,
   *  score and draw it (drawMs);
   *  `answered`: the text the engine last answered (a Run or a refusal), `settled`: nothing waits. */
  P.timing = function () {
    return { inputAt: state.inputAt, drawnAt: state.drawnAt, drawMs: state.drawMs, engineMs: state.run && state.run.ms,
      frames: state.frames, answers: state.answers,
      answered: state.answered, settled: !state.busy && state.pending === null && !state.loading,
      painted: state.frames === state.answers };
  };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
