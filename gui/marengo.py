"""Marengo in the dashboard: what `MainWindow` adds when the session is a MarengoSession.

`install(window)` adds the View menu's player / umpire views (the session's `viewers`, the umpire first) and the
combat panel's choices line (push, lead, fire, counter, retreat... as for `fieldglass resolve`); Marengo has no dice,
so the dice controls are hidden. The board view's overlays come from gui/overlays_marengo.py.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit


def _menu(window, title: str):
    for act in window.menuBar().actions():
        if act.menu() is not None and act.text().replace("&", "") == title:
            return act.menu()
    return window.menuBar().addMenu(title)


def install(window) -> None:
    s = window.session
    view = _menu(window, "View")
    view.addSeparator()
    group = QActionGroup(window)
    window.viewer_actions = {}
    for viewer, text, key in ((s.viewers[0], "Umpire view (all identities)", "Ctrl+0"),
                              ("AU", "Austrian player view", "Ctrl+1"), ("FR", "French player view", "Ctrl+2")):
        act = QAction(text, window)
        act.setCheckable(True)
        act.setShortcut(QKeySequence(key))
        act.toggled.connect(lambda on, v=viewer: on and set_viewer(window, v))
        group.addAction(act)
        view.addAction(act)
        window.viewer_actions[viewer] = act
    window.viewer_actions[s.viewer].setChecked(True)

    cp = window.combat_panel
    for w in (cp.dice, cp.loss_die, cp.seed, cp.flight, cp.follow, cp.roll_button):
        w.setVisible(False)
    for lab in cp.findChildren(QLabel):
        if lab.text() in ("loss die", "flight", "dice", "seed"):
            lab.setVisible(False)
    cp.resolve_button.setText("Resolve (no dice in Marengo)")
    cp.choices = QLineEdit()
    cp.choices.setObjectName("marengo-choices")
    cp.choices.setPlaceholderText("choices: push=ID lead=ID fire=yes counter=ID retreat.ID=AREA ...")
    cp.choices.setToolTip(s.system.choice_help)
    cp.layout().itemAt(0).layout().addRow("choices", cp.choices)
    cp.choices.textChanged.connect(lambda text: _set_choices(window, text))
    cp.target.setToolTip("an enemy block (its area is the target) or, for a move, a block in the destination")
    cp.refresh = lambda: _refresh_combat(window)
    cp.follow_selection = lambda: _follow_selection(window)
    window.selection_panel.model.HEADERS = ("target", "area", "steps", "action", "legal", "cost", "attack", "", "",
                                            "outcome")
    window.board_view.set_message("the board view appears once the board's anchors are seen")


def _set_choices(window, text: str) -> None:
    out = {}
    for item in text.replace(";", " ").split():
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
    window.session.choices = out
    window.combat_panel._update_modifiers()


def _labels(session) -> list[str]:
    """The blocks in the position as the viewer may name them (a hidden block by its colour and a number)."""
    views = session.block_views()
    pos = session.position
    ids = [b.id for b in pos.blocks] if pos is not None else []
    return [views[i].label if i in views and views[i].hidden else i for i in ids]


def _refresh_combat(window) -> None:
    """The combat panel's piece lists, hidden blocks by label (CombatPanel.refresh lists engine ids)."""
    cp, labels = window.combat_panel, _labels(window.session)
    cp._syncing = True
    for combo in (cp.attacker, cp.target):
        cur = combo.currentText()
        if [combo.itemText(i) for i in range(combo.count())] != labels:
            combo.clear()
            combo.addItems(labels)
            combo.setCurrentText(cur)
    cp._syncing = False


def _follow_selection(window) -> None:
    cp, s = window.combat_panel, window.session
    _refresh_combat(window)
    cp._syncing = True
    for pid, combo in ((s.selected, cp.attacker), (s.second, cp.target)):
        if pid:
            name = s.label(pid)
            if combo.findText(name) >= 0:
                combo.setCurrentText(name)
    cp._syncing = False
    cp._changed()


def set_viewer(window, viewer: str) -> None:
    window.session.set_viewer(viewer)
    if not window.viewer_actions[viewer].isChecked():
        window.viewer_actions[viewer].setChecked(True)
    _refresh_combat(window)
    window._refresh_all()


__all__ = ["install", "set_viewer"]
