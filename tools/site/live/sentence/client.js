/* Attention Lab · your own sentence — the page's side: SmolLM2-135M-Instruct in a Worker, behind promises.
 *
 * Load the engine's scripts (classic <script>s, in any order; sentence/__init__.py lists them and
 * bundles them into one file), then:
 *
 *   var engine = AttnLabSentence.create();
 *   engine.load(fileOrBlobOrArrayBuffer, {onProgress: function (p) {…}})   // p: {stage, done, total}
 *     → {config: {layers: 30, heads: 9, kvHeads: 3, hidden: 576, headDim: 64, ffn, vocab, ropeTheta, eps},
 *        vocab: {size, specials}, maxTokens: 64, kernel: "wasm-simd" | "js", notes, ms}
 *   engine.text("年假怎么申请？")        // encode + update in one call: what a text box calls on input
 *     → a Run (below) with .tokens = {ids, pieces, labels, runs, texts, notes}
 *   engine.encode(text)  → {ids, pieces, labels ("年·1/2", as helpers.real_model.token_labels), runs
 *                           ([start, stop) pieces spelling one character run), texts, notes}
 *   engine.run(ids)      → Run, computed from the first token
 *   engine.update(ids)   → Run: the tokens shared with the text already run are kept (KV cache),
 *                          the rest computed from the first token that differs (an edit in the
 *                          middle recomputes from the edit, typing at the end costs one token)
 *   engine.extend(ids)   → Run: `ids` added after the current text
 *   engine.truncateTo(n) → Run of the first n tokens (nothing recomputed)
 *   engine.terminate()
 *
 * A Run: {ids, length T, from (the first position computed by this call), layers, heads,
 *   attn: Float32Array of layers × heads × T × T (layer, head, query row, key column; rows sum to 1;
 *   AttnLabSentence.map(run, layer, head) is one T × T map), top: the 5 likeliest next tokens
 *   [{id, p, text (as helpers.real_model.decode), label}], ms}.
 *
 * A refusal rejects with an Error whose `code` names the case ("not-gguf", "truncated",
 * "other-model", "tensor-type", "empty-text", "too-long", "control", …) and whose message is one
 * Chinese sentence for the reader (messages.js). Requests run in order; the page never freezes
 * (all the work is in the Worker, made from a Blob URL so that file:// pages can start it).
 */
(function () {
  "use strict";
  var NS = self.AttnLabSentence = self.AttnLabSentence || { parts: [] };
  var E = {};
  function messages() {  // the sentences, from messages.js (loaded in any order before create())
    if (!E.MESSAGES) NS.parts.forEach(function (part) { if (part.name === "messages") part(E); });
    return E.MESSAGES;
  }

  /** The Worker's source: every part of the engine, then the message loop. */
  function workerSource() {
    return "\"use strict\";\nvar E = {};\n" + NS.parts.map(function (part) {
      return "(" + part.toString() + ")(E);\n";
    }).join("") + "E.serve(self);\n";
  }

  /** One T × T map of a Run: a view into run.attn (no copy). */
  NS.map = function (run, layer, head) {
    var T = run.length, at = (layer * run.heads + head) * T * T;
    return run.attn.subarray(at, at + T * T);
  };

  /** A new engine (its own Worker). options: {startTimeoutMs} (30 s: a Worker that never says hello). */
  NS.create = function (options) {
    options = options || {};
    messages();
    var pending = {}, next = 1, broken = null, worker = null, url = null, hello;
    var started = new Promise(function (resolve) { hello = resolve; });

    function fail(message) {
      if (broken) return;
      broken = E.error("worker-failed", message);
      Object.keys(pending).forEach(function (id) { pending[id].reject(broken); });
      pending = {};
      if (worker) worker.terminate();
      if (url) URL.revokeObjectURL(url);
    }

    try {
      url = URL.createObjectURL(new Blob([workerSource()], { type: "text/javascript" }));
      worker = new Worker(url);
    } catch (e) {
      broken = E.error("worker-failed", E.MESSAGES.workerFailed(e && e.message ? e.message : String(e)));
    }
    if (worker) {
      var watchdog = setTimeout(function () {
        fail(E.MESSAGES.workerFailed("后台线程 " + (options.startTimeoutMs || 30000) / 1000 + " 秒内没有启动"));
      }, options.startTimeoutMs || 30000);
      worker.onmessage = function (event) {
        var msg = event.data;
        if (msg.hello) {
          clearTimeout(watchdog);
          URL.revokeObjectURL(url);
          url = null;
          hello(msg);
          return;
        }
        var p = pending[msg.id];
        if (!p) return;
        if (msg.progress) { if (p.onProgress) p.onProgress(msg.progress); return; }
        delete pending[msg.id];
        if (msg.ok) p.resolve(msg.result);
        else p.reject(E.error(msg.error.code, msg.error.message));
      };
      worker.onerror = function (event) {
        event.preventDefault();
        clearTimeout(watchdog);
        fail(E.MESSAGES.workerFailed(event.message || "未知错误"));
      };
      worker.onmessageerror = function () { fail(E.MESSAGES.workerFailed("消息无法传递")); };
    }

    function call(op, args, transfer, onProgress) {
      if (broken) return Promise.reject(broken);
      return new Promise(function (resolve, reject) {
        var id = next++;
        pending[id] = { resolve: resolve, reject: reject, onProgress: onProgress };
        worker.postMessage({ id: id, op: op, args: args }, transfer || []);
      });
    }

    return {
      /** Resolves with {simd} once the Worker runs (calls made before then simply wait). */
      started: started,
      /**
       * Load the model from a File / Blob (read in pieces) or an ArrayBuffer (transferred: the
       * page's copy is emptied). options: {onProgress, kernel: "auto" | "wasm" | "js", maxTokens}.
       */
      load: function (source, opts) {
        opts = opts || {};
        var transfer = source instanceof ArrayBuffer ? [source] : [];
        return call("load", { source: source, options: { kernel: opts.kernel || "auto", maxTokens: opts.maxTokens } },
          transfer, opts.onProgress);
      },
      encode: function (text) { return call("encode", { text: text }); },
      text: function (text) { return call("text", { text: text }); },
      run: function (ids) { return call("run", { ids: ids }); },
      update: function (ids) { return call("update", { ids: ids }); },
      extend: function (ids) { return call("extend", { ids: ids }); },
      truncateTo: function (n) { return call("truncate", { n: n }); },
      /** {ids, pieces, labels, runs, texts} for token ids (e.g. a Run's ids). */
      tokens: function (ids) { return call("tokens", { ids: ids }); },
      terminate: function () { fail(E.MESSAGES.terminated()); },
    };
  };
})();
