"""What the camera reads besides the General pawns (§13.1): Troop/Garrison tokens (one marker per face), Fortresses,
control markers, the Morale and Influence track markers, the Diplomatic Status discs and the Wheel of War's dial.

A roster piece's `type` says which marker it is (`MARKER_KINDS`), its `side` the Power it belongs to (the wheel's
dial belongs to nobody). A token has one marker per face: its two roster pieces have types `troop` and `garrison`
and name the token they are faces of with the roster key `token` (default: the piece id); turning the token over
shows the other face's marker. The board names its non-Territory areas with attributes: a track space `kind =
"track"`, `track = "morale"` (or "influence"), `value = N`; a status zone `kind = "status"`, `status = "british"`
(french, neutral, expansionist); the Wheel of War `kind = "wheel"`; each also `apart = true` (no Territory: the
board's validation does not ask that it be reached from the map).

`read_markers` is pure: it takes where each marker lies (board areas located by `locate`) and returns a
`MarkerReading`. Whatever it cannot read (a marker on a border, on the wrong kind of area, two Garrisons on one
Territory, a dial between two spaces) is a note, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rules.board import Area
from rules.coalitions.model import ACTIONS, POWERS, STATUSES

TOKEN_FACES = ("troop", "garrison")
TRACKS = ("morale", "influence")
MARKER_KINDS = (*TOKEN_FACES, "fortress", "control", *TRACKS, "status", "wheel", "board_side")
"""The roster types of the markers that are not General pawns. A `board_side` marker is printed on one side of the
board (§13.1: "a fiducial on each side"): its roster `side` is that board side (revolution or empire)."""
WHEEL_STEP_DEG = 360.0 / len(ACTIONS)
WHEEL_TOLERANCE_DEG = 15.0
"""How far (degrees) the dial may lie from one of its six positions and still be read: beyond, it is between two
spaces (being turned) and not guessed."""


def marker_kind(roster_type: str) -> str | None:
    """The marker a roster type names (`MARKER_KINDS`), None for anything else (a General pawn, an unknown word)."""
    t = roster_type.strip().lower().replace(" ", "_").replace("-", "_")
    t = {"status_disc": "status", "dial": "wheel", "wheel_of_war": "wheel", "control_marker": "control"}.get(t, t)
    return t if t in MARKER_KINDS else None


@dataclass
class MarkerReading:
    """What the markers on the table say. Only what has markers on the table is read (`kinds`: the kinds of marker
    seen): a Power's track whose marker is not on the table stays the game's, and so do the Garrisons while no
    token is. `garrisons` Territory -> Power; `fans` Territory -> Power ->
    Troop tokens seen on their Troop face (the table convention of a fan beside the pawn, §13.2); `faces` token ->
    the face seen; `tracks` track -> Power -> value; `statuses` Power -> status; `wheel_turn` the action turn (1-6)
    the dial shows, None when the dial is not read."""

    kinds: set[str] = field(default_factory=set)
    garrisons: dict[str, str] = field(default_factory=dict)
    fans: dict[str, dict[str, int]] = field(default_factory=dict)
    faces: dict[str, str] = field(default_factory=dict)
    fortresses: set[str] = field(default_factory=set)
    control: dict[str, str] = field(default_factory=dict)
    tracks: dict[str, dict[str, int]] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    wheel_turn: int | None = None
    wheel_deg: float | None = None
    board_side: str | None = None
    notes: list[str] = field(default_factory=list)


def wheel_turn(bearing_deg: float) -> tuple[int | None, str]:
    """The action turn (1-6) the dial shows from its marker's bearing on the board (degrees clockwise from the
    board's north): the marker points north in turn 1 (Britain over Drill, §4.2) and the dial turns one space (60
    degrees) clockwise each action turn (§4.1). (None, why) when it lies between two spaces."""
    b = bearing_deg % 360.0
    step = round(b / WHEEL_STEP_DEG)
    off = abs(b - step * WHEEL_STEP_DEG)
    if off > WHEEL_TOLERANCE_DEG:
        return None, f"the Wheel's dial is {off:.0f} degrees off a space (turned {b:.0f}): between two turns"
    return step % len(ACTIONS) + 1, ""


def bearing_on_board(heading_deg: float, board_rotation_deg: float) -> float:
    """A marker's bearing on the board (degrees clockwise from the board's north) from its compass heading on the
    table (`heading_deg`, 0 = +y, 90 = +x) and the board's rotation on the table (board -> table counter-clockwise
    by `board_rotation_deg`, calibration.board.BoardPose)."""
    return (heading_deg + board_rotation_deg) % 360.0


def _area(board, placement) -> tuple[Area | None, str]:
    if placement.area is None:
        return None, placement.note or "not on the board"
    if placement.on_border:
        return None, placement.note or f"on the border of {placement.area}"
    return board.areas.get(placement.area), ""


def read_markers(markers, places: dict[str, Any], locate, board, territories, board_rotation_deg: float = 0.0,
                 tokens: dict[str, str] | None = None) -> MarkerReading:
    """The markers' reading. `markers`: (roster piece, kind, Power or None) for each marker of the roster;
    `places` piece id -> anything with x_mm, y_mm (and heading_deg: the dial needs it); `locate(x, y)` the
    board's Placement there; `territories` the map's Territories by id; `tokens` piece id -> the token it is a face
    of (default: its id). A marker not in `places` is not on the table."""
    out = MarkerReading(kinds={k for rp, k, _ in markers if rp.id in places})
    tokens = tokens or {}
    for rp, kind, power in markers:
        if rp.id not in places:
            continue
        place = places[rp.id]
        if kind == "board_side":  # printed on the board: seen anywhere, that side is up
            out.board_side = str(rp.side).strip().lower()
            continue
        placement = locate(place.x_mm, place.y_mm)
        area, why = _area(board, placement)
        if area is None:
            if kind != "troop" or placement.area is not None:  # spare Troops lie beside the board
                out.notes.append(f"{rp.id}: {why} - not read")
            continue
        if kind == "wheel":
            _read_wheel(out, rp, area, place, board_rotation_deg)
        elif kind in TRACKS:
            _read_track(out, rp, kind, power, area)
        elif kind == "status":
            _read_status(out, rp, power, area)
        elif area.id not in territories:
            out.notes.append(f"{rp.id}: a {kind} marker on {area.id}, which is no Territory - not read")
        else:
            _read_on_map(out, rp, kind, power, area.id, tokens.get(rp.id, rp.id))
    return out


def _read_wheel(out: MarkerReading, rp, area: Area, place, rotation: float) -> None:
    heading = getattr(place, "heading_deg", None)
    if area.attribute("kind") != "wheel" or heading is None:
        out.notes.append(f"{rp.id}: the Wheel's dial marker is not on the Wheel (on {area.id}) - not read")
        return
    out.wheel_deg = bearing_on_board(float(heading), rotation)
    out.wheel_turn, why = wheel_turn(out.wheel_deg)
    if why:
        out.notes.append(f"{rp.id}: {why} - not read")


def _read_track(out: MarkerReading, rp, track: str, power: str | None, area: Area) -> None:
    if area.attribute("kind") != "track" or area.attribute("track") != track:
        out.notes.append(f"{rp.id}: {power}'s {track} marker on {area.id}, not a {track} track space - not read")
        return
    value = area.attribute("value")
    if power is None or not isinstance(value, int):
        out.notes.append(f"{rp.id}: track space {area.id} has no integer value - not read")
        return
    out.tracks.setdefault(track, {})[power] = value


def _read_status(out: MarkerReading, rp, power: str | None, area: Area) -> None:
    status = area.attribute("status")
    if area.attribute("kind") != "status" or status not in STATUSES or power is None:
        out.notes.append(f"{rp.id}: {power}'s status disc on {area.id}, not a status zone - not read")
        return
    if power in ("britain", "france"):
        out.notes.append(f"{rp.id}: {power} leads its Coalition and has no status disc (§9.2) - ignored")
        return
    out.statuses[power] = status


def _read_on_map(out: MarkerReading, rp, kind: str, power: str | None, tid: str, token: str) -> None:
    if kind == "fortress":
        out.fortresses.add(tid)
        return
    if power is None:
        out.notes.append(f"{rp.id}: a {kind} marker of no Power - not read")
        return
    if kind == "control":
        out.control[tid] = power
        return
    out.faces[token] = kind
    if kind == "troop":
        fan = out.fans.setdefault(tid, {})
        fan[power] = fan.get(power, 0) + 1
    elif tid in out.garrisons:
        out.notes.append(f"{rp.id}: a second Garrison on {tid} (one per Territory, §5.5) - not read")
    else:
        out.garrisons[tid] = power


# ---------------------------------------------------------------------------------------------- the board's areas

TRACK_ROW_MM = {"morale": 710.0, "influence": 785.0}
"""Where the demo's tracks lie: a strip above the map's frame (y 700-950 board mm), each track one row of spaces."""
TRACK_SPACES = {"morale": 16, "influence": 26}
TRACK_X0_MM, TRACK_WIDTH_MM, ROW_DEPTH_MM = 60.0, 880.0, 70.0
STATUS_ZONE = (60.0, 862.0, 140.0, 66.0)
"""x0, y0, width, depth of the first status zone; the four zones side by side in `STATUSES` order."""
WHEEL_BOX = (700.0, 862.0, 120.0, 66.0)
EXTRA_DEPTH_MM = 250.0


def _box(x0: float, y0: float, w: float, d: float) -> np.ndarray:
    return np.array([(x0, y0), (x0 + w, y0), (x0 + w, y0 + d), (x0, y0 + d)], float)


def track_areas() -> dict[str, Area]:
    """The demo's track spaces, status zones and Wheel of War as board areas (INVENTED places, above the map's
    frame; a digitised board gives its own with the same attributes)."""
    out: dict[str, Area] = {}
    for track, y in TRACK_ROW_MM.items():
        n = TRACK_SPACES[track]
        w = TRACK_WIDTH_MM / n
        for v in range(n):
            aid = f"{track}-{v}"
            out[aid] = Area(aid, f"{track.capitalize()} {v}", _box(TRACK_X0_MM + v * w, y, w, ROW_DEPTH_MM),
                            attributes=(("apart", True), ("kind", "track"), ("track", track), ("value", v)))
    x0, y0, w, d = STATUS_ZONE
    for k, status in enumerate(STATUSES):
        aid = f"status-{status}"
        out[aid] = Area(aid, f"{status.capitalize()} status", _box(x0 + k * w, y0, w, d),
                        attributes=(("apart", True), ("kind", "status"), ("status", status)))
    out["wheel"] = Area("wheel", "the Wheel of War", _box(*WHEEL_BOX), attributes=(("apart", True), ("kind", "wheel")))
    return out


def track_point(track: str, value: int, power: str) -> tuple[float, float]:
    """Where a Power's marker stands on a track space of the demo board (board mm): the six Powers side by side
    in the space, two columns of three, so that markers sharing a space do not hide each other (§13.1)."""
    w = TRACK_WIDTH_MM / TRACK_SPACES[track]
    k = POWERS.index(power)
    return TRACK_X0_MM + (value + 0.25 + 0.5 * (k % 2)) * w, TRACK_ROW_MM[track] + 12.0 + 23.0 * (k // 2)


def status_point(status: str, power: str) -> tuple[float, float]:
    x0, y0, w, d = STATUS_ZONE
    k = POWERS.index(power) - 2
    return x0 + STATUSES.index(status) * w + 20.0 + k * 33.0, y0 + d / 2


def wheel_point() -> tuple[float, float]:
    x0, y0, w, d = WHEEL_BOX
    return x0 + w / 2, y0 + d / 2


__all__ = ["MARKER_KINDS", "TOKEN_FACES", "TRACKS", "MarkerReading", "bearing_on_board", "marker_kind",
           "read_markers", "status_point", "track_areas", "track_point", "wheel_point", "wheel_turn"]
