"""Issue 26: a camera's stream is read with the lens refined from the table once a frame allows the choice, kept
while the camera stays put, chosen again when it moves (`vision.table_lens.StreamLens`)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.registration import TableRegistration
from fieldglass.benchmarks.lens import perturbed
from vision.stream import LiveReader
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout
from vision.table_lens import StreamLens


@pytest.fixture(scope="module")
def filmed():
    """A 1800 x 1200 table with 30 pieces filmed at 1080p: two frames from straight above (fresh noise), one after
    the camera moved (tipped 4 degrees: its centre 100 mm away); the truth; a lens off as users' are."""
    layout = standard_layout(1800.0, 1200.0)
    scene = random_scene(layout, 30, np.random.default_rng(8))
    still = VirtualCamera.looking_at_table(1800.0, 1200.0, (1920, 1080), 1500.0, 0.0)
    moved = VirtualCamera(still.intrinsics, VirtualCamera.looking_at_table(1800.0, 1200.0, (1920, 1080), 1500.0,
                                                                           4.0).pose)
    frames = [render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=2.0, seed=seed))
              for cam, seed in ((still, 1), (still, 2), (moved, 3))]
    given = perturbed(still.intrinsics, np.random.default_rng(2))
    return layout, scene, still, frames, given


def _stream(layout, scene, lens, **kwargs):
    registration = TableRegistration(layout, lens, refine_lens=False)
    notes = []
    return LiveReader(registration, scene.roster), StreamLens(registration, scene.roster, name="cam.json",
                                                              on_note=notes.append, **kwargs), notes


def _read(reader, stream_lens, frame):
    reading = reader.read(frame)
    again = stream_lens.after(reading)
    if again is not None:
        reader.adopt(again)
    return again or reading


def _p95(reading, truth) -> float:
    seen = {t.piece_id: t for t in truth.pieces if t.visible}
    return float(np.percentile([np.hypot(p.x_mm - seen[p.piece].x_mm, p.y_mm - seen[p.piece].y_mm)
                                for p in reading.pieces], 95))


def test_the_first_frame_is_read_with_the_refined_lens_and_it_is_kept_while_the_camera_stays(filmed):
    layout, scene, _, frames, given = filmed
    reader, stream_lens, notes = _stream(layout, scene, given)
    first = _read(reader, stream_lens, frames[0][0])
    assert stream_lens.choice.refined and reader.registration.lens is stream_lens.choice.camera
    assert len(first.pieces) == 30 and _p95(first, frames[0][1]) < 0.4
    assert notes == [stream_lens.note] and notes[0].startswith("lens: cam.json refined from 8 anchors and 30 piece")
    chosen = stream_lens.choice
    second = _read(reader, stream_lens, frames[1][0])
    assert stream_lens.choice is chosen and len(notes) == 1  # not chosen again
    assert _p95(second, frames[1][1]) < 0.4


def test_the_camera_files_lens_as_it_is_reads_the_same_frame_worse(filmed):
    layout, scene, _, frames, given = filmed
    reader, stream_lens, notes = _stream(layout, scene, given, enabled=False)
    reading = _read(reader, stream_lens, frames[0][0])
    assert reader.registration.lens is given and stream_lens.choice is None and notes == []
    assert stream_lens.note == "lens: cam.json as calibrated (--no-refine-lens)"
    assert _p95(reading, frames[0][1]) > 0.6


def test_a_true_lens_is_kept_and_says_why(filmed):
    layout, scene, still, frames, _ = filmed
    reader, stream_lens, notes = _stream(layout, scene, still.intrinsics)
    _read(reader, stream_lens, frames[0][0])
    assert not stream_lens.choice.refined and reader.registration.lens is still.intrinsics
    assert notes[0].startswith("lens: cam.json as calibrated (refining it did not help")


def test_when_the_camera_moves_the_lens_is_chosen_again_in_the_background_for_a_live_camera(filmed):
    layout, scene, _, frames, given = filmed
    reader, stream_lens, _ = _stream(layout, scene, given, background=True)
    _read(reader, stream_lens, frames[0][0])  # the first choice in its frame, even for a live camera
    first = stream_lens.choice
    assert first.refined and stream_lens._job is None
    moved = _read(reader, stream_lens, frames[2][0])
    assert stream_lens.choice is first and stream_lens._job is not None  # worked out meanwhile
    assert reader.registration.lens is first.camera
    stream_lens.wait()
    again = _read(reader, stream_lens, frames[2][0])
    assert stream_lens.choice is not first and stream_lens.choice.refined
    assert reader.registration.lens is stream_lens.choice.camera
    assert _p95(again, frames[2][1]) < 0.4 and len(again.pieces) == len(moved.pieces)
    stream_lens.close()


def test_a_frame_with_too_few_anchors_waits_for_more(filmed):
    layout, scene, _, frames, given = filmed
    reader, stream_lens, notes = _stream(layout, scene, given)
    reading = reader.read(frames[0][0])
    hidden = type(reading)(reading.pose, reading.pieces, reading.unknown, reading.conflicts,
                           tuple(m for m in reading.markers if m.id not in (3, 4, 5, 6, 7)))
    assert stream_lens.after(hidden) is None
    assert not stream_lens.choice.tried and reader.registration.lens is given
    assert "3 anchor(s) on the table in view" in notes[0]
    assert stream_lens.after(hidden) is None and len(notes) == 1  # the same 3 anchors: not tried again
    again = stream_lens.after(reading)  # all 8 in view
    assert again is not None and stream_lens.choice.refined and reader.registration.lens is stream_lens.choice.camera


def test_a_fit_that_breaks_down_keeps_the_camera_files_lens_and_says_why(filmed, monkeypatch):
    layout, scene, _, frames, given = filmed

    def broken(*args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr("vision.table_lens.choose_lens", broken)
    reader, stream_lens, notes = _stream(layout, scene, given)
    reading = _read(reader, stream_lens, frames[0][0])
    assert reading.pose is not None and len(reading.pieces) == 30 and reader.registration.lens is given
    assert notes == ["lens: cam.json as calibrated (refining it failed (LinAlgError: Singular matrix))"]
    assert stream_lens.after(reading) is None and len(notes) == 1  # not tried again while the camera stays
