"""`fieldglass bench projector` (issue 30): the projector calibrated against the simulated projector over the demo
table (with a 40 mm hill), then

* the overlay's error: dots projected at known table points through the fitted map, rendered as the camera sees
  them, found in the frame and mapped back to the table - how far from their place they land (mm), on the cloth
  and on the hill at its height;
* the marker recall with the overlay and without: the table read with the projector dark, with the harshest overlay
  (fine bright stripes everywhere, edges across every marker's modules) kept off the bases and anchors the camera
  reads (what the projector's window does), and the same overlay unmasked; and how far the pieces read with the
  overlay stand from where they are read without it, against the tracker's move threshold;
* the tracker fed frames with the overlay coming and going: every piece appears once and no move is committed that
  did not happen.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.projection import pixels_to_table
from calibration.projector import keep_out_px, table_grid
from calibration.registration import TableRegistration
from common.errors import InputError
from common.outfiles import check_image_name, write_bytes
from fieldglass.projector_setup import SIM_OPTIONS, SimulatedTable, calibrate_simulated, simulated_table
from vision.keep_out import keep_outs
from vision.pieces import read_table
from vision.sources import read_image
from vision.synthetic import RenderOptions, render_table
from vision.synthetic_projector import light
from vision.tracking import TrackerConfig

NAME = "projector"
EPILOG = """\
examples:
  fieldglass bench projector              calibration, the overlay's error, marker recall with and without overlay
  fieldglass bench projector --quick      one calibration, a coarser grid of dots
  fieldglass bench projector --lit out/gui-projector.png --out lit.png
                                          the simulated camera's view of the demo table lit by a projector frame
                                          (`fieldglass gui --source synthetic --headless --projector P.json` saves one)
"""


def add_parser(which) -> None:
    p = which.add_parser(NAME, help="projector: calibration and overlay error (mm), marker recall with the overlay",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a coarser grid of dots")
    p.add_argument("--seed", type=int, default=0, help="the simulated camera's noise")
    p.add_argument("--brightness", type=float, default=4.0,
                   help="the overlay's full white over the cloth's own light for the recall (default 4: a bright "
                        "projector in a dim room)")
    p.add_argument("--lit", metavar="FRAME.png", help="instead: render the demo table lit by this projector frame")
    p.add_argument("--out", metavar="PNG", default="out/projector-lit.png", help="--lit: the picture to write")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.lit:
        return run_lit(args)
    table = simulated_table()
    t0 = time.perf_counter()
    fit = calibrate_simulated(table, seed=args.seed)
    took = time.perf_counter() - t0
    m = fit.model
    print(f"calibration: {m.points} marker corners kept, fit residual RMS {m.rms_mm:.2f} mm, worst {m.max_mm:.2f} mm "
          f"({took:.1f} s with 5 renders)")
    print(f"  map against the simulated projector: cloth RMS {fit.rms_mm:.2f} mm, worst {fit.max_mm:.2f} mm; "
          f"hill ({table.raised.height_mm:g} mm) RMS {fit.raised_rms_mm:.2f} mm, worst {fit.raised_max_mm:.2f} mm")
    flat, up = overlay_error(table, fit.model, 100.0 if args.quick else 60.0, args.seed)
    for name, err in (("cloth", flat), (f"hill at {table.raised.height_mm:g} mm", up)):
        print(f"overlay dots found on the {name}: {len(err)}, error median {np.median(err):.2f} mm, "
              f"RMS {np.sqrt(np.mean(err**2)):.2f} mm, p95 {np.percentile(err, 95):.2f} mm, worst {err.max():.2f} mm")
    rows = marker_recall(table, fit.model, args.seed, args.brightness)
    print(f"recall with the projector {args.brightness:g} x as bright as the room on the cloth:")
    move = TrackerConfig().move_mm
    for name, (pieces, anchors, total, shift) in rows.items():
        print(f"  {name:<22} pieces {pieces}/{total[0]}, anchors {anchors}/{total[1]}"
              + ("" if shift is None else f", pieces moved by the overlay: worst {shift:.2f} mm "
                                          f"(a move is {move:g} mm)"))
    for name, events in tracked_events(table, fit.model, args.seed, args.brightness).items():
        print(f"tracker, 12 frames 0.5 s apart, dark / {name} in turn: "
              + ", ".join(f"{k} {n}" for k, n in events.items()) + f" (of {len(table.scene.placements)} pieces)")
    return 0


def _overlays(model, keep) -> tuple[np.ndarray, np.ndarray]:
    """The harshest overlay (fine bright stripes everywhere: edges across every marker's modules), unmasked and kept
    off the `keep` outs (footprint, top) as the projector's window keeps it."""
    w, h = model.image_size
    yy, xx = np.mgrid[0:h, 0:w]
    white = np.where(((xx + yy) // 5) % 2 == 0, 255, 0).astype(np.uint8)
    masked = white.copy()
    for poly, top in keep:
        px = keep_out_px(model, poly, top)
        if len(px) >= 3:
            cv2.fillPoly(masked, [np.round(px * 16).astype(np.int32)], 0, cv2.LINE_AA, shift=4)
    return white, masked


def tracked_events(table: SimulatedTable, model, seed: int = 0, brightness: float = 4.0,
                   frames: int = 12) -> dict[str, dict[str, int]]:
    """The tracker fed frames 0.5 s apart in which the overlay comes and goes (the dark table, then the overlay on
    every other frame, as a selection changes): the events it reports after the pieces first appeared, by kind, for
    the overlay kept off the bases and unmasked: "appeared" (each piece once, when it has stood still long enough),
    "moved", and any other. No move may be committed that did not happen."""
    from vision.tracking import Appeared, Tracker  # noqa: PLC0415  (only here)

    scene, cam = table.scene, table.camera
    registration = TableRegistration(scene.layout, cam.intrinsics)
    dark_frame, _ = render_table(scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed))
    dark = read_table(dark_frame, registration, scene.roster)
    white, masked = _overlays(model, keep_outs(dark, scene.roster, scene.layout))
    out = {}
    for name, image in (("overlay kept off bases", masked), ("overlay unmasked", white)):
        tracker = Tracker(scene.roster)
        registration = TableRegistration(scene.layout, cam.intrinsics)
        counts: dict[str, int] = {}
        for k in range(frames):
            lit = image if k % 2 else None
            frame, _ = render_table(scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed + k, projection=None
                                                              if lit is None else light(table.projector, lit,
                                                                                        brightness)))
            for ev in tracker.update(read_table(frame, registration, scene.roster), 0.5 * k, k):
                kind = "appeared" if isinstance(ev, Appeared) else type(ev).__name__.lower()
                counts[kind] = counts.get(kind, 0) + 1
        out[name] = {"appeared": 0, "moved": 0, **counts}
    return out


def overlay_error(table: SimulatedTable, model, step_mm: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Dots (radius 3 projector px) at table points every `step_mm` over the cloth and over the hill at its height,
    thrown through `model`, rendered; each found as the centroid of the light it adds to the dark frame, mapped
    back to the table at its surface's height: their distances (mm) from the points they were sent to."""
    layout = table.scene.layout
    grid = table_grid(layout.width_mm, layout.depth_mm, step_mm, margin_mm=step_mm / 2)
    # not where a piece or an anchor stands (a dot there falls on its top, its side or the anchor's white paper: the
    # window keeps them dark) nor astride the hill's edge (half a dot on each surface)
    pieces = np.array([(p.x_mm, p.y_mm) for p in table.scene.placements]
                      + [(a.x_mm, a.y_mm) for a in layout.anchors]).reshape(-1, 2)
    clear = np.all(np.linalg.norm(grid[:, None] - pieces[None], axis=2) > 45.0, axis=1) if len(pieces) else True
    edge = cv2.pointPolygonTest
    hill_poly = np.asarray(table.raised.polygon_mm, np.float32).reshape(-1, 1, 2)
    clear &= np.array([abs(edge(hill_poly, (float(x), float(y)), True)) > 15.0 for x, y in grid])
    grid = grid[clear]
    on_hill = table.raised.holds(grid)
    z = np.where(on_hill, table.raised.height_mm, 0.0)
    w, h = model.image_size
    img = np.zeros((h, w), np.uint8)
    px = model.to_pixels(grid, z)
    for x, y in px:
        cv2.circle(img, (int(round(x * 16)), int(round(y * 16))), 48, 255, -1, cv2.LINE_AA, shift=4)
    cam = table.camera
    dark, _ = render_table(table.scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed))
    lit, _ = render_table(table.scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed,
                                                          projection=light(table.projector, img)))
    diff = cv2.cvtColor(cv2.absdiff(lit, dark), cv2.COLOR_BGR2GRAY).astype(np.float32)
    mask = (diff > 25).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    cam_px = cam.project(np.column_stack([grid, z]))
    flat, up = [], []
    labels = cv2.connectedComponents(mask)[1]
    for i in range(1, n):
        x0, y0, bw, bh = stats[i, :4]
        if stats[i, cv2.CC_STAT_AREA] < 4:
            continue
        win = diff[y0:y0 + bh, x0:x0 + bw] * (labels[y0:y0 + bh, x0:x0 + bw] == i)
        ys, xs = np.mgrid[y0:y0 + bh, x0:x0 + bw]
        c = np.array([(win * xs).sum(), (win * ys).sum()]) / win.sum()
        j = int(np.argmin(np.linalg.norm(cam_px - c, axis=1)))
        if np.linalg.norm(cam_px[j] - c) > 15:  # a dot on a piece's side, or not one of ours
            continue
        at = pixels_to_table(c[None], cam.intrinsics, cam.pose, z[j])[0]
        (up if on_hill[j] else flat).append(float(np.linalg.norm(at - grid[j])))
    return np.array(flat), np.array(up)


def marker_recall(table: SimulatedTable, model, seed: int = 0, brightness: float = 4.0) -> dict:
    """name -> (pieces read, anchors read, (pieces, anchors) visible, worst shift mm of the pieces against the dark
    reading or None) for the projector dark, full white kept off what the camera reads, and full white unmasked."""
    scene, cam = table.scene, table.camera
    layout, roster = scene.layout, scene.roster
    w, h = model.image_size

    def read(image):
        frame, truth = render_table(scene, cam, RenderOptions(**SIM_OPTIONS, seed=seed, projection=None if image is None
                                                              else light(table.projector, image, brightness)))
        reading = read_table(frame, TableRegistration(layout, cam.intrinsics), roster)
        visible = {p.piece_id for p in truth.pieces if p.visible}
        return reading, visible, sum(truth.anchor_visible.values())

    dark, visible, anchors_visible = read(None)
    white, masked = _overlays(model, keep_outs(dark, roster, layout))
    by_id = {p.piece: p for p in dark.pieces}
    rows = {}
    for name, image in (("projector dark", None), ("overlay kept off bases", masked), ("overlay unmasked", white)):
        reading, _, _ = (dark, None, None) if image is None else read(image)
        read_ids = {p.piece for p in reading.pieces} & visible
        anchors = len(set(reading.pose.anchors)) if reading.pose is not None else 0
        shifts = [np.hypot(p.x_mm - by_id[p.piece].x_mm, p.y_mm - by_id[p.piece].y_mm)
                  for p in reading.pieces if p.piece in by_id]
        rows[name] = (len(read_ids), anchors, (len(visible), anchors_visible),
                      None if image is None else (max(shifts) if shifts else float("nan")))
    return rows


def run_lit(args) -> int:
    """The simulated camera's view of the demo table with the simulated projector showing `args.lit`."""
    image = read_image(args.lit)
    table = simulated_table()
    w, h = table.projector.image_size
    if image.shape[:2] != (h, w):
        raise InputError(f"{args.lit}: a {image.shape[1]}x{image.shape[0]} frame, the simulated projector's is {w}x{h}")
    out = Path(args.out)
    check_image_name(out, [args.lit])
    frame, _ = render_table(table.scene, table.camera, RenderOptions(**SIM_OPTIONS, projection=light(
        table.projector, image, 1.5, 0.7)))
    out.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(out.suffix or ".png", frame)
    if not ok:
        raise InputError(f"{out}: cannot encode the picture")
    write_bytes(out, buf.tobytes(), [args.lit])
    print(f"the demo table lit by {args.lit}: {out}")
    return 0
