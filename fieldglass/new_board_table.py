"""A new table on a printed board (`fieldglass init --system S` for a system whose `GameSystem.table` is "board"):
the printed board is the table, its own anchors register the camera (fieldglass/setup.py `load_setup`).

What differs per system comes from its package through the contract (rules/live.py): the board it ships (its
demo's, `LiveRules.demo`), the other surfaces beside it (`surface_boards`, laid where the demo lays them), the
pieces a new table starts with (`starting_roster`: the shipped blocks, figures or pawns, every key of theirs kept)
and the position it starts from (`start_position`). Each piece gets a marker after every board's anchor ids and the
largest marker its base holds, refused when the camera cannot read it at the worst place of the table
(fieldglass/planning.py), as on a grid or free table (fieldglass/new_table.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.board import BoardPose
from calibration.intrinsics import BoardSpec, parse_board
from calibration.layout import TableLayout, dictionary_size
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.new_table import BOARD, FIRST_MARKER, Answers
from fieldglass.planning import CameraSetup, Plan, plan
from fieldglass.setup import piece_tables, read_roster
from fieldglass.setup_checks import check_roster, largest_marker
from rules.board import Board, board_to_toml, load_board
from rules.system import GameSystem
from vision.roster import Piece, Roster

SHIPPED = "shipped"
NONE_YET = "none"
_GEOMETRY_KEYS = {"id", "marker", "side", "type", "base_mm", "marker_mm", "marker_height_mm", "marker_offset_mm"}


@dataclass(frozen=True)
class BoardTable:
    """What init writes for a printed board: `board` (None: the player digitises theirs first), `board_path` the
    player's own board file (None: the shipped board, written out as `board_toml`), the other surfaces' boards by
    name, the roster with each piece's own keys (`extra`, by id), the camera's plan over everything on the table,
    the start position (None: the system needs none, or none reads on this board) and what was said about it."""

    board: Board | None
    board_path: str | None
    board_toml: str
    surfaces: Mapping[str, Board]
    roster: Roster
    extra: Mapping[str, Mapping[str, Any]]
    plan: Plan
    calibration: BoardSpec
    extent_mm: tuple[float, float]
    start: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def layout(self) -> TableLayout | None:
        return board_layout(self.board) if self.board is not None else None


def shipped_board(gs: GameSystem) -> Board:
    demo = gs.live.demo(None)
    if demo is None or demo.board is None:
        raise InputError(f"--board {SHIPPED}: {gs.name} ships no board; give your board file, or none")
    return demo.board


def choose_board(gs: GameSystem, text: str) -> tuple[Board | None, str | None]:
    """(board, the player's path) for --board: shipped, none (not digitised yet) or a board file."""
    word = str(text).strip()
    if word.lower() == SHIPPED:
        return shipped_board(gs), None
    if word.lower() in (NONE_YET, "no", ""):
        return None, None
    path = Path(word).expanduser()
    if not path.is_file():
        raise InputError(f"--board {word}: no such board file (or '{SHIPPED}' for the one {gs.name} ships, "
                         f"'{NONE_YET}' to digitise yours first in Tools > Board editor)")
    return load_board(path), str(path.resolve())  # GAME.md's commands run in the table's folder


def table_extent(gs: GameSystem, board: Board, surfaces: Mapping[str, Board]) -> tuple[float, float]:
    """The table the camera must see: the board and each other surface where the system's demo lays it (the
    synthetic table's own growth, fieldglass/setup.py `with_surfaces`)."""
    demo = gs.live.demo(board)
    width, depth = board.width_mm, board.depth_mm
    for name, (x, y, rot) in (demo.surfaces if demo is not None else {}).items():
        other = surfaces.get(name)
        if other is None:
            continue
        corners = BoardPose(float(rot), float(x), float(y)).board_to_table(
            [(0, 0), (other.width_mm, 0), (other.width_mm, other.depth_mm), (0, other.depth_mm)])
        width, depth = max(width, float(corners[:, 0].max()) + 40.0), max(depth, float(corners[:, 1].max()) + 40.0)
    return float(width), float(depth)


def make_board_table(gs: GameSystem, answers: Answers, board: Board | None, board_path: str | None) -> BoardTable:
    """The roster, the camera's plan and the start position for a board system; InputError (one line) when the
    camera does not see the table, cannot read the anchors or a piece's largest marker, or the markers run out."""
    start_file = gs.live.starting_roster()
    if start_file is None:
        raise InputError(f"--system {gs.name}: its package ships no starting pieces (LiveRules.starting_roster) to "
                         "make a roster of")
    shipped = shipped_board(gs)
    marked = board or shipped  # with no board yet, the markers keep clear of the shipped board's anchor ids
    surfaces = dict(gs.live.surface_boards(marked))
    extent = table_extent(gs, board, surfaces) if board is not None else tuple(map(float, answers.table_mm))
    cam = CameraSetup(extent, answers.resolution, answers.fov_deg, answers.height_mm, 0.0, answers.fov_kind)
    p = plan(cam)
    what = f"the {extent[0]:g} x {extent[1]:g} mm table" + (" (the board and " + ", ".join(surfaces) + " beside it)"
                                                           if surfaces and board is not None else "")
    if not p.whole_table:
        up = p.height_for_whole_table_mm
        raise InputError(f"--height {answers.height_mm:g}: the camera sees {100 * p.share_in_view:.0f} % of {what}"
                         + (f"; raise it to {math.ceil(up / 10) * 10:.0f} mm" if up else
                            "; a wider lens or several cameras (fieldglass plan)"))
    need = math.ceil(p.smallest_marker_mm * 2.0 - 1e-9) / 2.0
    anchors = [a for b in (marked, *surfaces.values()) for a in b.anchors]
    small = min(anchors, key=lambda a: a.size_mm)
    if board is not None and small.size_mm < need:
        raise InputError(f"the camera reads markers of {need:g} mm at the worst place of {what}, more than the "
                         f"board's anchor {small.id} of {small.size_mm:g} mm: a higher --camera-resolution or a lower "
                         "--height")
    taken = {a.id for a in anchors}
    shipped_roster = read_roster(start_file, gs.name)
    tables = piece_tables(str(start_file))
    dictionary = marked.dictionary
    size = dictionary_size(dictionary)
    pieces, extra, marker = [], {}, FIRST_MARKER
    for sp in shipped_roster.pieces:
        mm = largest_marker(sp.base_mm, dictionary, sp.marker_offset_mm)
        if mm < need - 1e-9:
            w, d = sp.base_mm
            raise InputError(f"{sp.id} ({sp.type}): a {w:g} x {d:g} mm base holds at most a {mm:g} mm marker, but the "
                             f"camera reads {need:g} mm at the worst place of {what}: a higher --camera-resolution "
                             "or a lower --height")
        while marker in taken:
            marker += 1
        if marker >= size:
            raise InputError(f"{dictionary} holds {size} markers: too few for {len(shipped_roster.pieces)} pieces "
                             "and the board's anchors")
        pieces.append(Piece(sp.id, marker, sp.side, sp.type, sp.base_mm, mm, sp.marker_height_mm,
                            sp.marker_offset_mm))
        extra[sp.id] = {k: v for k, v in tables.get(sp.id, {}).items() if k not in _GEOMETRY_KEYS}
        marker += 1
    roster = check_roster(Roster(dictionary, tuple(pieces), gs.name), "roster", gs.name)
    notes: list[str] = []
    start = None
    if board is not None:
        start = gs.live.start_position(board)
        try:  # as `gui --game` reads it, on this board
            if start is not None:
                gs.from_dict(start, "the start position", board=board)
        except InputError as exc:
            notes.append(f"no start position written: {gs.title}'s does not read on this board ({exc})")
            start = None
    return BoardTable(board, board_path, board_to_toml(board) if board is not None and board_path is None else "",
                      surfaces, roster, extra, plan(cam, roster=roster), parse_board(BOARD), extent, start,
                      tuple(notes))


__all__ = ["NONE_YET", "SHIPPED", "BoardTable", "choose_board", "make_board_table", "shipped_board",
           "table_extent"]
