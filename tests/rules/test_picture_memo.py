"""Pictures hand back the very same items for what did not change (rules.picture.ItemMemo): the dashboard then sees
them unchanged at a glance (issue 14). What is handed back must equal what would be made afresh."""

from __future__ import annotations

from dataclasses import replace

from rules.picture import ItemMemo, Line, Scene, ScenePiece
from rules.wiener import picture as wiener_picture


def _line(n: int) -> Line:
    return Line("facing", (((0.0, 0.0), (float(n), 0.0)),), "side:0")


def test_the_same_key_gives_the_same_items_and_an_unhashable_one_is_made_each_time():
    memo, made = ItemMemo(size=2), []

    def make(n):
        made.append(n)
        return [_line(n)]

    first = memo.get(("a", 1), lambda: make(1))
    assert memo.get(("a", 1), lambda: make(1)) is first and made == [1]
    assert memo.get(("a", [1]), lambda: make(2)) == memo.get(("a", [1]), lambda: make(2)) and made == [1, 2, 2]
    memo.get(("b",), lambda: make(3))
    memo.get(("c",), lambda: make(4))  # over the size: forgotten all at once, then kept again
    assert memo.get(("a", 1), lambda: make(1)) is not first and made == [1, 2, 2, 3, 4, 1]


def _piece(pid: str, x: float, **kw) -> ScenePiece:
    return ScenePiece(pid, pid, "French", 0, "infantry", "infantry", (40.0, 20.0), 25.0, (x, 300.0, 0.0), "seen",
                      {"formation": "line", "bases": 1, "markers": ()}, **kw)


def test_a_moved_piece_is_drawn_anew_and_the_others_are_the_very_same_items():
    scene = Scene(None, (_piece("a", 100.0), _piece("b", 300.0)))
    before = wiener_picture.picture(scene)
    moved = replace(scene, pieces=(_piece("a", 130.0), _piece("b", 300.0)))
    after = wiener_picture.picture(moved)
    a_before = [it for it in before if it.piece == "a"]
    a_after = [it for it in after if it.piece == "a"]
    assert a_after != a_before and a_after == wiener_picture.piece_items(moved.pieces[0], moved)
    assert all(x is y for x, y in zip((it for it in before if it.piece == "b"), (it for it in after if it.piece == "b"),
                                      strict=True))
    # what the camera cannot see counts too: one more base, a new label
    more = replace(scene, pieces=(_piece("a", 100.0), replace(scene.pieces[1], state={"formation": "line",
                                                                                       "bases": 2, "markers": ()})))
    labels = [it.text for it in wiener_picture.picture(more) if it.piece == "b" and it.kind == "label"]
    assert labels == ["b x2"]
    # selected: the piece is drawn as chosen, not from the memo of it unselected
    chosen = [it for it in wiener_picture.picture(replace(scene, selected="b")) if it.piece == "b"]
    assert chosen == wiener_picture.piece_items(scene.pieces[1], replace(scene, selected="b")) != \
        [it for it in before if it.piece == "b"]
