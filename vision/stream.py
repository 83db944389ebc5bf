"""Marker detection over a video stream: follow the markers seen last frame, and scan the whole frame now and then.

Between two frames a still piece does not move and a moving one moves a few pixels, so re-measuring last frame's
corners on the new frame (`track_markers`) finds them at a fraction of a full scan's cost. A full scan every
`full_every` frames, and whenever nothing is known, picks up pieces that appear and markers that moved too far.
"""

from __future__ import annotations

import numpy as np

from vision.markers import MarkerDetection, detect_markers, track_markers


class StreamDetector:
    """`detect(frame)` for consecutive frames of one camera; returns what `detect_markers` would, sorted by id."""

    def __init__(self, dictionary: str, full_every: int = 10):
        self.dictionary = dictionary
        self.full_every = max(1, full_every)
        self.known: list[MarkerDetection] = []
        self.frames_since_full = 0
        self.last_was_full = False

    def reset(self) -> None:
        """Forget what was seen: the next frame gets a full scan (after a camera change or a jump in a video)."""
        self.known = []

    def detect(self, frame: np.ndarray) -> list[MarkerDetection]:
        full = not self.known or self.frames_since_full + 1 >= self.full_every
        if full:
            found = detect_markers(frame, self.dictionary)
            self.frames_since_full = 0
        else:
            found = track_markers(frame, self.known, self.dictionary)
            self.frames_since_full += 1
        self.last_was_full = full
        # A marker lost while tracking (hidden, or moved too far) comes back with the next full scan.
        self.known = found
        return found
