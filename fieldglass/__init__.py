"""Fieldglass: a computer-vision assistant for tabletop wargames.

This package is the thin wiring: the command line, the live session and the game record.
The work is done in `calibration`, `vision` and `rules`.
"""

import os

# numpy's OpenBLAS one thread a call (unless the user says otherwise), set before numpy loads: our products are small
# (a few squares against 4000 code templates, vision/markers.py `_match`), where its second thread cost 5-9x the
# product itself on the shared 2-core machine and then spins for the cores the frame decoding and the detector's own
# threads need. `fieldglass bench live` at 4K, every frame read in turn: a changed region 40 -> 12 ms p50, a frame
# with a hand moving 16 -> 4.5 ms, a still frame 7 -> 2.5 ms (issue 14).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
