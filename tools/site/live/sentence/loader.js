/* Attention Lab · your own sentence — from a model file to a ready model (runs inside the engine's Worker).
 *
 * The file (a Blob / File, or an ArrayBuffer) is read in pieces: its header first (a few MB: the
 * metadata holds the vocabulary), checked (E.checkModel) before anything large is allocated, then
 * only the tensor data is copied into the kernel's heap, 8 MiB at a time, so a Blob never needs a
 * second whole copy in memory. The weights stay in their GGUF blocks (Q4_1 / Q8_0).
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function loader(E) {
  "use strict";
  var CHUNK = 8 << 20;

  function describe(x) {
    if (x === null) return "null";
    if (typeof x !== "object") return typeof x;
    return (x.constructor && x.constructor.name) || "object";
  }

  /** {size, read(a, b) → Promise<Uint8Array>} for a Blob, File or ArrayBuffer. */
  function reader(source) {
    if (source instanceof ArrayBuffer) {
      return { size: source.byteLength, read: function (a, b) { return Promise.resolve(new Uint8Array(source, a, b - a)); } };
    }
    if (typeof Blob !== "undefined" && source instanceof Blob) {
      return {
        size: source.size,
        read: function (a, b) {
          return source.slice(a, b).arrayBuffer().then(function (buf) {
            if (buf.byteLength !== b - a) throw E.error("truncated", E.MESSAGES.truncated(a + buf.byteLength, b));
            return new Uint8Array(buf);
          }, function (err) {
            throw E.error("read-failed", E.MESSAGES.readFailed(err && err.name ? err.name : String(err)));
          });
        },
      };
    }
    throw E.error("no-source", E.MESSAGES.noSource(describe(source)));
  }

  function header(file, length) {
    return file.read(0, length).then(function (bytes) {
      try {
        return E.parseGGUF(bytes, file.size);
      } catch (e) {
        if (e && e.more) return header(file, Math.min(file.size, length * 2));
        throw e;
      }
    });
  }

  /**
   * Load a model: `source` a Blob / File / ArrayBuffer; options {kernel: "auto" | "wasm" | "js",
   * maxTokens}; `progress({stage, done, total})` as bytes arrive. Resolves to
   * {model (E.Model), tokenizer (E.Tokenizer), cfg, kernel: "wasm-simd" | "js"}.
   */
  E.load = function (source, options, progress) {
    var file, cfg, kern, info, cap = options.maxTokens;
    try { file = reader(source); } catch (e) { return Promise.reject(e); }
    if (file.size === 0) return Promise.reject(E.error("empty", E.MESSAGES.emptyFile()));
    return header(file, Math.min(file.size, 4 << 20)).then(function (parsed) {
      info = parsed;
      cfg = E.checkModel(info, file.size);
      cfg.dataBytes = info.dataEnd - info.dataStart;
      var bytes = E.layout(cfg, cap, 0).end + cfg.dataBytes + 64;
      return E.makeKernels(bytes, options.kernel || "auto").catch(function (err) {
        if (err && err.code) throw err;
        throw E.error("no-memory", E.MESSAGES.noMemory(bytes));
      });
    }).then(function (made) {
      kern = made;
      var base = Math.ceil(kern.base / 64) * 64, heap = new Uint8Array(kern.heap), done = 0;
      function next() {
        if (done >= cfg.dataBytes) return base;
        var a = info.dataStart + done, b = Math.min(info.dataEnd, a + CHUNK);
        return file.read(a, b).then(function (bytes) {
          heap.set(bytes, base + done);
          done += bytes.length;
          progress({ stage: "read", done: done, total: cfg.dataBytes });
          return next();
        });
      }
      return next();
    }).then(function (base) {
      var tok = E.Tokenizer(info.meta["tokenizer.ggml.tokens"], info.meta["tokenizer.ggml.merges"],
        info.meta["tokenizer.ggml.token_type"]);
      var model = E.Model(cfg, kern, base, cap);
      return { model: model, tokenizer: tok, cfg: cfg, kernel: kern.kind };
    });
  };
});
