/* The replay page: one moment of the record at a time, the event list and the timeline following it. */
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("fg-data").textContent);
  var n = data.frames.length - 1;
  var svg = document.getElementById("board");
  var board = new FG.Board(svg, data.table);
  var list = document.getElementById("events");
  var scrub = document.getElementById("scrub");
  var caption = document.getElementById("caption");
  var turnSel = document.getElementById("turn");
  var playBtn = document.getElementById("play");
  var speedSel = document.getElementById("speed");
  var rows = [], index = -1, timer = null;

  scrub.max = n;
  data.events.forEach(function (e) {
    var li = FG.text(list, "li", e.type);
    li.dataset.index = e.i; li.dataset.seq = e.seq;
    FG.text(li, "span", "when", e.clock);
    FG.text(li, "span", "what", e.text);
    li.addEventListener("click", function () { stop(); seek(e.i); });
    rows.push(li);
  });
  var marks = document.getElementById("marks");
  data.marks.forEach(function (m) {
    var b = FG.text(marks, "button", "mark " + m.kind);
    b.style.left = (n ? 100 * m.i / n : 0) + "%";
    b.title = m.clock + "  " + m.label;
    b.dataset.index = m.i;
    b.addEventListener("click", function () { stop(); seek(m.i); });
  });
  var start = FG.text(turnSel, "option", "", "jump to turn…"); start.value = "";
  Object.keys(data.turns).forEach(function (t) {
    var o = FG.text(turnSel, "option", "", t === "0" ? "set-up" : "turn " + t); o.value = data.turns[t];
  });
  turnSel.addEventListener("change", function () { if (turnSel.value !== "") { stop(); seek(+turnSel.value); } turnSel.value = ""; });

  function seek(k) {
    k = Math.max(0, Math.min(n, k | 0));
    if (k === index) return;
    index = k;
    board.draw(data.frames[k].map(function (i) { return data.items[i]; }),
               data.labels[k].map(function (set) { return data.label_sets[set].map(function (i) { return data.items[i]; }); }));
    svg.dataset.index = k;
    document.body.dataset.index = k;
    scrub.value = k;
    rows.forEach(function (li, j) {
      li.classList.toggle("current", j === k - 1);
      li.classList.toggle("future", j >= k);
    });
    var e = k ? data.events[k - 1] : null;
    caption.textContent = e ? e.clock + "  turn " + e.turn + (e.phase ? " " + e.phase : "") + ":  " + e.text
                            : "the start, before any event (" + n + " events)";
    if (k) rows[k - 1].scrollIntoView({block: "nearest"});
    if (history.replaceState) history.replaceState(null, "", "#" + k);
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; } playBtn.textContent = "play"; playBtn.title = "play (space)"; }
  function play() {
    if (timer) { stop(); return; }
    if (index >= n) seek(0);
    playBtn.textContent = "pause"; playBtn.title = "pause (space)";
    timer = setInterval(function () { if (index >= n) stop(); else seek(index + 1); }, 800 / (+speedSel.value || 1));
  }
  function on(id, fn) { document.getElementById(id).addEventListener("click", fn); }
  on("first", function () { stop(); seek(0); });
  on("back", function () { stop(); seek(index - 1); });
  on("next", function () { stop(); seek(index + 1); });
  on("last", function () { stop(); seek(n); });
  playBtn.addEventListener("click", play);
  speedSel.addEventListener("change", function () { if (timer) { stop(); play(); } });
  scrub.addEventListener("input", function () { stop(); seek(+scrub.value); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") { stop(); seek(index + 1); }
    else if (ev.key === "ArrowLeft") { stop(); seek(index - 1); }
    else if (ev.key === " ") { ev.preventDefault(); play(); }
    else if (ev.key === "Home") { stop(); seek(0); }
    else if (ev.key === "End") { stop(); seek(n); }
  });
  window.addEventListener("resize", function () { board.drawLabels(); });
  FG.legend(document.getElementById("legend-entries"), data.legend);
  var h = parseInt((location.hash || "").slice(1), 10);
  seek(isNaN(h) ? 0 : h);
})();
