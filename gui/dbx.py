"""DBX in the dashboard: what `MainWindow` adds when the session is a DbxSession (fieldglass/session_dbx.py).

`install(window)` makes both views draw through gui/overlays_dbx.py (terrain, bases, and for the selected element
its zone of control, fire zone, reachable area, target lines in paces and contacts with their type), renames the
targets and game-state columns for a free-measured table, and keeps the combat panel's dice (two D6, attacker
first) while hiding the Wiener-only loss die, flight and follow-up controls.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from gui.overlays_dbx import draw_session


def install(window) -> None:
    for view in (window.live_view, window.board_view):
        view.draw_system = draw_session
    cp = window.combat_panel
    for w in (cp.loss_die, cp.flight, cp.follow):
        w.setVisible(False)
    for lab in cp.findChildren(QLabel):
        if lab.text() in ("loss die", "flight"):
            lab.setVisible(False)
    cp.dice.setPlaceholderText("two D6, the acting element first: 5,3 (empty: the app rolls)")
    cp.target.setToolTip("fire: the target (the nearest in the fire zone, §6.11); melee: the element in contact; "
                         "turn: the element contacted in flank or rear turns to face the attacker (§3.5)")
    window.selection_panel.model.HEADERS = ("target", "contact", "paces", "action", "fire", "net", "melee", "net",
                                            "sight", "note")
    window.game_panel.model.HEADERS = ("element", "side", "type", "x, y mm", "heading", "quality", "bases",
                                       "square", "seen", "waiting for")
    gp = window.game_panel
    for b in (gp.red, gp.grey, gp.black, gp.clear_markers):
        b.setVisible(False)
    window.grid_action.setChecked(False)
    window.board_view.set_message("the board view appears once the table's anchors are seen")


__all__ = ["install"]
