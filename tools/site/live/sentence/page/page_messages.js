/* Attention Lab · 你自己的句子 — every sentence the page itself says to a reader, in one place.
 *
 * The engine's own sentences (a wrong model file, text over the cap, a control character…) are the
 * engine's (../messages.js): the page shows them as they come. A refusal made here is an Error with a
 * `code` and one Chinese sentence, the engine's shape.
 */
(function () {
  "use strict";
  var P = self.AttnLabSentencePage = self.AttnLabSentencePage || {};

  function mb(n) { return (n / 1e6).toFixed(1) + " MB"; }
  function seconds(ms) { return (ms / 1000).toFixed(1) + " 秒"; }

  /** An Error with `code` and a Chinese message. */
  P.error = function (code, message) {
    var e = new Error(message);
    e.code = code;
    return e;
  };
  P.mb = mb;

  P.MESSAGES = {
    sample: function (text) {
      return "现在显示的是示例“" + text + "”（构建网站时用 Python 算好的）。载入模型后就能输入自己的句子。";
    },
    needModel: function () { return "要算你输入的文字，先载入模型（上面的按钮，或选择模型文件）；下面仍是示例。"; },
    offline: function (file) {
      return "这是离线版网页（从文件打开），不能自己下载模型：请选择模型文件 " + file + "（本页最后一节说它在哪里）。";
    },
    pickOnly: function () { return "选择模型文件："; },
    downloading: function (done, total) { return "正在下载模型：" + mb(done) + " / " + mb(total); },
    unpacking: function (done, total) { return "正在从模型包里取出模型文件：" + mb(done) + " / " + mb(total); },
    reading: function (done, total) { return "正在载入模型：" + mb(done) + " / " + mb(total); },
    fromStore: function () { return "正在载入浏览器里存的模型（不用再下载）……"; },
    ready: function (how, ms, kernel) {
      return "模型已载入（" + how + "，" + seconds(ms) + (kernel === "js" ? "，纯 JavaScript，慢几倍" : "") +
        "）：改一改上面的句子，每按一个键都会重新计算。";
    },
    how: { download: "从本站下载", store: "用浏览器里存的副本，没有再下载", file: "从你选的文件", wheel: "从你选的模型包里取出" },
    saved: function () { return "模型已存在这个浏览器里：下次打开这一页不用再下载或选择。"; },
    notSaved: function (why) { return "浏览器没能存下模型（" + why + "）：下次还要再下载或选择。"; },
    forgotten: function () { return "已删除浏览器里存的模型（下次要重新下载或选择）。"; },
    downloadFailed: function (why) {
      return "下载模型失败（" + why + "）：请检查网络后再按一次，或者从本页最后一节列出的地方下载后选择它。";
    },
    httpStatus: function (status) { return "服务器回答 HTTP " + status; },
    shortDownload: function (got, want) { return "只收到 " + got.toLocaleString("en") + " 字节，应有 " + want.toLocaleString("en") + " 字节"; },
    wheelNoModel: function (file, want, wheel) {
      return "这个压缩包里没有 .gguf 模型文件（" + file + "）：请选 " + want + "，或者装着它的模型包 " + wheel + "。";
    },
    wheelBroken: function (why, wheel) {
      return "这个模型包读不了（" + why + "，可能没下载完）：请重新下载 " + wheel + "。";
    },
    wheelMethod: function (method, wheel) {
      return "模型包里的模型文件用了这里解不开的压缩方式（第 " + method + " 种）：请选解压出来的 .gguf 文件，或者重新下载 " + wheel + "。";
    },
    noInflate: function (file) {
      return "这个浏览器不能解压模型包（没有 DecompressionStream）：请先把 " + file + " 从 .whl（一个 zip）里解压出来再选它，或者换一个新版浏览器。";
    },
    cutCharacter: function () {
      return "‹EFBC› 这样的是半个字：一个字 UTF-8 编码的头几个字节（写成十六进制），模型常常一块一块地写出一个汉字。";
    },
    stale: function () { return "下面仍是上一次算好的结果。"; },
    tokens: function (pieces, runs) {
      return pieces === runs ? "切成 " + pieces + " 个 token：" :
        "切成 " + pieces + " 个 token，合成 " + runs + " 个字或词（一个汉字常被切成 2～3 个 token：“×2”是 2 个 token 拼成的字）：";
    },
    pieces: function () { return "每个 token（一个字的第 i 块，共 k 块，标成“年·i/k”）："; },
    source: function (sample, ms) {
      return sample ? "（示例，Python 算的）" : "（浏览器里算的，" + Math.round(ms) + " 毫秒）";
    },
    /** helpers.explorers.real_model.RealAttentionExplorer.title_text: the same words as notebook 09's explorer */
    headTitle: function (layer, head, kv) { return "SmolLM2-135M · 层 " + layer + " · 头 " + head + "（KV 头 " + kv + "；都从 0 数）"; },
    headScores: function (previous, sink) { return "这个头的前一个 token 分数 " + previous + " · 汇聚分数 " + sink; },
    cell: function (query, key, w) { return "查询“" + query + "”放在键“" + key + "”上的权重：" + w; },
    future: function (query, key) { return "查询“" + query + "”还没读到“" + key + "”（因果掩码，浅灰格子）。"; },
    cellHint: function () { return "把指针移到（或轻触）一个格子上，这里写出它的权重。"; },
    grid: function (runs) {
      return "每个小图 " + runs + " × " + runs + "（行：正在读的 token；列：被看的 token）。橙框是放大的头。颜色：0 深紫 → 1 黄。";
    },
    gridLabel: function (layer, head) { return "层 " + layer + " · 头 " + head; },
    rankTitle: {
      previous: function (k) { return "前一个 token 分数最高的 " + k + " 个头"; },
      sink: function (k) { return "汇聚分数最高的 " + k + " 个头"; },
    },
    noScore: {
      previous: function () { return "前一个 token 分数要至少 2 个 token。"; },
      sink: function (skip) { return "汇聚分数要至少 " + (skip + 1) + " 个 token（从第 " + (skip + 1) + " 个起的查询）。"; },
    },
    undefinedScore: function () { return "—（句子太短）"; },
  };
})();
