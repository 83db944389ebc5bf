/* Fieldglass board view: draws a system's picture (rules/picture.py items, serialised by fieldglass/web/frames.py)
   as SVG in table mm, north up, as the PNG export draws it. No network, no library. */
"use strict";
var FG = (function () {
  var NS = "http://www.w3.org/2000/svg";
  var DASH = {dash: [10, 6], dot: [2, 5], dashdot: [10, 4]};

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]); }
    if (parent) parent.appendChild(e);
    return e;
  }

  function Board(svg, table) {
    this.svg = svg;
    this.table = table;
    this.W = table.width_mm; this.D = table.depth_mm;
    this.px = this.W / 912.0; // one pixel of the PNG export's 960 px wide diagram, in mm
    var m = table.margin_mm || 24 * this.px;
    this.levels = table.levels || [1.0];
    this.pad = table.pad || [3, 1.5];
    this.font = table.font || "sans-serif";
    svg.setAttribute("viewBox", [-m, -m, this.W + 2 * m, this.D + 2 * m].map(function (v) { return v.toFixed(1); }).join(" "));
    svg.setAttribute("data-width-mm", this.W); svg.setAttribute("data-depth-mm", this.D);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("rect", {x: -m, y: -m, width: this.W + 2 * m, height: this.D + 2 * m, fill: "#282828"}, svg);
    el("rect", {x: 0, y: 0, width: this.W, height: this.D, fill: "#688058", "class": "cloth"}, svg);
    var g = table.grid;
    if (g) {
      var grid = el("g", {stroke: "#7e967e", "stroke-width": this.px, fill: "none", "class": "grid"}, svg);
      var x0 = g.origin_x_mm, y0 = g.origin_y_mm, f = g.field_mm, d = "";
      for (var c = 0; c <= g.cols; c++) d += "M" + this.sx(x0 + c * f) + " " + this.sy(y0) + "V" + this.sy(y0 + g.rows * f);
      for (var r = 0; r <= g.rows; r++) d += "M" + this.sx(x0) + " " + this.sy(y0 + r * f) + "H" + this.sx(x0 + g.cols * f);
      el("path", {d: d}, grid);
    }
    this.layer = el("g", {"class": "picture"}, svg);
    this.labelLayer = el("g", {"class": "labels"}, svg);
    this.placed = [];
    this.shownLevel = -1;
  }
  /* Screen px per table mm as the board is shown now (the SVG keeps its aspect: the smaller of the two). */
  Board.prototype.scale = function () {
    var r = this.svg.getBoundingClientRect(), vb = this.svg.viewBox.baseVal;
    return Math.min(r.width / vb.width, r.height / vb.height) || this.levels[0];
  };
  /* The level whose labels this scale shows: the largest not above it (labels at least their size). */
  Board.prototype.level = function () {
    var s = this.scale(), k = 0;
    for (var i = 0; i < this.levels.length; i++) if (this.levels[i] <= s * 1.0001) k = i;
    return k;
  };
  Board.prototype.sx = function (x) { return +x.toFixed(1); };
  Board.prototype.sy = function (y) { return +(this.D - y).toFixed(1); };
  Board.prototype.path = function (flat, closed) {
    var d = "";
    for (var i = 0; i < flat.length; i += 2) d += (i ? "L" : "M") + this.sx(flat[i]) + " " + this.sy(flat[i + 1]);
    return d + (closed ? "Z" : "");
  };
  Board.prototype.stroke = function (attrs, it) {
    if (it.pen === "none") { attrs.stroke = "none"; return attrs; }
    attrs["stroke-width"] = (Math.max(1, it.w) * this.px).toFixed(2);
    attrs["stroke-linejoin"] = "round";
    if (DASH[it.pen]) { var px = this.px; attrs["stroke-dasharray"] = DASH[it.pen].map(function (v) { return (v * px).toFixed(2); }).join(" "); }
    return attrs;
  };
  Board.prototype.item = function (it, parent) {
    var self = this, node, attrs = {"data-kind": it.k, "data-piece": it.pc};
    if (it.t === "a") {
      var d = it.p.map(function (p) { return self.path(p, true); }).join("");
      attrs["class"] = "area"; attrs.d = d; attrs.fill = it.c;
      attrs["fill-opacity"] = Math.min(1, it.f * (it.h ? 0.5 : 1));
      attrs.stroke = it.e;
      if (it.bd) attrs["data-body"] = "1";
      node = el("path", this.stroke(attrs, it), parent);
    } else if (it.t === "l") {
      attrs["class"] = "line"; attrs.d = it.p.map(function (p) { return self.path(p, false); }).join("");
      attrs.fill = "none"; attrs.stroke = it.c; attrs["stroke-linecap"] = "round";
      node = el("path", this.stroke(attrs, it), parent);
    } else if (it.t === "d") {
      attrs["class"] = "dot"; attrs.cx = this.sx(it.at[0]); attrs.cy = this.sy(it.at[1]);
      attrs.r = (it.r * this.px).toFixed(2); attrs.fill = it.c; attrs.stroke = "#141414";
      attrs["stroke-width"] = this.px.toFixed(2);
      node = el("circle", attrs, parent);
    }
    if (node && it.tip) { el("title", {}, node).textContent = it.tip; }
    return node;
  };
  /* One placed label at level scale `s` (px per mm): its plate, its text held to the plate's width, its leader. */
  Board.prototype.label = function (it, s, parent) {
    var x = this.sx(it.at[0]) + it.o[0] / s, y = this.sy(it.at[1]) + it.o[1] / s;
    var g = el("g", {"class": "label", "data-kind": it.k, "data-piece": it.pc}, parent);
    if (it.ld) {
      el("line", {"class": "leader", x1: (x + it.ld[0] / s).toFixed(2), y1: (y + it.ld[1] / s).toFixed(2),
                  x2: (x + it.ld[2] / s).toFixed(2), y2: (y + it.ld[3] / s).toFixed(2), stroke: "#e6e6e6",
                  "stroke-width": (1 / s).toFixed(3)}, g);
    }
    el("rect", {"class": "plate", x: x.toFixed(2), y: y.toFixed(2), width: (it.w / s).toFixed(2),
                height: (it.h / s).toFixed(2), fill: "#000", "fill-opacity": 0.62}, g);
    var lines = it.s.split("\n"), widths = it.lw || [it.w - 2 * this.pad[0]];
    for (var k = 0; k < lines.length; k++) {
      var t = el("text", {x: (x + this.pad[0] / s).toFixed(2),
                          y: (y + (this.pad[1] + (0.93 + 1.2 * k) * it.z) / s).toFixed(2),
                          "font-size": (it.z / s).toFixed(3), "font-family": this.font, fill: it.c,
                          textLength: (widths[k] / s).toFixed(2), lengthAdjust: "spacingAndGlyphs"}, g);
      if (it.b) t.setAttribute("font-weight", "bold");
      t.textContent = lines[k];
    }
    el("title", {}, g).textContent = it.tip || it.s;
    return g;
  };
  /* Draw `items` (the item dicts, in layer order) in place of what was drawn, and `levels` (each level's placed
     labels) at the level the board is shown at. */
  Board.prototype.draw = function (items, levels) {
    var g = el("g", {"class": "picture"});
    for (var i = 0; i < items.length; i++) this.item(items[i], g);
    this.svg.replaceChild(g, this.layer);
    this.layer = g;
    this.placed = levels || [];
    this.shownLevel = -1;
    this.drawLabels();
  };
  /* The labels of the level the board is shown at now (again when the page is resized). */
  Board.prototype.drawLabels = function () {
    var k = this.level();
    if (k === this.shownLevel) return;
    var s = this.levels[k], list = this.placed[k] || [];
    var g = el("g", {"class": "labels", "data-level": k, "data-scale": s});
    for (var i = 0; i < list.length; i++) this.label(list[i], s, g);
    this.svg.replaceChild(g, this.labelLayer);
    this.labelLayer = g;
    this.shownLevel = k;
    this.svg.dataset.level = k;
  };

  function text(parent, tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    parent.appendChild(e);
    return e;
  }

  /* The legend: each mark's sample (its items in a 44 x 20 box, y up) and what it means. */
  function legend(container, entries) {
    if (!container) return;
    var key = JSON.stringify((entries || []).map(function (e) { return e.key; }));
    if (container.dataset.keys === key) return;
    container.dataset.keys = key;
    while (container.firstChild) container.removeChild(container.firstChild);
    var mini = {D: 20, px: 1};
    ["sx", "sy", "path", "stroke", "item"].forEach(function (m) { mini[m] = Board.prototype[m]; });
    (entries || []).forEach(function (e) {
      var row = text(container, "div", "entry");
      row.dataset.key = e.key;
      var svg = el("svg", {viewBox: "0 0 44 20", width: 66, height: 30, "class": "sample"}, row);
      el("rect", {x: 0, y: 0, width: 44, height: 20, fill: "#3c4b3c"}, svg);
      e.sample.forEach(function (it) {
        if (it.t === "t") {
          var t = el("text", {x: it.at[0], y: 20 - it.at[1], "font-size": 9, fill: it.c, "font-family": "DejaVu Sans, sans-serif"}, svg);
          if (it.b) t.setAttribute("font-weight", "bold");
          t.textContent = it.s;
        } else mini.item(it, svg);
      });
      text(row, "span", "what", e.text);
    });
  }

  return {Board: Board, el: el, text: text, legend: legend};
})();
