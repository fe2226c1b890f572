/* Attention Lab · your own sentence: the quantized products of SmolLM2's forward, as WebAssembly SIMD.
 *
 * Weights stay in the GGUF's own blocks (32 weights each) and are dequantized one row at a time with
 * gguf-py's float32 maths, the arithmetic helpers.real_model runs on the same file:
 *   Q4_1 (20 bytes: f16 d, f16 m, 16 bytes of nibbles; weight j < 16 is the low nibble of byte j,
 *         weight 16 + j the high nibble): w = f32(f32(d * q) + m)
 *   Q8_0 (34 bytes: f16 d, 32 int8): w = f32(q * d)
 * A row is dequantized once into `row` and then dotted with every input row (one read of the
 * weights serves T tokens). Sums run in fixed lanes, the same order for any T, so a token computed
 * alone (the KV-cache path) gets the bits it gets inside a longer run; kernels.js holds a plain
 * JavaScript copy of every function here with the same lanes and order (bit for bit the same
 * numbers), for a browser without WebAssembly SIMD.
 *
 * Pointers are byte offsets into the one memory the engine imports (no libc, no allocation here).
 * Rebuilt by `make sentence-wasm` (flags in build.py); tests/series/test_sentence_wasm.py checks
 * that the rebuild gives the committed kernel.wasm byte for byte.
 */
#include <wasm_simd128.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
#define EXPORT(name) __attribute__((export_name(#name)))

/* f16 → f32, exact for every finite half (subnormals too): the half's bits moved into a float's
 * place and the exponent bias fixed by one exact multiplication by 2^112. */
static inline float half(const u8 *p) {
  u32 h = (u32)p[0] | ((u32)p[1] << 8);
  u32 bits = (h & 0x7fffu) << 13;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  f *= 0x1p112f;
  __builtin_memcpy(&bits, &f, 4);
  bits |= (h & 0x8000u) << 16;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

/* 16 nibbles (one per byte of `q`) → w = d * q + m, as four vectors of 4 weights */
static inline void nibbles(v128_t q, v128_t d, v128_t m, v128_t *out) {
  v128_t lo = wasm_u16x8_extend_low_u8x16(q), hi = wasm_u16x8_extend_high_u8x16(q);
  out[0] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(wasm_u32x4_extend_low_u16x8(lo))), m);
  out[1] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(wasm_u32x4_extend_high_u16x8(lo))), m);
  out[2] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(wasm_u32x4_extend_low_u16x8(hi))), m);
  out[3] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(wasm_u32x4_extend_high_u16x8(hi))), m);
}

/* One Q4_1 block (20 bytes) → its 32 weights as 8 vectors, in order */
static inline void q4_1_block(const u8 *w, v128_t *out) {
  v128_t d = wasm_f32x4_splat(half(w)), m = wasm_f32x4_splat(half(w + 2));
  v128_t q = wasm_v128_load(w + 4);
  nibbles(wasm_v128_and(q, wasm_i8x16_splat(0x0f)), d, m, out);
  nibbles(wasm_u8x16_shr(q, 4), d, m, out + 4);
}

/* One Q8_0 block (34 bytes) → its 32 weights as 8 vectors, in order */
static inline void q8_0_block(const u8 *w, v128_t *out) {
  v128_t d = wasm_f32x4_splat(half(w));
  for (int h = 0; h < 2; h++) {
    v128_t q = wasm_v128_load(w + 2 + 16 * h);
    v128_t lo = wasm_i16x8_extend_low_i8x16(q), hi = wasm_i16x8_extend_high_i8x16(q);
    out[4 * h] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(lo)), d);
    out[4 * h + 1] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(lo)), d);
    out[4 * h + 2] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(hi)), d);
    out[4 * h + 3] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(hi)), d);
  }
}

/* One Q4_1 row of `cols` weights → out[0..cols-1] */
EXPORT(q4_1_row) void q4_1_row(const u8 *w, int cols, float *out) {
  v128_t v[8];
  for (int b = 0; b < cols / 32; b++, w += 20, out += 32) {
    q4_1_block(w, v);
    for (int j = 0; j < 8; j++) wasm_v128_store(out + 4 * j, v[j]);
  }
}

/* One Q8_0 row of `cols` weights → out[0..cols-1] */
EXPORT(q8_0_row) void q8_0_row(const u8 *w, int cols, float *out) {
  v128_t v[8];
  for (int b = 0; b < cols / 32; b++, w += 34, out += 32) {
    q8_0_block(w, v);
    for (int j = 0; j < 8; j++) wasm_v128_store(out + 4 * j, v[j]);
  }
}

/* The order of every sum below, whatever path computes it (and kernels.js's copy):
 * float32: Σ w[i]·x[i] in 16 lanes — a[k/4] lane k%4 sums i ≡ k (mod 16) in order of i — then
 *          s = (a0 + a2) + (a1 + a3) lane by lane, then (s0 + s1) + (s2 + s3);
 * float64: 8 lanes — a[k/2] lane k%2 sums i ≡ k (mod 8) — then s = (a0 + a2) + (a1 + a3), then s0 + s1.
 * Weights of one row always meet the accumulators in the same order, so a row fused with its
 * dequantization (one token) and a row read back from scratch (several tokens) agree bit for bit. */
#define ADD32(a, w, x) (a) = wasm_f32x4_add((a), wasm_f32x4_mul((w), wasm_v128_load(x)))
#define ADD64(a, w, x) (a) = wasm_f64x2_add((a), wasm_f64x2_mul((w), wasm_v128_load(x)))

static inline float sum32(v128_t a0, v128_t a1, v128_t a2, v128_t a3) {
  v128_t s = wasm_f32x4_add(wasm_f32x4_add(a0, a2), wasm_f32x4_add(a1, a3));
  return (wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1)) +
         (wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3));
}

static inline double sum64(v128_t a0, v128_t a1, v128_t a2, v128_t a3) {
  v128_t s = wasm_f64x2_add(wasm_f64x2_add(a0, a2), wasm_f64x2_add(a1, a3));
  return wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
}

/* 32 float32 weights (8 vectors) into the float32 lanes, against x[0..31] */
static inline void block32(const v128_t *v, const float *x, v128_t *a) {
  for (int j = 0; j < 8; j++) ADD32(a[j & 3], v[j], x + 4 * j);
}

/* 32 float32 weights, widened, into the float64 lanes, against x[0..31] */
static inline void block64(const v128_t *v, const double *x, v128_t *a) {
  for (int j = 0; j < 8; j++) {
    v128_t lo = wasm_f64x2_promote_low_f32x4(v[j]);
    v128_t hi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v[j], v[j], 2, 3, 0, 1));
    ADD64(a[(2 * j) & 3], lo, x + 4 * j);
    ADD64(a[(2 * j + 1) & 3], hi, x + 4 * j + 2);
  }
}

/* Dot products of one dequantized row (`w`, float32) with x[t], for n ≥ 1 tokens, two at a time */
static void rows32(const float *w, int cols, const float *x, int n, float *y, int ystride) {
  int t = 0;
  for (; t + 1 < n; t += 2) {
    const float *x0 = x + t * cols, *x1 = x0 + cols;
    v128_t a[4], b[4];
    for (int j = 0; j < 4; j++) a[j] = b[j] = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 4; j++) {
        v128_t wv = wasm_v128_load(w + i + 4 * j);
        ADD32(a[j], wv, x0 + i + 4 * j);
        ADD32(b[j], wv, x1 + i + 4 * j);
      }
    }
    y[t * ystride] = sum32(a[0], a[1], a[2], a[3]);
    y[(t + 1) * ystride] = sum32(b[0], b[1], b[2], b[3]);
  }
  if (t < n) {
    const float *x0 = x + t * cols;
    v128_t a[4];
    for (int j = 0; j < 4; j++) a[j] = wasm_f32x4_splat(0.0f);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 4; j++) ADD32(a[j], wasm_v128_load(w + i + 4 * j), x0 + i + 4 * j);
    }
    y[t * ystride] = sum32(a[0], a[1], a[2], a[3]);
  }
}

/* The same for a widened row (`w`, float64) and float64 tokens */
static void rows64(const double *w, int cols, const double *x, int n, double *y, int ystride) {
  int t = 0;
  for (; t + 1 < n; t += 2) {
    const double *x0 = x + t * cols, *x1 = x0 + cols;
    v128_t a[4], b[4];
    for (int j = 0; j < 4; j++) a[j] = b[j] = wasm_f64x2_splat(0.0);
    for (int i = 0; i < cols; i += 8) {
      for (int j = 0; j < 4; j++) {
        v128_t wv = wasm_v128_load(w + i + 2 * j);
        ADD64(a[j], wv, x0 + i + 2 * j);
        ADD64(b[j], wv, x1 + i + 2 * j);
      }
    }
    y[t * ystride] = sum64(a[0], a[1], a[2], a[3]);
    y[(t + 1) * ystride] = sum64(b[0], b[1], b[2], b[3]);
  }
  if (t < n) {
    const double *x0 = x + t * cols;
    v128_t a[4];
    for (int j = 0; j < 4; j++) a[j] = wasm_f64x2_splat(0.0);
    for (int i = 0; i < cols; i += 8) {
      for (int j = 0; j < 4; j++) ADD64(a[j], wasm_v128_load(w + i + 2 * j), x0 + i + 2 * j);
    }
    y[t * ystride] = sum64(a[0], a[1], a[2], a[3]);
  }
}

/* y[t][r] = Σ_i W[r][i] · x[t][i] for t < n, W a Q4_1 matrix (rows × cols), float32 throughout
 * (the MLP, which helpers.real_model runs in float32). One token: each block is dotted as it is
 * dequantized; more: each row is dequantized once into `row` (cols floats of scratch). */
EXPORT(q4_1_matmul_f32) void q4_1_matmul_f32(const u8 *w, int rows, int cols, const float *x, int n, float *y, float *row) {
  int stride = cols / 32 * 20;
  v128_t v[8], a[4];
  for (int r = 0; r < rows; r++, w += stride) {
    if (n == 1) {
      for (int j = 0; j < 4; j++) a[j] = wasm_f32x4_splat(0.0f);
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        block32(v, x + 32 * b, a);
      }
      y[r] = sum32(a[0], a[1], a[2], a[3]);
    } else {
      q4_1_row(w, cols, row);
      rows32(row, cols, x, n, y + r, rows);
    }
  }
}

/* The same in float64 (the attention projections, which helpers.real_model runs in float64 on the
 * exact float32 weights). `row`: cols floats, then cols doubles, of scratch (8-byte aligned). */
EXPORT(q4_1_matmul_f64) void q4_1_matmul_f64(const u8 *w, int rows, int cols, const double *x, int n, double *y, float *row) {
  int stride = cols / 32 * 20;
  double *wide = (double *)(row + cols + (cols & 1));
  v128_t v[8], a[4];
  for (int r = 0; r < rows; r++, w += stride) {
    if (n == 1) {
      for (int j = 0; j < 4; j++) a[j] = wasm_f64x2_splat(0.0);
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        block64(v, x + 32 * b, a);
      }
      y[r] = sum64(a[0], a[1], a[2], a[3]);
    } else {
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        for (int j = 0; j < 8; j++) {
          wasm_v128_store(wide + 32 * b + 4 * j, wasm_f64x2_promote_low_f32x4(v[j]));
          wasm_v128_store(wide + 32 * b + 4 * j + 2, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v[j], v[j], 2, 3, 0, 1)));
        }
      }
      rows64(wide, cols, x, n, y + r, rows);
    }
  }
}

/* y[r] = Σ_i W[r][i] · x[i] for one input row, W a Q8_0 matrix (the tied embedding as the lm_head,
 * float32 like helpers.real_model's logits); each block dotted as it is dequantized. `row` unused
 * (the plain-JavaScript copy's scratch). */
EXPORT(q8_0_matvec_f32) void q8_0_matvec_f32(const u8 *w, int rows, int cols, const float *x, float *y, float *row) {
  int stride = cols / 32 * 34;
  v128_t v[8], a[4];
  (void)row;
  for (int r = 0; r < rows; r++, w += stride) {
    for (int j = 0; j < 4; j++) a[j] = wasm_f32x4_splat(0.0f);
    for (int b = 0; b < cols / 32; b++) {
      q8_0_block(w + 34 * b, v);
      block32(v, x + 32 * b, a);
    }
    y[r] = sum32(a[0], a[1], a[2], a[3]);
  }
}
