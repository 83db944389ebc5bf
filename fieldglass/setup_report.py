"""Every finding of a set-up's files at once (`fieldglass check-setup`; `fieldglass init` checks what it wrote):
the layout, the roster, a printed board and the camera, each problem one line naming the file and the key with the
nearest valid value (fieldglass/setup_checks.py), errors first. A file that cannot be read at all is one error, and
the checks that need it are left out; the others still run."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from calibration.camera import CameraIntrinsics, load_camera
from calibration.layout import TableLayout, load_layout
from common.errors import InputError
from fieldglass.boards import board_layout
from fieldglass.planning import CameraSetup, plan
from fieldglass.setup import piece_tables, roster_keys
from fieldglass.setup_checks import (
    ERROR,
    WARNING,
    Finding,
    adapter_of,
    fit_problems,
    largest_marker,
    roster_problems,
    roster_system,
    worst_first,
)
from rules.board import load_board
from rules.live import Start
from rules.system import GameSystem, default_system, game_system
from vision.dice import DIE_SIZES_MM, READABLE_FACE_PX
from vision.dice_watch import dice_sight
from vision.roster import Roster, layout_fit_problems, load_roster
from vision.synthetic import VirtualCamera


@dataclass
class _Report:
    findings: list[Finding] = field(default_factory=list)

    def error(self, text: str) -> None:
        self.findings.append(Finding(ERROR, text))

    def read(self, what, *args, collect: bool = False):
        """`what(*args)`, or None with its error kept; `collect`: the reader's own list of findings filled too."""
        found: list[str] = []
        try:
            value = what(*args, found) if collect else what(*args)
        except InputError as exc:
            self.error(str(exc))
            return None
        for line in found:
            self.error(line)
        return value


# ---------------------------------------------------------------------------------------------- the camera


MARGIN_MM = 60.0  # the cloth beyond the table a camera is set to see (vision.synthetic.VirtualCamera's margin)


def camera_setup(camera: CameraIntrinsics, table_mm, height_mm: float | None = None) -> CameraSetup:
    """A camera file's lens as the planner's camera: its resolution and horizontal field of view, straight down at
    `height_mm`, or (None) at the lowest height that sees the whole table and MARGIN_MM around it."""
    w, h = camera.image_size
    k = camera.camera_matrix
    fx, fy = float(k[0, 0]), float(k[1, 1])
    fov = math.degrees(2.0 * math.atan(w / 2.0 / fx))
    if height_mm is None:
        height_mm = max((table_mm[0] + 2 * MARGIN_MM) / 2.0 * fx / (w / 2.0),
                        (table_mm[1] + 2 * MARGIN_MM) / 2.0 * fy / (h / 2.0))
    return CameraSetup((float(table_mm[0]), float(table_mm[1])), (int(w), int(h)), fov, float(height_mm), 0.0,
                       "horizontal")


def _ceil_half(v: float) -> float:
    return math.ceil(v * 2.0 - 1e-9) / 2.0


def camera_findings(setup: CameraSetup, roster: Roster | None, layout: TableLayout | None, roster_where: str,
                    layout_where: str, camera_where: str) -> list[Finding]:
    """The planner's verdict on the markers (fieldglass/planning.py): a piece's or an anchor's marker under the
    smallest the camera reads in focus at the worst place of the table is an error, under the size a soft image
    needs a warning; a table not wholly in view an error."""
    p = plan(setup, roster=roster)
    w, h = setup.resolution
    seen = f"{camera_where} ({w}x{h} px, {setup.height_mm:.0f} mm above the table)"
    need, soft = _ceil_half(p.smallest_marker_mm), _ceil_half(p.smallest_marker_soft_mm)
    out = []
    if not p.whole_table:
        up = p.height_for_whole_table_mm
        out.append(Finding(ERROR, f"{seen}: sees {100 * p.share_in_view:.0f} % of the table" + (
            f"; raise it to {math.ceil(up / 10) * 10:.0f} mm" if up else "; a wider lens or more cameras (plan)")))
    for piece in roster.pieces if roster is not None else ():
        if piece.marker_mm < need - 1e-9:
            fit = largest_marker(piece.base_mm, roster.dictionary, piece.marker_offset_mm)
            fix = (f"did you mean marker_mm = {max(need, min(fit, soft)):g}?" if fit >= need else
                   f"its {piece.base_mm[0]:g} x {piece.base_mm[1]:g} mm base holds at most {fit:g} mm: a larger base "
                   "(label) or a sharper, nearer camera")
            out.append(Finding(ERROR, f"{roster_where} piece {piece.id!r}: marker_mm {piece.marker_mm:g} is under the "
                                      f"{need:g} mm that {seen} reads everywhere; {fix}"))
        elif piece.marker_mm < soft - 1e-9:
            out.append(Finding(WARNING, f"{roster_where} piece {piece.id!r}: marker_mm {piece.marker_mm:g} is read "
                                        f"only while the image is sharp; {soft:g} mm would be read in a soft image"))
    for a in layout.anchors if layout is not None else ():
        if a.size_mm < need - 1e-9:
            out.append(Finding(ERROR, f"{layout_where} anchor {a.id}: size_mm {a.size_mm:g} is under the {need:g} mm "
                                      f"that {seen} reads everywhere; did you mean size_mm = {max(need, 40.0):g}?"))
    return out


def dice_findings(setup: CameraSetup, table: TableLayout, layout_where: str, camera_where: str) -> list[Finding]:
    """Whether the dashboard will read thrown dice (the system rolls them): in the layout's dice tray, else anywhere
    on the table, for the camera as `setup` holds it. A 20 mm die too small to read there: a warning (the players
    type the dice); dice of 12 mm too small but larger ones read: a warning saying from what size."""
    tray = table.dice_tray_mm
    where = f"{layout_where} [dice_tray]" if tray else f"{layout_where} (no [dice_tray]: the whole table)"
    pts = tray or ((0.0, 0.0), (table.width_mm, 0.0), (table.width_mm, table.depth_mm), (0.0, table.depth_mm))
    sight = dice_sight(pts, *setup.camera())  # what the dashboard's watch says too (gui/worker.py)
    w, h = setup.resolution
    seen = f"{camera_where} ({w}x{h} px, {setup.height_mm:.0f} mm up)"
    if sight.reads_none:
        return [Finding(WARNING, f"{where}: {seen} sees a {DIE_SIZES_MM[1]:g} mm die at {sight.large_face_px:.0f} px "
                                 f"where it is farthest, too small to read (a face of {READABLE_FACE_PX:.0f} px at "
                                 "least): the dashboard will not read the dice; a tray nearer the camera, a higher "
                                 "resolution, or type them")]
    if not sight.reads_all:
        return [Finding(WARNING, f"{where}: {seen} reads dice of {sight.smallest_mm:.0f} mm and larger there; "
                                 "smaller ones are not read")]
    return []


REHEARSAL_RESOLUTIONS = ((1920, 1080), (3840, 2160))


def rehearsal_resolution(scene) -> tuple[int, int]:
    """The synthetic camera's resolution for the player's own table (`--source synthetic` with their files): the
    first of REHEARSAL_RESOLUTIONS at which the planner reads every marker of the scene's roster in focus (a
    rehearsal sees every piece, as the real camera `fieldglass init` planned for would), else the largest."""
    lay = scene.layout
    smallest = min([p.marker_mm for p in scene.roster.pieces] + [a.size_mm for a in lay.anchors])
    for res in REHEARSAL_RESOLUTIONS:
        cam = VirtualCamera.looking_at_table(lay.width_mm, lay.depth_mm, res)
        height = float(cam.pose.camera_centre_mm[2])
        need = plan(camera_setup(cam.intrinsics, (lay.width_mm, lay.depth_mm), height)).smallest_marker_mm
        if smallest >= need - 1e-9:
            return res
    return REHEARSAL_RESOLUTIONS[-1]


def setup_findings(roster_path, layout_path=None, camera_path=None, system: str | None = None, board_path=None,
                   height_mm: float | None = None) -> list[Finding]:
    """Every finding of the set-up's files, worst first. The game system is `system`, else the one the roster
    names, else the default one (said in a warning)."""
    r = _Report()
    layout = r.read(load_layout, layout_path, collect=True) if layout_path else None
    gs = r.read(game_system, system) if system else None
    roster = r.read(load_roster, roster_path, roster_keys(gs.name if gs else None), collect=True)
    if roster is not None:
        gs = r.read(roster_system, roster, str(roster_path), gs.name if gs else None) or gs
    if gs is None:
        gs = game_system(default_system())
        r.findings.append(Finding(WARNING, f"{roster_path}: names no system (system = \"NAME\") and no --system is "
                                           f"given: checked as a {gs.name} roster"))
    table = _table(r, gs, layout, layout_path, board_path)
    if roster is not None:
        _roster(r, gs, roster, str(roster_path), table)
    if camera_path is not None:
        camera = r.read(load_camera, camera_path)
        if camera is not None and table is not None:
            cam = camera_setup(camera, (table.width_mm, table.depth_mm), height_mm)
            r.findings += camera_findings(cam, roster, layout, str(roster_path), str(layout_path), str(camera_path))
            if any(i.kind == "dice" for i in gs.live.inputs):
                r.findings += dice_findings(cam, table, str(layout_path or board_path), str(camera_path))
    return worst_first(r.findings)


def _table(r: _Report, gs: GameSystem, layout: TableLayout | None, layout_path, board_path) -> TableLayout | None:
    """The layout (or the printed board's own anchors) the roster is checked against, what the system's kind of
    table needs checked."""
    if layout is not None and gs.table == "grid" and layout.grid is None:
        r.error(f"{layout_path}: the layout has no [grid]; the {gs.name} rules need a square grid (a [grid] with "
                "field_mm, cols and rows)")
    if layout_path is None and gs.table != "board":
        r.error(f"--layout: a {gs.name} table ({gs.table}) needs its layout file")
    board = r.read(load_board, board_path) if board_path else None
    if gs.table == "board" and board_path is None and layout_path is None:
        r.error(f"--board: --system {gs.name} is played on a printed board: give its board file")
    return layout if layout is not None else board_layout(board) if board is not None else None


def _roster(r: _Report, gs: GameSystem, roster: Roster, where: str, table: TableLayout | None) -> None:
    for line in roster_problems(roster, where, gs.name):
        r.error(line)
    if table is not None:
        for line in layout_fit_problems(roster, table, where):
            r.error(line)
    r.findings += [Finding(WARNING, line) for line in fit_problems(roster, where)]
    if gs.live is not None:  # the system's own check of what it keeps (a Marengo unit's strengths...)
        r.read(gs.live.setup_roster, adapter_of(gs.name), roster, piece_tables(where), Start(), where)


__all__ = ["camera_findings", "camera_setup", "rehearsal_resolution", "setup_findings"]
