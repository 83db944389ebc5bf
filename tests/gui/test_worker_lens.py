"""Issue 26: the dashboard reads the table with the lens refined from it where that is measurably better, chosen from
the first frame that allows it, and says which lens it used (status bar, calibration label); --no-refine-lens keeps
the camera file's."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from fieldglass.benchmarks.lens import perturbed  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from gui.worker import CaptureWorker  # noqa: E402
from tests.gui.helpers import pump  # noqa: E402
from vision.synthetic import SyntheticSource, VirtualCamera, demo_scene  # noqa: E402

RESOLUTION = (1280, 720)


def _setup(refine: bool = True):
    """The synthetic demo table with a camera file off as users' are (the source's own camera perturbed)."""
    setup = load_setup("wiener", "synthetic")
    true = VirtualCamera.looking_at_table(2400.0, 1200.0, RESOLUTION).intrinsics
    given = perturbed(true, np.random.default_rng(1))
    return replace(setup, camera=given, names={**setup.names, "camera": "/files/cam.json"}, refine_lens=refine), given


def _run(qapp, setup):
    source = SyntheticSource(demo_scene(), resolution=RESOLUTION, frames=2)
    worker = CaptureWorker(setup, source, max_frames=2)
    worker.start()
    pump(qapp, worker.isFinished)
    return worker.take() or worker.last_result, source


def _p95(result, source) -> float:
    truth = {t.piece_id: t for t in source.truth.pieces if t.visible}
    return float(np.percentile([np.hypot(p.x_mm - truth[p.piece].x_mm, p.y_mm - truth[p.piece].y_mm)
                                for p in result.reading.pieces], 95))


def test_the_worker_reads_with_the_refined_lens_and_names_it(qapp):
    setup, given = _setup()
    result, source = _run(qapp, setup)
    assert result.lens_note.startswith("lens: cam.json refined from 8 anchors and 24 piece markers on the table")
    assert result.camera is not given and len(result.reading.pieces) == 24
    refined = _p95(result, source)
    setup, given = _setup(refine=False)
    plain, source = _run(qapp, setup)
    assert plain.lens_note == "lens: cam.json as calibrated (--no-refine-lens)" and plain.camera is given
    assert refined < 0.6 and _p95(plain, source) > 2 * refined


def test_the_dashboard_says_which_lens_it_reads_with(qapp, tmp_path):
    setup, _ = _setup()
    win = MainWindow(setup, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                     source_options={"resolution": RESOLUTION})
    win.start(frames=2)
    pump(qapp, lambda: win.worker is not None and win.worker.isFinished() and win.last_result is not None
         and win.last_result.number == 1)
    assert win.lens_note.startswith("lens: cam.json refined from 8 anchors")
    assert win.calib_label.toolTip() == win.lens_note
    assert "lens refined from the table" in win.calibration_health()
    win.close()
