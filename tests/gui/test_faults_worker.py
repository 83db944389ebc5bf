"""Issue 15, a camera that fails, in the capture worker: unplugged mid-game and found again by the reconnect with
back-off (vision/reconnect.py), its states signalled for the status bar, and no frame lost or doubled."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.setup import load_setup  # noqa: E402
from gui.worker import CaptureWorker  # noqa: E402
from tests.gui.helpers import pump  # noqa: E402
from vision.faulty import Fault, FaultySource  # noqa: E402
from vision.synthetic import SyntheticSource, demo_scene  # noqa: E402


def test_the_worker_reconnects_an_unplugged_camera_and_says_so(qapp):
    setup = load_setup("wiener", "synthetic")
    camera = FaultySource(SyntheticSource(demo_scene(), resolution=(640, 360), frames=4),
                          [Fault(2, "disconnect", refusals=1)])
    worker = CaptureWorker(setup, camera)
    said, numbers = [], []
    worker.status.connect(lambda state, text: said.append(state))
    worker.ready.connect(lambda: numbers.append(worker.take().number))
    worker.start()
    pump(qapp, worker.isFinished)
    qapp.processEvents()
    assert said == ["connected", "lost", "reconnecting", "connected", "ended"]
    assert camera.attempts == 2 and worker.processed == 4  # refused once, back at the second try; no frame lost
