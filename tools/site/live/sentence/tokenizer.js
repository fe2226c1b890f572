/* Attention Lab · your own sentence — SmolLM2's tokenizer, from the GGUF's own vocabulary and merges
 * (runs inside the engine's Worker).
 *
 * The same pipeline helpers.real_model.build_tokenizer gives the `tokenizers` library:
 *   1. the special tokens (token_type 3, e.g. <|im_start|>) are cut out first, leftmost-longest;
 *   2. Digits(individual_digits): every numeric character (\p{N}) is a piece of its own;
 *   3. ByteLevel(add_prefix_space=False, use_regex=True): GPT-2's pattern splits each piece, and
 *      each UTF-8 byte becomes its stand-in symbol (Ġ for a space, …: GPT-2's bytes_to_unicode);
 *   4. byte-level BPE: the adjacent pair with the lowest merge rank is merged until none is left.
 * `\s` in GPT-2's pattern is Oniguruma's (the `tokenizers` library's regex engine): Unicode
 * White_Space, which is not JavaScript's \s (that one adds U+FEFF and lacks U+0085); it is spelled
 * out below. Readable labels follow helpers.readable_tokens: pieces grouped into the shortest runs
 * that spell whole characters, a piece inside a run of k labelled "年·1/2".
 */
(self.AttnLabSentence = self.AttnLabSentence || { parts: [] }).parts.push(function tokenizer(E) {
  "use strict";

  var WS = "\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var PATTERN = new RegExp("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" + WS + "\\p{L}\\p{N}]+|[" + WS +
    "]+(?![^" + WS + "])|[" + WS + "]+", "gu");
  var NUMERIC = /\p{N}/u;
  /** Python's str.isspace(): what helpers.readable_tokens.visible strips against */
  var PY_SPACE = /^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
  var CONTROL = { " ": "\u2423", "\n": "\u21b5", "\t": "\u21e5", "\u3000": "\u2423" };
  var EMOJI = /\p{Extended_Pictographic}/u;
  /** helpers.readable_tokens.HIDDEN_CATEGORIES: characters a label draws as their code point (‹U+200B›),
   *  since they would hide or reorder the label's text (bidi controls, zero-width characters, line separators) */
  var HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;

  // GPT-2's bytes_to_unicode: printable bytes stand for themselves, the rest get 256, 257, …
  var BYTE_SYMBOL = [], SYMBOL_BYTE = {};
  (function () {
    var n = 0;
    for (var b = 0; b < 256; b++) {
      var keep = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      BYTE_SYMBOL[b] = String.fromCharCode(keep ? b : 256 + n++);
      SYMBOL_BYTE[BYTE_SYMBOL[b]] = b;
    }
  })();
  var ENCODER = new TextEncoder(), DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

  /**
   * A tokenizer from the GGUF's tokenizer.ggml.tokens, .merges and .token_type:
   * {encode(text) → ids, pieces(ids) → vocabulary strings, bytes(id) → Uint8Array,
   *  decode(ids) → text (a cut character as U+FFFD, as the `tokenizers` library decodes),
   *  spell(ids, keepSpace) → {labels, runs, texts}, specials}.
   */
  E.Tokenizer = function (tokens, merges, types) {
    var vocab = new Map(), ranks = new Map(), cache = new Map(), specials = [];
    tokens.forEach(function (t, i) { vocab.set(t, i); });
    merges.forEach(function (m, i) { ranks.set(m, i); });
    types.forEach(function (t, i) { if (t === 3) specials.push(tokens[i]); });

    function bpe(word) {
      var hit = cache.get(word);
      if (hit) return hit;
      var parts = Array.from(word);
      while (parts.length > 1) {
        var best = -1, bestRank = Infinity;
        for (var i = 0; i + 1 < parts.length; i++) {
          var r = ranks.get(parts[i] + " " + parts[i + 1]);
          if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
        }
        if (best < 0) break;
        var a = parts[best], b = parts[best + 1], next = [];
        for (i = 0; i < parts.length; i++) {  // every occurrence of the pair, left to right
          if (i + 1 < parts.length && parts[i] === a && parts[i + 1] === b) { next.push(a + b); i++; }
          else next.push(parts[i]);
        }
        parts = next;
      }
      var ids = parts.map(function (p) {
        var id = vocab.get(p);
        if (id === undefined) throw E.error("internal", E.MESSAGES.internal("词表里没有 " + p));
        return id;
      });
      if (cache.size > 50000) cache.clear();
      cache.set(word, ids);
      return ids;
    }

    function bytePieces(text, out) {
      var m;
      PATTERN.lastIndex = 0;
      while ((m = PATTERN.exec(text)) !== null) {
        var bytes = ENCODER.encode(m[0]), s = "";
        for (var i = 0; i < bytes.length; i++) s += BYTE_SYMBOL[bytes[i]];
        bpe(s).forEach(function (id) { out.push(id); });
      }
    }

    function plain(text, out) {  // step 2 then 3 and 4
      var chars = Array.from(text), run = "";
      for (var i = 0; i < chars.length; i++) {
        if (NUMERIC.test(chars[i])) {
          if (run) bytePieces(run, out);
          bytePieces(chars[i], out);
          run = "";
        } else run += chars[i];
      }
      if (run) bytePieces(run, out);
    }

    function encode(text) {
      var out = [], at = 0, from = 0;
      while (at < text.length) {  // step 1: leftmost-longest special token
        var found = null;
        for (var s = 0; s < specials.length; s++) {
          if (text.startsWith(specials[s], at) && (!found || specials[s].length > found.length)) found = specials[s];
        }
        if (found) {
          if (at > from) plain(text.slice(from, at), out);
          out.push(vocab.get(found));
          at += found.length;
          from = at;
        } else at++;
      }
      if (from < text.length) plain(text.slice(from), out);
      return out;
    }

    function bytes(id) {
      var t = tokens[id], out = new Uint8Array(t.length);
      for (var i = 0; i < t.length; i++) {
        var b = SYMBOL_BYTE[t[i]];
        if (b === undefined) return ENCODER.encode(t);  // a special token: its text
        out[i] = b;
      }
      return out;
    }

    function join(ids) {
      var parts = ids.map(bytes), n = parts.reduce(function (a, p) { return a + p.length; }, 0);
      var out = new Uint8Array(n), at = 0;
      parts.forEach(function (p) { out.set(p, at); at += p.length; });
      return { all: out, parts: parts };
    }

    function visible(text, keepSpace) {  // helpers.readable_tokens.visible(text, keep_space=keepSpace)
      if (!keepSpace && !PY_SPACE.test(text)) text = text.replace(/^ +| +$/g, "");
      return Array.from(text).map(function (c) {
        var code = c.codePointAt(0);
        if (CONTROL[c]) return CONTROL[c];
        if (code < 0x20 || code === 0x7f) return "\u2039" + code.toString(16).toUpperCase().padStart(2, "0") + "\u203a";
        if (HIDDEN.test(c)) return "\u2039U+" + code.toString(16).toUpperCase().padStart(4, "0") + "\u203a";
        return c;
      }).join("");
    }

    /** helpers.readable_tokens.spell_ids(...): runs of pieces spelling whole characters, and labels
     *  (Spelling.piece_labels(keep_space=keepSpace): a word's leading space kept as ␣ when keepSpace). */
    function spell(ids, keepSpace) {
      var j = join(ids), runs = [], texts = [], start = 0, from = 0, at = 0;
      j.parts.forEach(function (p, i) {
        at += p.length;
        if (at === j.all.length || (j.all[at] & 0xc0) !== 0x80) {  // a character may start here
          var chunk = j.all.subarray(from, at), text;
          try { text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(chunk); }
          catch (e) {
            text = "\u2039" + Array.prototype.map.call(chunk, function (b) {
              return b.toString(16).toUpperCase().padStart(2, "0");
            }).join("") + "\u203a";
          }
          runs.push([start, i + 1]);
          texts.push(text);
          start = i + 1;
          from = at;
        }
      });
      var labels = [];
      runs.forEach(function (r, u) {
        var k = r[1] - r[0], label = visible(texts[u], keepSpace);
        for (var i = 0; i < k; i++) labels.push(k === 1 ? label : label + "\u00b7" + (i + 1) + "/" + k);
      });
      return { labels: labels, runs: runs, texts: texts };
    }

    return {
      encode: encode,
      pieces: function (ids) { return ids.map(function (id) { return tokens[id]; }); },
      bytes: bytes,
      decode: function (ids) { return DECODER.decode(join(ids).all); },
      spell: spell,
      specials: specials,
      size: tokens.length,
    };
  };

  /**
   * What the engine says about `text` before running it: throws the sentence for text it refuses
   * (not a string, empty, a control character other than tab / newline / carriage return, half of
   * a surrogate pair); returns notes (emoji, special tokens typed as text) for text it runs.
   */
  E.checkText = function (text) {
    if (typeof text !== "string") throw E.error("not-text", E.MESSAGES.notText(typeof text));
    if (text.length === 0) throw E.error("empty-text", E.MESSAGES.emptyText());
    var at = 0;
    for (var i = 0; i < text.length; i++, at++) {
      var c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        var lo = text.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) { i++; continue; }
      }
      if (c >= 0xd800 && c <= 0xdfff) throw E.error("broken-char", E.MESSAGES.brokenChar(at + 1));
      if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c <= 0x9f)) {
        throw E.error("control", E.MESSAGES.control(c, at + 1));
      }
    }
  };

  /** Notes on text that runs: each distinct emoji (how many tokens it took) and each special token. */
  E.textNotes = function (tok, text) {
    var notes = [], seen = {};
    Array.from(text).forEach(function (ch) {
      if (EMOJI.test(ch) && !seen[ch] && ch.codePointAt(0) > 0xff) {
        seen[ch] = true;
        notes.push(E.note("emoji", E.MESSAGES.emoji(ch, ENCODER.encode(ch).length, tok.encode(ch).length)));
      }
    });
    tok.specials.forEach(function (s) {
      if (text.indexOf(s) >= 0) notes.push(E.note("special", E.MESSAGES.special(s)));
    });
    return notes;
  };
});
