/* Attention Lab · your own sentence: the quantized products of SmolLM2's forward, as WebAssembly SIMD.
 *
 * Weights stay in the GGUF's own blocks (32 weights each) and are dequantized with gguf-py's float32
 * maths, the arithmetic helpers.real_model runs on the same file:
 *   Q4_1 (20 bytes: f16 d, f16 m, 16 bytes of nibbles; weight j < 16 is the low nibble of byte j,
 *         weight 16 + j the high nibble): w = f32(f32(d * q) + m)
 *   Q8_0 (34 bytes: f16 d, 32 int8): w = f32(q * d)
 * Sums run in fixed lanes, the same order for any number of tokens, so a token computed alone (the
 * KV-cache path) gets the bits it gets inside a longer run; kernels.js holds a plain JavaScript copy
 * of every product here with the same lanes and order (bit for bit the same numbers), for a browser
 * without WebAssembly SIMD.
 *
 * Tile order. Unpacking a block is most of the work (one token uses each weight once), so it is done
 * with the cheapest vector operations: 16 bytes read as four 32-bit lanes, byte s of every lane taken
 * at once by a shift and a mask. That gives the weights in "tile order": lane l of the vector for
 * byte s holds weight 4l + s, i.e. each 16 weights come out as a 4 × 4 tile read column by column.
 * The input is copied once per call into the same order (x transposed in 4 × 4 tiles), so a vector of
 * weights meets the inputs it multiplies; the sums below then give exactly the numbers of a
 * row read in its natural order (see "The order of every sum").
 *
 * Pointers are byte offsets into the one memory the engine imports (no libc, no allocation here).
 * Rebuilt by `make sentence-wasm` (flags in build.py); tests/series/test_sentence_wasm.py checks
 * that the rebuild gives the committed kernel.wasm byte for byte.
 */
#include <wasm_simd128.h>

typedef unsigned char u8;
typedef unsigned int u32;
#define EXPORT(name) __attribute__((export_name(#name)))

/* f16 → f32, exact for every finite half (subnormals too): the half's bits moved into a float's
 * place and the exponent bias fixed by one exact multiplication by 2^112. */
static float half_bits(u32 h) {
  u32 bits = (h & 0x7fffu) << 13;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  f *= 0x1p112f;
  __builtin_memcpy(&bits, &f, 4);
  bits |= (h & 0x8000u) << 16;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

/* Every half's float (256 KB), filled once by init() just above the kernel's stack (__heap_base, set
 * by the linker; the engine keeps the memory below 1 MiB for the kernel): a block's scales are then
 * table reads instead of bit arithmetic. */
extern u8 __heap_base;
static float *halves;

EXPORT(init) void init(void) {
  halves = (float *)(((unsigned long)&__heap_base + 15) & ~15ul);
  for (u32 h = 0; h < 65536; h++) halves[h] = half_bits(h);
}

/* the half at p (little-endian) in all four lanes */
static inline v128_t half(const u8 *p) {
  return wasm_v128_load32_splat(halves + ((u32)p[0] | ((u32)p[1] << 8)));
}

/* ---- tile order ------------------------------------------------------------------------------------ */

/* n rows of `cols` values (x, natural order) → out in tile order: out[16c + 4s + l] = x[16c + 4l + s] */
static void tile_f32(const float *x, int n, int cols, float *out) {
  for (int i = 0; i < n * cols; i += 16)
    for (int s = 0; s < 4; s++)
      for (int l = 0; l < 4; l++) out[i + 4 * s + l] = x[i + 4 * l + s];
}

static void tile_f64(const double *x, int n, int cols, double *out) {
  for (int i = 0; i < n * cols; i += 16)
    for (int s = 0; s < 4; s++)
      for (int l = 0; l < 4; l++) out[i + 4 * s + l] = x[i + 4 * l + s];
}

/* byte s of each 32-bit lane of q, as an integer 0…15 after the mask (shift and mask are constants
 * once inlined: two vector instructions) */
#define BYTE_BITS(q, shift, mask) wasm_v128_and(wasm_u32x4_shr((q), (shift)), wasm_i32x4_splat(mask))

/* One Q4_1 block (20 bytes) → its 32 weights as 8 vectors in tile order: v[s] lane l is weight
 * 4l + s (a low nibble), v[4 + s] lane l weight 16 + 4l + s (a high nibble). d·q is exact in float32
 * (11 bits times 4), so w = f32(d·q + m) rounds once, as gguf-py's does. */
static inline void q4_1_block(const u8 *w, v128_t *v) {
  v128_t d = half(w), m = half(w + 2);
  v128_t q = wasm_v128_load(w + 4);
  for (int s = 0; s < 4; s++) {
    v128_t lo = BYTE_BITS(q, 8 * s, 0x0f), hi = BYTE_BITS(q, 8 * s + 4, 0x0f);
    v[s] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(lo)), m);
    v[4 + s] = wasm_f32x4_add(wasm_f32x4_mul(d, wasm_f32x4_convert_i32x4(hi)), m);
  }
}

/* One Q8_0 block (34 bytes) → its 32 weights as 8 vectors in tile order: v[4h + s] lane l is weight
 * 16h + 4l + s. Byte s of a lane is sign-extended by shifting it to the top and back (arithmetic). */
static inline void q8_0_block(const u8 *w, v128_t *v) {
  v128_t d = half(w);
  for (int h = 0; h < 2; h++) {
    v128_t q = wasm_v128_load(w + 2 + 16 * h);
    for (int s = 0; s < 4; s++) {
      v128_t i = wasm_i32x4_shr(wasm_i32x4_shl(q, 24 - 8 * s), 24);
      v[4 * h + s] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(i), d);
    }
  }
}

/* 8 tile-order vectors of one block → out[0..31] in natural order */
static inline void untile_block(const v128_t *v, float *out) {
  float t[32];
  for (int j = 0; j < 8; j++) wasm_v128_store(t + 4 * j, v[j]);
  for (int h = 0; h < 2; h++)
    for (int s = 0; s < 4; s++)
      for (int l = 0; l < 4; l++) out[16 * h + 4 * l + s] = t[16 * h + 4 * s + l];
}

/* One Q4_1 row of `cols` weights → out[0..cols-1], natural order */
EXPORT(q4_1_row) void q4_1_row(const u8 *w, int cols, float *out) {
  v128_t v[8];
  for (int b = 0; b < cols / 32; b++, w += 20, out += 32) {
    q4_1_block(w, v);
    untile_block(v, out);
  }
}

/* One Q8_0 row of `cols` weights → out[0..cols-1], natural order (the embedding of a token) */
EXPORT(q8_0_row) void q8_0_row(const u8 *w, int cols, float *out) {
  v128_t v[8];
  for (int b = 0; b < cols / 32; b++, w += 34, out += 32) {
    q8_0_block(w, v);
    untile_block(v, out);
  }
}

/* ---- the order of every sum --------------------------------------------------------------------------
 * Whatever path computes it (and kernels.js's copy, which reads rows in natural order):
 * float32: Σ w[i]·x[i] in 16 lanes, lane c summing the i ≡ c (mod 16) in order of i; then
 *          s_k = (lane k + lane 8+k) + (lane 4+k + lane 12+k) for k < 4, then (s0 + s1) + (s2 + s3);
 * float64: 8 lanes, lane c summing the i ≡ c (mod 8); then s_k = (lane k + lane 4+k) + (lane 2+k +
 *          lane 6+k) for k < 2, then s0 + s1.
 * In tile order a vector of weights v[j] (lane l: weight i = 16h + 4l + s, j = 4h + s) goes into the
 * accumulator a[s]: a[s] lane l sums the i ≡ 4l + s (mod 16), in order of i. In float64 both halves
 * of v[j] go into a[s]: lane 0 sums the i ≡ s (mod 8), lane 1 the i ≡ s + 4.
 * Weights of one row always meet the accumulators in the same order, so a row fused with its
 * dequantization (one token) and a row read back from scratch (several tokens) agree bit for bit. */
#define ADD32(a, w, x) (a) = wasm_f32x4_add((a), wasm_f32x4_mul((w), wasm_v128_load(x)))
#define ADD64(a, w, x) (a) = wasm_f64x2_add((a), wasm_f64x2_mul((w), wasm_v128_load(x)))
#define LANE32(a, l) wasm_f32x4_extract_lane((a), (l))
#define LANE64(a, l) wasm_f64x2_extract_lane((a), (l))

/* a[k] lane l holds residue 4l + k: s_k = (a[k].0 + a[k].2) + (a[k].1 + a[k].3) */
static inline float sum32(const v128_t *a) {
  float s[4];
  for (int k = 0; k < 4; k++) s[k] = (LANE32(a[k], 0) + LANE32(a[k], 2)) + (LANE32(a[k], 1) + LANE32(a[k], 3));
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* a[k] holds residues k, k + 4: s_0 = (a0.0 + a0.1) + (a2.0 + a2.1), s_1 = (a1.0 + a1.1) + (a3.0 + a3.1) */
static inline double sum64(const v128_t *a) {
  double s0 = (LANE64(a[0], 0) + LANE64(a[0], 1)) + (LANE64(a[2], 0) + LANE64(a[2], 1));
  double s1 = (LANE64(a[1], 0) + LANE64(a[1], 1)) + (LANE64(a[3], 0) + LANE64(a[3], 1));
  return s0 + s1;
}

/* 32 float32 weights (8 tile-order vectors) into the float32 lanes, against x[0..31] in tile order */
static inline void block32(const v128_t *v, const float *x, v128_t *a) {
  for (int j = 0; j < 8; j++) ADD32(a[j & 3], v[j], x + 4 * j);
}

/* 32 float32 weights, widened, into the float64 lanes, against x[0..31] (float64, tile order) */
static inline void block64(const v128_t *v, const double *x, v128_t *a) {
  for (int j = 0; j < 8; j++) {
    v128_t lo = wasm_f64x2_promote_low_f32x4(v[j]);
    v128_t hi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v[j], v[j], 2, 3, 0, 1));
    ADD64(a[j & 3], lo, x + 4 * j);
    ADD64(a[j & 3], hi, x + 4 * j + 2);
  }
}

static inline void zero(v128_t *a) {
  for (int j = 0; j < 4; j++) a[j] = wasm_i32x4_splat(0);
}

/* Dot products of one dequantized row (`w`, float32, tile order) with x[t] (tile order) for n ≥ 1
 * tokens, two at a time */
static void rows32(const float *w, int cols, const float *x, int n, float *y, int ystride) {
  int t = 0;
  for (; t + 1 < n; t += 2) {
    const float *x0 = x + t * cols, *x1 = x0 + cols;
    v128_t a[4], b[4];
    zero(a), zero(b);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 4; j++) {
        v128_t wv = wasm_v128_load(w + i + 4 * j);
        ADD32(a[j], wv, x0 + i + 4 * j);
        ADD32(b[j], wv, x1 + i + 4 * j);
      }
    }
    y[t * ystride] = sum32(a);
    y[(t + 1) * ystride] = sum32(b);
  }
  if (t < n) {
    const float *x0 = x + t * cols;
    v128_t a[4];
    zero(a);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 4; j++) ADD32(a[j], wasm_v128_load(w + i + 4 * j), x0 + i + 4 * j);
    }
    y[t * ystride] = sum32(a);
  }
}

/* The same for a widened row (`w`, float64, tile order) and float64 tokens: the pair of doubles
 * at 4j and 4j + 2 both belong to a[j & 3] */
static void rows64(const double *w, int cols, const double *x, int n, double *y, int ystride) {
  int t = 0;
  for (; t + 1 < n; t += 2) {
    const double *x0 = x + t * cols, *x1 = x0 + cols;
    v128_t a[4], b[4];
    zero(a), zero(b);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 8; j++) {
        v128_t wv = wasm_v128_load(w + i + 2 * j);
        ADD64(a[j >> 1], wv, x0 + i + 2 * j);
        ADD64(b[j >> 1], wv, x1 + i + 2 * j);
      }
    }
    y[t * ystride] = sum64(a);
    y[(t + 1) * ystride] = sum64(b);
  }
  if (t < n) {
    const double *x0 = x + t * cols;
    v128_t a[4];
    zero(a);
    for (int i = 0; i < cols; i += 16) {
      for (int j = 0; j < 8; j++) ADD64(a[j >> 1], wasm_v128_load(w + i + 2 * j), x0 + i + 2 * j);
    }
    y[t * ystride] = sum64(a);
  }
}

/* y[t][r] = Σ_i W[r][i] · x[t][i] for t < n, W a Q4_1 matrix (rows × cols), float32 throughout
 * (the MLP, which helpers.real_model runs in float32). One token: each block is dotted as it is
 * dequantized; more: each row is dequantized once and dotted with every token.
 * `tmp`: scratch for x in tile order (n·cols floats), then one row (cols floats). */
EXPORT(q4_1_matmul_f32) void q4_1_matmul_f32(const u8 *w, int rows, int cols, const float *x, int n, float *y, float *tmp) {
  int stride = cols / 32 * 20;
  float *xt = tmp, *row = tmp + n * cols;
  v128_t v[8], a[4];
  tile_f32(x, n, cols, xt);
  for (int r = 0; r < rows; r++, w += stride) {
    if (n == 1) {
      zero(a);
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        block32(v, xt + 32 * b, a);
      }
      y[r] = sum32(a);
    } else {
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        for (int j = 0; j < 8; j++) wasm_v128_store(row + 32 * b + 4 * j, v[j]);
      }
      rows32(row, cols, xt, n, y + r, rows);
    }
  }
}

/* The same in float64 (the attention projections, which helpers.real_model runs in float64 on the
 * exact float32 weights). `tmp`: scratch for x in tile order (n·cols doubles), then one row
 * widened (cols doubles); 8-byte aligned. */
EXPORT(q4_1_matmul_f64) void q4_1_matmul_f64(const u8 *w, int rows, int cols, const double *x, int n, double *y, double *tmp) {
  int stride = cols / 32 * 20;
  double *xt = tmp, *wide = tmp + n * cols;
  v128_t v[8], a[4];
  tile_f64(x, n, cols, xt);
  for (int r = 0; r < rows; r++, w += stride) {
    if (n == 1) {
      zero(a);
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        block64(v, xt + 32 * b, a);
      }
      y[r] = sum64(a);
    } else {
      for (int b = 0; b < cols / 32; b++) {
        q4_1_block(w + 20 * b, v);
        for (int j = 0; j < 8; j++) {
          wasm_v128_store(wide + 32 * b + 4 * j, wasm_f64x2_promote_low_f32x4(v[j]));
          wasm_v128_store(wide + 32 * b + 4 * j + 2, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v[j], v[j], 2, 3, 0, 1)));
        }
      }
      rows64(wide, cols, xt, n, y + r, rows);
    }
  }
}

/* y[r] = Σ_i W[r][i] · x[i] for one input row, W a Q8_0 matrix (the tied embedding as the lm_head,
 * float32 like helpers.real_model's logits); each block dotted as it is dequantized.
 * `tmp`: scratch for x in tile order (cols floats). */
EXPORT(q8_0_matvec_f32) void q8_0_matvec_f32(const u8 *w, int rows, int cols, const float *x, float *y, float *tmp) {
  int stride = cols / 32 * 34;
  v128_t v[8], a[4];
  tile_f32(x, 1, cols, tmp);
  for (int r = 0; r < rows; r++, w += stride) {
    zero(a);
    for (int b = 0; b < cols / 32; b++) {
      q8_0_block(w + 34 * b, v);
      block32(v, tmp + 32 * b, a);
    }
    y[r] = sum32(a);
  }
}
