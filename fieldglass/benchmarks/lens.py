"""`fieldglass bench lens`: tables located with a lens that is slightly off, before and after refining it from the
photo itself (calibration/lens.py, issue 17).

Rendered tables (2.4 x 1.2 m, 100 pieces with 20 mm markers at 3, 25 and 50 mm, a camera 1.7 m up tilted 0-25
degrees, blur, noise, JPEG, uneven light) are located with the camera's true intrinsics perturbed by the issue's
amounts, each with a random sign: focal length 0.3 %, principal point 2 px at 4K (scaled with the resolution), k1
0.005. Flat tables have their 8 anchors on the cloth; raised ones have the 4 corner anchors on 50-60 mm blocks.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.registration import TableRegistration
from fieldglass.progress import progress
from fieldglass.table_lens import detect_table_markers, refine_from_markers
from vision.pieces import read_table
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout

EPILOG = """\
examples:
  fieldglass bench lens                   4 frames each of 4K and 1080p, flat and raised anchors
  fieldglass bench lens --quick           1 frame each, for a first look

Targets (base centre error, 4K): flat anchors p95 <= 1.0 mm, max <= 2.0; raised anchors p95 <= 0.5, max <= 1.0.
"""

RAISED_MM = (55.0, 50.0, 60.0, 52.0)
"""Blocks under the four corner anchors of the raised table."""
FOCAL_OFF = 0.003
CENTRE_OFF_PX_4K = 2.0
K1_OFF = 0.005
TARGETS = {False: (1.0, 2.0), True: (0.5, 1.0)}
"""Raised anchors or not -> (p95, max) base centre error goals in mm."""


def perturbed(camera: CameraIntrinsics, rng: np.random.Generator) -> CameraIntrinsics:
    """The camera with the focal length, the principal point and k1 off by the issue's amounts, random signs."""
    sign = rng.choice((-1.0, 1.0), 4)
    k = camera.camera_matrix.copy()
    k[0, 0] *= 1 + FOCAL_OFF * sign[0]
    k[1, 1] *= 1 + FOCAL_OFF * sign[0]
    centre = CENTRE_OFF_PX_4K * camera.image_size[0] / 3840.0
    k[0, 2] += centre * sign[1]
    k[1, 2] += centre * sign[2]
    d = camera.dist_coeffs.copy()
    d[0] += K1_OFF * sign[3]
    return CameraIntrinsics(camera.image_size, k, d, camera.rms_px)


@dataclass
class LensTally:
    """Base centre errors (mm) of the visible pieces found, with the camera file as given (`before`), with the live
    refinement from the anchors (`live`: k1, or the whole lens with raised anchors) and with the lens refined from the
    photo (`after`); with the true lens, as is and refined from the photo (which must not make it worse); the focal
    length error (relative) before and after."""

    before: list[float] = field(default_factory=list)
    live: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)
    true: list[float] = field(default_factory=list)
    true_refined: list[float] = field(default_factory=list)
    focal_before: list[float] = field(default_factory=list)
    focal_after: list[float] = field(default_factory=list)
    missed_frames: int = 0

    def lines(self, raised: bool) -> list[str]:
        p95, worst = TARGETS[raised]
        out = []
        for name, errs in (("true lens", self.true), ("true lens, refined", self.true_refined),
                           ("camera file as given", self.before), ("live, from the anchors", self.live),
                           ("refined from the photo", self.after)):
            e = np.array(errs) if errs else np.array([np.nan])
            out.append(f"{name:<24} p95 {np.percentile(e, 95):.3f}  max {e.max():.3f} mm   ({len(errs)} pieces)")
        out[-1] += f"   (goal p95 <= {p95}, max <= {worst})"
        fb, fa = np.abs(self.focal_before) * 100, np.abs(self.focal_after) * 100
        out.append(f"focal length error       {fb.mean():.3f} % -> {fa.mean():.3f} %")
        if self.missed_frames:
            out.append(f"frames without a table pose: {self.missed_frames}")
        return out


def _errors(frame, scene, truth, camera, markers, live: bool) -> list[float] | None:
    reading = read_table(frame, TableRegistration(scene.layout, camera, refine_lens=live), scene.roster, markers)
    if reading.pose is None:
        return None
    truth_by_id = {t.piece_id: t for t in truth.pieces if t.visible}
    return [float(np.hypot(p.x_mm - truth_by_id[p.piece].x_mm, p.y_mm - truth_by_id[p.piece].y_mm))
            for p in reading.pieces if p.piece in truth_by_id]


def measure_lens(frames: int, resolution, raised: bool, seed: int = 1, n_pieces: int = 100) -> LensTally:
    """Locate `frames` rendered tables with perturbed intrinsics, before and after refining the lens."""
    rng = np.random.default_rng(seed)
    tally = LensTally()
    label = f"lens, {resolution[0]}x{resolution[1]}, {'raised' if raised else 'flat'} anchors"
    for _ in progress(range(frames), frames, label):
        layout = standard_layout(raised_mm=RAISED_MM if raised else ())
        scene = random_scene(layout, n_pieces, rng)
        tilt = float(rng.uniform(0.0, 25.0))
        camera = VirtualCamera.looking_at_table(layout.width_mm, layout.depth_mm, resolution, 1700.0, tilt)
        options = RenderOptions(blur_sigma_px=float(rng.uniform(0.6, 1.2)), noise_sigma=float(rng.uniform(2.0, 4.0)),
                                jpeg_quality=int(rng.integers(85, 96)), uneven_light=float(rng.uniform(0.1, 0.4)),
                                seed=int(rng.integers(1 << 30)))
        frame, truth = render_table(scene, camera, options)
        given = perturbed(camera.intrinsics, rng)
        markers = detect_table_markers(frame, layout, scene.roster)
        fit = refine_from_markers(markers, layout, scene.roster, given)
        before = _errors(frame, scene, truth, given, markers, live=False)
        if fit is None or before is None:
            tally.missed_frames += 1
            continue
        tally.before += before
        tally.live += _errors(frame, scene, truth, given, markers, live=True) or []
        tally.after += _errors(frame, scene, truth, fit.camera, markers, live=False) or []
        tally.true += _errors(frame, scene, truth, camera.intrinsics, markers, live=False) or []
        true_fit = refine_from_markers(markers, layout, scene.roster, camera.intrinsics)
        tally.true_refined += _errors(frame, scene, truth, true_fit.camera, markers, live=False) or []
        f_true = camera.intrinsics.camera_matrix[0, 0]
        tally.focal_before.append(given.camera_matrix[0, 0] / f_true - 1)
        tally.focal_after.append(fit.camera.camera_matrix[0, 0] / f_true - 1)
    return tally


def add_parser(which) -> None:
    p = which.add_parser("lens", help="the lens refined from a photo of the table: accuracy with intrinsics off",
                         description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=4, help="frames per resolution and anchor kind (default 4)")
    p.add_argument("--pieces", type=int, default=100, help="pieces per frame (default 100)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="1 frame each")
    p.set_defaults(run=run)


def run(args) -> int:
    frames = 1 if args.quick else args.frames
    print("fieldglass bench lens: base centre error with intrinsics off by focal 0.3 %, principal point 2 px at 4K,"
          " k1 0.005")
    for resolution in ((3840, 2160), (1920, 1080)):
        for raised in (False, True):
            tally = measure_lens(frames, resolution, raised, args.seed, args.pieces)
            kind = "raised anchors (4 on 50-60 mm blocks)" if raised else "flat anchors"
            print(f"\n{resolution[0]}x{resolution[1]}, {kind}, {frames} frame(s)")
            for line in tally.lines(raised):
                print("  " + line)
    return 0
