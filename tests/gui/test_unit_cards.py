"""A unit joins the game when its printed QR card is held under the camera (issue 7, `fieldglass print cards`)."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import cv2
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

from calibration.camera import save_camera  # noqa: E402
from fieldglass.printing import card_payload, qr_image, unit_cards  # noqa: E402
from fieldglass.session import Session  # noqa: E402
from fieldglass.setup import load_setup  # noqa: E402
from gui.app import MainWindow  # noqa: E402
from vision.synthetic import RenderOptions, VirtualCamera, demo_files, demo_scene, render_table  # noqa: E402


def _card_for(roster, unit_prefix):
    return next(c for c in unit_cards(roster) if c.unit == unit_prefix)


def test_session_plays_only_units_whose_card_was_shown():
    setup = replace(load_setup("wiener", "synthetic"), join_by_cards=True)
    session = Session(setup)
    assert session.piece_views() == []
    assert session.join_card("just some text") is None
    members = [p for p in setup.roster.pieces if p.id.startswith("fr-1-")]
    text = session.join_card(card_payload("fr-1", [(p.id, p.type) for p in members] + [("xx-9", "infantry")]))
    assert "joins the game" in text and "not in the roster: xx-9" in text
    assert session.in_game == {p.id for p in members}
    assert "already in the game" in session.join_card(card_payload("fr-1", [(members[0].id, members[0].type)]))


def test_a_card_in_the_camera_view_adds_its_unit(qapp, tmp_path):
    scene = demo_scene()
    camera = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080), 1700.0, 15.0)
    frame, _ = render_table(scene, camera, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0))
    card = _card_for(scene.roster, "fr-1")
    qr = cv2.cvtColor(qr_image(card.payload), cv2.COLOR_GRAY2BGR)
    qr = cv2.resize(qr, (260, 260), interpolation=cv2.INTER_NEAREST)
    frame[20:20 + 260 + 40, 1500:1500 + 260 + 40] = 255  # the white card, held over the far corner
    frame[40:300, 1520:1780] = qr
    cv2.imwrite(str(tmp_path / "table.png"), frame)
    save_camera(camera.intrinsics, tmp_path / "cam.json")
    layout, roster = demo_files()
    setup = load_setup("wiener", str(tmp_path / "table.png"), str(tmp_path / "cam.json"), str(layout), str(roster))
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(replace(setup, join_by_cards=True), settings=settings)
    win.show()
    win.start(frames=1)
    t0 = time.monotonic()
    while not (win.worker is not None and win.worker.isFinished() and win.last_result is not None):
        qapp.processEvents()
        assert time.monotonic() - t0 < 60, "the dashboard did not process the frame"
        time.sleep(0.01)
    qapp.processEvents()
    win._refresh_all()
    members = {pid for pid, _ in card.pieces}
    assert win.session.in_game == members
    assert {v.piece.id for v in win.session.piece_views()} == members
    assert {p.id for p in win.session.position.pieces} == members
    win.close()
