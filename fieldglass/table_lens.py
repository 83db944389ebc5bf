"""The lens refined from a photo of the table (calibration/lens.py), wired to the detector and the roster."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.layout import TableLayout
from calibration.lens import LensFit, MarkerSighting, refine_lens
from vision.markers import MarkerDetection, detect_markers
from vision.roster import Roster


def detect_table_markers(frame: np.ndarray, layout: TableLayout, roster: Roster | None) -> list[MarkerDetection]:
    """Every marker in the photo, in the layout's dictionary and the roster's if that differs."""
    markers = detect_markers(frame, layout.dictionary)
    if roster is not None and roster.dictionary != layout.dictionary:
        markers += detect_markers(frame, roster.dictionary)
    return markers


def sightings(
    markers: Sequence[MarkerDetection], layout: TableLayout, roster: Roster | None
) -> tuple[dict[int, np.ndarray], list[MarkerSighting]]:
    """The anchors' corners by id, and the roster pieces' markers with their size and height. A marker seen twice
    is left out: we cannot tell which one is real."""
    seen = Counter(m.id for m in markers)
    pieces = roster.by_marker() if roster is not None else {}
    anchors, found = {}, []
    for m in markers:
        if seen[m.id] > 1:
            continue
        if m.id in layout.anchor_ids:
            anchors[m.id] = np.asarray(m.corners, float)
        elif m.id in pieces:
            p = pieces[m.id]
            found.append(MarkerSighting(np.asarray(m.corners, float), p.marker_mm, p.marker_height_mm))
    return anchors, found


def refine_from_markers(
    markers: Sequence[MarkerDetection], layout: TableLayout, roster: Roster | None, camera: CameraIntrinsics
) -> LensFit | None:
    """`refine_lens` on one photo's detected markers; None when its anchors give no pose."""
    anchors, pieces = sightings(markers, layout, roster)
    return refine_lens(anchors, layout, camera, pieces)
