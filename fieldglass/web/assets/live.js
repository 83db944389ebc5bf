/* The live page: the board, the recent moves and the current combat, following the server's event stream. The
   browser's EventSource reconnects by itself and sends the last event seq it had, so a spectator catches up. */
"use strict";
(function () {
  var svg = document.getElementById("board");
  var list = document.getElementById("events");
  var status = document.getElementById("status");
  var board = null, tableKey = null, received = 0;

  function show(msg) {
    var key = JSON.stringify(msg.table);
    if (key !== tableKey) { board = new FG.Board(svg, msg.table); tableKey = key; }
    board.draw(msg.items, msg.labels);
    FG.legend(document.getElementById("legend-entries"), msg.legend);
    received += msg["new"].length;
    svg.dataset.seq = msg.seq; svg.dataset.count = msg.count; svg.dataset.received = received;
    document.getElementById("title").textContent = msg.title;
    document.title = msg.title + " – live";
    document.getElementById("who").textContent = msg.viewer === "umpire" ? "umpire's view: everything" :
      msg.viewer === "public" ? "public view" : msg.viewer + "'s view";
    document.getElementById("caption").textContent = msg.caption;
    var combat = document.getElementById("combat");
    combat.textContent = msg.combat ? msg.combat.clock + "  " + msg.combat.text : "none this turn";
    while (list.firstChild) list.removeChild(list.firstChild);
    msg.recent.slice().reverse().forEach(function (e) {
      var li = FG.text(list, "li", e.type); li.dataset.seq = e.seq;
      FG.text(li, "span", "when", e.clock); FG.text(li, "span", "what", e.text);
    });
  }

  window.addEventListener("resize", function () { if (board) board.drawLabels(); });
  var first = JSON.parse(document.getElementById("fg-data").textContent || "{}");
  if (first && first.table) show(first);  // the game as it stood when the page was served: shown at once
  var source = new EventSource(first && first.seq !== undefined ? "events?after=" + first.seq : "events");
  source.onopen = function () { status.textContent = "live"; status.className = "live"; };
  source.onerror = function () { status.textContent = "reconnecting…"; status.className = "down"; };
  source.onmessage = function (ev) { show(JSON.parse(ev.data)); };
})();
