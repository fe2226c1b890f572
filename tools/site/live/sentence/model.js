/* Attention Lab · your own sentence — SmolLM2's forward pass over the GGUF's own blocks (runs inside the
 * engine's Worker).
 *
 * The arithmetic of helpers.real_model.forward, step for step and in the same precision:
 *   x = embed[id] (Q8_0 row, float32 values, carried as float64)
 *   per layer: h = x / √(mean(x²) + eps) · attn_norm                          float64
 *              q, k, v = h @ W (Q4_1, float64 sums); RoPE on q and k          float64
 *              p = softmax(q·k / √64 + causal mask) per head (GQA: 9 query heads, 3 KV heads)
 *              x += (p @ v, heads side by side) @ W_o                         float64
 *              g = x / √(mean(x²) + eps) · ffn_norm → float32
 *              x += (silu(g @ W_gate) · (g @ W_up)) @ W_down                  float32
 *   logits = (x / √(mean(x²) + eps) · output_norm → float32) @ embedᵀ        float32 (tied, Q8_0)
 * q and k stay in the GGUF's row order: llama.cpp's converter permuted each head's rows so that
 * RoPE's pairs are neighbours (2i, 2i+1) instead of (i, i + 32); rotating the neighbours here is
 * the rotation helpers.real_model applies after unpermute_qk, and a dot product of two heads does
 * not depend on the order of their dimensions.
 *
 * A row's numbers never depend on how many rows run together (kernel.c), so extending the text by
 * a few tokens through the KV cache gives the bits a full run gives. Attention rows of earlier
 * positions never change when text is added after them (the causal mask), so the maps are kept and
 * only new rows are computed.
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function model(E) {
  "use strict";
  var fround = Math.fround;

  /**
   * Where the activations of a model with `cfg` and room for `cap` positions lie in the heap, from
   * byte `start` on: {X, HN, Q, Z, O, H32, G, U, DOWN, FINAL, LOGITS, ROW, KC: [per layer], VC, end}.
   * The rows of the tokens being added, and each layer's KV cache (K after RoPE, V).
   */
  E.layout = function (cfg, cap, start) {
    var at = start, H = cfg.hidden, KV = cfg.kvHeads * cfg.headDim, F = cfg.ffn, out = { KC: [], VC: [] };
    function alloc(bytes) { var p = Math.ceil(at / 64) * 64; at = p + bytes; return p; }
    out.X = alloc(cap * H * 8); out.HN = alloc(cap * H * 8); out.Q = alloc(cap * H * 8); out.Z = alloc(cap * H * 8);
    out.O = alloc(cap * H * 8); out.H32 = alloc(cap * H * 4); out.G = alloc(cap * F * 4); out.U = alloc(cap * F * 4);
    out.DOWN = alloc(cap * H * 4); out.FINAL = alloc(cap * H * 4); out.LOGITS = alloc(cfg.vocab * 4);
    out.ROW = alloc(cap * F * 8 + F * 8);  // kernel scratch: the input rows in its tile order, then a row
    for (var l = 0; l < cfg.layers; l++) { out.KC.push(alloc(cap * KV * 8)); out.VC.push(alloc(cap * KV * 8)); }
    out.end = Math.ceil(at / 64) * 64;
    return out;
  };

  /**
   * The model over a heap whose bytes from `dataBase` on are the GGUF's tensor data (`cfg.dataBytes`
   * of them): `kern` from E.makeKernels, `cfg` from E.checkModel, `cap` the most positions it holds.
   */
  E.Model = function (cfg, kern, dataBase, cap) {
    var heap = kern.heap, k = kern.k;
    var H = cfg.hidden, KV = cfg.kvHeads * cfg.headDim, F = cfg.ffn, D = cfg.headDim;
    var NH = cfg.heads, GROUP = cfg.heads / cfg.kvHeads, L = cfg.layers, V = cfg.vocab;
    function ptr(name) { return dataBase + cfg.tensors[name].offset; }
    var f32 = new Float32Array(heap), f64 = new Float64Array(heap);
    var A = E.layout(cfg, cap, dataBase + cfg.dataBytes);
    if (A.end > heap.byteLength) throw new Error("heap too small: " + A.end + " > " + heap.byteLength);
    var X = A.X, HN = A.HN, Q = A.Q, Z = A.Z, O = A.O, H32 = A.H32, G = A.G, U = A.U, DOWN = A.DOWN;
    var FINAL = A.FINAL, LOGITS = A.LOGITS, ROW = A.ROW, KC = A.KC, VC = A.VC, l;

    var W = [];
    for (l = 0; l < L; l++) {
      var b = "blk." + l + ".";
      W.push({ q: ptr(b + "attn_q.weight"), k: ptr(b + "attn_k.weight"), v: ptr(b + "attn_v.weight"),
        o: ptr(b + "attn_output.weight"), gate: ptr(b + "ffn_gate.weight"), up: ptr(b + "ffn_up.weight"),
        down: ptr(b + "ffn_down.weight"), attnNorm: ptr(b + "attn_norm.weight") >> 2,
        ffnNorm: ptr(b + "ffn_norm.weight") >> 2 });
    }
    var EMBED = ptr("token_embd.weight"), EMBED_ROW = H / 32 * 34, OUT_NORM = ptr("output_norm.weight") >> 2;

    // RoPE: position · θ^(−2i/d) for the d/2 pairs, as helpers.layer.rope_angles
    var COS = new Float64Array(cap * D / 2), SIN = new Float64Array(cap * D / 2);
    for (var p = 0; p < cap; p++) {
      for (var i = 0; i < D / 2; i++) {
        var angle = p * Math.pow(cfg.ropeTheta, -(2 * i) / D);
        COS[p * D / 2 + i] = Math.cos(angle);
        SIN[p * D / 2 + i] = Math.sin(angle);
      }
    }
    var SCALE = 1 / Math.sqrt(D);
    var maps = new Float32Array(L * NH * cap * cap);  // row-major (layer, head, query, key), stride cap
    var ids = [];

    function rmsNorm(src, weight, out, outIs32) {  // one float64 row of H; src, weight, out: element indices
      var o = outIs32 ? f32 : f64, sum = 0;
      for (var j = 0; j < H; j++) sum += f64[src + j] * f64[src + j];
      var r = Math.sqrt(sum / H + cfg.eps);
      for (j = 0; j < H; j++) {
        var y = f64[src + j] / r * f32[weight + j];
        o[out + j] = outIs32 ? fround(y) : y;
      }
    }

    function rope(base, n, heads, first) {  // rows of `heads`·D float64 at byte offset base
      for (var t = 0; t < n; t++) {
        var c = (first + t) * D / 2;
        for (var h = 0; h < heads; h++) {
          var at = (base >> 3) + (t * heads + h) * D;
          for (var i = 0; i < D / 2; i++) {
            var x0 = f64[at + 2 * i], x1 = f64[at + 2 * i + 1];
            f64[at + 2 * i] = x0 * COS[c + i] + (-x1) * SIN[c + i];
            f64[at + 2 * i + 1] = x1 * COS[c + i] + x0 * SIN[c + i];
          }
        }
      }
    }

    var scores = new Float64Array(cap);
    function attend(layer, n, first) {  // the new rows' attention, into maps and Z
      var kc = KC[layer] >> 3, vc = VC[layer] >> 3, q = Q >> 3, z = Z >> 3;
      for (var t = 0; t < n; t++) {
        var pos = first + t;
        for (var h = 0; h < NH; h++) {
          var kvh = Math.floor(h / GROUP), qa = q + t * H + h * D, max = -Infinity;
          for (var j = 0; j <= pos; j++) {
            var ka = kc + j * KV + kvh * D, s = 0;
            for (var d = 0; d < D; d++) s += f64[qa + d] * f64[ka + d];
            scores[j] = s * SCALE;
            if (scores[j] > max) max = scores[j];
          }
          var total = 0;
          for (j = 0; j <= pos; j++) { scores[j] = Math.exp(scores[j] - max); total += scores[j]; }
          var row = ((layer * NH + h) * cap + pos) * cap, za = z + t * H + h * D;
          for (d = 0; d < D; d++) f64[za + d] = 0;
          for (j = 0; j <= pos; j++) {
            var w = scores[j] / total, va = vc + j * KV + kvh * D;
            maps[row + j] = w;
            for (d = 0; d < D; d++) f64[za + d] += w * f64[va + d];
          }
          for (j = pos + 1; j < cap; j++) maps[row + j] = 0;
        }
      }
    }

    /** Run `more` token ids after the ones already in (the KV cache holds those). */
    function extend(more) {
      var first = ids.length, n = more.length, x = X >> 3, t, j;
      if (first + n > cap) throw E.error("too-long", E.MESSAGES.tooLong(first + n, cap));
      if (n === 0) return;
      for (t = 0; t < n; t++) {
        k.q8_0_row(EMBED + more[t] * EMBED_ROW, H, ROW);
        for (j = 0; j < H; j++) f64[x + t * H + j] = f32[(ROW >> 2) + j];
      }
      for (var l = 0; l < L; l++) {
        var w = W[l], kRows = KC[l] + first * KV * 8, vRows = VC[l] + first * KV * 8;
        for (t = 0; t < n; t++) rmsNorm(x + t * H, w.attnNorm, (HN >> 3) + t * H, false);
        k.q4_1_matmul_f64(w.q, H, H, HN, n, Q, ROW);
        k.q4_1_matmul_f64(w.k, KV, H, HN, n, kRows, ROW);
        k.q4_1_matmul_f64(w.v, KV, H, HN, n, vRows, ROW);
        rope(Q, n, NH, first);
        rope(kRows, n, cfg.kvHeads, first);
        attend(l, n, first);
        k.q4_1_matmul_f64(w.o, H, H, Z, n, O, ROW);
        for (j = 0; j < n * H; j++) f64[x + j] += f64[(O >> 3) + j];
        for (t = 0; t < n; t++) rmsNorm(x + t * H, w.ffnNorm, (H32 >> 2) + t * H, true);
        k.q4_1_matmul_f32(w.gate, F, H, H32, n, G, ROW);
        k.q4_1_matmul_f32(w.up, F, H, H32, n, U, ROW);
        var g = G >> 2, u = U >> 2;
        for (j = 0; j < n * F; j++) {  // silu(gate) · up, float32 like numpy's
          var a = f32[g + j], silu = fround(a / fround(1 + fround(Math.exp(-a))));
          f32[g + j] = fround(silu * f32[u + j]);
        }
        k.q4_1_matmul_f32(w.down, H, F, G, n, DOWN, ROW);
        for (j = 0; j < n * H; j++) f64[x + j] += f32[(DOWN >> 2) + j];
      }
      for (t = 0; t < n; t++) rmsNorm(x + t * H, OUT_NORM, (FINAL >> 2) + (first + t) * H, true);
      for (t = 0; t < n; t++) ids.push(more[t]);
    }

    /** The next token's probabilities after the text so far: the `top` most likely {id, p}. */
    function nextTokens(top) {
      var last = ids.length - 1;
      k.q8_0_matvec_f32(EMBED, V, H, FINAL + last * H * 4, LOGITS, ROW);
      var lg = f32.subarray(LOGITS >> 2, (LOGITS >> 2) + V), max = -Infinity, j;
      for (j = 0; j < V; j++) {
        if (!isFinite(lg[j])) throw E.error("not-finite", E.MESSAGES.notFinite());
        if (lg[j] > max) max = lg[j];
      }
      var total = 0, best = [];
      for (j = 0; j < V; j++) total += Math.exp(lg[j] - max);
      for (j = 0; j < V; j++) {
        if (best.length < top || lg[j] > lg[best[best.length - 1]]) {
          best.push(j);
          best.sort(function (a, b) { return lg[b] - lg[a] || a - b; });
          if (best.length > top) best.pop();
        }
      }
      return best.map(function (id) { return { id: id, p: Math.exp(lg[id] - max) / total }; });
    }

    /** Every layer's and head's map over the current text, T × T each, in one new array. */
    function attention() {
      var T = ids.length, out = new Float32Array(L * NH * T * T);
      for (var m = 0; m < L * NH; m++) {
        for (var i = 0; i < T; i++) out.set(maps.subarray((m * cap + i) * cap, (m * cap + i) * cap + T), (m * T + i) * T);
      }
      return out;
    }

    return {
      cap: cap,
      ids: function () { return ids.slice(); },
      extend: extend,
      /** Keep the first `n` tokens (their cache rows and maps stay; later ones are forgotten). */
      truncate: function (n) { ids.length = n; },
      nextTokens: nextTokens,
      attention: attention,
      heapBytes: heap.byteLength,
    };
  };
});
