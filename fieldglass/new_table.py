"""A new table's set-up files from a few answers (`fieldglass init`): the layout, the roster, the sheets to print and
GAME.md with the next commands.

What differs per game system comes from its package through the system contract (rules/live.py): the kinds of piece
and their bases (`piece_kinds`), the armies it knows (`armies`), the table and field it suggests, whether its kind
of table needs a grid (`GameSystem.table`). The camera's answers (resolution, field of view, height: as `fieldglass
plan` takes them) size every marker: each piece gets the largest marker its base holds with its white margin, and a
base that cannot hold one the camera reads at the worst place of the table is refused (fieldglass/planning.py). The
anchors are the 8 of `vision.synthetic.standard_layout` (corners and edge midpoints); the piece markers start after
them, so none clashes with an anchor.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from calibration.grid import Grid
from calibration.intrinsics import BoardSpec, parse_board
from calibration.layout import TableLayout, dictionary_size, layout_to_toml, marker_modules, paper_mm, parse_layout
from common.errors import InputError
from common.files import MAX_MM
from common.text import name_list, nearest_name
from fieldglass.planning import CameraSetup, Plan, plan
from fieldglass.setup_checks import check_roster, largest_marker
from rules.live import ArmyList, PieceKind
from rules.system import GameSystem
from vision.roster import Piece, Roster, layout_fit_problems
from vision.synthetic import standard_layout

BOARD = "charuco:7x5:35:26:DICT_5X5_100"
"""The calibration board printed: 7 x 5 squares of 35 mm, fits A4 and Letter landscape; its 5x5 markers are never
mistaken for the table's 4x4 anchors or pieces."""
RESOLUTION = (3840, 2160)  # a 4K webcam
FOV_DEG = 78.0  # a common webcam's diagonal field of view
CAMERA_MARGIN_MM = 60.0  # the cloth beyond the table edge the camera is set to see
FIRST_MARKER = 10  # piece markers start here (after the anchors, as the demo's)
SMALL_TABLE_MM = 800.0  # a table this small or smaller gets 40 mm anchors, a larger one 50 mm


@dataclass(frozen=True)
class Answers:
    """What `fieldglass init` asked: the system, the table (mm), the grid's field side (None: no grid), the camera
    (resolution, field of view and its kind, height above the table), the armies as (side, ((type, count), ...))
    and the bases given instead of the system's (type -> width, depth mm)."""

    system: str
    table_mm: tuple[float, float]
    field_mm: float | None
    resolution: tuple[int, int]
    fov_deg: float
    height_mm: float
    armies: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    fov_kind: str = "diagonal"
    bases: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    raised_mm: float = 0.0

    def camera(self) -> CameraSetup:
        return CameraSetup(self.table_mm, self.resolution, self.fov_deg, self.height_mm, 0.0, self.fov_kind)


@dataclass(frozen=True)
class NewTable:
    layout: TableLayout
    roster: Roster
    plan: Plan
    board: BoardSpec


def lowest_height_mm(table_mm, resolution, fov_deg: float, fov_kind: str = "diagonal") -> float:
    """The lowest height (mm, rounded up to 10) from which a straight-down camera sees the whole table and
    CAMERA_MARGIN_MM of cloth around it, its image's long side along the table's width."""
    f = CameraSetup(table_mm, resolution, fov_deg, 1000.0, 0.0, fov_kind).focal_px()
    w, h = resolution
    need = max((table_mm[0] + 2 * CAMERA_MARGIN_MM) / 2.0 * f / (w / 2.0),
               (table_mm[1] + 2 * CAMERA_MARGIN_MM) / 2.0 * f / (h / 2.0))
    return math.ceil(need / 10.0) * 10.0


def anchor_size(table_mm) -> float:
    return 40.0 if min(table_mm) <= SMALL_TABLE_MM else 50.0


def new_layout(table_mm, field_mm: float | None, dictionary: str, raised_mm: float = 0.0) -> TableLayout:
    """The table with the 8 anchors of `standard_layout` (4 corners, 4 edge midpoints; with `raised_mm` the two
    midpoints of the long edges on blocks that high) and, with `field_mm`, a grid of whole fields centred on it."""
    w, d = float(table_mm[0]), float(table_mm[1])
    lay = standard_layout(w, d, field_mm or 60.0, anchor_size(table_mm), dictionary)
    if raised_mm:
        lay = type(lay)(w, d, dictionary, tuple(
            type(a)(a.id, a.x_mm, a.y_mm, a.size_mm, z_mm=float(raised_mm) if a.id in (4, 6) else 0.0)
            for a in lay.anchors), lay.grid)
    grid = None
    if field_mm:
        cols, rows = int(w // field_mm), int(d // field_mm)
        if cols < 1 or rows < 1:
            raise InputError(f"--grid {field_mm:g}: a field larger than the {w:g} x {d:g} mm table")
        grid = Grid((w - cols * field_mm) / 2.0, (d - rows * field_mm) / 2.0, float(field_mm), cols, rows)
    return TableLayout(w, d, dictionary, lay.anchors, grid)


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "side"


def kinds_of(gs: GameSystem, bases: Mapping[str, tuple[float, float]] | None = None) -> dict[str, PieceKind]:
    """The system's kinds of piece by type, with the bases given instead of its own."""
    kinds = {k.type: k for k in gs.live.piece_kinds()}
    for t, base in (bases or {}).items():
        k = kind_of(gs, kinds, t, "--base")
        kinds[k.type] = PieceKind(k.type, k.prefix, (float(base[0]), float(base[1])), k.marker_height_mm)
    return kinds


def kind_of(gs: GameSystem, kinds: Mapping[str, PieceKind], word: str, where: str) -> PieceKind:
    """The kind a type word names (exactly, else in any case); InputError with the nearest otherwise."""
    if word in kinds:
        return kinds[word]
    same = [k for t, k in kinds.items() if t.lower() == str(word).lower()]
    if same:
        return same[0]
    near = nearest_name(word, kinds)
    hint = f"did you mean {near!r}? " if near else ""
    raise InputError(f"{where}: {word!r} is not a kind of {gs.name} piece; {hint}Kinds: {name_list(kinds, 40)}")


def find_army(gs: GameSystem, name: str, where: str) -> ArmyList:
    """The army `name` of the system: its name in any case, or (GROUP/NAME) its NAME alone when only one has it;
    InputError with the nearest name otherwise."""
    armies = gs.live.armies()
    for a in armies:
        if a.name.lower() == name.lower():
            return a
    tail = [a for a in armies if a.name.rsplit("/", 1)[-1].lower() == name.lower()]
    if len(tail) == 1:
        return tail[0]
    if tail:
        raise InputError(f"{where}: {name!r} is more than one {gs.name} army: {name_list(a.name for a in tail)}")
    names = [a.name for a in armies]
    near = nearest_name(name, names) or nearest_name(name, [n.rsplit("/", 1)[-1] for n in names])
    hint = f"did you mean {near!r}? " if near else ""
    shown = f"Armies: {name_list(names, 8)} (fieldglass init --list-armies)" if names else \
        f"{gs.name} knows no army lists: give counts, TYPE:N,TYPE:N"
    raise InputError(f"{where}: {name!r} is not a {gs.name} army; {hint}{shown}")


def parse_counts(gs: GameSystem, text: str, kinds: Mapping[str, PieceKind], where: str) -> tuple[tuple[str, int], ...]:
    """'infantry:8,artillery:2' (or = for :) as (type, count) pairs of the system's kinds."""
    out = []
    for item in (t.strip() for t in str(text).split(",") if t.strip()):
        m = re.fullmatch(r"(.+?)\s*[:=]\s*(\d+)", item)
        if not m or int(m.group(2)) < 1:
            raise InputError(f"{where}: {item!r} is not TYPE:COUNT (a count of 1 or more), e.g. infantry:8")
        out.append((kind_of(gs, kinds, m.group(1).strip(), where).type, int(m.group(2))))
    if not out:
        raise InputError(f"{where}: no pieces; give TYPE:COUNT pairs, e.g. infantry:8,artillery:2")
    return tuple(out)


def army_pieces(gs: GameSystem, text: str, kinds: Mapping[str, PieceKind], where: str) -> tuple[tuple[str, int], ...]:
    """An army given as a name of the system's or as counts per type."""
    if re.search(r"[:=]\s*\d", text):
        return parse_counts(gs, text, kinds, where)
    return find_army(gs, text.strip(), where).pieces


def default_armies(gs: GameSystem) -> tuple[tuple[str, str], ...]:
    """(side, army) for each of the system's default sides: the first army that names the side, else the armies
    that name none in turn, else counts of its first kinds."""
    armies = gs.live.armies()
    unnamed = [a for a in armies if not a.side] or list(armies)
    out = []
    for k, side in enumerate(gs.live.default_sides):
        named = [a for a in armies if a.side.lower() == side.lower()]
        if named or unnamed:
            out.append((side, (named or [unnamed[k % len(unnamed)]])[0].name))
        else:
            out.append((side, ",".join(f"{kd.type}:4" for kd in gs.live.piece_kinds()[:3])))
    return tuple(out)


def new_roster(gs: GameSystem, armies: Sequence[tuple[str, Sequence[tuple[str, int]]]],
               kinds: Mapping[str, PieceKind], dictionary: str, need_mm: float, taken: set[int]) -> Roster:
    """The pieces of each side's army in order, ids SIDE-PREFIX-N, markers from FIRST_MARKER skipping `taken` (the
    anchors), each the largest its base holds (`largest_marker`); InputError when a base cannot hold a marker of
    `need_mm` (what the camera reads at the worst place)."""
    pieces, marker = [], FIRST_MARKER
    size = dictionary_size(dictionary)
    for side, army in armies:
        counts: dict[str, int] = {}
        for ptype, n in army:
            kind = kind_of(gs, kinds, ptype, f"army of {side}")
            mm = largest_marker(kind.base_mm, dictionary)
            if mm < need_mm - 1e-9:
                w, d = kind.base_mm
                raise InputError(f"{kind.type}: a {w:g} x {d:g} mm base holds at most a {mm:g} mm marker, but the "
                                 f"camera reads {need_mm:g} mm at the worst place of the table: a larger base or label "
                                 f"(--base {kind.type}=WxD), a higher --camera-resolution or a lower --height")
            for _ in range(n):
                while marker in taken:
                    marker += 1
                if marker >= size:
                    total = sum(c for _, a in armies for _, c in a)
                    raise InputError(f"{dictionary} holds {size} markers: too few for {total} pieces and the anchors")
                counts[kind.prefix] = counts.get(kind.prefix, 0) + 1
                pid = f"{_slug(side)}-{kind.prefix}-{counts[kind.prefix]}"
                pieces.append(Piece(pid, marker, side, kind.type, kind.base_mm, mm, kind.marker_height_mm))
                marker += 1
    return Roster(dictionary, tuple(pieces), gs.name)


def check_system(gs: GameSystem) -> GameSystem:
    """`gs` when init can write its table: a grid or a free table with live rules; InputError otherwise."""
    if gs.live is None:
        raise InputError(f"--system {gs.name}: {gs.title} has no live table yet (fieldglass systems)")
    if gs.table == "board":
        if gs.live.starting_roster() is None:
            raise InputError(f"--system {gs.name}: its package ships no starting pieces (LiveRules.starting_roster) "
                             "to make a roster of")
        return gs
    if not gs.live.piece_kinds():
        raise InputError(f"--system {gs.name}: its package gives no kinds of piece (LiveRules.piece_kinds) to make a "
                         "roster of")
    return gs


def make_table(gs: GameSystem, answers: Answers) -> NewTable:
    """The layout, the roster and the camera's plan for `answers`; InputError (one line) when they do not fit:
    the camera not seeing the table, a base too small for the markers the camera reads, too many pieces. A grid or
    free table (a printed board: fieldglass/new_board_table.py)."""
    check_system(gs)
    if gs.table == "board":
        raise InputError(f"--system {gs.name}: played on a printed board (fieldglass/new_board_table.py)")
    if gs.table == "grid" and not answers.field_mm:
        raise InputError(f"--grid none: the {gs.name} rules are played on a square grid; give its field side in mm "
                         f"(e.g. --grid {gs.live.grid_field_mm:g})")
    total = sum(n for _, army in answers.armies for _, n in army)
    dictionary = "DICT_4X4_250" if total + FIRST_MARKER <= 250 else "DICT_4X4_1000"
    w, d = answers.table_mm
    size = anchor_size(answers.table_mm)
    least = 2.0 * (math.ceil(size / 2.0 + 2.0 * size / marker_modules(dictionary)) + paper_mm(dictionary, size))
    if min(w, d) < least or max(w, d) > MAX_MM:
        raise InputError(f"--table {w:g}x{d:g}: a table from {math.ceil(least):g} mm (room for its 8 anchors of "
                         f"{size:g} mm at the corners and edge midpoints) to {MAX_MM:g} mm a side")
    layout = new_layout(answers.table_mm, answers.field_mm, dictionary, answers.raised_mm)
    where = f"--table {w:g}x{d:g}" + (f" --grid {answers.field_mm:g}" if answers.field_mm else "")
    # what is written reads back: a table or a grid beyond the readers' limits is refused now, not by print later
    layout = parse_layout(tomllib.loads(layout_to_toml(layout)), where)
    p = plan(answers.camera())
    if not p.whole_table:
        up = p.height_for_whole_table_mm
        raise InputError(f"--height {answers.height_mm:g}: the camera sees {100 * p.share_in_view:.0f} % of the "
                         f"table" + (f"; raise it to {math.ceil(up / 10) * 10:.0f} mm" if up else
                                     "; a wider lens or several cameras (fieldglass plan)"))
    need = math.ceil(p.smallest_marker_mm * 2.0 - 1e-9) / 2.0
    if min(a.size_mm for a in layout.anchors) < need:
        raise InputError(f"the camera reads markers of {need:g} mm at the worst place, more than the anchors' "
                         f"{layout.anchors[0].size_mm:g} mm: a higher --camera-resolution or a lower --height")
    kinds = kinds_of(gs, answers.bases)
    roster = new_roster(gs, answers.armies, kinds, dictionary, need, set(layout.anchor_ids))
    check_roster(roster, "roster", gs.name)  # what init writes, the readers read
    fit = layout_fit_problems(roster, layout, "roster")
    if fit:
        raise InputError(fit[0])
    return NewTable(layout, roster, plan(answers.camera(), roster=roster), parse_board(BOARD))


def game_md(gs: GameSystem, answers: Answers, table: NewTable, names: Mapping[str, str]) -> str:
    """GAME.md: what was written and the next commands, from printing to a recorded game."""
    lay, ros, p = table.layout, table.roster, table.plan
    w, d = answers.table_mm
    g = lay.grid
    grid = f", a grid of {g.cols} x {g.rows} fields of {g.field_mm:g} mm" if g is not None else ", no grid"
    sides = {}
    for piece in ros.pieces:
        sides.setdefault(piece.side, []).append(piece)
    army_lines = [f"  - {side}: {len(ps)} pieces: {', '.join(f'{n} {t}' for t, n in type_counts(ps))}"
                  for side, ps in sides.items()]
    rw, rh = answers.resolution
    flat = "flat on the cloth" if not answers.raised_mm else (
        f"flat, anchors 4 and 6 on blocks {answers.raised_mm:g} mm high (their printed face that far above the cloth)")
    L, R, M, A, B = (names[k] for k in ("layout", "roster", "markers", "anchors", "board"))
    sizes = sorted({pc.marker_mm for pc in ros.pieces})
    need = math.ceil(p.smallest_marker_mm * 2 - 1e-9) / 2
    markers = f"{min(pc.marker for pc in ros.pieces)}-{max(pc.marker for pc in ros.pieces)}"
    lines = [
        f"# {gs.title}: your table",
        "",
        f"Written by `fieldglass init` for a {w:g} x {d:g} mm table{grid}, watched by a {rw}x{rh} camera "
        f"({answers.fov_deg:g} deg {answers.fov_kind} field of view) {answers.height_mm:g} mm above it, looking "
        "straight down, the image's long side along the table's width. Run the commands below in this folder.",
        "",
        f"- `{L}`: the layout, {len(lay.anchors)} anchors of {lay.anchors[0].size_mm:g} mm ({lay.dictionary}) at the "
        f"corners and edge midpoints, {flat}.",
        f"- `{R}`: the roster, {len(ros.pieces)} pieces of `{gs.name}`, markers {markers} (none is an anchor) of "
        f"{', '.join(f'{s:g}' for s in sizes)} mm, the largest each base holds; this camera reads {need:g} mm "
        "everywhere on the table.",
        *army_lines,
        f"- `{M}`, `{A}`, `{B}`: the marker labels, the anchors and the calibration board ({table.board}).",
        f"- No start position: a {gs.name} game starts from where the camera sees the pieces (a position file, "
        "`--game`, adds terrain and what the camera cannot see).",
        *_dice_lines(gs, p, L),
        "",
        "## Next",
        "",
        f"1. Print `{M}`, `{A}` and `{B}` at 100 % (\"actual size\", no \"fit to page\"): each page's scale bar "
        "must measure 100 mm.",
        "2. Cut out the labels and glue each on its base, the arrow toward the base's front. Glue each anchor on the "
        f"table with its centre where `{A}` says and its arrow toward the far edge (+y); glue the board on card.",
        f"3. Rehearse before the camera comes: `fieldglass gui --source synthetic --layout {L} --roster {R}` (your "
        "table, your pieces in their deployment zones).",
        "4. Calibrate the camera from 10-20 sharp photos of the board at the resolution you play at, tilted, in every "
        f"part of the frame: `fieldglass calibrate camera shots/*.jpg --board {table.board} --out cam.json`.",
        f"5. Mount the camera {answers.height_mm:g} mm above the table's centre, straight down, and check everything: "
        f"`fieldglass check-setup --layout {L} --roster {R} --camera cam.json --height {answers.height_mm:g}`.",
        f"6. Take a photo of the table with the pieces on it: `fieldglass locate photo.jpg --camera cam.json --layout "
        f"{L} --roster {R}`; of a printed page lying beside the anchors: `fieldglass check-print page.jpg --camera "
        f"cam.json --layout {L} --roster {R}`.",
        f"7. Play and record: `fieldglass gui --source 0 --camera cam.json --layout {L} --roster {R} --record "
        f"game.fgr` (or headless: `fieldglass record --source 0 --camera cam.json --layout {L} --roster {R} --out "
        "game.fgr`), then `fieldglass replay game.fgr`.",
    ]
    return "\n".join(lines) + "\n"


def _dice_lines(gs: GameSystem, p, layout_name: str) -> list[str]:
    """For a system that rolls dice: what the camera reads of them (the dashboard fills the combat panel)."""
    if not any(i.kind == "dice" for i in gs.live.inputs):
        return []
    die = math.ceil(p.smallest_die_mm * 2 - 1e-9) / 2
    where = (f"reads dice of {die:g} mm and larger anywhere on the table" if die <= 20.0 else
             f"reads dice only of {die:g} mm and larger on the whole table: give `{layout_name}` a `[dice_tray]` "
             "(README \"Dice thrown at the table\") where the dice are thrown, or type them")
    return [f"- Dice: throw them under the camera and the dashboard puts them into the combat panel; this camera "
            f"{where}."]


def type_counts(pieces) -> list[tuple[str, int]]:
    """(type, how many) of `pieces`, in the order the types first come."""
    out: dict[str, int] = {}
    for pc in pieces:
        out[pc.type] = out.get(pc.type, 0) + 1
    return list(out.items())


__all__ = ["BOARD", "FOV_DEG", "RESOLUTION", "Answers", "NewTable", "army_pieces", "check_system", "default_armies",
           "find_army",
           "game_md", "kind_of", "kinds_of", "lowest_height_mm", "make_table", "new_layout", "new_roster",
           "parse_counts"]
