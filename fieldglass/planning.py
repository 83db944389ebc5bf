"""Planning a camera over a table: resolution on the cloth, coverage, the smallest marker that will be read, parallax.

The camera is a pinhole (no lens distortion) `height_mm` above the table surface, aimed at the table centre and
tilted `tilt_deg` from straight down toward +y (it stands on the near side, the image's long side along the table's
long side), like `vision.synthetic.VirtualCamera.looking_at_table`. Figures are taken over a dense grid of table
points. The smallest reliable marker comes from the measured detection limits in
fieldglass/data/detection_limits.json (`fieldglass.benchmarks.limits`): a marker is read when its shortest side in
the image reaches the limit for its viewing angle and the blur.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.projection import table_to_pixels
from calibration.rig import footprint_line, footprint_overlap
from common.errors import InputError
from fieldglass.benchmarks.limits import stored_limits
from vision.dice import FLAT_OF_SIDE, READABLE_FACE_PX

GRID_STEPS = (97, 49)
TILE_OVERLAP_MM = 100.0  # neighbouring cameras share a strip this wide (anchors on the seam)
SOFT_BLUR_PX = 2.0
PARALLAX_HEIGHTS_MM = (3.0, 10.0, 25.0, 50.0)


@dataclass(frozen=True)
class Limits:
    """Measured detection limits: blur (px) -> tilt (deg) -> smallest reliable shortest side (px, None: never)."""

    table: dict[float, dict[float, int | None]]
    in_focus_blur_px: float
    rule: str

    @classmethod
    def load(cls, data: dict | None = None) -> Limits:
        if data is None:
            data = stored_limits()
        table = {float(b): {float(t): v for t, v in row.items()} for b, row in data["min_side_px"].items()}
        return cls(table, float(data["in_focus_blur_px"]), str(data["rule"]))

    def min_side_px(self, angle_deg: float, blur_px: float | None = None) -> float:
        """Smallest reliable shortest side (px) for markers seen `angle_deg` from straight on, at the worst blur up to
        `blur_px` (default: in focus). Angles between two measured tilts take the larger tilt's limit; beyond the
        largest, or where no size was reliable, infinity."""
        blur = self.in_focus_blur_px if blur_px is None else blur_px
        rows = [row for b, row in self.table.items() if b <= blur + 1e-9] or [self.table[min(self.table)]]
        tilts = sorted(rows[0])
        column = next((t for t in tilts if angle_deg <= t + 1e-9), None)
        if column is None:
            return math.inf
        values = [row.get(column) for row in rows]
        return math.inf if any(v is None for v in values) else float(max(values))


@dataclass(frozen=True)
class CameraSetup:
    table_mm: tuple[float, float]
    resolution: tuple[int, int]
    fov_deg: float
    height_mm: float
    tilt_deg: float = 0.0
    fov_kind: str = "diagonal"  # or "horizontal"
    centre_mm: tuple[float, float] | None = None  # the point aimed at (default the table centre)

    def focal_px(self) -> float:
        w, h = self.resolution
        half = {"diagonal": math.hypot(w, h), "horizontal": w, "vertical": h}[self.fov_kind] / 2.0
        return half / math.tan(math.radians(self.fov_deg) / 2.0)

    def camera(self) -> tuple[CameraIntrinsics, CameraPose]:
        w, h = self.resolution
        f = self.focal_px()
        k = np.array([[f, 0.0, (w - 1) / 2.0], [0.0, f, (h - 1) / 2.0], [0.0, 0.0, 1.0]])
        tilt = math.radians(self.tilt_deg)
        cx, cy = self.centre_mm or (self.table_mm[0] / 2.0, self.table_mm[1] / 2.0)
        centre = np.array([cx, cy, 0.0])
        cam = np.array([cx, cy - self.height_mm * math.tan(tilt), self.height_mm])
        z_axis = (centre - cam) / np.linalg.norm(centre - cam)
        x_axis = np.array([1.0, 0.0, 0.0])
        y_axis = np.cross(z_axis, x_axis)
        rot = np.vstack([x_axis, y_axis, z_axis])
        pose = CameraPose(cv2.Rodrigues(rot)[0].ravel(), -rot @ cam)
        return CameraIntrinsics((w, h), k, np.zeros(5)), pose


@dataclass
class Plan:
    setup: CameraSetup
    limits: Limits
    near_point: tuple[float, float]
    far_point: tuple[float, float]
    near_mm_per_px: float  # along the table's worst direction at the nearest table point
    far_mm_per_px: float
    near_mm_per_px_mean: float  # sqrt of the pixel's footprint area
    far_mm_per_px_mean: float
    share_in_view: float
    height_for_whole_table_mm: float | None
    max_angle_deg: float
    smallest_marker_mm: float  # in focus, over the part of the table in view
    smallest_marker_soft_mm: float
    worst_point: tuple[float, float]
    parallax_mm: dict[float, float]  # marker height -> largest shift on the table in view without height correction
    parallax_centre_mm: dict[float, float]
    cameras: tuple[int, int, float] | None  # (nx, ny, height) suggested for the whole table, None: no tiling works
    marker_checks: list[tuple[float, float, bool]] = field(default_factory=list)  # (marker mm, worst px, ok)
    too_small: list[tuple[str, float]] = field(default_factory=list)  # roster pieces (id, marker mm)

    @property
    def smallest_die_mm(self) -> float:
        """The smallest die whose top face is READABLE_FACE_PX across at the farthest table point (worst direction)."""
        return READABLE_FACE_PX / FLAT_OF_SIDE * self.far_mm_per_px

    @property
    def whole_table(self) -> bool:
        return self.share_in_view >= 1.0 - 1e-9


def _table_grid(setup: CameraSetup) -> np.ndarray:
    w, d = setup.table_mm
    xs = np.linspace(0.0, w, GRID_STEPS[0])
    ys = np.linspace(0.0, d, GRID_STEPS[1])
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def _survey(setup: CameraSetup, points: np.ndarray):
    """Per table point: in view, px per mm along the worst and best directions, viewing angle, camera distance."""
    intr, pose = setup.camera()
    p3 = np.column_stack([points, np.zeros(len(points))])
    cam_pts = p3 @ pose.rotation.T + np.asarray(pose.tvec, float)
    px = table_to_pixels(p3, intr, pose)
    dx = table_to_pixels(p3 + [1.0, 0, 0], intr, pose) - px
    dy = table_to_pixels(p3 + [0, 1.0, 0], intr, pose) - px
    jac = np.stack([dx, dy], axis=2)  # (N, 2, 2): columns are d(px)/dx, d(px)/dy
    sv = np.linalg.svd(jac, compute_uv=False)
    w, h = setup.resolution
    inside = (cam_pts[:, 2] > 0) & (px[:, 0] >= -0.5) & (px[:, 0] <= w - 0.5) & (px[:, 1] >= -0.5) & (
        px[:, 1] <= h - 0.5)
    centre = pose.camera_centre_mm
    ray = p3 - centre
    dist = np.linalg.norm(ray, axis=1)
    angle = np.degrees(np.arccos(np.clip(-ray[:, 2] / dist, -1, 1)))
    return inside, sv[:, 1], sv[:, 0], angle, dist, centre


def _marker_need(limits: Limits, sv_min: np.ndarray, angle: np.ndarray, blur: float | None) -> np.ndarray:
    need_px = np.array([limits.min_side_px(a, blur) for a in angle])
    return need_px / sv_min


def _whole_table_height(setup: CameraSetup) -> float | None:
    """The lowest height (same tilt and lens) that sees the whole table, by bisection; None above 20 m."""
    pts = _table_grid(setup)
    pts = pts[(pts[:, 0] == 0) | (pts[:, 1] == 0) | (pts[:, 0] == setup.table_mm[0]) | (pts[:, 1] == setup.table_mm[1])]

    def sees(h: float) -> bool:
        s = CameraSetup(setup.table_mm, setup.resolution, setup.fov_deg, h, setup.tilt_deg, setup.fov_kind,
                        setup.centre_mm)
        return bool(_survey(s, pts)[0].all())

    lo, hi = 50.0, 20000.0
    if not sees(hi):
        return None
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if sees(mid) else (mid, hi)
    return hi


def _tiling(setup: CameraSetup, limits: Limits, marker_mm: float | None) -> tuple[int, int, float] | None:
    """The fewest straight-down cameras at `setup.height_mm`, each over one tile of an nx x ny split (tiles overlap
    by TILE_OVERLAP_MM), that see the whole table and (with `marker_mm`) read such markers everywhere in focus."""
    w, d = setup.table_mm
    options = sorted(((nx, ny) for nx in range(1, 9) for ny in range(1, 9)), key=lambda t: (t[0] * t[1], -t[0]))
    for nx, ny in options:
        tw = min(w, w / nx + (TILE_OVERLAP_MM if nx > 1 else 0.0))
        td = min(d, d / ny + (TILE_OVERLAP_MM if ny > 1 else 0.0))
        tile = CameraSetup((tw, td), setup.resolution, setup.fov_deg, setup.height_mm, 0.0, setup.fov_kind)
        pts = _table_grid(tile)
        inside, sv_min, _, angle, _, _ = _survey(tile, pts)
        if not inside.all():
            continue
        if marker_mm is not None and _marker_need(limits, sv_min, angle, None).max() > marker_mm:
            continue
        return nx, ny, setup.height_mm
    return None


def plan(setup: CameraSetup, limits: Limits | None = None, marker_mm: float | None = None,
         roster=None, heights_mm=None) -> Plan:
    """All of the planner's figures for one camera setup (see the module docstring)."""
    limits = limits or Limits.load()
    pts = _table_grid(setup)
    inside, sv_min, sv_max, angle, dist, centre = _survey(setup, pts)
    if not inside.any():
        raise InputError("camera: the table is not in view at all (lower the tilt or raise the camera)")
    seen = np.flatnonzero(inside)
    near, far = seen[np.argmin(dist[seen])], seen[np.argmax(dist[seen])]
    need = _marker_need(limits, sv_min[seen], angle[seen], None)
    need_soft = _marker_need(limits, sv_min[seen], angle[seen], SOFT_BLUR_PX)
    worst = seen[int(np.argmax(need))]
    heights = sorted({float(h) for h in heights_mm}) if heights_mm else list(PARALLAX_HEIGHTS_MM)
    if roster is not None and not heights_mm:
        heights = sorted({p.marker_height_mm for p in roster.pieces if p.marker_height_mm > 0}) or heights
    cam_h = float(centre[2])
    horiz = np.linalg.norm(pts[seen] - centre[:2], axis=1)
    mid = np.array(setup.table_mm) / 2.0
    parallax = {h: float(horiz.max() * h / (cam_h - h)) for h in heights if h < cam_h}
    parallax_c = {h: float(np.linalg.norm(mid - centre[:2]) * h / (cam_h - h)) for h in heights if h < cam_h}
    share = float(inside.mean())
    result = Plan(
        setup=setup,
        limits=limits,
        near_point=tuple(pts[near]),
        far_point=tuple(pts[far]),
        near_mm_per_px=float(1.0 / sv_min[near]),
        far_mm_per_px=float(1.0 / sv_min[far]),
        near_mm_per_px_mean=float(1.0 / math.sqrt(sv_min[near] * sv_max[near])),
        far_mm_per_px_mean=float(1.0 / math.sqrt(sv_min[far] * sv_max[far])),
        share_in_view=share,
        height_for_whole_table_mm=None if share >= 1.0 else _whole_table_height(setup),
        max_angle_deg=float(angle[seen].max()),
        smallest_marker_mm=float(need.max()),
        smallest_marker_soft_mm=float(need_soft.max()),
        worst_point=tuple(pts[worst]),
        parallax_mm=parallax,
        parallax_centre_mm=parallax_c,
        cameras=None,
    )
    target = marker_mm
    if roster is not None:
        sizes = sorted({p.marker_mm for p in roster.pieces})
        target = min([*sizes, *([marker_mm] if marker_mm else [])]) if sizes else marker_mm
    result.cameras = _tiling(setup, limits, target) if (share < 1.0 or (target and target < need.max())) else (
        1, 1, setup.height_mm)
    for m in sorted({*([marker_mm] if marker_mm else []), *(p.marker_mm for p in (roster.pieces if roster else ()))}):
        worst_px = float((m * sv_min[seen]).min())
        result.marker_checks.append((m, worst_px, m >= need.max() - 1e-9))
    if roster is not None:
        result.too_small = [(p.id, p.marker_mm) for p in roster.pieces if p.marker_mm < need.max() - 1e-9]
    return result


def _ceil_half(v: float) -> float:
    return math.ceil(v * 2.0 - 1e-9) / 2.0


def _pt(p) -> str:
    return f"({p[0]:.0f}, {p[1]:.0f})"


def format_plan(p: Plan) -> list[str]:
    s = p.setup
    w, d = s.table_mm
    out = [
        f"camera {s.resolution[0]}x{s.resolution[1]}, {s.fov_deg:g} deg {s.fov_kind} field of view "
        f"(focal length {s.focal_px():.0f} px), {s.height_mm:g} mm above a {w:g} x {d:g} mm table, "
        f"tilted {s.tilt_deg:g} deg, aimed at the table centre",
        "",
        "resolution on the cloth (mm per pixel; worst direction, i.e. across the foreshortening / footprint mean):",
        f"  nearest table point {_pt(p.near_point)}:  {p.near_mm_per_px:.2f} / {p.near_mm_per_px_mean:.2f} mm per px",
        f"  farthest table point {_pt(p.far_point)}: {p.far_mm_per_px:.2f} / {p.far_mm_per_px_mean:.2f} mm per px",
        f"  markers are seen up to {p.max_angle_deg:.0f} deg from straight on",
        "",
    ]
    if p.whole_table:
        out.append("whole table in view: yes")
    else:
        out.append(f"whole table in view: NO, {100 * p.share_in_view:.0f} % of it")
        if p.height_for_whole_table_mm:
            out.append(f"  this camera sees all of it from {math.ceil(p.height_for_whole_table_mm / 10) * 10:.0f} mm "
                       "up at the same tilt")
    out += [
        "",
        f"detection limits (measured, {p.limits.rule})",
        f"smallest marker read reliably everywhere in view: {_ceil_half(p.smallest_marker_mm):g} mm in focus, "
        f"{_ceil_half(p.smallest_marker_soft_mm):g} mm if the image is soft (blur {SOFT_BLUR_PX:g} px); "
        f"the worst place is {_pt(p.worst_point)}",
    ]
    die = p.smallest_die_mm
    out.append(f"smallest die read everywhere in view: {_ceil_half(die):g} mm (its top face {READABLE_FACE_PX:g} px "
               "across at the farthest point, the least whose pips are counted, as check-setup and the dashboard "
               "judge it); ordinary dice are 12-20 mm"
               + ("" if die <= 12.0 else ": " + ("some too small here" if die <= 20.0 else "too small here")))
    for m, px, ok in p.marker_checks:
        verdict = "OK" if ok else "TOO SMALL"
        out.append(f"  {m:g} mm markers: {px:.1f} px on the shortest side at the worst place: {verdict}")
    if p.too_small:
        out.append(f"  roster pieces with too small markers ({len(p.too_small)}): "
                   + ", ".join(f"{i} ({m:g} mm)" for i, m in p.too_small[:20])
                   + (" ..." if len(p.too_small) > 20 else ""))
    elif p.marker_checks and all(ok for _, _, ok in p.marker_checks):
        out.append("  every marker checked is large enough")
    out += ["", "parallax without height correction (where a marker at that height would be placed on the cloth):"]
    for h, v in p.parallax_mm.items():
        centre = p.parallax_centre_mm[h]
        out.append(f"  {h:g} mm high: up to {v:.1f} mm off at the table's edge, {centre:.1f} mm at its centre")
    out.append("  (Fieldglass removes it using each piece's marker_height_mm from the roster)")
    out.append("")
    if p.cameras is None:
        out.append("cameras: no split into up to 8 x 8 straight-down cameras at this height works; raise the cameras "
                   "or use bigger markers")
    elif p.cameras[:2] == (1, 1):
        out.append("cameras: one is enough")
    else:
        nx, ny, h = p.cameras
        out.append(f"cameras: {nx * ny} ({nx} x {ny}), each straight down {h:g} mm above the centre of a "
                   f"{w / nx + (TILE_OVERLAP_MM if nx > 1 else 0):.0f} x "
                   f"{d / ny + (TILE_OVERLAP_MM if ny > 1 else 0):.0f} mm part of the table "
                   f"(parts overlap by {TILE_OVERLAP_MM:g} mm; put anchors in the overlaps)")
    return out


def parse_pair(text: str, what: str, integer: bool = False) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in str(text).lower().replace("*", "x").split("x"))
    except ValueError:
        raise InputError(f"{what} {text!r}: expected WIDTHxHEIGHT like 2400x1200") from None
    if not (math.isfinite(a) and math.isfinite(b) and a > 0 and b > 0) or (integer and (a % 1 or b % 1)):
        raise InputError(f"{what} {text!r}: expected two positive {'whole ' if integer else ''}numbers like 2400x1200")
    return (int(a), int(b)) if integer else (a, b)


@dataclass(frozen=True)
class RigPart:
    """One camera of a planned rig: its name, the point it stands over (table mm) at the plan's height looking
    straight down, the part of the table it must see (`footprint_mm`, x0, y0, x1, y1 clipped to the table: the
    planned tile, which the planner checked lies in its view) and what it sees of the cloth in all (`view_mm`, not
    clipped)."""

    name: str
    centre_mm: tuple[float, float]
    footprint_mm: tuple[float, float, float, float]
    view_mm: tuple[float, float, float, float]


def rig_parts(p: Plan) -> tuple[RigPart, ...]:
    """The cameras of the plan's tiling (`p.cameras`), named cam1.. row by row from the south-west: each over the
    centre of its nx x ny share of the table, its footprint that share widened by TILE_OVERLAP_MM / 2 on each inner
    side (so neighbours share a TILE_OVERLAP_MM strip). InputError when no tiling works."""
    if p.cameras is None:
        raise InputError("--rig-out: no split into up to 8 x 8 straight-down cameras at this height works; raise the "
                         "cameras or use bigger markers")
    nx, ny, height = p.cameras
    w, d = p.setup.table_mm
    iw, ih = p.setup.resolution
    f = p.setup.focal_px()
    half_view = (height * iw / 2.0 / f, height * ih / 2.0 / f)  # a straight-down pinhole's footprint on the cloth
    half_x = w / nx / 2.0 + (TILE_OVERLAP_MM / 2.0 if nx > 1 else 0.0)
    half_y = d / ny / 2.0 + (TILE_OVERLAP_MM / 2.0 if ny > 1 else 0.0)
    parts = []
    for j in range(ny):
        for i in range(nx):
            cx, cy = (i + 0.5) * w / nx, (j + 0.5) * d / ny
            foot = (max(0.0, cx - half_x), max(0.0, cy - half_y), min(w, cx + half_x), min(d, cy + half_y))
            view = (cx - half_view[0], cy - half_view[1], cx + half_view[0], cy + half_view[1])
            parts.append(RigPart(f"cam{len(parts) + 1}", (cx, cy), foot, view))
    return tuple(parts)


def _rect(r) -> str:
    return f"x {r[0]:.0f}..{r[2]:.0f}, y {r[1]:.0f}..{r[3]:.0f} mm"


def rig_skeleton(p: Plan) -> str:
    """A rig file (TOML) for the plan's cameras: one [[camera]] each with a placeholder camera file "<name>.json"
    and its footprint, the plan's advice as comments (where each stands, what it sees, the overlap strips that need
    anchors). It parses with calibration.rig.parse_rig once the camera files exist."""
    parts = rig_parts(p)
    s = p.setup
    w, d = s.table_mm
    height = p.cameras[2]
    lines = [
        "# Fieldglass rig file, written by `fieldglass plan --rig-out`.",
        f"# Table {w:g} x {d:g} mm; {len(parts)} camera(s) {s.resolution[0]}x{s.resolution[1]}, {s.fov_deg:g} deg "
        f"{s.fov_kind} field of view, each {height:g} mm above the table looking straight down, the image's long "
        "side along the table's width.",
        "# Calibrate each camera (`fieldglass calibrate camera ... --out <name>.json`) beside this file, and set",
        "# `source` (camera index, video file or stream URL) for live use.",
    ]
    if len(parts) == 1:
        lines.append("# One camera sees the whole table: a rig is not needed (`--camera` does), but this one works.")
        if p.whole_table and s.tilt_deg:
            lines.append(f"# It may stay as planned: tilted {s.tilt_deg:g} deg, aimed at the table centre (the line "
                         "below gives the straight-down alternative).")
    pairs = [(a, b, footprint_overlap(a.footprint_mm, b.footprint_mm))
             for i, a in enumerate(parts) for b in parts[i + 1:]]
    pairs = [(a, b, r) for a, b, r in pairs if r is not None]
    if pairs:
        lines.append("# Overlaps: glue at least 2 anchors in each (`fieldglass print anchors --rig` places them):")
        lines += [f"#   {a.name} and {b.name}: {_rect(r)}" for a, b, r in pairs]
    for part in parts:
        lines += [
            "",
            f"# {part.name}: {height:g} mm above ({part.centre_mm[0]:.0f}, {part.centre_mm[1]:.0f}) mm, straight "
            f"down; sees about {_rect(part.view_mm)}; must see {_rect(part.footprint_mm)}",
            "[[camera]]",
            f'name = "{part.name}"',
            f'intrinsics = "{part.name}.json"',
            footprint_line(part.footprint_mm),
        ]
    return "\n".join(lines) + "\n"
