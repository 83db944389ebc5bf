"""The lens refined from the table itself, in one photo (issue 17).

A lens calibrated from a few photos of a board errs by a fraction of a percent in focal length, a pixel or two in the
optical centre and a few thousandths in k1; near the table's edges that is a millimetre or more. The table is a
calibration object too: its anchors stand at known places (and, raised on blocks, at known heights), and every
piece's marker is a square of known size at a known height, lying somewhere (x, y, heading) on the table. One
least-squares fit over the lens, the camera pose and each piece's (x, y, heading) matches all their corners at once.

What is refined: k1 always (the table's edges, where it matters most, are full of markers); k2 only where the
data supports it: the corners used reach far toward the image's corners (K2_MIN_REACH of the way in
K2_MIN_QUADRANTS of its quadrants, `radial_reach`; k2 bends the outermost ring of the image, and from points near
the centre it cannot be told from k1) and letting it free explains the corners clearly better (K2_MIN_GAIN), else the
camera file's k2 is kept (freed without need it trades off against the focal length and k1 on the photo's noise);
the focal length (fx and fy together) and the principal point only
when the anchors stand at two heights at least MIN_RELIEF_MM apart - on a flat table the focal length trades off
against the camera's distance and the principal point against its tilt, and the photo cannot tell them apart, so the
camera file's values are kept. Each refined value is tied to the camera
file's by a prior (LensPriors: one standard deviation of a good calibration), so a photo with few markers moves the
lens little.

Units: pixels for corners and residuals, mm for the table, radians inside the fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, CameraPose
from calibration.layout import TableLayout
from calibration.pose import estimate_pose
from calibration.projection import pixels_to_table

MIN_RELIEF_MM = 20.0
"""Anchors must stand at heights this far apart before the focal length and the principal point are refined."""
MAX_MARKER_RESIDUAL_PX = 2.0
"""A marker whose corners miss the fit by more than this (a misread, a bent label) is left out and the fit rerun."""
CORNER_SIGMA_PX = 0.1
"""The accuracy of a detected corner (px): weighs the priors against the corners. A 50 mm anchor or a 20 mm marker
is found to a few hundredths of a pixel at 4K, a tenth at 1080p; a larger value lets the priors hold the focal length
back, since raised anchors tell it by parallax of only a tenth of a pixel per 0.3 %."""
K2_MIN_REACH = 0.65
K2_MIN_QUADRANTS = 3
"""k2 is refined only when, in at least K2_MIN_QUADRANTS of the four quadrants around the principal point, some
corner used lies at least K2_MIN_REACH of the way (in normalised radius) from the principal point to that quadrant's
image corner."""
K2_MIN_GAIN = 9.0
"""k2 is refined only when freeing it lowers the corners' sum of squared misses by at least this many times their
mean square (a chi-square gain of 9: three standard deviations for one more value)."""
_ITERATIONS = 30
_LENS = 5
"""Lens unknowns first in the parameter vector: focal scale - 1, cx, cy, k1, k2; then rvec, tvec, then pieces."""
_GLOBAL = _LENS + 6


@dataclass(frozen=True)
class LensPriors:
    """How far the camera file's lens may be off, one standard deviation: focal length as a fraction, principal
    point as a fraction of the image width, k1 and k2 as they are (k2 is the less sure of a board calibration)."""

    focal: float = 0.004
    centre: float = 0.001
    k1: float = 0.008
    k2: float = 0.01

    @classmethod
    def for_camera(cls, camera: CameraIntrinsics) -> LensPriors:
        """The defaults, widened to the camera file's own standard deviations (`std_devs`) where those are larger:
        a loose calibration is let move further. Never narrowed: OpenCV's deviations are often optimistic, and a prior
        tighter than the truth's distance would hold the lens off it."""
        base = cls()
        if camera.std_devs is None:
            return base
        std = np.asarray(camera.std_devs, float)
        k = camera.camera_matrix
        return cls(max(base.focal, float(max(std[0] / k[0, 0], std[1] / k[1, 1]))),
                   max(base.centre, float(max(std[2], std[3])) / camera.image_size[0]), max(base.k1, float(std[4])),
                   max(base.k2, float(std[5]) if len(std) > 5 else 0.0))


@dataclass(frozen=True)
class MarkerSighting:
    """A piece's marker seen in the photo: its corners (4, 2 px, ArUco order), the black square's side and the
    height of its printed face above the cloth (mm)."""

    corners_px: np.ndarray
    size_mm: float
    height_mm: float


@dataclass(frozen=True)
class LensFit:
    """The refined camera and the pose fitted with it.

    `before_px` / `after_px`: RMS reprojection error (px) of every corner used, the pose and the pieces fitted with
    the camera file's lens and with the refined one. `refined` names what was let free ("k1", "k2", "focal",
    "centre")."""

    camera: CameraIntrinsics
    pose: CameraPose
    before_px: float
    after_px: float
    refined: tuple[str, ...]
    anchors: tuple[int, ...]
    pieces: int


def relief_mm(layout: TableLayout, anchors: Sequence[int]) -> float:
    """The height range (mm) of the given anchors' faces."""
    z = [layout.anchor(i).z_mm for i in anchors]
    return float(max(z) - min(z)) if z else 0.0


def radial_reach(points_px: np.ndarray, camera: CameraIntrinsics) -> np.ndarray:
    """(4,) for each quadrant around the principal point, how far the farthest of `points_px` (N, 2) lies toward
    that quadrant's image corner: its normalised radius over the corner's (0 none, 1 at the corner)."""
    k = camera.camera_matrix
    c, f = k[:2, 2], np.array([k[0, 0], k[1, 1]])
    w, h = camera.image_size
    corners = np.array([[w - 1.0, h - 1.0], [0.0, h - 1.0], [0.0, 0.0], [w - 1.0, 0.0]])  # quadrants +x+y, -x+y, ...
    reach = np.zeros(4)
    pts = (np.asarray(points_px, float).reshape(-1, 2) - c) / f
    quadrant = np.where(pts[:, 0] >= 0, np.where(pts[:, 1] >= 0, 0, 3), np.where(pts[:, 1] >= 0, 1, 2))
    corner_r = np.linalg.norm((corners - c) / f, axis=1)
    for q in range(4):
        r = np.linalg.norm(pts[quadrant == q], axis=1)
        reach[q] = float(r.max() / corner_r[q]) if len(r) else 0.0
    return reach


def k2_observable(points_px: np.ndarray, camera: CameraIntrinsics) -> bool:
    """Whether the corners reach far enough toward the image's corners to tell k2 from k1 (K2_MIN_REACH in
    K2_MIN_QUADRANTS quadrants) and the camera file has a k2 to refine."""
    if len(camera.dist_coeffs) < 2:
        return False
    return int(np.sum(radial_reach(points_px, camera) >= K2_MIN_REACH)) >= K2_MIN_QUADRANTS


def refine_lens(
    anchor_corners_px: Mapping[int, np.ndarray],
    layout: TableLayout,
    camera: CameraIntrinsics,
    markers: Sequence[MarkerSighting] = (),
    priors: LensPriors | None = None,
) -> LensFit | None:
    """Refine the lens jointly with the pose from the anchors and the pieces' markers of one photo.

    `priors` default to `LensPriors.for_camera(camera)`. None when the anchors give no pose. Markers that miss the fit
    by more than MAX_MARKER_RESIDUAL_PX are dropped.
    """
    solved = _refine(anchor_corners_px, layout, camera, markers, priors)
    return None if solved is None else solved.fit


@dataclass(frozen=True)
class _Solved:
    """`refine_lens`'s fit with what it was fitted from: the problem (misfit markers left out), the values let free,
    and the solutions with those free (`fitted`) and with the lens as given (`fixed`)."""

    fit: LensFit
    problem: _Problem
    free: tuple[str, ...]
    fitted: np.ndarray
    fixed: np.ndarray


def _refine(anchor_corners_px, layout, camera, markers, priors) -> _Solved | None:
    pose = estimate_pose(anchor_corners_px, layout, camera)
    if pose is None:
        return None
    priors = LensPriors.for_camera(camera) if priors is None else priors
    used = pose.anchors
    problem = _Problem.build(anchor_corners_px, used, layout, camera, pose, markers, priors)
    free = ("k1", "focal", "centre") if relief_mm(layout, used) >= MIN_RELIEF_MM else ("k1",)
    problem, fitted = _without_misfits(problem, free)
    if k2_observable(problem.all_img, camera):
        with_k2 = problem.solve((*free, "k2"))
        if problem.chi2_gain(fitted, with_k2) >= K2_MIN_GAIN:
            free, fitted = (free[0], "k2", *free[1:]), with_k2
    fixed = problem.solve(())
    lens, new_pose = problem.unpack(fitted)
    before, after = problem.rms(fixed), problem.rms(fitted)
    if after > before:  # never worse than the camera file's lens on its own photo
        lens, new_pose, after = camera, problem.unpack(fixed)[1], before
    fit = LensFit(lens, new_pose, before, after, free, used, problem.n_pieces)
    return _Solved(fit, problem, free, fitted, fixed)


def fit_rms_px(
    anchor_corners_px: Mapping[int, np.ndarray], layout: TableLayout, camera: CameraIntrinsics,
    markers: Sequence[MarkerSighting] = (),
) -> float | None:
    """RMS reprojection error (px) of the anchors' and the markers' corners with the pose and the pieces fitted and
    the lens as given (misfit markers left out): how well a lens explains a photo. None without a pose."""
    pose = estimate_pose(anchor_corners_px, layout, camera)
    if pose is None:
        return None
    problem = _Problem.build(anchor_corners_px, pose.anchors, layout, camera, pose, markers, LensPriors())
    problem, fitted = _without_misfits(problem, ())
    return problem.rms(fitted)


def combine_fits(fits: Sequence[LensFit], camera: CameraIntrinsics) -> CameraIntrinsics:
    """One lens from several photos' fits: each value the mean over the photos that refined it, the camera file's
    where none did."""
    k, d = camera.camera_matrix.copy(), camera.dist_coeffs.copy()
    focal = [f.camera.camera_matrix[0, 0] / camera.camera_matrix[0, 0] for f in fits if "focal" in f.refined]
    if focal:
        k[0, 0] *= float(np.mean(focal))
        k[1, 1] *= float(np.mean(focal))
    centre = [f.camera.camera_matrix[:2, 2] for f in fits if "centre" in f.refined]
    if centre:
        k[:2, 2] = np.mean(centre, axis=0)
    for i, name in enumerate(("k1", "k2")):
        values = [f.camera.dist_coeffs[i] for f in fits if name in f.refined]
        if values:
            d[i] = float(np.mean(values))
    # the board calibration's standard deviations are kept: an upper bound for the values refined here
    return CameraIntrinsics(camera.image_size, k, d, camera.rms_px, std_devs=camera.std_devs)


REFINE_MIN_ANCHORS = 4
"""Anchors the table pose must use before a refined lens is checked (`choose_lens`): each is predicted from the
others, and fewer than 3 others give no fair prediction (a pose from 2 anchors bends with the lens)."""
REFINE_MIN_SPAN = 0.5
"""The anchors used must span at least this share of the table's width and of its depth: a lens refined and checked
at one end of the table says nothing of the other."""
REFINE_MAX_HELD_OUT = 0.8
"""The refined lens must miss the anchors held out (each predicted from the others) by at most this share of the
camera file's miss (RMS px), and miss most of them less. On rendered tables a lens off as a user's calibration is
(focal length 0.3 %, centre 2 px, k1 0.005) gives 0.03-0.45 of the file's miss (0.59 on four corner anchors seen
from above), the true lens 0.92-1.67 (`fieldglass bench lens`)."""
PLAUSIBLE_SIGMAS = 4.0
"""A refined value this many prior standard deviations (`LensPriors`) or more from the camera file's is not a lens
error but another camera, another resolution or a misplaced anchor: the refinement is refused."""


@dataclass(frozen=True)
class LensChoice:
    """The lens to read a photo (or a camera's stream) with, and why (`choose_lens`).

    `refined`: the lens refined from the table is used, else the camera file's as given and `reason` says why.
    `tried`: the photo allowed the choice (enough anchors, spread); False when it did not, and more of the table in
    view may. `fit` is the refinement (None without a pose); `held_out_px` the RMS miss (px) of the anchors each
    predicted from the others, with the camera file's lens and with the refined one (None when not checked)."""

    camera: CameraIntrinsics
    refined: bool
    reason: str = ""
    fit: LensFit | None = None
    held_out_px: tuple[float, float] | None = None
    tried: bool = True

    def describe(self, name: str = "the camera file") -> str:
        """One line for the user: "lens: refined from 8 anchors ... (reprojection 0.42 -> 0.05 px ...)" or "lens:
        cam.json as calibrated (refining it did not help: ...)"."""
        fit = self.fit
        if not self.refined:
            return f"lens: {name} as calibrated ({self.reason})"
        what = f"{len(fit.anchors)} anchors" + (f" and {fit.pieces} piece markers" if fit.pieces else "")
        values = ", ".join({"focal": "focal length", "centre": "centre"}.get(v, v) for v in fit.refined)
        held = (f"; each anchor predicted from the others {_px(self.held_out_px[0])} -> {_px(self.held_out_px[1])} px"
                if self.held_out_px else f"; {self.reason}" if self.reason else "")
        return (f"lens: {name} refined from {what} on the table ({values}; reprojection {_px(fit.before_px)} -> "
                f"{_px(fit.after_px)} px{held})")

    def to_json(self, name: str) -> dict:
        fit = self.fit
        return {
            "file": name,
            "refined": self.refined,
            "reason": self.reason or None,
            "values": list(fit.refined) if self.refined else [],
            "anchors": len(fit.anchors) if fit else None,
            "pieces": fit.pieces if fit else None,
            "reprojection_px": [round(fit.before_px, 3), round(fit.after_px, 3)] if fit else None,
            "held_out_px": [round(v, 3) for v in self.held_out_px] if self.held_out_px else None,
        }


def choose_lens(
    anchor_corners_px: Mapping[int, np.ndarray],
    layout: TableLayout,
    camera: CameraIntrinsics,
    markers: Sequence[MarkerSighting] = (),
    priors: LensPriors | None = None,
    check: bool = True,
) -> LensChoice:
    """The lens refined from the photo (`refine_lens`) where it is measurably better than the camera file's, else the
    camera file's, with the reason.

    Measurably better: the pose uses at least REFINE_MIN_ANCHORS anchors spanning REFINE_MIN_SPAN of the table each
    way; every refined value lies within PLAUSIBLE_SIGMAS of the camera file's; and, each anchor in turn held out of
    the fit (pose, pieces and lens fitted to the rest, the camera file's lens likewise with the lens kept), the
    refined lens predicts the held-out anchors' corners at least 1 / REFINE_MAX_HELD_OUT times closer (RMS) than the
    camera file's, and most of them closer. The held-out anchors are places on the table the fit did not see: what a
    lens is for. With `check` False the refined lens is used without the check (`locate --refine-lens`)."""
    if check:  # what the photo allows is seen from the pose alone: the fit is worked out only where it may be used
        pose = estimate_pose(anchor_corners_px, layout, camera)
        short = "no table pose: fewer than 2 anchors in view" if pose is None else _too_little(pose.anchors, layout)
        if short:
            return LensChoice(camera, False, short, tried=False)
    solved = _refine(anchor_corners_px, layout, camera, markers, priors)
    if solved is None:
        return LensChoice(camera, False, "no table pose: fewer than 2 anchors in view", tried=False)
    fit = solved.fit
    if not check:
        if fit.camera is camera:
            return LensChoice(camera, False, "refining it did not lower the reprojection", fit)
        return LensChoice(replace(fit.camera, std_devs=camera.std_devs), True, "used without the check", fit)
    used = fit.anchors
    if fit.camera is camera:
        return LensChoice(camera, False, f"refining it did not lower the reprojection ({_px(fit.before_px)} px)", fit)
    far = _implausible(fit.camera, camera, priors or LensPriors.for_camera(camera))
    if far:
        return LensChoice(camera, False, f"refining it would move {far}, more than a calibration errs "
                          f"({PLAUSIBLE_SIGMAS:g} standard deviations): check the camera file (another camera or "
                          "resolution?) and the anchors' places", fit)
    file_px, refined_px = _held_out(solved)
    held = (float(np.sqrt(np.mean(file_px**2))), float(np.sqrt(np.mean(refined_px**2))))
    closer = int(np.sum(refined_px < file_px))
    if held[1] > REFINE_MAX_HELD_OUT * held[0] or 2 * closer <= len(used):
        return LensChoice(camera, False, f"refining it did not help: each anchor predicted from the others "
                          f"{_px(held[0])} -> {_px(held[1])} px, {closer} of {len(used)} closer; "
                          f"{100 * (1 - REFINE_MAX_HELD_OUT):.0f} % closer needed, most of them", fit, held)
    return LensChoice(replace(fit.camera, std_devs=camera.std_devs), True, "", fit, held)


def _too_little(used: Sequence[int], layout: TableLayout) -> str:
    """Why the anchors the pose used cannot check a refined lens (REFINE_MIN_ANCHORS, REFINE_MIN_SPAN); ""."""
    if len(used) < REFINE_MIN_ANCHORS:
        return (f"refining it was not tried: {len(used)} anchor(s) on the table in view, {REFINE_MIN_ANCHORS} needed "
                "to check each against the others")
    xs = [layout.anchor(i).x_mm for i in used]
    ys = [layout.anchor(i).y_mm for i in used]
    span = min(np.ptp(xs) / layout.width_mm, np.ptp(ys) / layout.depth_mm)
    if span < REFINE_MIN_SPAN:
        return (f"refining it was not tried: the anchors in view span {100 * span:.0f} % of the table, "
                f"{100 * REFINE_MIN_SPAN:.0f} % needed each way")
    return ""


def _px(value: float) -> str:
    """A reprojection error for the user: two decimals, three below 0.1 px (a true lens's 0.036 is not 0.04)."""
    return f"{value:.3f}" if value < 0.1 else f"{value:.2f}"


def _implausible(refined: CameraIntrinsics, camera: CameraIntrinsics, priors: LensPriors) -> str:
    """The first refined value PLAUSIBLE_SIGMAS prior deviations or more from the camera file's, as words; ""."""
    k, k0 = refined.camera_matrix, camera.camera_matrix
    d, d0 = refined.dist_coeffs, camera.dist_coeffs
    moves = [("the focal length", 100 * abs(k[0, 0] / k0[0, 0] - 1), 100 * priors.focal, "{:.1f} %"),
             ("the centre", float(np.abs(k[:2, 2] - k0[:2, 2]).max()), priors.centre * camera.image_size[0],
              "{:.1f} px"),
             ("k1", abs(d[0] - d0[0]), priors.k1, "{:.3f}")]
    if len(d) > 1:
        moves.append(("k2", abs(d[1] - d0[1]), priors.k2, "{:.3f}"))
    for name, move, sigma, form in moves:
        if move >= PLAUSIBLE_SIGMAS * sigma:
            return f"{name} by {form.format(move)}"
    return ""


HELD_OUT_TOL = 1e-5
"""The held-out fits start from the whole fit's solution, one anchor away from theirs: they stop once a step gains
less than this share of the cost (a hundred-thousandth of a pixel's change in the prediction)."""


def _held_out(solved: _Solved) -> tuple[np.ndarray, np.ndarray]:
    """Each anchor of the fit held out in turn: the RMS miss (px) of its corners by the camera file's lens and by the
    refined one, each with the pose and pieces fitted to the rest (warm-started from the whole fit's solutions)."""
    problem, file_px, refined_px = solved.problem, [], []
    for k in range(len(solved.fit.anchors)):
        rest = problem.without_anchor(k)
        obj, img = problem.anchor_obj[4 * k : 4 * k + 4], problem.anchor_img[4 * k : 4 * k + 4]
        file_px.append(rest.anchor_miss_px(rest.solve((), solved.fixed, HELD_OUT_TOL), obj, img))
        refined_px.append(rest.anchor_miss_px(rest.solve(solved.free, solved.fitted, HELD_OUT_TOL), obj, img))
    return np.array(file_px), np.array(refined_px)


def _without_misfits(problem: _Problem, free: tuple[str, ...]) -> tuple[_Problem, np.ndarray]:
    """Solve; drop the markers that miss by more than MAX_MARKER_RESIDUAL_PX and solve again (once)."""
    fitted = problem.solve(free)
    keep = problem.marker_residuals(fitted) <= MAX_MARKER_RESIDUAL_PX
    if not keep.all():
        problem = problem.keeping(keep)
        fitted = problem.solve(free)
    return problem, fitted


@dataclass
class _Problem:
    """Unknowns: [f scale - 1, cx, cy, k1, k2, rvec (3), tvec (3)] then (x, y, heading) per piece."""

    camera: CameraIntrinsics
    anchor_obj: np.ndarray  # (4A, 3) mm
    anchor_img: np.ndarray  # (4A, 2) px
    piece_img: np.ndarray  # (P, 4, 2) px
    piece_half: np.ndarray  # (P,) half side, mm
    piece_z: np.ndarray  # (P,) mm
    start: np.ndarray
    prior_sigma: np.ndarray  # (5,) for f scale, cx, cy, k1, k2

    @classmethod
    def build(cls, anchor_corners_px, used, layout, camera, pose, markers, priors):
        anchor_obj = np.concatenate([layout.anchor(i).corners_mm() for i in used])
        anchor_img = np.concatenate([np.asarray(anchor_corners_px[i], float).reshape(4, 2) for i in used])
        img = np.array([np.asarray(m.corners_px, float).reshape(4, 2) for m in markers]).reshape(-1, 4, 2)
        half = np.array([m.size_mm / 2.0 for m in markers], float)
        z = np.array([m.height_mm for m in markers], float)
        start_pieces = []
        for corners, h in zip(img, z, strict=True):
            table = pixels_to_table(corners, camera, pose, h)
            tl, tr, br, bl = table
            fwd = (tl + tr) - (bl + br)
            start_pieces.append((*table.mean(axis=0), np.arctan2(fwd[0], fwd[1])))
        k = camera.camera_matrix
        d = camera.dist_coeffs
        start = np.concatenate([[0.0, k[0, 2], k[1, 2], d[0], d[1] if len(d) > 1 else 0.0], np.ravel(pose.rvec),
                                np.ravel(pose.tvec), np.ravel(start_pieces)])
        sigma = np.array([priors.focal, priors.centre * camera.image_size[0], priors.centre * camera.image_size[0],
                          priors.k1, priors.k2])
        ok = np.all(np.isfinite(np.reshape(start_pieces, (-1, 3))), axis=1) if len(img) else np.zeros(0, bool)
        problem = cls(camera, anchor_obj, anchor_img, img, half, z, start, sigma)
        return problem.keeping(ok) if len(img) else problem

    @property
    def n_pieces(self) -> int:
        return len(self.piece_img)

    @property
    def all_img(self) -> np.ndarray:
        """(N, 2) px: every corner in the fit, anchors then pieces."""
        return np.concatenate([self.anchor_img, self.piece_img.reshape(-1, 2)])

    def without_anchor(self, k: int) -> _Problem:
        """The problem with the k-th anchor of the fit (its 4 corners) left out."""
        rows = np.r_[0 : 4 * k, 4 * k + 4 : len(self.anchor_obj)]
        return _Problem(self.camera, self.anchor_obj[rows], self.anchor_img[rows], self.piece_img, self.piece_half,
                        self.piece_z, self.start, self.prior_sigma)

    def anchor_miss_px(self, params: np.ndarray, obj_mm: np.ndarray, img_px: np.ndarray) -> float:
        """RMS (px) by which the lens and pose of `params` miss an anchor's corners (`obj_mm` (4, 3), `img_px`
        (4, 2))."""
        lens, pose = self.unpack(params)
        px, _ = cv2.projectPoints(obj_mm, pose.rvec, pose.tvec, lens.camera_matrix, lens.dist_coeffs)
        return float(np.sqrt(np.mean(np.sum((px.reshape(-1, 2) - img_px) ** 2, axis=1))))

    def keeping(self, keep: np.ndarray) -> _Problem:
        pieces = self.start[_GLOBAL:].reshape(-1, 3)[keep]
        start = np.concatenate([self.start[:_GLOBAL], pieces.ravel()])
        return _Problem(self.camera, self.anchor_obj, self.anchor_img, self.piece_img[keep], self.piece_half[keep],
                        self.piece_z[keep], start, self.prior_sigma)

    def unpack(self, params: np.ndarray) -> tuple[CameraIntrinsics, CameraPose]:
        k = self.camera.camera_matrix.copy()
        k[0, 0] *= 1.0 + params[0]
        k[1, 1] *= 1.0 + params[0]
        k[0, 2], k[1, 2] = params[1], params[2]
        d = self.camera.dist_coeffs.copy()
        d[0] = params[3]
        if len(d) > 1:
            d[1] = params[4]
        lens = CameraIntrinsics(self.camera.image_size, k, d, self.camera.rms_px)
        return lens, CameraPose(params[_LENS:_LENS + 3].copy(), params[_LENS + 3:_GLOBAL].copy())

    def _piece_points(self, params: np.ndarray) -> np.ndarray:
        """(4P, 3) corners in table mm, ArUco order (top-left, top-right, bottom-right, bottom-left)."""
        p = params[_GLOBAL:].reshape(-1, 3)
        fwd = np.column_stack([np.sin(p[:, 2]), np.cos(p[:, 2])]) * self.piece_half[:, None]
        right = np.column_stack([np.cos(p[:, 2]), -np.sin(p[:, 2])]) * self.piece_half[:, None]
        c = p[:, :2]
        pts = np.stack([c - right + fwd, c + right + fwd, c + right - fwd, c - right - fwd], axis=1)
        z = np.broadcast_to(self.piece_z[:, None, None], (len(p), 4, 1))
        return np.concatenate([pts, z], axis=2).reshape(-1, 3)

    def corner_residuals(self, params: np.ndarray) -> np.ndarray:
        """(N, 2) px: projected minus detected, anchors first then pieces."""
        lens, pose = self.unpack(params)
        obj = np.concatenate([self.anchor_obj, self._piece_points(params)])
        img = self.all_img
        px, _ = cv2.projectPoints(obj, pose.rvec, pose.tvec, lens.camera_matrix, lens.dist_coeffs)
        return px.reshape(-1, 2) - img

    def residuals(self, params: np.ndarray, free_mask: np.ndarray) -> np.ndarray:
        prior = (params[:_LENS] - self.start[:_LENS]) / self.prior_sigma * CORNER_SIGMA_PX
        return np.concatenate([self.corner_residuals(params).ravel(), prior[free_mask]])

    def marker_residuals(self, params: np.ndarray) -> np.ndarray:
        """(P,) the largest corner miss (px) of each piece's marker."""
        err = np.linalg.norm(self.corner_residuals(params)[len(self.anchor_obj):], axis=1)
        return err.reshape(-1, 4).max(axis=1) if len(err) else np.zeros(0)

    def chi2_gain(self, fitted: np.ndarray, freer: np.ndarray) -> float:
        """How much better the `freer` fit explains the corners than `fitted`: the drop in the sum of squared misses
        over the freer fit's mean square miss (a chi-square difference with the corners' own scatter as unit), the
        anchors and the piece markers each in their own unit: a 50 mm anchor's corners are found far more surely
        than a 20 mm marker's, and one scatter for both would let the markers' noise hide what the anchors show."""
        n_anchor = len(self.anchor_obj)
        before, after = self.corner_residuals(fitted), self.corner_residuals(freer)
        gain = 0.0
        for part in (slice(0, n_anchor), slice(n_anchor, None)):
            b, a = before[part], after[part]
            if a.size:
                gain += float(np.sum(b**2) - np.sum(a**2)) / max(float(np.mean(a**2)), 1e-12)
        return gain

    def rms(self, params: np.ndarray) -> float:
        return float(np.sqrt(np.mean(np.sum(self.corner_residuals(params) ** 2, axis=1))))

    def solve(self, free: tuple[str, ...], x0: np.ndarray | None = None, tol: float = 1e-10) -> np.ndarray:
        """Levenberg-Marquardt over the pose, the pieces and the `free` lens values; the rest stay as given. From
        `x0` when given (a solution of a problem much like this one), else from `start`; the priors hold the lens
        to `start`'s (the camera file's) either way. Stops when a step lowers the cost by less than `tol` of it."""
        lens_free = np.array(["focal" in free, "centre" in free, "centre" in free, "k1" in free, "k2" in free])
        cols = np.concatenate([np.flatnonzero(lens_free), np.arange(_LENS, len(self.start))])
        x = (self.start if x0 is None else x0).copy()
        if x0 is not None:  # the lens values not let free stay as given
            x[:_LENS][~lens_free] = self.start[:_LENS][~lens_free]
        r = self.residuals(x, lens_free)
        cost, lam = float(r @ r), 1e-3
        for _ in range(_ITERATIONS):
            normal = _Normal.build(*self._jacobian(x, r, lens_free), r, 2 * len(self.anchor_obj))
            while lam < 1e8:
                try:
                    step = normal.step(lam)
                except np.linalg.LinAlgError:
                    lam *= 10
                    continue
                trial = x.copy()
                trial[cols] += step
                r_trial = self.residuals(trial, lens_free)
                c_trial = float(r_trial @ r_trial)
                if c_trial < cost:
                    break
                lam *= 10
            else:
                return x
            done = cost - c_trial < tol * max(cost, 1e-12)
            x, r, cost, lam = trial, r_trial, c_trial, max(lam / 10, 1e-9)
            if done:
                break
        return x

    def _jacobian(self, x: np.ndarray, r: np.ndarray, lens_free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Forward differences: (the rows' derivatives by the free lens values and the pose, (R, G)) and (each
        piece's 8 rows by its own (x, y, heading), (P, 8, 3)). A piece moves only its own rows, so one difference
        per kind covers every piece at once."""
        steps = np.concatenate([[1e-7, 1e-3, 1e-3, 1e-7, 1e-7], np.full(3, 1e-7), np.full(3, 1e-4)])
        cols = np.concatenate([np.flatnonzero(lens_free), np.arange(_LENS, _GLOBAL)])
        jac_global = np.zeros((len(r), len(cols)))
        for j, c in enumerate(cols):
            dx = x.copy()
            dx[c] += steps[c]
            jac_global[:, j] = (self.residuals(dx, lens_free) - r) / steps[c]
        rows = slice(2 * len(self.anchor_obj), 2 * len(self.anchor_obj) + 8 * self.n_pieces)
        jac_pieces = np.zeros((self.n_pieces, 8, 3))
        for kind, step in enumerate((1e-4, 1e-4, 1e-7)):
            dx = x.copy()
            dx[_GLOBAL + kind :: 3] += step
            jac_pieces[:, :, kind] = ((self.residuals(dx, lens_free) - r) / step)[rows].reshape(-1, 8)
        return jac_global, jac_pieces


@dataclass(frozen=True)
class _Normal:
    """The Levenberg-Marquardt normal equations of `_Problem`, kept in blocks: the global values (lens and pose)
    against each other (`u`) and against each piece (`w`), each piece's own 3 x 3 block (`v`), and the gradients.
    The pieces' block is block-diagonal, so a step is solved through the Schur complement on the global values:
    the same step as the dense system's, at a cost that grows with the pieces, not with their square."""

    u: np.ndarray  # (G, G)
    w: np.ndarray  # (P, G, 3)
    v: np.ndarray  # (P, 3, 3)
    g_global: np.ndarray  # (G,)
    g_pieces: np.ndarray  # (P, 3)

    @classmethod
    def build(cls, jac_global: np.ndarray, jac_pieces: np.ndarray, r: np.ndarray, first_piece_row: int) -> _Normal:
        n = len(jac_pieces)
        rows = slice(first_piece_row, first_piece_row + 8 * n)
        jg_pieces = jac_global[rows].reshape(n, 8, jac_global.shape[1])
        r_pieces = r[rows].reshape(n, 8)
        return cls(jac_global.T @ jac_global, np.einsum("pig,pia->pga", jg_pieces, jac_pieces),
                   np.einsum("pia,pib->pab", jac_pieces, jac_pieces), jac_global.T @ r,
                   np.einsum("pia,pi->pa", jac_pieces, r_pieces))

    def step(self, lam: float) -> np.ndarray:
        """The step (global values, then each piece's) with Marquardt's damping `lam` on the diagonal."""
        du = np.diag(self.u).copy()
        du[du == 0] = 1.0
        dv = np.diagonal(self.v, axis1=1, axis2=2).copy()
        dv[dv == 0] = 1.0
        v_inv = np.linalg.inv(self.v + lam * dv[:, :, None] * np.eye(3))
        wv = np.einsum("pga,pab->pgb", self.w, v_inv)
        schur = self.u + lam * np.diag(du) - np.einsum("pga,pha->gh", wv, self.w)
        step_global = np.linalg.solve(schur, -self.g_global + np.einsum("pga,pa->g", wv, self.g_pieces))
        rest = -self.g_pieces - np.einsum("pga,g->pa", self.w, step_global)
        step_pieces = np.einsum("pab,pb->pa", v_inv, rest)
        return np.concatenate([step_global, step_pieces.ravel()])
