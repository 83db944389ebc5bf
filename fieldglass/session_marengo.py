"""Setting up the live session for Triomphe à Marengo: the board, the block roster and the starting position.

The session is the generic `fieldglass.session.Session`: the board's registration and `locate` are its (for any
system on a printed board), Marengo's part is `rules.marengo.live.MarengoLive` (blocks read as units and placed by
area, hidden identities, the engine's resolutions). What stays here needs the layers below the rules: the files
(calibration, vision) and the synthetic demo board (fieldglass/boards.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.errors import InputError
from fieldglass.boards import board_layout, board_scene
from fieldglass.session import Setup
from rules.board import load_board, load_demo_board
from rules.marengo.hidden import roster_blocks
from vision.synthetic_board import DEMO_BLOCKS


@dataclass(frozen=True)
class MarengoSetup(Setup):
    """A Setup with the board (`Setup.board`, `board_on_table`), the synthetic scene, the starting position and the
    block roster; `make_session()` makes the generic Session, whose system part is rules/marengo/live.py."""

    scene: Any = None  # the synthetic scene (fieldglass/boards.py board_scene) for --source synthetic
    game: Any = None  # the initial MarengoPosition (--game), blocks' state the camera cannot see
    blocks: Any = None  # rules.marengo.hidden.BlockRoster: each unit's blocks per strength (None: from the roster)


def load_marengo_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
                       board: str | None = None, game: str | None = None) -> MarengoSetup:
    """Files for `fieldglass gui --system marengo`: --board (synthetic: the demo board), --roster of blocks
    (synthetic: the demo blocks), --layout only when the board lies on a table with its own anchors."""
    from calibration.camera import load_camera
    from calibration.layout import load_layout
    from vision.roster import load_roster

    brd = load_board(board) if board else None
    names = {"source": source, "board": str(board or "demo board")}
    scene = None
    if source == "synthetic":
        brd = brd or load_demo_board()
        areas = set(brd.areas)
        scene = board_scene(brd, tuple(b for b in DEMO_BLOCKS if b[5] in areas))
    if brd is None:
        raise InputError(f"source {source!r}: --system marengo needs --board BOARD.toml (only --source synthetic "
                         "brings the demo board)")
    if source != "synthetic":
        missing = [n for n, v in (("--camera", camera), ("--roster", roster)) if not v]
        if missing:
            raise InputError(f"source {source!r} needs {' and '.join(missing)}")
    cam = load_camera(camera) if camera else None
    ros = load_roster(roster) if roster else scene.roster
    blocks = roster_blocks(ros.pieces, roster_units(roster) if roster else None, str(roster or "demo blocks"))
    lay = load_layout(layout) if layout else (scene.layout if scene is not None else board_layout(brd))
    names.update(camera=str(camera or "synthetic camera"), layout=str(layout or "the board's anchors"),
                 roster=str(roster or "demo blocks"))
    pos = None
    if game:
        import json

        from rules.marengo.model import position_from_dict

        try:
            data = json.loads(Path(game).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{game}: cannot read the position ({exc})") from None
        if not isinstance(data, dict) or data.get("system") != "marengo":
            raise InputError(f"{game}: not a Marengo position")
        pos = position_from_dict(data, str(game), board=brd)  # the blocks' state on this board
        names["game"] = str(game)
    return MarengoSetup(source, cam, lay, ros, "marengo", names=names, board=brd, board_on_table=layout is None,
                        scene=scene, game=pos, blocks=blocks)


def roster_units(path) -> dict[str, dict]:
    """Roster piece id -> {unit, strength} for the [[piece]] tables of a roster TOML that name their unit: the blocks
    of one unit at its strengths (rules/marengo/README.md, "Block rosters")."""
    from calibration.files import read_toml

    data = read_toml(path, "roster file")
    return {p["id"]: {"unit": p["unit"], "strength": p.get("strength")} for p in data.get("piece", [])
            if isinstance(p, dict) and isinstance(p.get("id"), str) and p.get("unit")}


__all__ = ["MarengoSetup", "load_marengo_setup", "roster_units"]
