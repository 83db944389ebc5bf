"""A system's answers about a position, remembered for the last few asked (rules.system.PositionMemo)."""

from __future__ import annotations

from rules.system import PositionMemo


def test_the_same_position_and_question_is_answered_once_and_only_the_last_few_are_kept():
    memo, asked = PositionMemo(size=2), []

    def answer(pos, q):
        return memo.get(pos, q, lambda: asked.append((pos, q)) or f"{q} of {pos}")

    a, b = ["position"], ["position"]  # equal, but not the same object: another position
    assert answer(a, "x") == answer(a, "x") == "x of ['position']" and len(asked) == 1
    answer(b, "x")
    answer(a, "y")
    assert len(asked) == 3
    answer(a, "x")  # pushed out by the two after it: asked again
    assert len(asked) == 4 and asked[-1] == (a, "x")
