"""The side panels: the selection (targets and the pair's analysis), the combat panel and the game state panel.

Every number and rule shown here comes from the session, which asks the rules engine; the panels only lay it out.
"""

from __future__ import annotations

import random

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from common.errors import InputError
from gui.models import ID_ROLE, ChoiceDelegate, FilterProxy, PiecesModel, TargetsModel


def _mono() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def _text_box(lines: int = 6) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setFont(_mono())
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setMinimumHeight(lines * 14)
    return box


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.horizontalHeader().setStretchLastSection(True)
    view.setAlternatingRowColors(True)
    return view


class SelectionPanel(QWidget):
    """The selected piece's targets (sortable), and with a second piece the pair's full analysis."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel("Click a piece on the table (Shift+click a second one for the pair).")
        self.title.setWordWrap(True)
        self.model = TargetsModel(session, self)
        self.proxy = FilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = _table(self.proxy)
        self.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
        self.table.clicked.connect(self._pick)
        self.pair_text = _text_box(10)
        self.pair_text.setPlaceholderText("Select a second piece (Shift+click, or click a target) for the pair's "
                                          "analysis with every modifier and its rule.")
        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.title)
        tl.addWidget(self.table)
        split.addWidget(top)
        split.addWidget(self.pair_text)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(split)

    def _pick(self, index) -> None:
        pid = index.data(ID_ROLE)
        if pid:
            self.session.select(pid, second=True)

    def refresh(self) -> None:
        s = self.session
        if s.selected is None:
            self.title.setText("Click a piece on the table (Shift+click a second one for the pair).")
        elif hasattr(s, "selection_title"):  # a system describing its own selection (Marengo blocks)
            self.title.setText(s.selection_title())
        elif not s.in_position(s.selected):
            self.title.setText(f"{s.selected}: not on the table now (not seen, off the grid or removed)")
        else:
            p = s.position.piece(s.selected)
            n = sum(1 for r in s.targets() if r.fire or r.melee)
            self.title.setText(f"<b>{p.id}</b> {p.side} {p.type.replace('_', ' ')} {p.formation or ''} at "
                               f"{p.field_name} facing {p.facing}: {n} target(s) it may fire at or attack")
        self.model.refresh()
        pair = s.pair()
        self.pair_text.setPlainText("\n".join(pair[1]) if pair else "")


class CombatPanel(QWidget):
    """Attacker, target, action, supporters; both sides' modifiers; dice typed or rolled (seeded, shown); the result
    explained; one click applies it to the game state."""

    applied = Signal()

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.outcome = None
        self.attacker = QComboBox()
        self.target = QComboBox()
        self.action = QComboBox()
        self.action.addItems(list(session.system.actions))
        self.supporters = QListWidget()
        self.supporters.setMaximumHeight(70)
        self.att_mods = _text_box(3)
        self.def_mods = _text_box(3)
        self.dice = QLineEdit()
        self.dice.setPlaceholderText("physical dice, attacker first: 5,3 (empty: the app rolls)")
        self.loss_die = QSpinBox()
        self.loss_die.setRange(0, 6)
        self.loss_die.setSpecialValueText("roll")
        self.seed = QLineEdit()
        self.seed.setPlaceholderText("seed (empty: a new one)")
        self.flight = QComboBox()
        self.flight.addItems(["rules default", "1 LE", "2 LE"])
        self.follow = QCheckBox("follow up")
        self.resolve_button = QPushButton("Resolve with these dice")
        self.resolve_button.setToolTip("Ctrl+Return")
        self.roll_button = QPushButton("Roll dice && resolve")
        self.roll_button.setToolTip("Ctrl+D: the app rolls with a new seed, shown here for replay")
        self.apply_button = QPushButton("Apply to the game")
        self.apply_button.setToolTip("Ctrl+Shift+Return: markers, bases, flags now; moves and removals wait for the "
                                     "physical pieces")
        self.apply_button.setEnabled(False)
        self.result = _text_box(8)

        form = QFormLayout()
        form.addRow("attacker", self.attacker)
        form.addRow("target", self.target)
        form.addRow("action", self.action)
        form.addRow("supporters", self.supporters)
        mods = QHBoxLayout()
        ga, gd = QGroupBox("attacker's modifiers"), QGroupBox("defender's modifiers")
        QVBoxLayout(ga).addWidget(self.att_mods)
        QVBoxLayout(gd).addWidget(self.def_mods)
        mods.addWidget(ga)
        mods.addWidget(gd)
        dice = QFormLayout()
        dice.addRow("dice", self.dice)
        row = QHBoxLayout()
        row.addWidget(QLabel("loss die"))
        row.addWidget(self.loss_die)
        row.addWidget(QLabel("flight"))
        row.addWidget(self.flight)
        row.addWidget(self.follow)
        dice.addRow(row)
        dice.addRow("seed", self.seed)
        buttons = QHBoxLayout()
        buttons.addWidget(self.resolve_button)
        buttons.addWidget(self.roll_button)
        buttons.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(form)
        lay.addLayout(mods)
        lay.addLayout(dice)
        lay.addLayout(buttons)
        lay.addWidget(self.result, 1)

        self._syncing = False
        for w in (self.attacker, self.target, self.action):
            w.currentIndexChanged.connect(self._changed)
        self.supporters.itemChanged.connect(lambda _: self._update_modifiers())
        self.resolve_button.clicked.connect(lambda: self.resolve(roll=False))
        self.roll_button.clicked.connect(lambda: self.resolve(roll=True))
        self.apply_button.clicked.connect(self.apply)

    # ---- keeping up with the table

    def refresh(self) -> None:
        """Refill the piece lists from the position, keeping the choice; follow the table's selection."""
        s = self.session
        ids = [p.id for p in s.position.pieces] if s.position is not None else []
        self._syncing = True
        for combo in (self.attacker, self.target):
            cur = combo.currentText()
            if [combo.itemText(i) for i in range(combo.count())] != ids:
                combo.clear()
                combo.addItems(ids)
                combo.setCurrentText(cur)
        self._syncing = False

    def follow_selection(self) -> None:
        s = self.session
        self._syncing = True
        if s.selected and self.attacker.findText(s.selected) >= 0:
            self.attacker.setCurrentText(s.selected)
        if s.second and self.target.findText(s.second) >= 0:
            self.target.setCurrentText(s.second)
        self._syncing = False
        self._changed()

    def _changed(self) -> None:
        if self._syncing:
            return
        a, t, act = self.attacker.currentText(), self.target.currentText(), self.action.currentText()
        self.supporters.blockSignals(True)
        self.supporters.clear()
        if a and t:
            for pid in self.session.supporter_candidates(a, t, act):
                item = QListWidgetItem(pid)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Unchecked)
                self.supporters.addItem(item)
        self.supporters.blockSignals(False)
        self._update_modifiers()

    def chosen_supporters(self) -> list[str]:
        return [self.supporters.item(i).text() for i in range(self.supporters.count())
                if self.supporters.item(i).checkState() == Qt.CheckState.Checked]

    def _update_modifiers(self) -> None:
        a, t, act = self.attacker.currentText(), self.target.currentText(), self.action.currentText()
        single = act in getattr(self.session.system, "single_piece_actions", ())
        self.target.setEnabled(not single)
        if not a or (not single and (not t or a == t)):
            self.att_mods.setPlainText("")
            self.def_mods.setPlainText("")
            return
        try:
            att, dfn = self.session.combat_modifiers(a, t, act, self.chosen_supporters())
        except InputError as exc:
            att, dfn = [str(exc)], []
        self.att_mods.setPlainText("\n".join(att))
        self.def_mods.setPlainText("\n".join(dfn))

    # ---- resolving

    def resolve(self, roll: bool = False):
        """Resolve with the typed dice (missing ones rolled), or all rolled with a new seed when `roll`."""
        a, t, act = self.attacker.currentText(), self.target.currentText(), self.action.currentText()
        try:
            from common.dice import parse_d6

            dice = [] if roll else (parse_d6(self.dice.text(), "dice") if self.dice.text().strip() else [])
            if roll or not self.seed.text().strip():
                seed = random.SystemRandom().randrange(2**31) if roll or not dice else None
            else:
                try:
                    seed = int(self.seed.text())
                except ValueError:
                    raise InputError(f"seed {self.seed.text()!r} is not a whole number") from None
            if seed is not None:
                self.seed.setText(str(seed))
            flight = {0: None, 1: 1, 2: 2}[self.flight.currentIndex()]
            outcome = self.session.resolve(act, a, t, dice=dice, seed=seed, supporters=self.chosen_supporters(),
                                           loss_die=self.loss_die.value() or None, flight=flight,
                                           follow_up=True if self.follow.isChecked() else None)
        except InputError as exc:
            self.outcome = None
            self.apply_button.setEnabled(False)
            self.result.setPlainText(f"cannot resolve: {exc}")
            self.session.events.message.emit(str(exc))
            return None
        self.outcome = outcome
        seed_text = f"  (seed {outcome.seed}, replay with the same seed)" if outcome.seed is not None else ""
        lines = outcome.lines + [f"dice: {', '.join(map(str, outcome.rolled))}{seed_text}"]
        self.result.setPlainText("\n".join(lines))
        self.apply_button.setEnabled(True)
        return outcome

    def apply(self) -> None:
        if self.outcome is None:
            return
        pending = self.session.apply(self.outcome)
        extra = [f"waiting for the table: {p.describe()}" for p in pending]
        self.result.appendPlainText("\napplied to the game state." + ("\n" + "\n".join(extra) if extra else ""))
        self.outcome = None
        self.apply_button.setEnabled(False)
        self.applied.emit()


class GameStatePanel(QWidget):
    """Turn, active side, and every piece with bases, markers and formation: sortable, filterable, editable."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.turn = QSpinBox()
        self.turn.setRange(1, 999)
        self.active = QComboBox()
        self.active.addItems(session.sides)
        self.next_button = QPushButton("Next phase")
        self.next_button.setToolTip("N: the other side becomes active (a new turn after the last side)")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("filter pieces (Ctrl+L)")
        self.side_filter = QComboBox()
        self.side_filter.addItems(["all sides", *session.sides])
        self.model = PiecesModel(session, self)
        self.proxy = FilterProxy(self, side_column=1)
        self.proxy.setSourceModel(self.model)
        self.table = _table(self.proxy)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.SelectedClicked)
        self.table.setItemDelegate(ChoiceDelegate(self.model.choices, self.table))
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.clicked.connect(self._pick)
        self.red = QPushButton("+ Red")
        self.grey = QPushButton("+ Grey")
        self.black = QPushButton("+ Black")
        self.clear_markers = QPushButton("Clear markers")
        self.log = _text_box(4)

        top = QHBoxLayout()
        top.addWidget(QLabel("turn"))
        top.addWidget(self.turn)
        top.addWidget(QLabel("active"))
        top.addWidget(self.active)
        top.addWidget(self.next_button)
        top.addStretch(1)
        flt = QHBoxLayout()
        flt.addWidget(self.filter, 1)
        flt.addWidget(self.side_filter)
        marks = QHBoxLayout()
        for b in (self.red, self.grey, self.black, self.clear_markers):
            marks.addWidget(b)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.log)
        split.setStretchFactor(0, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addLayout(flt)
        lay.addWidget(split, 1)
        lay.addLayout(marks)

        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.side_filter.currentIndexChanged.connect(
            lambda i: self.proxy.set_side("" if i == 0 else self.side_filter.currentText()))
        self.turn.valueChanged.connect(lambda v: self._set_turn())
        self.active.currentIndexChanged.connect(lambda i: self._set_turn())
        self.next_button.clicked.connect(session.next_phase)
        self.red.clicked.connect(lambda: self.add_marker("red"))
        self.grey.clicked.connect(lambda: self.add_marker("grey"))
        self.black.clicked.connect(lambda: self.add_marker("black"))
        self.clear_markers.clicked.connect(lambda: self._set_markers(()))
        self.model.error.connect(session.events.message.emit)
        self._syncing = False

    def _pick(self, index) -> None:
        pid = index.data(ID_ROLE)
        if pid and self.session.selected != pid:
            self.session.select(pid)

    def _set_turn(self) -> None:
        if not self._syncing:
            self.session.set_turn(self.turn.value(), self.active.currentText())

    def current_piece(self) -> str | None:
        idx = self.table.currentIndex()
        return idx.data(ID_ROLE) if idx.isValid() else self.session.selected

    def add_marker(self, marker: str) -> None:
        pid = self.current_piece()
        if pid is None:
            return
        pos = self.session.position
        have = tuple(pos.piece(pid).markers) if pos is not None and pid in pos.by_id else ()
        self._set_markers(have + (marker,), pid)

    def _set_markers(self, markers, pid: str | None = None) -> None:
        pid = pid or self.current_piece()
        if pid is None:
            return
        try:
            self.session.set_piece_state(pid, "markers", markers)
        except InputError as exc:
            self.session.events.message.emit(str(exc))

    def refresh(self) -> None:
        s = self.session
        self._syncing = True
        self.turn.setValue(s.state.turn)
        self.active.setCurrentText(s.state.active)
        self._syncing = False
        self.model.refresh()
        text = "\n".join(s.state.log[-200:])
        if self.log.toPlainText() != text:
            self.log.setPlainText(text)
            self.log.verticalScrollBar().setValue(self.log.verticalScrollBar().maximum())
