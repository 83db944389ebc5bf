"""`fieldglass bench dashboard`'s parts: the demo table grown to many pieces, and the repaint driver on the real
main window (offscreen here; the bench itself runs under Xvfb). The frames shown per second are printed for a
person to read, never asserted: a shared machine's timing is no test."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import gui  # noqa: E402,F401  (first: the PySide6 6.12 / Python 3.11 work-around)
from common.errors import InputError  # noqa: E402
from fieldglass.benchmarks.dashboard import crowded_setup, read_frames  # noqa: E402
from gui.repaint import frame_results, measure_repaint, open_bench_window  # noqa: E402


def test_the_demo_table_grows_to_100_pieces_each_with_its_own_marker_and_place():
    setup = crowded_setup(100)
    ids = [p.id for p in setup.roster.pieces]
    markers = [p.marker for p in setup.roster.pieces]
    assert len(ids) == len(set(ids)) == 100 and len(set(markers)) == 100
    assert not set(markers) & set(setup.layout.anchor_ids)
    xy = np.array([(p.x_mm, p.y_mm) for p in setup.scene.placements])
    assert len(xy) == 100
    gaps = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) + np.eye(100) * 1e9
    copies = [i for i, p in enumerate(setup.scene.placements) if "-c" in p.piece.id]
    assert gaps[copies].min() >= 110.0  # each copy clear of every other piece
    session = setup.make_session()  # the system plays them: each copy has its original's state
    assert len(session.true_views()) == 100
    with pytest.raises(InputError, match="--pieces 9999"):
        crowded_setup(9999)


def test_the_repaint_driver_counts_the_frames_the_window_shows(qapp, tmp_path):
    setup = crowded_setup(40)
    frames, found = read_frames(setup, (960, 540), 2)
    assert len(frames) == 2 and frames[0][0].shape == (540, 960, 3)
    window = open_bench_window(setup, (1280, 800), tmp_path)
    try:
        results = frame_results(frames, 2.0)
        assert results[0].shown.shape == (540, 960, 4)
        run = measure_repaint(window, results, None, 1.5)
        clocked = measure_repaint(window, results, 20.0, 1.0)
    finally:
        window.close()
    for r in (run, clocked):
        assert r.offered >= r.shown >= 1 and len(r.latency_ms) == r.shown and len(r.show_ms) == r.offered
        assert all(ms > 0 for ms in r.latency_ms) and r.paints[0] >= r.shown and r.cpu_s > 0
    assert window.session.selected is not None  # the busiest piece: its targets drawn too
    assert window.screen_latency_ms is not None
    print(f"\ndashboard offscreen, 40 pieces, 960x540: {run.shown_fps:.1f} frames shown per second "
          f"(found {found} pieces; a report, not a test)")
