"""Qt table models over the session: the selected piece's targets, the pieces of the game state, and plain editable
records (layout anchors, roster pieces). Sorting and filtering go through QSortFilterProxyModel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate

from common.errors import InputError

_ROOT = QModelIndex()
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2


def _signed(v: int | None) -> str:
    return "" if v is None else f"{v:+d}"


class ListTableModel(QAbstractTableModel):
    """A table over a Python list: a subclass names its columns in `HEADERS` and its rows' attribute in `ROWS`."""

    HEADERS: tuple[str, ...] = ()
    ROWS = "rows"

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(getattr(self, self.ROWS))

    def columnCount(self, parent=_ROOT) -> int:
        return len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole) \
                and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]  # a header cut by a narrow column is read whole in its tooltip
        return None


class TargetsModel(ListTableModel):
    """The selected piece's enemies: distance, weapon, whether it may fire / attack, net modifiers, line of sight."""

    HEADERS = ("target", "field", "LE", "weapon", "fire", "net", "melee", "net", "sight", "note")

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.rows = []

    def refresh(self) -> None:
        rows = list(self.session.targets())
        if rows == self.rows:  # the same answers (most frames): nothing to re-sort or repaint
            return
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        c = index.column()
        values = (r.target, r.field, r.distance, r.weapon, "yes" if r.fire else "no", _signed(r.fire_net),
                  "yes" if r.melee else "no", _signed(r.melee_net), "clear" if r.line_of_sight else "blocked", r.note)
        if role == Qt.ItemDataRole.DisplayRole:
            return values[c]
        if role == SORT_ROLE:
            raw = (r.target, r.field, r.distance, r.weapon, r.fire, r.fire_net if r.fire_net is not None else -99,
                   r.melee, r.melee_net if r.melee_net is not None else -99, r.line_of_sight, r.note)
            return raw[c]
        if role == ID_ROLE:
            return r.target
        if role == Qt.ItemDataRole.ForegroundRole:
            if c == 4:
                return QColor(30, 160, 60) if r.fire else QColor(200, 50, 50)
            if c == 6:
                return QColor(30, 160, 60) if r.melee else QColor(200, 50, 50)
            if c == 8 and not r.line_of_sight:
                return QColor(200, 50, 50)
        if role == Qt.ItemDataRole.ToolTipRole:  # the whole text of a cell its column cuts
            return str(values[c]) if values[c] not in (None, "") else None
        return None


class PiecesModel(ListTableModel):
    """Every roster piece with what the camera sees and the game state it cannot: editable type, formation, bases and
    markers (checked by the rules adapter; a refused value is reported through `error`)."""

    HEADERS = ("piece", "side", "type", "field", "facing", "formation", "bases", "markers", "seen", "waiting for")
    EDITABLE = {2: "type", 5: "formation", 6: "bases", 7: "markers"}
    ROWS = "views"
    error = Signal(str)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.views = []
        self.values: list[tuple] = []  # each row's cells, computed once per refresh
        self.unannounced: list[int] = []  # rows changed while nobody looked

    def refresh(self, announce: bool = True) -> None:
        """Read the pieces again; only the rows whose cells changed are announced (a frame with one piece moved
        re-sorts and repaints one row, not the table). `announce` False (the table hidden behind another panel):
        the rows are kept up to date but the sorting proxy is told only at the next announced refresh - it re-sorts
        and re-filters on every announcement, a cost paid every frame for a table nobody sees."""
        new = self.session.piece_views()
        values = [self._values(v) for v in new]
        if len(new) != len(self.views):
            self.beginResetModel()
            self.views, self.values, self.unannounced = new, values, []
            self.endResetModel()
            return
        changed = [i for i, (a, b) in enumerate(zip(self.values, values, strict=True)) if a != b]
        self.views, self.values = new, values
        changed = sorted(set(changed) | set(self.unannounced))
        if not announce:
            self.unannounced = changed
        elif changed:
            self.unannounced = []
            self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(self.HEADERS) - 1))

    def flags(self, index):
        f = super().flags(index)
        if index.column() in self.EDITABLE:
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def _values(self, v) -> tuple:
        pos = self.session.position
        engine = pos.by_id.get(v.piece.id) if pos is not None else None
        if engine is not None:  # where it stands in its system's terms: a field, mm and bearing, an area
            fld, facing = engine.where()
        else:
            fld, facing = (v.pose.cell or "", v.pose.facing or "") if v.pose else ("", "")
        st = v.state
        pending = v.pending.describe() if v.pending else ""
        return (v.piece.id, v.piece.side, v.type or f"? {v.piece.type}", fld or "", facing or "",
                st.get("formation") or "", st.get("bases", 1), "+".join(st.get("markers", ()) or ()), v.status,
                pending)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        v = self.views[index.row()]
        vals = self.values[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, SORT_ROLE):
            return vals[index.column()]
        if role == ID_ROLE:
            return v.piece.id
        if role == Qt.ItemDataRole.ToolTipRole:  # the whole text of a cell its column cuts
            value = vals[index.column()]
            return str(value) if value not in (None, "") else None
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 8:
            return {"occluded": QColor(140, 140, 140), "ambiguous": QColor(220, 130, 0),
                    "removed": QColor(200, 50, 50), "unseen": QColor(140, 140, 140)}.get(v.status)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 7 and vals[7]:
            return QColor(200, 50, 50)
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        key = self.EDITABLE.get(index.column())
        if key is None or role != Qt.ItemDataRole.EditRole:
            return False
        pid = self.views[index.row()].piece.id
        try:
            self.session.set_piece_state(pid, key, value)
        except InputError as exc:
            self.error.emit(f"{pid}: {exc}")
            return False
        self.refresh()
        return True

    def choices(self, index) -> list[str] | None:
        """The values an editable cell accepts, for a combo box (None: free text)."""
        key = self.EDITABLE.get(index.column())
        system = self.session.system
        v = self.views[index.row()]
        if key == "type":
            return list(system.types)
        if key == "formation":
            return list(system.formations(v.type or "")) or None
        if key == "markers":
            ms = system.markers
            return ["none", *ms, *(f"{a}+{b}" for i, a in enumerate(ms) for b in ms[i + 1:])]
        return None


class FilterProxy(QSortFilterProxyModel):
    """Sort by the raw values and filter on any column's text plus an optional exact side."""

    def __init__(self, parent=None, side_column: int | None = None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)
        self.side_column = side_column
        self.side = ""

    def set_side(self, side: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.10: invalidateFilter() is deprecated
            self.beginFilterChange()
            self.side = side
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.side = side
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row, parent) -> bool:
        if self.side and self.side_column is not None:
            idx = self.sourceModel().index(row, self.side_column, parent)
            if self.sourceModel().data(idx) != self.side:
                return False
        return super().filterAcceptsRow(row, parent)

    def lessThan(self, left, right) -> bool:
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box editor where the model offers choices (`model.choices(index)`), a line edit elsewhere."""

    def __init__(self, choices: Callable[[QModelIndex], list[str] | None], parent=None):
        super().__init__(parent)
        self._choices = choices

    def createEditor(self, parent, option, index):
        source = index.model().mapToSource(index) if hasattr(index.model(), "mapToSource") else index
        items = self._choices(source)
        if not items:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.addItems(items)
        return combo

    def setEditorData(self, editor, index):
        if isinstance(editor, QComboBox):
            i = editor.findText(str(index.data(Qt.ItemDataRole.EditRole) or "none"))
            editor.setCurrentIndex(max(i, 0))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index):
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
        else:
            super().setModelData(editor, model, index)


class RecordsModel(ListTableModel):
    """Plain editable records (a list of dicts) with typed columns: the layout's anchors, the roster's pieces."""

    ROWS = "records"

    def __init__(self, columns: list[tuple[str, type]], records: list[dict] | None = None, parent=None):
        super().__init__(parent)
        self.columns = columns
        self.records: list[dict] = [dict(r) for r in (records or [])]

    @property
    def HEADERS(self) -> tuple[str, ...]:  # noqa: N802  (the name ListTableModel reads)
        return tuple(name for name, _ in self.columns)

    def flags(self, index):
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, SORT_ROLE):
            return None
        name = self.columns[index.column()][0]
        v = self.records[index.row()].get(name, "")
        return f"{v:g}" if isinstance(v, float) and role == Qt.ItemDataRole.DisplayRole else v

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        name, typ = self.columns[index.column()]
        try:
            v: Any = typ(value) if value != "" else ""
        except (TypeError, ValueError):
            return False
        self.records[index.row()][name] = v
        self.dataChanged.emit(index, index)
        return True

    def add(self, record: dict) -> None:
        self.beginInsertRows(QModelIndex(), len(self.records), len(self.records))
        self.records.append(dict(record))
        self.endInsertRows()

    def remove(self, row: int) -> None:
        if 0 <= row < len(self.records):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.records[row]
            self.endRemoveRows()
