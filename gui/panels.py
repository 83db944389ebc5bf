"""The side panels: the selection (targets and the pair's analysis), the combat panel, the game state panel and a
system's own game-state panels (rules/live.py `Panel`, laid out as they come).

Every number and rule shown here comes from the session, which asks the rules engine; the panels only lay it out.
"""

from __future__ import annotations

import random

import numpy as np
from PySide6.QtCore import QBuffer, QIODevice, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QImage, QPixmap
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
    QStackedWidget,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from common.dice import parse_d6
from common.errors import InputError
from gui.models import ID_ROLE, ChoiceDelegate, FilterProxy, PiecesModel, TargetsModel


def parse_choices(text: str) -> dict[str, str]:
    """"push=a,b lead=c" -> {"push": "a,b", "lead": "c"} (words without "=" are ignored while typing)."""
    out = {}
    for item in text.replace(";", " ").split():
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _mono() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def _text_box(lines: int = 6) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setFont(_mono())
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setMinimumHeight(lines * 14)
    return box


class FittedTable(QTableView):
    """A table whose columns are fitted to their contents and, where that is wider than the panel, narrowed to it
    (each cut cell elided, its tooltip holding all of it), again whenever the panel is resized: no column runs
    off the panel."""

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        fit_columns(self, refit=False)


def _table(model) -> QTableView:
    view = FittedTable()
    view.setModel(model)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    # columns fitted to their contents when the rows are replaced, not on every changed cell: ResizeToContents
    # reads every cell of every row again after each change (a frame with one piece moved), which at 100 pieces
    # cost the dashboard more than drawing the table
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setAlternatingRowColors(True)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)  # a cut cell ends in "…"; its tooltip has it all
    view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # so does a cut header ("weap…")
    view.setWordWrap(False)
    model.modelReset.connect(lambda: fit_columns(view))
    return view


COLUMN_MAX_PX = 150
"""The widest a column is fitted to (the last one stretches over what is left): a long note is elided, read whole
in its tooltip, instead of pushing the other columns off the panel."""


def unused_column(header: str) -> bool:
    """A column a system leaves empty (headed "-" or nothing): not shown."""
    return header.strip() in ("", "-")


def hide_unused_columns(view: QTableView, headers) -> None:
    for c, h in enumerate(headers):
        view.setColumnHidden(c, unused_column(str(h)))


COLUMN_MIN_PX = 34
FIRST_COLUMN_PX = 110
"""Where the columns do not fit: the last (a note, stretched over what is left) gives way first, then the widest of
the others; the first (what the row is: a target, a piece) keeps up to FIRST_COLUMN_PX of its width."""


def fit_columns(view: QTableView, refit: bool = True) -> None:
    """Each column fitted to its contents and its header, at most COLUMN_MAX_PX (`refit` False: the widths it
    fitted last, kept in the view), then narrowed until all fit the view (see FIRST_COLUMN_PX)."""
    head = view.horizontalHeader()
    shown = [c for c in range(head.count()) if not view.isColumnHidden(c)]
    if not shown:
        return
    if refit or getattr(view, "fitted", None) is None:
        view.resizeColumnsToContents()
        view.fitted = {c: min(head.sectionSize(c), COLUMN_MAX_PX) for c in shown}
    widths = {c: view.fitted.get(c, head.sectionSize(c)) for c in shown}
    floor = {c: COLUMN_MIN_PX for c in shown}
    floor[shown[0]] = min(widths[shown[0]], FIRST_COLUMN_PX)
    room = view.viewport().width() - 2
    last = shown[-1]
    if len(shown) > 1 and sum(widths.values()) > room:  # the note gives way first
        widths[last] = max(floor[last], widths[last] - (sum(widths.values()) - room))
    while sum(widths.values()) > room:
        over = [c for c in shown if widths[c] > floor[c]]
        if not over:
            break
        widest = max(over, key=widths.get)
        widths[widest] = max(floor[widest], widths[widest] - max(4, (sum(widths.values()) - room) // len(over)))
    for c, w in widths.items():  # (the last one stretches over what is left)
        head.resizeSection(c, int(w))


class SelectionPanel(QWidget):
    """The selected piece's targets (sortable), and with a second piece the pair's full analysis."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel("Click a piece on the table (Shift+click a second one for the pair).")
        self.title.setWordWrap(True)
        self.model = TargetsModel(session, self)
        self.model.HEADERS = tuple(session.live.target_headers)
        self.proxy = FilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = _table(self.proxy)
        hide_unused_columns(self.table, self.model.HEADERS)
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
        elif (title := s.title()) is not None:  # the system's own words for its selection
            self.title.setText(title)
        elif not s.in_position(s.selected):
            self.title.setText(f"{s.selected}: not on the table now (not seen, off the table or removed)")
        else:
            p = s.position.piece(s.selected)
            where, facing = p.where()
            n = sum(1 for r in s.targets() if r.fire or r.melee)
            self.title.setText(f"<b>{p.id}</b> {p.side} {p.type.replace('_', ' ')} at {where}"
                               + (f" facing {facing}" if facing else "") + f": {n} target(s) it may act on")
        self.model.refresh()
        pair = s.pair()
        self.pair_text.setPlainText("\n".join(pair[1]) if pair else "")


def _side_by_side(images: list) -> np.ndarray:
    """BGR images in a row, on the height of the tallest (a grey strip between)."""
    h = max(im.shape[0] for im in images)
    parts = []
    for im in images:
        pad = np.full((h, im.shape[1], 3), 64, np.uint8)
        pad[: im.shape[0]] = im
        parts += [pad, np.full((h, 4, 3), 128, np.uint8)]
    return np.ascontiguousarray(np.hstack(parts[:-1]))


def _jpeg(bgr: np.ndarray) -> bytes:
    """A BGR image as JPEG bytes, through Qt (only gui imports Qt; no OpenCV needed here)."""
    h, w = bgr.shape[:2]
    img = QImage(bgr.data, w, h, bgr.strides[0], QImage.Format.Format_BGR888).copy()
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(buf, "JPG", 85)
    return bytes(buf.data())


class CombatPanel(QWidget):
    """Attacker, target, action, supporters; both sides' modifiers; dice typed or rolled (seeded, shown); the result
    explained; one click applies it to the game state."""

    applied = Signal()

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.outcome = None
        self.extra_names: list[str] = []
        self._build_widgets()
        self._build_inputs()
        self._build_buttons()
        self._build_layout()
        self._syncing = False
        self._connect()

    # ---- building the panel

    def _build_widgets(self) -> None:
        """The combatants, the action, the supporters, both sides' modifiers, the dice and the seed."""
        live = self.session.live
        self.attacker = QComboBox()
        self.target = QComboBox()
        self.action = QComboBox()
        self.action.addItems(list(self.session.system.actions))
        self.supporters = QListWidget()
        self.supporters.setMaximumHeight(70)
        self.att_mods = _text_box(3)
        self.def_mods = _text_box(3)
        self.inputs = {i.key: i for i in live.inputs}
        self.dice = QLineEdit()
        dice_input = next((i for i in live.inputs if i.kind == "dice"), None)
        self.dice.setPlaceholderText(dice_input.hint if dice_input else "")
        self.seed = QLineEdit()
        self.seed.setPlaceholderText("seed (empty: a new one)")
        # a throw the camera read: its picture (the dice numbered in the order they fill the line) and what it gave
        self.dice_photo = QLabel()
        self.dice_photo.setObjectName("dice-photo")
        self.dice_photo.setVisible(False)
        self.dice_note = QLabel()
        self.dice_note.setObjectName("dice-note")
        self.dice_note.setWordWrap(True)
        self.dice_note.setVisible(False)
        self._read: list[int | None] | None = None  # the dice the camera read into the line (None: none read)
        self._throws: list = []  # the throws they came from (vision/dice_watch.py DiceThrow), in order
        self._read_for: tuple | None = None  # the (action, attacker, target) the read dice were for
        self._photo_jpeg = b""  # the throws' picture as the record keeps it
        if live.target_hint:
            self.target.setToolTip(live.target_hint)

    def _build_inputs(self) -> None:
        """One widget per other input the system declares (a die, a choice, a flag, free choices), by key."""
        self.extra: dict[str, QWidget] = {}
        for inp in self.session.live.inputs:
            w = self._input_widget(inp)
            if w is None:
                continue
            w.setObjectName(f"input-{inp.key}")
            w.setToolTip(inp.hint)
            self.extra[inp.key] = w
        # the Wiener controls by their old names (tests and shortcuts use them): None where a system has none
        self.loss_die = self.extra.get("loss_die")
        self.flight = self.extra.get("flight")
        self.follow = self.extra.get("follow_up")
        self.choices = next((w for k, w in self.extra.items() if self.inputs[k].kind == "choices"), None)

    def _input_widget(self, inp) -> QWidget | None:
        """The widget for one declared input; None for the dice (typed in the dice line) and unknown kinds."""
        if inp.kind == "die":
            w = QSpinBox()
            w.setRange(0, 6)
            w.setSpecialValueText("roll")
        elif inp.kind == "choice":
            w = QComboBox()
            w.addItems(list(inp.options))
        elif inp.kind == "flag":
            w = QCheckBox(inp.label)
        elif inp.kind == "choices":
            w = QLineEdit()
            w.setPlaceholderText(f"{inp.label}: {inp.hint}")
            w.textChanged.connect(self._choices_changed)
        else:
            return None
        return w

    def _build_buttons(self) -> None:
        self.resolve_button = QPushButton("Resolve with these dice")
        self.resolve_button.setToolTip("Ctrl+Return")
        self.roll_button = QPushButton("Roll dice && resolve")
        self.roll_button.setToolTip("Ctrl+D: the app rolls with a new seed, shown here for replay")
        self.apply_button = QPushButton("Apply to the game")
        self.apply_button.setToolTip("Ctrl+Shift+Return: markers, bases, flags now; moves and removals wait for the "
                                     "physical pieces")
        self.apply_button.setEnabled(False)
        self.result = _text_box(8)

    def _build_layout(self) -> None:
        """Combatants, modifiers side by side, dice and inputs, buttons, the result below (no dice line, seed or
        roll button for a system without dice)."""
        live = self.session.live
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
        buttons = QHBoxLayout()
        buttons.addWidget(self.resolve_button)
        buttons.addWidget(self.roll_button)
        buttons.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(form)
        lay.addLayout(mods)
        lay.addLayout(self._dice_form())
        if not live.uses_dice:
            self.roll_button.setVisible(False)
            self.resolve_button.setText("Resolve")
        lay.addLayout(buttons)
        lay.addWidget(self.result, 1)

    def _dice_form(self) -> QFormLayout:
        """The dice, free choices on rows of their own, the other inputs in one row, the seed."""
        uses_dice = self.session.live.uses_dice
        dice = QFormLayout()
        if uses_dice:
            dice.addRow("dice", self.dice)
            read = QHBoxLayout()
            read.addWidget(self.dice_photo)
            read.addWidget(self.dice_note, 1)
            dice.addRow(read)
        row = QHBoxLayout()
        for key, w in self.extra.items():
            inp = self.inputs[key]
            if inp.kind == "choices":
                dice.addRow(inp.label, w)
                continue
            if inp.kind != "flag":
                row.addWidget(QLabel(inp.label))
            row.addWidget(w)
        if row.count():
            dice.addRow(row)
        if uses_dice:
            dice.addRow("seed", self.seed)
        return dice

    def _connect(self) -> None:
        for w in (self.attacker, self.target, self.action):
            w.currentIndexChanged.connect(self._changed)
        self.supporters.itemChanged.connect(lambda _: self._update_modifiers())
        self.session.events.dice.connect(self.take_throw)
        self.resolve_button.clicked.connect(lambda: self.resolve(roll=False))
        self.roll_button.clicked.connect(lambda: self.resolve(roll=True))
        self.apply_button.clicked.connect(self.apply)

    # ---- keeping up with the table

    def refresh(self) -> None:
        """Refill the piece lists from the position (and the names besides pieces the system lets act, and any a
        panel's action filled in), keeping the choice; follow the table's selection."""
        s = self.session
        ids = list(dict.fromkeys([*s.piece_names(), *s.actors(), *self.extra_names]))
        self._syncing = True
        for combo in (self.attacker, self.target):
            cur = combo.currentText()
            if [combo.itemText(i) for i in range(combo.count())] != ids:
                combo.clear()
                combo.addItems(ids)
                combo.setCurrentText(cur)
        self._syncing = False

    def prefill(self, act) -> None:
        """Fill in a panel's action (rules.live.PanelAction): the action, its attacker and target (a name that is not
        a piece, e.g. a region, is added to the lists) and its choices, so that the player only resolves."""
        for name in (act.attacker, act.target):
            if name:
                self.extra_names.append(name)
        self.refresh()
        self._syncing = True
        self.action.setCurrentText(act.action)
        self.attacker.setCurrentText(act.attacker)
        if act.target:
            self.target.setCurrentText(act.target)
        self._syncing = False
        if self.choices is not None:
            self.choices.setText(act.choice_text)
        self._changed()
        self.result.setPlainText(f"{act.label}: filled in; type or roll the dice and resolve")

    def follow_selection(self) -> None:
        s = self.session
        self.refresh()
        self._syncing = True
        for pid, combo in ((s.selected, self.attacker), (s.second, self.target)):
            name = s.visible_id(pid) if pid else None
            if name and combo.findText(name) >= 0:
                combo.setCurrentText(name)
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

    # ---- dice the camera read

    def take_throw(self, throw) -> None:
        """A throw the camera read (vision/dice_watch.py DiceThrow): its values into the dice line for the selected
        action, as the system wants them (`Session.dice_wanted`): a throw of as many dice as the action takes fills
        them all, left to right along the table; one of fewer fills the next ones (each player throws his own); a
        new throw after that replaces them. A die that could not be read for sure is left for the player to type,
        with the dice after it. The player may type over any of them."""
        if not self.session.live.uses_dice:
            return
        a, t, act = self.attacker.currentText(), self.target.currentText(), self.action.currentText()
        wanted = self.session.dice_wanted(act, a or None, t or None)
        values = list(throw.values)
        if wanted == ():
            self._forget_throw()  # nothing of it goes into the record with this action
            self._show_photo([throw])
            self.dice_note.setText(f"camera: {throw.text()} (throw {throw.number}); {act} takes no dice")
            return
        key = (act, a, t)
        go_on = (wanted is not None and self._read is not None and self._read_for == key
                 and len(self._read) < len(wanted) and None not in self._read)
        read = (self._read if go_on else []) + values
        if wanted is not None:
            read = read[: len(wanted)]
        filled = []
        for v in read:
            if v is None:
                break
            filled.append(v)
        self._throws = [*self._throws, throw] if go_on else [throw]
        self._read, self._read_for = read, key
        self._show_photo(self._throws)
        self.dice.setText(", ".join(map(str, filled)))
        self.dice_note.setText(self._read_note(throw, wanted, read, len(values)))
        self.dice_note.setToolTip("the dice in the picture are numbered in the order they fill the line; type over "
                                  "them if the camera misread one")
        self.seed.clear()

    def _read_note(self, throw, wanted, read: list, thrown: int) -> str:
        """What the camera's dice gave: each die with whose it is, what is still to throw, what could not be read."""
        names = wanted if wanted is not None else ()
        given = [f"{names[i]} {v}" if i < len(names) else str(v) for i, v in enumerate(read) if v is not None]
        text = f"camera, throw {throw.number}: " + (", ".join(given) if given else "no die read")
        missing = [i + 1 for i, v in enumerate(read) if v is None]
        if missing:
            text += f"; die {missing[0]} could not be read for sure: type it and those after it"
        elif wanted is not None and len(read) < len(wanted):
            text += f"; still to throw: {', '.join(wanted[len(read):])}"
        elif wanted is not None and thrown > len(wanted) and len(read) == len(wanted):
            text += f" ({thrown} dice thrown; the action takes {len(wanted)}: the first taken)"
        return text

    def _show_photo(self, throws: list) -> None:
        """The throws' pictures side by side (a die thrown by each player in turn: both)."""
        firsts = np.cumsum([1] + [len(th.readings) for th in throws[:-1]])
        crop = _side_by_side([th.numbered(int(k)) for th, k in zip(throws, firsts, strict=True)])
        self._photo_jpeg = _jpeg(crop) if len(throws) > 1 else throws[-1].jpeg
        h, w = crop.shape[:2]
        img = QImage(crop.data, w, h, crop.strides[0], QImage.Format.Format_BGR888).copy()
        pix = QPixmap.fromImage(img)
        if pix.height() > 120 or pix.width() > 240:
            pix = pix.scaled(240, 120, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        self.dice_photo.setPixmap(pix)
        self.dice_photo.setToolTip("; ".join(f"throw {th.number}: {th.text()}" for th in throws))
        self.dice_photo.setVisible(True)
        self.dice_note.setVisible(True)

    def _dice_read(self, dice: list[int], roll: bool) -> tuple[dict | None, bytes | None]:
        """What the record keeps of the camera's dice for this resolution: their values, and whether the dice
        resolved are those (taken) or the player's own (typed over, or rolled by the app)."""
        if self._read is None or not self._throws:
            return None, None
        taken = not roll and list(dice) == list(self._read) and None not in self._read
        return ({"values": list(self._read), "taken": taken, "throws": [th.number for th in self._throws]},
                self._photo_jpeg)

    def _forget_throw(self) -> None:
        self._read, self._throws, self._read_for = None, [], None
        self.dice_photo.setVisible(False)
        self.dice_note.setVisible(False)

    def _dice(self, roll: bool) -> dict:
        """The typed dice and seed (missing dice rolled from the seed; `roll`: all rolled with a new seed)."""
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
        return {"dice": dice, "seed": seed}

    def input_values(self) -> dict:
        """The system's declared inputs as `resolve` keywords (rules/live.py ActionInput)."""
        out = {}
        for key, w in self.extra.items():
            inp = self.inputs[key]
            if inp.kind == "die":
                out[key] = w.value() or None
            elif inp.kind == "choice":
                out[key] = inp.values[w.currentIndex()]
            elif inp.kind == "flag":
                out[key] = True if w.isChecked() else None
            elif inp.kind == "choices":
                out[key] = parse_choices(w.text())
        return out

    def _choices_changed(self, text: str) -> None:
        self.session.choices = parse_choices(text)
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
            kw = self.input_values()
            if self.session.live.uses_dice:
                kw.update(self._dice(roll))
                kw["dice_read"], kw["dice_photo"] = self._dice_read(kw["dice"], roll)
            outcome = self.session.resolve(act, a, t, supporters=self.chosen_supporters(), **kw)
        except InputError as exc:
            self.outcome = None
            self.apply_button.setEnabled(False)
            self.result.setPlainText(f"cannot resolve: {exc}")
            self.session.events.message.emit(str(exc))
            return None
        self.outcome = outcome
        seed_text = f"  (seed {outcome.seed}, replay with the same seed)" if outcome.seed is not None else ""
        # a game without dice (its actions take choices: cards, bids...) has no dice line
        dice = [f"dice: {', '.join(map(str, outcome.rolled))}{seed_text}"] if self.session.live.uses_dice else []
        lines = outcome.lines + dice
        self.result.setPlainText("\n".join(lines))
        self.apply_button.setEnabled(True)
        return outcome

    def apply(self) -> None:
        if self.outcome is None:
            return
        pending = self.session.apply(self.outcome)
        self._forget_throw()  # the next action's dice are a new throw
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
        self._build_widgets()
        self._build_layout()
        self._connect()
        self._syncing = False
        self._log_shown: tuple | None = None  # (lines, the last line) of the game log the box shows

    # ---- building the panel

    def _build_widgets(self) -> None:
        """Turn and active side, the filters, the editable pieces table, the marker buttons and the log."""
        session = self.session
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
        self.model.HEADERS = tuple(session.live.state_headers)
        self.proxy = FilterProxy(self, side_column=1)
        self.proxy.setSourceModel(self.model)
        self.table = _table(self.proxy)
        hide_unused_columns(self.table, self.model.HEADERS)
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

    def _build_layout(self) -> None:
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
            b.setVisible(bool(getattr(self.session.system, "markers", ())))  # only a system with markers
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

    def _connect(self) -> None:
        session = self.session
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.side_filter.currentIndexChanged.connect(
            lambda i: self.proxy.set_side("" if i == 0 else self.side_filter.currentText()))
        self.turn.valueChanged.connect(lambda v: self._set_turn())
        self.active.currentIndexChanged.connect(lambda i: self._set_turn())
        self.next_button.clicked.connect(self.next_phase)
        self.red.clicked.connect(lambda: self.add_marker("red"))
        self.grey.clicked.connect(lambda: self.add_marker("grey"))
        self.black.clicked.connect(lambda: self.add_marker("black"))
        self.clear_markers.clicked.connect(lambda: self._set_markers(()))
        self.model.error.connect(session.events.message.emit)

    def _pick(self, index) -> None:
        pid = index.data(ID_ROLE)
        if pid and self.session.selected != pid:
            self.session.select(pid)

    def next_phase(self) -> None:
        """N or the button: the active side's phase ends; when the rules refuse (a Movement still under way) the
        status bar says why and nothing changes."""
        try:
            self.session.next_phase()
        except InputError as exc:
            self.session.events.message.emit(str(exc))

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

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.model.refresh()  # what changed while the panel was hidden, sorted and shown now

    def refresh(self) -> None:
        s = self.session
        self._syncing = True
        self.turn.setValue(s.state.turn)
        self.active.setCurrentText(s.state.active)
        self._syncing = False
        self.model.refresh(announce=self.isVisible())
        log = s.state.log
        shown = (len(log), log[-1] if log else None)  # not the box's text: reading it back costs every frame
        if shown != self._log_shown:
            self._log_shown = shown
            self.log.setPlainText("\n".join(log[-200:]))
            self.log.verticalScrollBar().setValue(self.log.verticalScrollBar().maximum())


class FittedTableWidget(QTableWidget):
    """FittedTable's columns for a table of items."""

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        fit_columns(self, refit=False)


class SystemPanel(QWidget):
    """One of a system's own game-state panels (rules.live.Panel): its lines, its table and its actions; an action
    chosen (double-click, or the button) is handed on through `chosen` to fill the combat panel. `read_only` (the
    replay): no actions."""

    chosen = Signal(object)

    def __init__(self, key: str, parent=None, read_only: bool = False):
        super().__init__(parent)
        self.key = key
        self.panel = None
        self.read_only = read_only
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = FittedTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAlternatingRowColors(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setWordWrap(False)
        self.actions_list = QListWidget()
        self.actions_list.setMaximumHeight(130)
        self.actions_list.itemDoubleClicked.connect(lambda item: self.fill(self.actions_list.row(item)))
        self.fill_button = QPushButton("Fill the combat panel")
        self.fill_button.setToolTip("the chosen action, its attacker, target and choices: then resolve")
        self.fill_button.clicked.connect(lambda: self.fill(self.actions_list.currentRow()))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.text)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.actions_list)
        lay.addWidget(self.fill_button)

    def show_panel(self, panel) -> None:
        """Lay out `panel` (unchanged data is left as it is, so a selection in the table survives a refresh)."""
        if panel == self.panel:
            return
        self.panel = panel
        self.text.setText("\n".join(panel.lines))
        self.table.clear()
        self.table.setColumnCount(len(panel.headers))
        self.table.setHorizontalHeaderLabels(list(panel.headers))
        self.table.setRowCount(len(panel.rows))
        for r, row in enumerate(panel.rows):
            for c, cell in enumerate(row):
                item = QTableWidgetItem(str(cell))
                item.setToolTip(str(cell))  # a long reason cut by the column is read in full here
                self.table.setItem(r, c, item)
        hide_unused_columns(self.table, panel.headers)
        fit_columns(self.table)
        self.table.setVisible(bool(panel.headers))
        self.actions_list.clear()
        for act in panel.actions:
            item = QListWidgetItem(act.label + ("" if act.allowed else f"  (not now: {act.why})"))
            item.setToolTip(f"{act.action} {act.attacker} {act.target} {act.choice_text}".strip()
                            + ("" if act.allowed else f"\n{act.why}"))
            if not act.allowed:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.actions_list.addItem(item)
        has = bool(panel.actions) and not self.read_only
        self.actions_list.setVisible(has)
        self.fill_button.setVisible(has)
        if has:
            self.actions_list.setCurrentRow(next((i for i, a in enumerate(panel.actions) if a.allowed), -1))

    def fill(self, row: int) -> None:
        """Hand the action of this row on (`chosen`), when the rules allow it now."""
        if self.panel is None or not 0 <= row < len(self.panel.actions):
            return
        act = self.panel.actions[row]
        if act.allowed:
            self.chosen.emit(act)


class SystemPanels(QWidget):
    """A game system's own panels (rules.live.Panel) in one dock: a chooser over them, one shown at a time (a row
    of tabs, one per panel, squeezed the table views)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.chooser = QComboBox()
        self.chooser.setToolTip("the game system's own panels (F5 ...)")
        self.stack = QStackedWidget()
        self.keys: list[str] = []
        self.chooser.currentIndexChanged.connect(self.stack.setCurrentIndex)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 0)
        lay.addWidget(self.chooser)
        lay.addWidget(self.stack, 1)

    def add(self, key: str, title: str, widget: QWidget) -> None:
        self.keys.append(key)
        self.stack.addWidget(widget)
        self.chooser.addItem(title, key)

    def choose(self, key: str) -> None:
        """Show the panel `key`."""
        self.chooser.setCurrentIndex(self.keys.index(key))

    def current(self) -> str | None:
        i = self.chooser.currentIndex()
        return self.keys[i] if 0 <= i < len(self.keys) else None
