/* Attention Lab · your own sentence — every sentence the engine says to a reader, in one place.
 *
 * An engine error is an Error whose `code` names the case (tests and the page read the code) and
 * whose message is one Chinese sentence saying what happened and what to do. Notes (E.note) are
 * the same shape for input the engine does run but a reader may wonder about (an emoji, a special
 * token typed as text). Runs on both sides: in the Worker and in the page (client.js).
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function messages(E) {
  "use strict";
  var FILE = "SmolLM2-135M-Instruct.Q4_1.gguf";

  /** An Error with `code` (a short English name) and a Chinese message. */
  E.error = function (code, message) {
    var e = new Error(message);
    e.code = code;
    return e;
  };

  /** A note: {code, message}. */
  E.note = function (code, message) { return { code: code, message: message }; };

  function group(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function mb(n) { return (n / 1048576).toFixed(1) + " MB"; }
  function hex(c) { return "U+" + c.toString(16).toUpperCase().padStart(4, "0"); }
  function printable(bytes) {
    return Array.prototype.map.call(bytes, function (b) {
      return b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "\\x" + b.toString(16).padStart(2, "0");
    }).join("");
  }

  E.MESSAGES = {
    emptyFile: function () { return "选中的文件是空的（0 字节）：请选 " + FILE + "。"; },
    notGGUF: function (head) {
      return "这不是 GGUF 模型文件（GGUF 文件以“GGUF”四个字母开头，这个文件开头是“" + printable(head) +
        "”）：请选 " + FILE + "。";
    },
    version: function (v) { return "这个 GGUF 文件是第 " + v + " 版格式，这里只读得懂第 2、3 版：请选 " + FILE + "。"; },
    corrupt: function (what) { return "模型文件已损坏（" + what + "）：请重新下载 " + FILE + "。"; },
    truncatedHeader: function (size) {
      return "模型文件不完整：只有 " + group(size) + " 字节，连文件头都没读完（可能没下载完）：请重新下载 " + FILE + "。";
    },
    truncated: function (size, need) {
      return "模型文件不完整：应有 " + group(need) + " 字节，只有 " + group(size) + " 字节（可能没下载完或复制时断了）：请重新下载 " + FILE + "。";
    },
    architecture: function (arch) {
      return "这是 " + (arch === undefined ? "未注明架构" : "“" + arch + "”架构") + "的模型，这里只能运行 llama 架构的 SmolLM2-135M-Instruct：请选 " + FILE + "。";
    },
    otherModel: function (key, got, want) {
      return "这是另一个模型，不是 SmolLM2-135M-Instruct（" + key + " 是 " + got + "，应为 " + want + "）：请选 " + FILE + "。";
    },
    missingMeta: function (key) { return "模型文件里缺少 " + key + "，它不是 SmolLM2-135M-Instruct：请选 " + FILE + "。"; },
    tensorMissing: function (name) { return "模型文件里缺少张量 " + name + "，它不是 SmolLM2-135M-Instruct：请选 " + FILE + "。"; },
    tensorType: function (name, got, want) {
      return "张量 " + name + " 的格式是 " + got + "，这里只读得懂 " + want + "（别的量化版本不行）：请选 " + FILE + "。";
    },
    tensorShape: function (name, got, want) {
      return "张量 " + name + " 的形状是 [" + got.join(", ") + "]，应为 [" + want.join(", ") + "]：这是另一个模型，请选 " + FILE + "。";
    },
    noMemory: function (bytes) {
      return "浏览器没能给模型分配 " + mb(bytes) + " 内存：请关掉一些标签页再试，或换一台内存更大的设备。";
    },
    readFailed: function (why) { return "读不了这个文件（" + why + "）：请重新选择 " + FILE + "。"; },
    noSource: function (what) { return "载入模型要给出文件（File 或 Blob）或它的字节（ArrayBuffer），收到的是 " + what + "。"; },
    noSimd: function () { return "这个浏览器不支持 WebAssembly SIMD。"; },
    slowKernel: function () {
      return "这个浏览器不支持 WebAssembly SIMD，模型改用纯 JavaScript 计算：结果完全相同，只是慢几倍。";
    },
    notLoaded: function () { return "模型还没有载入：请先载入 " + FILE + "。"; },
    loading: function () { return "模型正在载入，请等它载完再试。"; },
    emptyText: function () { return "请先输入一些文字（至少一个字）。"; },
    notText: function (what) { return "要输入的是文字，收到的是 " + what + "。"; },
    tooLong: function (n, cap) {
      return "这段文字切成了 " + n + " 个 token，超过了上限 " + cap + " 个：请删短一些（一个汉字通常是 2～3 个 token）。";
    },
    control: function (c, at) {
      return "第 " + at + " 个字符是看不见的控制字符 " + hex(c) + "：请删掉它再试（换行和制表符可以保留）。";
    },
    brokenChar: function (at) {
      return "第 " + at + " 个字符是半个字符（不成对的 UTF-16 代理项），可能是复制时截断了一个表情符号：请删掉它再试。";
    },
    emoji: function (ch, bytes, n) {
      return "“" + ch + "”是表情符号，模型的词表里没有它：它的 " + bytes + " 个 UTF-8 字节要用几个 token 拼出来（单独出现时是 " + n + " 个）。";
    },
    special: function (text) {
      return "“" + text + "”是模型的特殊记号（对话格式用的），被当作一个 token，而不是一个个字母。";
    },
    badIds: function (why) { return "token 编号不对（" + why + "）。"; },
    truncateRange: function (n, length) { return "只能截到 0～" + length + " 个 token，收到的是 " + n + "。"; },
    notFinite: function () { return "模型算出了非有限的数（NaN 或无穷大）：文件可能已损坏，请重新下载 " + FILE + "。"; },
    internal: function (why) { return "引擎内部出错（" + why + "）：请刷新页面再试。"; },
    workerFailed: function (why) { return "后台计算线程出错或无法启动（" + why + "）：请刷新页面再试。"; },
    terminated: function () { return "引擎已经关闭：请刷新页面再试。"; },
  };
  E.MODEL_FILE = FILE;
});
