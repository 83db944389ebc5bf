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
    var m = 24 * this.px;
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
  }
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
    } else if (it.t === "t") {
      attrs["class"] = "label"; attrs.x = (this.sx(it.at[0]) + it.o[0] * this.px).toFixed(1);
      attrs.y = (this.sy(it.at[1]) + it.o[1] * this.px).toFixed(1);
      attrs["font-size"] = (it.z * 1.35 * this.px).toFixed(2); attrs.fill = it.c;
      if (it.b) attrs["font-weight"] = "bold";
      node = el("text", attrs, parent);
      node.textContent = it.s;
    }
    if (node && it.tip) { el("title", {}, node).textContent = it.tip; }
    return node;
  };
  /* Draw `items` (the item dicts, in layer order) in place of what was drawn. */
  Board.prototype.draw = function (items) {
    var g = el("g", {"class": "picture"});
    for (var i = 0; i < items.length; i++) this.item(items[i], g);
    this.svg.replaceChild(g, this.layer);
    this.layer = g;
  };

  function text(parent, tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    parent.appendChild(e);
    return e;
  }

  return {Board: Board, el: el, text: text};
})();
