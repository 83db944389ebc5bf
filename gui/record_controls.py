"""What the dashboard shows of a game being recorded: the questions the recorder asks without stopping the game.

`PromptBar` sits above the table views: one row per open question (a piece reported missing: removed or still
there; a move committed on a field's edge: which field; an input the rules refused), each with its answers as
buttons. Nothing in it is modal: the table view goes on updating while a question waits. Presentation only: the
window hands it plain questions (text and answers) and is told which answer was chosen.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class PromptBar(QFrame):
    """Open questions, newest last; `answered(key, answer)` when a player clicks an answer (the row goes)."""

    answered = Signal(str, object)
    MAX_ROWS = 6

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("prompts")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#prompts { background: #fff4d6; } QLabel { color: #222; }")
        self.rows: dict[str, QWidget] = {}
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(6, 2, 6, 2)
        self._lay.setSpacing(2)
        self.setVisible(False)

    def ask(self, key: str, text: str, answers) -> None:
        """Show a question (`answers`: (label, value) each); the same key again replaces it."""
        self.drop(key)
        row = QWidget()
        row.setObjectName(f"prompt-{key}")
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        label = QLabel(text)
        label.setWordWrap(True)
        lay.addWidget(label, 1)
        for title, value in answers:
            b = QPushButton(title)
            b.clicked.connect(lambda _=False, k=key, v=value: self._answer(k, v))
            lay.addWidget(b)
        self.rows[key] = row
        self._lay.addWidget(row)
        while len(self.rows) > self.MAX_ROWS:  # the oldest questions give way: they are still in the record
            self.drop(next(iter(self.rows)))
        self.setVisible(True)

    def say(self, key: str, text: str) -> None:
        """A message that needs no answer but must not be missed (an input the rules refused): dismissed by OK."""
        self.ask(key, text, (("OK", None),))

    def drop(self, key: str) -> None:
        row = self.rows.pop(key, None)
        if row is not None:
            row.setParent(None)
            row.deleteLater()
        self.setVisible(bool(self.rows))

    def keys(self) -> list[str]:
        return list(self.rows)

    def _answer(self, key: str, value) -> None:
        self.drop(key)
        self.answered.emit(key, value)
