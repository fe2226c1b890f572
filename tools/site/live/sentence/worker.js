/* Attention Lab · your own sentence — the engine's side of the Worker: one message in, one answer out.
 *
 * A request is {id, op, args}; the answer {id, ok: true, result} or {id, ok: false, error: {code,
 * message}}, and while a model loads, {id, progress: {stage, done, total}}. Requests run one after
 * another in the order they came. Operations (client.js documents them for the page):
 *   load {source, options}   encode {text}   text {text}   run {ids}   update {ids}
 *   extend {ids}   truncate {n}   tokens {ids}
 * Results carry the attention maps as one transferred Float32Array (no copy on the way out).
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function worker(E) {
  "use strict";
  /** the most tokens a text may have (64: a sentence or two; see CONTRIBUTING for the measured cost) */
  E.MAX_TOKENS = 64;
  var loaded = null, loading = false;

  function need() {
    if (loading) throw E.error("loading", E.MESSAGES.loading());
    if (!loaded) throw E.error("not-loaded", E.MESSAGES.notLoaded());
    return loaded;
  }

  function checkIds(ids) {
    var m = need();
    if (!Array.isArray(ids) && !(ids instanceof Int32Array) && !(ids instanceof Uint32Array)) {
      throw E.error("bad-ids", E.MESSAGES.badIds("应是整数数组，收到的是 " + typeof ids));
    }
    ids = Array.from(ids);
    ids.forEach(function (id, i) {
      if (!Number.isInteger(id) || id < 0 || id >= m.cfg.vocab) {
        throw E.error("bad-ids", E.MESSAGES.badIds("第 " + (i + 1) + " 个是 " + id + "，应在 0～" + (m.cfg.vocab - 1) + " 之间"));
      }
    });
    if (ids.length > m.model.cap) throw E.error("too-long", E.MESSAGES.tooLong(ids.length, m.model.cap));
    return ids;
  }

  function tokens(m, ids) {
    var s = m.tokenizer.spell(ids);
    return { ids: ids, pieces: m.tokenizer.pieces(ids), labels: s.labels, runs: s.runs, texts: s.texts };
  }

  function encode(text) {
    var m = need();
    E.checkText(text);
    var ids = m.tokenizer.encode(text);
    if (ids.length > m.model.cap) throw E.error("too-long", E.MESSAGES.tooLong(ids.length, m.model.cap));
    var out = tokens(m, ids);
    out.notes = E.textNotes(m.tokenizer, text);
    return out;
  }

  /** What every run answers: the text's ids, each map, the next token's top 5. */
  function result(m, from, started) {
    var ids = m.model.ids(), out = { ids: ids, length: ids.length, from: from, layers: m.cfg.layers, heads: m.cfg.heads };
    if (ids.length) {
      out.attn = m.model.attention();
      out.top = m.model.nextTokens(5).map(function (t) {
        return { id: t.id, p: t.p, text: m.tokenizer.decode([t.id]), label: m.tokenizer.spell([t.id], true).labels[0] };  // sentence.next_label: ␣ kept
      });
    } else {
      out.attn = new Float32Array(0);
      out.top = [];
    }
    out.ms = performance.now() - started;
    return out;
  }

  /** Keep the longest common prefix of the text in the cache and the new ids; run the rest. */
  function update(m, ids, started) {
    var old = m.model.ids(), same = 0;
    while (same < old.length && same < ids.length && old[same] === ids[same]) same++;
    m.model.truncate(same);
    m.model.extend(ids.slice(same));
    return result(m, same, started);
  }

  var OPS = {
    load: function (args, post) {
      loading = true;
      loaded = null;
      var started = performance.now();
      return E.load(args.source, { kernel: args.options.kernel, maxTokens: args.options.maxTokens || E.MAX_TOKENS }, post)
        .then(function (m) {
          loaded = m;
          loading = false;
          var c = m.cfg;
          return {
            config: { layers: c.layers, heads: c.heads, kvHeads: c.kvHeads, hidden: c.hidden, headDim: c.headDim,
              ffn: c.ffn, vocab: c.vocab, ropeTheta: c.ropeTheta, eps: c.eps },
            vocab: { size: m.tokenizer.size, specials: m.tokenizer.specials },
            maxTokens: m.model.cap,
            kernel: m.kernel,
            heapBytes: m.model.heapBytes,
            notes: m.kernel === "js" && args.options.kernel !== "js" ? [E.note("slow-kernel", E.MESSAGES.slowKernel())] : [],
            ms: performance.now() - started,
          };
        }, function (err) {
          loading = false;
          throw err;
        });
    },
    encode: function (args) { return encode(args.text); },
    text: function (args) {
      var started = performance.now(), enc = encode(args.text), out = update(loaded, enc.ids, started);
      out.tokens = enc;
      return out;
    },
    run: function (args) {
      var started = performance.now(), ids = checkIds(args.ids);
      loaded.model.truncate(0);
      loaded.model.extend(ids);
      return result(loaded, 0, started);
    },
    update: function (args) { var started = performance.now(); return update(loaded, checkIds(args.ids), started); },
    extend: function (args) {
      var started = performance.now(), ids = checkIds(args.ids), from = loaded.model.ids().length;
      if (from + ids.length > loaded.model.cap) throw E.error("too-long", E.MESSAGES.tooLong(from + ids.length, loaded.model.cap));
      loaded.model.extend(ids);
      return result(loaded, from, started);
    },
    truncate: function (args) {
      var started = performance.now(), m = need(), length = m.model.ids().length;
      if (!Number.isInteger(args.n) || args.n < 0 || args.n > length) {
        throw E.error("bad-truncate", E.MESSAGES.truncateRange(args.n, length));
      }
      m.model.truncate(args.n);
      return result(m, args.n, started);
    },
    tokens: function (args) { return tokens(need(), checkIds(args.ids)); },
  };

  /** Answer requests arriving at `scope` (the Worker's global). */
  E.serve = function (scope) {
    var queue = Promise.resolve();
    scope.onmessage = function (event) {
      var msg = event.data;
      queue = queue.then(function () {
        var op = OPS[msg.op];
        if (!op) throw E.error("internal", E.MESSAGES.internal("未知操作 " + msg.op));
        return op(msg.args || {}, function (p) { scope.postMessage({ id: msg.id, progress: p }); });
      }).then(function (res) {
        scope.postMessage({ id: msg.id, ok: true, result: res }, res && res.attn ? [res.attn.buffer] : []);
      }, function (err) {
        var known = err && typeof err.code === "string";
        scope.postMessage({ id: msg.id, ok: false, error: {
          code: known ? err.code : "internal",
          message: known ? err.message : E.MESSAGES.internal(err && err.message ? err.message : String(err)),
        } });
      });
    };
    scope.postMessage({ hello: true, simd: E.simdSupported() });
  };
});
