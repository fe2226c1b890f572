/* Attention Lab · 你自己的句子 — the numbers the page shows, from a Run of the engine: the same
 * definitions as notebook 09 and 12 in Python.
 *
 * - group: helpers.readable_tokens.group_attention on every map — the pieces of one character (a
 *   run) merged: the weight on a run of keys is the sum over its pieces, the weight from a run of
 *   queries the mean over its pieces, so every row still sums to 1;
 * - previous / sink: helpers.reading.previous_token_score and sink_score (skip = SINK_SKIP, 4) of
 *   each head, on the tokens the model reads (its own maps, not the grouped ones: a head that looks
 *   at the previous token looks at the previous piece of a character too), as
 *   helpers.real_model.sentence_view scores them for notebook 09; null where the text is too short
 *   for the score (previous needs 2 tokens, sink skip + 1);
 * - rank: the heads in helpers.heads.top_heads's order (highest first, ties by layer then head).
 * Sums run in float64 (Python's in float32: they agree to the float32 rounding of the maps).
 */
(function () {
  "use strict";
  var P = self.AttnLabSentencePage = self.AttnLabSentencePage || {};
  var N = P.numbers = {};

  /** One label per run: its first piece's label without the "·1/k" (helpers.readable_tokens.Spelling.labels). */
  N.runLabels = function (pieceLabels, runs) {
    return runs.map(function (r) {
      var k = r[1] - r[0], label = pieceLabels[r[0]];
      return k === 1 ? label : label.slice(0, label.length - ("\u00b71/" + k).length);
    });
  };

  /**
   * Every T × T map of `attn` (maps of them, one after another) grouped onto `runs` ([start, stop)
   * pieces each): a Float64Array of maps × R × R, R = runs.length.
   */
  N.group = function (attn, T, maps, runs) {
    var R = runs.length, out = new Float64Array(maps * R * R);
    for (var m = 0; m < maps; m++) {
      var base = m * T * T, at = m * R * R;
      for (var a = 0; a < R; a++) {
        var q0 = runs[a][0], q1 = runs[a][1];
        for (var b = 0; b <= a; b++) {  // keys after the query's run are all masked: their weight is 0
          var k0 = runs[b][0], k1 = runs[b][1], s = 0;
          for (var q = q0; q < q1; q++) {
            var row = base + q * T;
            for (var k = k0; k < k1; k++) s += attn[row + k];
          }
          out[at + a * R + b] = s / (q1 - q0);
        }
      }
    }
    return out;
  };

  /** helpers.reading.previous_token_score of each R × R map (`g`: maps of them): mean over queries i ≥ 1 of M[i, i − 1]. */
  N.previous = function (g, maps, R) {
    if (R < 2) return null;
    var out = new Float64Array(maps);
    for (var m = 0; m < maps; m++) {
      var s = 0, at = m * R * R;
      for (var i = 1; i < R; i++) s += g[at + i * R + i - 1];
      out[m] = s / (R - 1);
    }
    return out;
  };

  /** helpers.reading.sink_score of each map: mean over queries i ≥ skip of M[i, 0]. */
  N.sink = function (g, maps, R, skip) {
    if (R < skip + 1) return null;
    var out = new Float64Array(maps);
    for (var m = 0; m < maps; m++) {
      var s = 0, at = m * R * R;
      for (var i = skip; i < R; i++) s += g[at + i * R];
      out[m] = s / (R - skip);
    }
    return out;
  };

  /** The indices of the k highest scores, highest first, ties in index order (np.argsort(-s, kind="stable")). */
  N.rank = function (scores, k) {
    var order = [];
    for (var i = 0; i < scores.length; i++) order.push(i);
    order.sort(function (a, b) { return scores[b] - scores[a] || a - b; });
    return order.slice(0, k);
  };

  /** Everything the page shows of a Run: grouped maps, labels, the scores (on the tokens) and rankings. */
  N.view = function (run, skip, k) {
    var t = run.tokens, maps = run.layers * run.heads, runs = t.runs, T = run.length;
    var g = N.group(run.attn, T, maps, runs), R = runs.length;
    var scores = { previous: N.previous(run.attn, maps, T), sink: N.sink(run.attn, maps, T, skip) };
    return {
      length: run.length, R: R, layers: run.layers, heads: run.heads, grouped: g,
      pieceLabels: t.labels, runLabels: N.runLabels(t.labels, runs), runs: runs,
      scores: scores,
      ranking: {
        previous: scores.previous && N.rank(scores.previous, k),
        sink: scores.sink && N.rank(scores.sink, k),
      },
    };
  };
})();
