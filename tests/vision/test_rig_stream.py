"""The rig read frame after frame (vision/rig_stream.py) on the two-camera scripted game: a hand only one camera
sees, and a camera that gives no frame."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.projection import table_to_pixels
from vision.rig_stream import NO_FRAME, READING, RigStreamReader
from vision.scripted_rig import CAMERAS, rig_scripted_game


@pytest.fixture(scope="module")
def script():
    return rig_scripted_game()


def reader(script):
    cams = script.cameras()
    return RigStreamReader(script.game.layout, script.game.roster, [(n, cams[n].intrinsics) for n in CAMERAS])


def frames(script, start, stop):
    per = {n: [f for _, _, f in script.render(n, start=start, stop=stop)] for n in CAMERAS}
    return [(start + k, tuple(per[n][k] for n in CAMERAS)) for k in range(stop - start)]


def test_a_hand_seen_by_one_camera_holds_the_piece_the_other_still_sees(script):
    rig = reader(script)
    hover = script.hover
    gun = "fr-a-1"
    x, y = script.game.frames[hover.start].places[gun][:2]
    out = {i: rig.read(images, i / script.game.fps) for i, images in frames(script, hover.start - 2, hover.stop + 3)}
    before, under = out[hover.start - 1], [out[i] for i in hover if gun in out[i].hidden["west"]]
    assert {p.piece for p in before.reading.pieces} >= {gun} and before.hidden == {"west": (), "east": ()}
    assert len(under) >= 3  # the west lost it under the hand for most of the hover
    for f in under:
        east = next(v for v in f.views if v.name == "east")
        seen = {p.piece: p for p in east.reading.pieces}
        assert math.hypot(seen[gun].x_mm - x, seen[gun].y_mm - y) < 3.0  # the east sees it standing there ...
        assert gun in {p.pose.piece for p in f.fused.pieces}
        assert gun not in {p.piece for p in f.reading.pieces}  # ... yet the rig's reading holds it occluded
        assert gun in f.reading.held
        assert f.hidden["east"] == () and f.status == {"west": READING, "east": READING}
    after = out[hover.stop + 2]  # the hand gone for 3 frames
    assert gun in {p.piece for p in after.reading.pieces} and after.hidden["west"] == ()


def test_a_camera_without_a_frame_leaves_its_pieces_held_and_the_other_reading(script):
    rig = reader(script)
    shots = frames(script, 0, 3)
    for i, images in shots[:2]:
        both = rig.read(images, i / script.game.fps)
    assert {p.piece for p in both.reading.pieces} == set(script.game.frames[0].places)
    gone = rig.read((shots[2][1][0], None), 2 / script.game.fps)
    assert gone.status == {"west": READING, "east": NO_FRAME}
    west = {p.piece for p in both.views[0].reading.pieces}
    assert {p.piece for p in gone.reading.pieces} == west
    assert gone.reading.held == ("au-c-1",)  # O8, in the east's half only: its camera is gone, not it


def in_frame(cam, x_mm, y_mm):
    u, v = table_to_pixels(np.array([[x_mm, y_mm, 0.0]]), cam.intrinsics, cam.pose)[0]
    w, h = cam.intrinsics.image_size
    return 0 <= u < w and 0 <= v < h


def test_the_script_carries_a_piece_from_one_cameras_half_to_the_others(script):
    """The premise of the recording test, from each camera's own geometry: the cavalry starts where only the west
    sees, ends where only the east sees; the hand only the west sees is over the gun, which both see."""
    cams = script.cameras()
    move = next(m for m in script.game.true_moves() if m["piece"] == "fr-c-1")
    start = script.game.frames[0].places["fr-c-1"][:2]
    end = (move["x_mm"], move["y_mm"])
    assert in_frame(cams["west"], *start) and not in_frame(cams["east"], *start)
    assert in_frame(cams["east"], *end) and not in_frame(cams["west"], *end)
    hand = script.game.frames[script.hover.start + 2].hand
    assert hand is not None and all(in_frame(cams[n], *hand[:2]) for n in CAMERAS)
    assert {i: script.seen_by("east").frames[i].hand for i in script.hover} == dict.fromkeys(script.hover)
