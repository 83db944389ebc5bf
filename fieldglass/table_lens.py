"""`fieldglass calibrate table`: the lens refined from photos of the table (calibration/lens.py); the detector and
roster wiring it shares with `locate`, the dashboard and the recorder is vision/table_lens.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from calibration.lens import combine_fits, fit_rms_px, refine_lens
from common.errors import InputError
from vision.pieces import camera_for_frame
from vision.roster import Roster
from vision.sources import read_image
from vision.table_lens import (  # noqa: F401  (here before vision/table_lens.py, and still imported from here)
    choose_from_markers,
    detect_table_markers,
    refine_from_markers,
    sightings,
)


@dataclass(frozen=True)
class PhotoFit:
    """One photo's part in `calibrate table`: anchors and piece markers used, RMS reprojection (px) with the camera
    file's lens and with the refined one (pose and pieces fitted in both)."""

    path: str
    anchors: int
    pieces: int
    before_px: float
    after_px: float


@dataclass(frozen=True)
class TableCalibration:
    camera: CameraIntrinsics
    given: CameraIntrinsics
    photos: tuple[PhotoFit, ...]
    refined: tuple[str, ...]


def calibrate_from_photos(
    paths: Sequence[str], camera: CameraIntrinsics, layout: TableLayout, roster: Roster | None,
    progress: Callable[[int, int, PhotoFit], None] | None = None,
) -> TableCalibration:
    """The lens refined from photos of the table: each photo fitted alone, the refined values averaged
    (`combine_fits`), then every photo scored with the combined lens. The photos share one size; the camera is
    rescaled to it when only the resolution differs. InputError naming a photo whose anchors give no pose."""
    fits, seen, lens, size = [], [], camera, None
    for path in paths:
        frame = read_image(path)
        if size is not None and frame.shape[:2] != size:
            raise InputError(f"{path}: is {frame.shape[1]}x{frame.shape[0]}, the first photo {size[1]}x{size[0]}: "
                             "every photo must come from the same camera at the same resolution")
        size, lens = frame.shape[:2], camera_for_frame(camera, frame, path)
        markers = detect_table_markers(frame, layout, roster)
        anchors, pieces = sightings(markers, layout, roster)
        fit = refine_lens(anchors, layout, lens, pieces)
        if fit is None:
            ids = ", ".join(str(i) for i in sorted(layout.anchor_ids))
            raise InputError(f"{path}: {len(anchors)} anchor marker(s) usable, at least 2 needed (the layout's "
                             f"anchors are {ids})")
        fits.append(fit)
        seen.append((path, anchors, pieces))
    refined = combine_fits(fits, lens)
    photos = []
    for i, ((path, anchors, pieces), fit) in enumerate(zip(seen, fits, strict=True), 1):
        after = fit_rms_px(anchors, layout, refined, pieces)
        photo = PhotoFit(path, len(fit.anchors), fit.pieces, fit.before_px, fit.before_px if after is None else after)
        photos.append(photo)
        if progress is not None:
            progress(i, len(paths), photo)
    kinds = tuple(k for k in ("k1", "k2", "focal", "centre") if any(k in f.refined for f in fits))
    record = {"photos": len(photos), "refined": list(kinds),
              "before_px": round(float(np.mean([p.before_px for p in photos])), 4),
              "after_px": round(float(np.mean([p.after_px for p in photos])), 4)}
    return TableCalibration(replace(refined, table_fit=record), lens, tuple(photos), kinds)
