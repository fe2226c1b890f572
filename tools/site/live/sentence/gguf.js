/* Attention Lab · your own sentence — reading a GGUF file's header (runs inside the engine's Worker).
 *
 * GGUF (llama.cpp's format, versions 2 and 3; little-endian): "GGUF", u32 version, u64 tensor
 * count, u64 metadata count; metadata as key (u64 length + UTF-8) → u32 type → value (arrays: u32
 * element type, u64 count, elements); then per tensor its name, u32 number of dims, u64 dims
 * (innermost first), u32 type and u64 offset; the tensor data starts at the next multiple of
 * general.alignment (default 32) and each tensor's offset is counted from there.
 *
 * E.parseGGUF(bytes, fileSize) reads all of that from the file's first bytes; when they end too
 * soon it throws {more: true} (the caller reads more and tries again) or, when they are the whole
 * file, the "truncated" error. E.checkModel(info) holds the header to SmolLM2-135M-Instruct's.
 * Every refusal is one Chinese sentence (E.MESSAGES) a reader can act on.
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function gguf(E) {
  "use strict";

  var TYPES = { 0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1",
    10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS",
    18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16",
    26: "I32", 27: "I64", 28: "F64", 29: "IQ1_M", 30: "BF16" };
  /** bytes per block and weights per block of the types the engine reads */
  var BLOCKS = { F32: [4, 1], Q4_1: [20, 32], Q8_0: [34, 32] };
  E.GGUF_TYPES = TYPES;

  /** Bytes a tensor of `type` and `count` weights takes, or null for a type the engine cannot read. */
  E.tensorBytes = function (type, count) {
    var b = BLOCKS[type];
    return b && count % b[1] === 0 ? count / b[1] * b[0] : null;
  };

  function Reader(bytes, fileSize) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.bytes = bytes;
    this.at = 0;
    this.fileSize = fileSize;
  }
  Reader.prototype.need = function (n) {
    if (this.at + n <= this.bytes.length) return;
    if (this.bytes.length < this.fileSize) throw { more: true };
    throw E.error("truncated", E.MESSAGES.truncatedHeader(this.fileSize));
  };
  Reader.prototype.u32 = function () { this.need(4); var v = this.view.getUint32(this.at, true); this.at += 4; return v; };
  Reader.prototype.u64 = function () {
    this.need(8);
    var lo = this.view.getUint32(this.at, true), hi = this.view.getUint32(this.at + 4, true);
    this.at += 8;
    if (hi >= 0x200000) throw E.error("corrupt", E.MESSAGES.corrupt("一个长度或偏移大得不合理"));
    return hi * 4294967296 + lo;
  };
  var DECODER = new TextDecoder("utf-8", { ignoreBOM: true });
  Reader.prototype.str = function () {
    var n = this.u64();
    if (n > this.fileSize) throw E.error("corrupt", E.MESSAGES.corrupt("一个字符串的长度超出了文件"));
    this.need(n);
    var s = DECODER.decode(this.bytes.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  };
  // value readers by GGUF type code
  var SCALAR = {
    0: function (r) { r.need(1); return r.view.getUint8(r.at++); },
    1: function (r) { r.need(1); return r.view.getInt8(r.at++); },
    2: function (r) { r.need(2); var v = r.view.getUint16(r.at, true); r.at += 2; return v; },
    3: function (r) { r.need(2); var v = r.view.getInt16(r.at, true); r.at += 2; return v; },
    4: function (r) { return r.u32(); },
    5: function (r) { r.need(4); var v = r.view.getInt32(r.at, true); r.at += 4; return v; },
    6: function (r) { r.need(4); var v = r.view.getFloat32(r.at, true); r.at += 4; return v; },
    7: function (r) { r.need(1); return r.view.getUint8(r.at++) !== 0; },
    8: function (r) { return r.str(); },
    10: function (r) { return r.u64(); },
    11: function (r) { r.need(8); var v = Number(r.view.getBigInt64(r.at, true)); r.at += 8; return v; },
    12: function (r) { r.need(8); var v = r.view.getFloat64(r.at, true); r.at += 8; return v; },
  };
  function value(r, type) {
    if (type === 9) {
      var inner = r.u32(), count = r.u64();
      if (!SCALAR[inner] || count > r.fileSize) throw E.error("corrupt", E.MESSAGES.corrupt("一个数组的类型或长度不对"));
      var out = new Array(count);
      for (var i = 0; i < count; i++) out[i] = SCALAR[inner](r);
      return out;
    }
    if (!SCALAR[type]) throw E.error("corrupt", E.MESSAGES.corrupt("元数据里有不存在的类型码 " + type));
    return SCALAR[type](r);
  }

  /**
   * The header of a GGUF file from its first bytes: {version, meta: {key: value}, tensors: {name:
   * {dims, type, offset, bytes}}, dataStart, dataEnd}. `bytes`: a Uint8Array of the file's start;
   * `fileSize`: the whole file's size.
   */
  E.parseGGUF = function (bytes, fileSize) {
    if (fileSize === 0) throw E.error("empty", E.MESSAGES.emptyFile());
    var magic = String.fromCharCode.apply(null, bytes.subarray(0, 4));
    if (bytes.length < 4 || magic !== "GGUF") throw E.error("not-gguf", E.MESSAGES.notGGUF(bytes.subarray(0, 4)));
    var r = new Reader(bytes, fileSize);
    r.at = 4;
    var version = r.u32();
    if (version !== 2 && version !== 3) throw E.error("version", E.MESSAGES.version(version));
    var nTensors = r.u64(), nMeta = r.u64();
    if (nTensors > 1e6 || nMeta > 1e6) throw E.error("corrupt", E.MESSAGES.corrupt("张量或元数据的个数大得不合理"));
    var meta = {};
    for (var i = 0; i < nMeta; i++) {
      var key = r.str();
      meta[key] = value(r, r.u32());
    }
    var tensors = {}, order = [];
    for (i = 0; i < nTensors; i++) {
      var name = r.str(), nd = r.u32();
      if (nd > 4) throw E.error("corrupt", E.MESSAGES.corrupt("张量 " + name + " 有 " + nd + " 维"));
      var dims = [];
      for (var j = 0; j < nd; j++) dims.push(r.u64());
      var code = r.u32();
      tensors[name] = { name: name, dims: dims, type: TYPES[code] || ("#" + code), offset: r.u64() };
      order.push(name);
    }
    var align = meta["general.alignment"] === undefined ? 32 : meta["general.alignment"];
    if (!(align > 0) || align % 8) throw E.error("corrupt", E.MESSAGES.corrupt("general.alignment = " + align));
    var dataStart = Math.ceil(r.at / align) * align, dataEnd = dataStart;
    order.forEach(function (n) {
      var t = tensors[n], count = t.dims.reduce(function (a, b) { return a * b; }, 1);
      t.bytes = E.tensorBytes(t.type, count);
      if (t.offset % align) throw E.error("corrupt", E.MESSAGES.corrupt("张量 " + n + " 没有对齐"));
      if (t.bytes !== null) dataEnd = Math.max(dataEnd, dataStart + t.offset + t.bytes);
    });
    return { version: version, meta: meta, tensors: tensors, dataStart: dataStart, dataEnd: dataEnd };
  };

  /** SmolLM2-135M-Instruct as its GGUF describes it: what E.checkModel compares the header to. */
  E.EXPECTED = {
    architecture: "llama",
    meta: { "llama.block_count": 30, "llama.embedding_length": 576, "llama.feed_forward_length": 1536,
      "llama.attention.head_count": 9, "llama.attention.head_count_kv": 3, "llama.vocab_size": 49152,
      "llama.rope.freq_base": 100000 },
  };

  function metaNumber(info, key) {
    var v = info.meta[key];
    if (typeof v !== "number") throw E.error("other-model", E.MESSAGES.missingMeta(key));
    return v;
  }

  /**
   * The model's config from a parsed header, after checking it is SmolLM2-135M-Instruct in Q4_1
   * (the architecture, the sizes, every tensor there with its type and shape, the file long
   * enough). Returns {layers, hidden, ffn, heads, kvHeads, headDim, vocab, ropeTheta, eps,
   * tensors: {name: {offset (from the data start), type, dims}}}.
   */
  E.checkModel = function (info, fileSize) {
    var arch = info.meta["general.architecture"];
    if (arch !== E.EXPECTED.architecture) throw E.error("architecture", E.MESSAGES.architecture(arch));
    Object.keys(E.EXPECTED.meta).forEach(function (key) {
      var got = metaNumber(info, key), want = E.EXPECTED.meta[key];
      if (got !== want) throw E.error("other-model", E.MESSAGES.otherModel(key, got, want));
    });
    var cfg = {
      layers: metaNumber(info, "llama.block_count"), hidden: metaNumber(info, "llama.embedding_length"),
      ffn: metaNumber(info, "llama.feed_forward_length"), heads: metaNumber(info, "llama.attention.head_count"),
      kvHeads: metaNumber(info, "llama.attention.head_count_kv"), vocab: metaNumber(info, "llama.vocab_size"),
      ropeTheta: metaNumber(info, "llama.rope.freq_base"),
      eps: metaNumber(info, "llama.attention.layer_norm_rms_epsilon"),
    };
    cfg.headDim = cfg.hidden / cfg.heads;
    var h = cfg.hidden, kv = cfg.kvHeads * cfg.headDim, f = cfg.ffn;
    var want = { "token_embd.weight": ["Q8_0", [h, cfg.vocab]], "output_norm.weight": ["F32", [h]] };
    for (var i = 0; i < cfg.layers; i++) {
      var b = "blk." + i + ".";
      want[b + "attn_norm.weight"] = ["F32", [h]];
      want[b + "ffn_norm.weight"] = ["F32", [h]];
      want[b + "attn_q.weight"] = ["Q4_1", [h, h]];
      want[b + "attn_k.weight"] = ["Q4_1", [h, kv]];
      want[b + "attn_v.weight"] = ["Q4_1", [h, kv]];
      want[b + "attn_output.weight"] = ["Q4_1", [h, h]];
      want[b + "ffn_gate.weight"] = ["Q4_1", [h, f]];
      want[b + "ffn_up.weight"] = ["Q4_1", [h, f]];
      want[b + "ffn_down.weight"] = ["Q4_1", [f, h]];
    }
    Object.keys(want).forEach(function (name) {
      var t = info.tensors[name];
      if (!t) throw E.error("tensor-missing", E.MESSAGES.tensorMissing(name));
      if (t.type !== want[name][0]) throw E.error("tensor-type", E.MESSAGES.tensorType(name, t.type, want[name][0]));
      if (t.dims.join() !== want[name][1].join()) {
        throw E.error("tensor-shape", E.MESSAGES.tensorShape(name, t.dims, want[name][1]));
      }
    });
    ["tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type"].forEach(function (key) {
      if (!Array.isArray(info.meta[key])) throw E.error("other-model", E.MESSAGES.missingMeta(key));
    });
    if (info.meta["tokenizer.ggml.tokens"].length !== cfg.vocab) {
      throw E.error("other-model", E.MESSAGES.otherModel("tokenizer.ggml.tokens", info.meta["tokenizer.ggml.tokens"].length, cfg.vocab));
    }
    if (fileSize < info.dataEnd) throw E.error("truncated", E.MESSAGES.truncated(fileSize, info.dataEnd));
    cfg.tensors = {};
    Object.keys(want).forEach(function (name) { cfg.tensors[name] = info.tensors[name]; });
    return cfg;
  };
});
