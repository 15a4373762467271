// ctdiff HTML report: the differential icicle graph and the links into it.
// Names from profiles are untrusted: they are only ever set with
// textContent, never parsed as markup.
(function () {
  "use strict";

  var ROW = 18; // px per level
  var MIN_PX = 1; // frames narrower than this are not drawn

  var data = JSON.parse(document.getElementById("ctdiff-data").textContent);
  var n = data.parent.length;
  var parent = data.parent;
  var kids = [];
  var depth = new Int32Array(n);
  var i;
  for (i = 0; i < n; i++) kids.push([]);
  for (i = 1; i < n; i++) {
    kids[parent[i]].push(i);
    depth[i] = depth[parent[i]] + 1;
  }

  // A frame's width: its value, or its drawn children's sum if larger
  // (threads leave "(idle)" out of their totals, and the children must fit).
  function sizes(values) {
    var s = new Float64Array(n);
    var kidsSum = new Float64Array(n);
    for (var j = n - 1; j >= 0; j--) {
      s[j] = Math.max(values[j], kidsSum[j]);
      if (j > 0) kidsSum[parent[j]] += s[j];
    }
    return s;
  }
  var size = { "new": sizes(data.new), "base": sizes(data.base) };

  function delta(mode, j) {
    return mode === "self" ? data.newSelf[j] - data.baseSelf[j] : data.new[j] - data.base[j];
  }
  var maxAbs = {};
  ["total", "self"].forEach(function (mode) {
    var m = 0;
    for (var j = 0; j < n; j++) {
      if (data.kind[j] === 2) m = Math.max(m, Math.abs(delta(mode, j)));
    }
    maxAbs[mode] = m;
  });

  // Red is for the regression causes alone (with the contexts a spread
  // cause folds), whatever their size: a cause
  // is never paler than its callers, whose totals hold it, nor like them.
  // Every other frame is orange where it grew and blue where it shrank,
  // by its own delta (or its total's): a change below μ is at most a
  // quarter of the way from white, one of μ or more half the way and
  // further on a log scale up to the largest change, so nothing below μ
  // reads as a finding.
  var CAUSE = [215, 48, 39], GREW = [244, 140, 40], SHRANK = [69, 117, 180], NONE = [242, 242, 242];
  var mu = Math.max(data.minDelta, 1);
  function rgb(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }
  function shade(d, max) {
    var a = Math.abs(d);
    if (a < mu) return 0.25 * a / mu;
    var top = Math.max(max / mu, 10);
    return 0.5 + 0.5 * Math.min(1, Math.log(a / mu) / Math.log(top));
  }
  function color(j, mode) {
    if (data.cause[j] > 0 || data.leaf[j] === 1) return rgb(CAUSE);
    var d = delta(mode, j);
    if (d === 0) return rgb(NONE);
    var s = shade(d, maxAbs[mode]), to = d > 0 ? GREW : SHRANK;
    return rgb(to.map(function (v) { return Math.round(255 + (v - 255) * s); }));
  }

  function trim(f) {
    var s = Math.abs(f) >= 100 ? f.toFixed(1) : f.toFixed(2);
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }
  // format mirrors report.FormatValue.
  function format(v) {
    var a = Math.abs(v);
    if (data.unit === "nanoseconds") {
      if (a === 0) return "0";
      if (a >= 1e9) return trim(v / 1e9) + "s";
      if (a >= 1e6) return trim(v / 1e6) + "ms";
      if (a >= 1e3) return trim(v / 1e3) + "µs";
      return trim(v) + "ns";
    }
    if (data.unit === "parts-per-billion") return trim(v / 1e7) + "%";
    if (data.unit === "bytes") {
      if (a >= 1 << 30) return trim(v / (1 << 30)) + "GB";
      if (a >= 1 << 20) return trim(v / (1 << 20)) + "MB";
      if (a >= 1 << 10) return trim(v / (1 << 10)) + "kB";
      return trim(v) + "B";
    }
    return String(Math.round(v));
  }
  function signed(v) { return (v > 0 ? "+" : "") + format(v); }
  function plural(k, what) { return k + " " + what + (k === 1 ? "" : "s"); }
  function percent(part, whole) {
    if (whole === 0) return "";
    var p = 100 * part / whole;
    return " (" + (p > 0 ? "+" : "") + p.toFixed(2) + "%)";
  }

  function name(j) {
    if (data.kind[j] === 0) return "all";
    var f = data.frames[data.frame[j]];
    return data.kind[j] === 1 ? "thread " + f[0] : f[0];
  }
  function label(j) {
    var f = data.frames[data.frame[j]];
    var s = data.kind[j] === 2 ? f[2] : name(j);
    return data.cause[j] > 0 ? "#" + data.cause[j] + " " + s : s;
  }

  var fg = document.getElementById("fg");
  var info = document.getElementById("fg-info");
  var status = document.getElementById("fg-status");
  var search = document.getElementById("fg-search");
  var sizeSel = document.getElementById("fg-size");
  var colorSel = document.getElementById("fg-color");
  var zoom = 0;
  var match = null; // Uint8Array of matches, or null without a search

  function render() {
    var mode = sizeSel.value, cmode = colorSel.value;
    var sz = size[mode];
    var width = fg.clientWidth || 1000;
    var frag = document.createDocumentFragment();
    var maxDepth = 0;
    var causes = [];
    function box(j, left, w, d, extra) {
      var el = document.createElement("div");
      var cls = "fg-node";
      if (data.cause[j] > 0) cls += " cause";
      if (data.side[j] === 1) cls += " added";
      if (data.side[j] === -1) cls += " removed";
      if (match) cls += match[j] ? " match" : " dim";
      el.className = cls + extra;
      el.style.left = (left * 100) + "%";
      el.style.width = (w * 100) + "%";
      el.style.top = (d * ROW) + "px";
      el.style.backgroundColor = color(j, cmode);
      el.setAttribute("data-i", String(j));
      el.textContent = label(j);
      frag.appendChild(el);
      maxDepth = Math.max(maxDepth, d);
      if (data.cause[j] > 0) causes.push({ el: el, left: left, w: w });
    }
    // The zoomed frame's ancestors span the whole width, above it.
    var anc = [];
    for (var a = parent[zoom]; a >= 0; a = parent[a]) anc.push(a);
    anc.reverse().forEach(function (j, d) { box(j, 0, 1, d, " ancestor"); });
    var top = sz[zoom] || 1, base = depth[zoom];
    var hidden = 0;
    var stack = [[zoom, 0]];
    while (stack.length > 0) {
      var it = stack.pop(), j = it[0], x = it[1];
      var w = sz[j] / top;
      if (w * width < MIN_PX) {
        if (sz[j] > 0) hidden++;
        continue;
      }
      box(j, x, w, depth[j] - base + anc.length, "");
      var ch = kids[j];
      var cx = x, pos = [];
      for (var k = 0; k < ch.length; k++) {
        pos.push(cx);
        cx += sz[ch[k]] / top;
      }
      for (k = ch.length - 1; k >= 0; k--) stack.push([ch[k], pos[k]]);
    }
    fg.textContent = "";
    fg.style.height = ((maxDepth + 1) * ROW) + "px";
    fg.appendChild(frag);
    callouts(causes, width);
    var note = hidden > 0 ? plural(hidden, "frame") + " too narrow to draw" : "";
    if (data.pruned > 0) note += (note ? "; " : "") + plural(data.pruned, "small context") + " left out of the report";
    status.textContent = searchStatus(sz) + (note ? " · " + note : "");
    document.documentElement.setAttribute("data-ctdiff-rendered", "1");
  }

  // A cause whose frame is too narrow for its label gets the label beside
  // the frame, on top of its neighbours, so "#1 strings.EqualFold" never
  // reads "#1 stri…". It starts at the frame's left edge, or ends at its
  // right edge when it would run past the graph.
  function callouts(list, width) {
    // Reads and writes are batched: one layout for the frames' widths and
    // one for the labels', however many causes there are.
    var narrow = list.filter(function (b) { return b.el.scrollWidth > b.el.clientWidth; });
    var made = narrow.map(function (b) {
      var c = document.createElement("div");
      c.className = "fg-callout";
      c.textContent = b.el.textContent;
      c.setAttribute("data-i", b.el.getAttribute("data-i"));
      c.style.top = b.el.style.top;
      c.style.left = Math.round(b.left * width) + "px";
      fg.appendChild(c);
      return c;
    });
    var widths = made.map(function (c) { return c.offsetWidth; });
    made.forEach(function (c, k) {
      var left = narrow[k].left * width, right = (narrow[k].left + narrow[k].w) * width;
      if (left + widths[k] > width) c.style.left = Math.round(Math.max(0, right - widths[k])) + "px";
    });
  }

  function searchStatus(sz) {
    if (!match) return "";
    var covered = new Uint8Array(n), count = 0, sum = 0;
    for (var j = 0; j < n; j++) {
      var up = j > 0 && covered[parent[j]];
      covered[j] = up || match[j];
      if (match[j]) count++;
      if (match[j] && !up) sum += sz[j];
    }
    return plural(count, "matching frame") + ", " + format(sum) + " of " + format(sz[0]) +
      " (" + (sz[0] ? (100 * sum / sz[0]).toFixed(2) : "0") + "%)";
  }

  function describe(j) {
    var f = data.frames[data.frame[j]];
    var parts = [name(j)];
    if (data.kind[j] === 2 && f[1]) parts.push(f[1]);
    var d = data.new[j] - data.base[j];
    parts.push("total " + format(data.base[j]) + " → " + format(data.new[j]) + " " + signed(d) + percent(d, data.base[j]));
    var ds = data.newSelf[j] - data.baseSelf[j];
    parts.push("own " + format(data.baseSelf[j]) + " → " + format(data.newSelf[j]) + " " + signed(ds));
    parts.push("in " + data.baseRuns[j] + "/" + data.runsTotal[0] + " base and " +
      data.newRuns[j] + "/" + data.runsTotal[1] + " new runs");
    if (data.side[j] === 1) parts.push("added in every run pair");
    if (data.side[j] === -1) parts.push("removed in every run pair");
    if (data.cause[j] > 0) parts.push("regression cause #" + data.cause[j]);
    return parts.join(" · ");
  }

  function setZoom(j) {
    if (!(j >= 0 && j < n)) return;
    zoom = j;
    render();
    info.textContent = describe(j);
    saveHash();
  }

  // The view lives in the URL's fragment (#zoom=N&search=TEXT&color=total),
  // so a link or a reload shows the same frame, and tests can drive the page.
  function saveHash() {
    var parts = [];
    if (zoom > 0) parts.push("zoom=" + zoom);
    if (search.value) parts.push("search=" + encodeURIComponent(search.value));
    if (colorSel.value !== "self") parts.push("color=" + colorSel.value);
    var h = parts.length ? "#" + parts.join("&") : "";
    if (h !== location.hash && history.replaceState) {
      history.replaceState(null, "", h || location.pathname + location.search);
    }
  }
  function loadHash() {
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var k = kv.split("=")[0], v = kv.slice(k.length + 1);
      try { v = decodeURIComponent(v); } catch (e) { return; }
      if (k === "zoom" && +v >= 0 && +v < n) zoom = +v;
      if (k === "search") search.value = v;
      if (k === "color" && (v === "self" || v === "total")) colorSel.value = v;
    });
  }

  function onSearch() {
    var q = search.value;
    match = null;
    search.classList.remove("invalid");
    if (q !== "") {
      var test;
      if (q.length > 2 && q[0] === "/" && q[q.length - 1] === "/") {
        try {
          var re = new RegExp(q.slice(1, -1), "i");
          test = function (s) { return re.test(s); };
        } catch (e) {
          search.classList.add("invalid");
          test = function () { return false; };
        }
      } else {
        var lq = q.toLowerCase();
        test = function (s) { return s.toLowerCase().indexOf(lq) >= 0; };
      }
      match = new Uint8Array(n);
      for (var j = 1; j < n; j++) match[j] = test(name(j)) ? 1 : 0;
    }
    render();
    saveHash();
  }

  fg.addEventListener("click", function (e) {
    var el = e.target.closest ? e.target.closest(".fg-node, .fg-callout") : null;
    if (el) setZoom(+el.getAttribute("data-i"));
  });
  fg.addEventListener("mouseover", function (e) {
    var el = e.target.closest ? e.target.closest(".fg-node, .fg-callout") : null;
    if (el) info.textContent = describe(+el.getAttribute("data-i"));
  });
  document.getElementById("fg-reset").addEventListener("click", function () { setZoom(0); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && document.activeElement !== search) setZoom(0);
  });
  search.addEventListener("input", onSearch);
  sizeSel.addEventListener("change", render);
  colorSel.addEventListener("change", function () { render(); saveHash(); });
  var resizeTimer = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 100);
  });
  // Rows of the causes table and the heat map zoom to their calling context.
  Array.prototype.forEach.call(document.querySelectorAll("tr[data-node]"), function (tr) {
    tr.addEventListener("click", function (e) {
      if (e.target.closest && e.target.closest("summary")) return;
      setZoom(+tr.getAttribute("data-node"));
      fg.scrollIntoView({ block: "nearest" });
    });
  });
  loadHash();
  if (search.value) onSearch(); else render();
  if (zoom > 0) info.textContent = describe(zoom);
})();
