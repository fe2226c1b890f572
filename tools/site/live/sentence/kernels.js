/* Attention Lab · your own sentence — the quantized products (runs inside the engine's Worker).
 *
 * Two implementations of the same five functions over one heap (an ArrayBuffer; pointers are byte
 * offsets into it): kernel.c compiled to WebAssembly SIMD (kernel_wasm.js holds its bytes), and a
 * plain JavaScript copy for a browser without WebAssembly SIMD, slower and bit for bit the same:
 * every float32 operation is rounded with Math.fround, and the sums use kernel.c's lanes and order.
 *
 *   q4_1_matmul_f64(w, rows, cols, x, n, y, row)  y[t][r] = Σ W[r][i]·x[t][i], float64 (attention)
 *   q4_1_matmul_f32(w, rows, cols, x, n, y, row)  the same in float32 (the MLP)
 *   q8_0_matvec_f32(w, rows, cols, x, y, row)     one row through a Q8_0 matrix (the lm_head)
 *   q4_1_row(w, cols, out), q8_0_row(w, cols, out) one row dequantized (float32)
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function kernels(E) {
  "use strict";
  var fround = Math.fround;

  /** f16 bits → the float it stands for (exact; table of all 65,536). */
  var HALF = (function () {
    var t = new Float32Array(65536);
    for (var h = 0; h < 65536; h++) {
      var e = (h >> 10) & 31, m = h & 1023, v;
      if (e === 0) v = m * Math.pow(2, -24);
      else if (e === 31) v = m ? NaN : Infinity;
      else v = (1024 + m) * Math.pow(2, e - 25);
      t[h] = h & 0x8000 ? -v : v;
    }
    return t;
  })();
  E.HALF = HALF;

  /** The plain-JavaScript kernels over `heap` (same names and arguments as the wasm exports). */
  function jsKernels(heap) {
    var u8 = new Uint8Array(heap), f32 = new Float32Array(heap), f64 = new Float64Array(heap);

    function q4_1_row(w, cols, out) {
      var o = out >> 2;
      for (var b = 0; b < cols / 32; b++, w += 20, o += 32) {
        var d = HALF[u8[w] | (u8[w + 1] << 8)], m = HALF[u8[w + 2] | (u8[w + 3] << 8)];
        for (var j = 0; j < 16; j++) {
          var q = u8[w + 4 + j];
          f32[o + j] = fround(fround(d * (q & 15)) + m);
          f32[o + 16 + j] = fround(fround(d * (q >> 4)) + m);
        }
      }
    }

    function q8_0_row(w, cols, out) {
      var o = out >> 2;
      for (var b = 0; b < cols / 32; b++, w += 34, o += 32) {
        var d = HALF[u8[w] | (u8[w + 1] << 8)];
        for (var j = 0; j < 32; j++) f32[o + j] = fround(((u8[w + 2 + j] << 24) >> 24) * d);
      }
    }

    // kernel.c's float32 sum: 16 lanes, then (l + l8) + (l4 + l12), then (s0 + s1) + (s2 + s3)
    function dot_f32(w, x, cols) {
      var a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
      var a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
      for (var i = 0; i < cols; i += 16) {
        var p = w + i, q = x + i;
        a0 = fround(a0 + fround(f32[p] * f32[q])); a1 = fround(a1 + fround(f32[p + 1] * f32[q + 1]));
        a2 = fround(a2 + fround(f32[p + 2] * f32[q + 2])); a3 = fround(a3 + fround(f32[p + 3] * f32[q + 3]));
        a4 = fround(a4 + fround(f32[p + 4] * f32[q + 4])); a5 = fround(a5 + fround(f32[p + 5] * f32[q + 5]));
        a6 = fround(a6 + fround(f32[p + 6] * f32[q + 6])); a7 = fround(a7 + fround(f32[p + 7] * f32[q + 7]));
        a8 = fround(a8 + fround(f32[p + 8] * f32[q + 8])); a9 = fround(a9 + fround(f32[p + 9] * f32[q + 9]));
        a10 = fround(a10 + fround(f32[p + 10] * f32[q + 10])); a11 = fround(a11 + fround(f32[p + 11] * f32[q + 11]));
        a12 = fround(a12 + fround(f32[p + 12] * f32[q + 12])); a13 = fround(a13 + fround(f32[p + 13] * f32[q + 13]));
        a14 = fround(a14 + fround(f32[p + 14] * f32[q + 14])); a15 = fround(a15 + fround(f32[p + 15] * f32[q + 15]));
      }
      var s0 = fround(fround(a0 + a8) + fround(a4 + a12)), s1 = fround(fround(a1 + a9) + fround(a5 + a13));
      var s2 = fround(fround(a2 + a10) + fround(a6 + a14)), s3 = fround(fround(a3 + a11) + fround(a7 + a15));
      return fround(fround(s0 + s1) + fround(s2 + s3));
    }

    // kernel.c's float64 sum: 8 lanes, then (l + l4) + (l2 + l6), then s0 + s1
    function dot_f64(w, x, cols) {
      var a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
      for (var i = 0; i < cols; i += 8) {
        var p = w + i, q = x + i;
        a0 += f64[p] * f64[q]; a1 += f64[p + 1] * f64[q + 1]; a2 += f64[p + 2] * f64[q + 2];
        a3 += f64[p + 3] * f64[q + 3]; a4 += f64[p + 4] * f64[q + 4]; a5 += f64[p + 5] * f64[q + 5];
        a6 += f64[p + 6] * f64[q + 6]; a7 += f64[p + 7] * f64[q + 7];
      }
      return ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7));
    }

    return {
      q4_1_row: q4_1_row,
      q8_0_row: q8_0_row,
      q4_1_matmul_f32: function (w, rows, cols, x, n, y, row) {
        var stride = cols / 32 * 20;
        for (var r = 0; r < rows; r++, w += stride) {
          q4_1_row(w, cols, row);
          for (var t = 0; t < n; t++) f32[(y >> 2) + t * rows + r] = dot_f32(row >> 2, (x >> 2) + t * cols, cols);
        }
      },
      q4_1_matmul_f64: function (w, rows, cols, x, n, y, row) {
        var stride = cols / 32 * 20, wide = (row >> 2) + cols + (cols & 1);
        for (var r = 0; r < rows; r++, w += stride) {
          q4_1_row(w, cols, row);
          for (var i = 0; i < cols; i++) f64[(wide >> 1) + i] = f32[(row >> 2) + i];
          for (var t = 0; t < n; t++) f64[(y >> 3) + t * rows + r] = dot_f64(wide >> 1, (x >> 3) + t * cols, cols);
        }
      },
      q8_0_matvec_f32: function (w, rows, cols, x, y, row) {
        var stride = cols / 32 * 34;
        for (var r = 0; r < rows; r++, w += stride) {
          q8_0_row(w, cols, row);
          f32[(y >> 2) + r] = dot_f32(row >> 2, x >> 2, cols);
        }
      },
    };
  }

  /** The kernel's bytes (kernel_wasm.js), decoded once. */
  function wasmBytes() {
    var s = atob(E.KERNEL_WASM), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }

  /** Whether this browser runs the SIMD kernel (WebAssembly with the SIMD proposal). */
  E.simdSupported = function () {
    try {
      return typeof WebAssembly === "object" && WebAssembly.validate(wasmBytes());
    } catch (e) {
      return false;
    }
  };

  var PAGE = 65536;

  /**
   * A heap of `bytes` bytes and the kernels over it: {heap, base, kind: "wasm-simd" | "js", k}.
   * `base` is the first byte the engine may use (below it: the kernel's own stack). `want` is
   * "auto" (SIMD when this browser has it), "wasm" or "js". Resolves; never hangs on a browser that
   * cannot compile the kernel (it falls back to "js" unless "wasm" was asked for).
   */
  E.makeKernels = function (bytes, want) {
    var fallback = function () {
      var heap = new ArrayBuffer(bytes);
      return { heap: heap, base: 0, kind: "js", k: jsKernels(heap) };
    };
    try {
      if (want === "js") return Promise.resolve(fallback());
      if (!E.simdSupported()) {
        if (want === "wasm") return Promise.reject(E.error("no-simd", E.MESSAGES.noSimd()));
        return Promise.resolve(fallback());
      }
      // below 1 MiB: the kernel's stack, then its table of every half's float (256 KB, kernel.c's init)
      var reserved = 1 << 20;
      var memory = new WebAssembly.Memory({ initial: Math.ceil((bytes + reserved) / PAGE) });
    } catch (err) {  // an ArrayBuffer or Memory this large refused: the caller says so
      return Promise.reject(err);
    }
    return WebAssembly.instantiate(wasmBytes(), { env: { memory: memory } }).then(function (made) {
      var x = made.instance.exports;
      if (x.__heap_base.value + 65536 * 4 + 16 > reserved) throw new Error("kernel stack and table above 1 MiB");
      x.init();
      return { heap: memory.buffer, base: reserved, kind: "wasm-simd", k: x };
    }, function () {
      if (want === "wasm") throw E.error("no-simd", E.MESSAGES.noSimd());
      return fallback();
    });
  };
  E.jsKernels = jsKernels;
});
