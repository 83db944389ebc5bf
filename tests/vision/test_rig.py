"""Fused readings of a table from two cameras: a rendered rig, and the fusion rules on hand-made readings."""

import math

import numpy as np
import pytest

from calibration.registration import TableRegistration
from vision.pieces import PiecePose, TableReading, read_table
from vision.rig import AGREE_MM, CameraView, fuse_views, mm_per_px
from vision.synthetic import RenderOptions, VirtualCamera, random_scene, render_table, standard_layout
from vision.synthetic_rig import cameras_along_table

PART_MM = 800.0  # each camera is fitted to an 800 x 1200 part at one end and, 1150 mm up, sees ~64 % of the table


def two_cameras(resolution=(1920, 1080)) -> dict[str, VirtualCamera]:
    """West and east cameras 1150 mm over a 2400 x 1200 table (the issue's low ceiling), looking straight down;
    neither sees the whole table, both see its middle (the anchors 4 and 6 at x = 1200)."""
    return cameras_along_table(2400.0, 1200.0, ("west", "east"), PART_MM, resolution, 1150.0)


def in_view(camera: VirtualCamera, x: float, y: float) -> bool:
    (u, v), = camera.project(np.array([[x, y, 0.0]]))
    w, h = camera.image_size
    return 0 <= u < w and 0 <= v < h


@pytest.fixture(scope="module")
def rig():
    layout = standard_layout()
    scene = random_scene(layout, 60, np.random.default_rng(18))
    cameras = two_cameras()
    views, truths = [], {}
    for i, (name, cam) in enumerate(cameras.items()):
        frame, truth = render_table(scene, cam, RenderOptions(blur_sigma_px=0.6, noise_sigma=2.0, seed=i))
        reading = read_table(frame, TableRegistration(layout, cam.intrinsics), scene.roster)
        views.append(CameraView(name, cam.intrinsics, reading))
        truths[name] = truth
    return scene, cameras, views, truths, fuse_views(views, scene.roster, layout.grid)


def test_the_two_cameras_each_see_part_of_the_table_and_share_the_middle(rig):
    _, cameras, views, truths, fused = rig
    west, east = cameras["west"], cameras["east"]
    assert not in_view(west, 2300, 600) and not in_view(east, 100, 600)
    assert in_view(west, 1200, 600) and in_view(east, 1200, 600)
    assert fused.unregistered == ()
    assert {4, 6} <= set(views[0].reading.pose.anchors) & set(views[1].reading.pose.anchors)
    both = [t for t in truths["west"].pieces if t.visible and truths["east"].piece(t.piece_id).visible]
    assert len(both) >= 8  # enough pieces in the overlap to test the fusion on


def test_every_piece_seen_is_found_once_within_a_millimetre(rig):
    scene, _, _, truths, fused = rig
    seen = {t.piece_id for truth in truths.values() for t in truth.pieces if t.visible}
    found = [f.pose.piece for f in fused.pieces]
    assert len(found) == len(set(found))  # no doubles
    assert set(found) <= seen  # no false pieces
    assert len(set(found)) >= 0.99 * len(seen) and len(seen) >= 55
    true = {p.piece.id: p for p in scene.placements}
    errors = np.array([math.hypot(f.pose.x_mm - true[f.pose.piece].x_mm, f.pose.y_mm - true[f.pose.piece].y_mm)
                       for f in fused.pieces])
    assert np.percentile(errors, 95) <= 1.0 and errors.max() <= 2.0
    assert fused.conflicts == () and fused.disagreements == () and fused.unknown == ()


def test_pieces_in_the_overlap_are_fused_with_both_views(rig):
    _, _, _, truths, fused = rig
    views = {f.pose.piece: f.views for f in fused.pieces}
    expected = {}
    for t in truths["west"].pieces:
        other = truths["east"].piece(t.piece_id)
        names = tuple(n for n, v in (("west", t.visible), ("east", other.visible)) if v)
        if names:
            expected[t.piece_id] = names
    assert views == expected
    assert sum(v == ("west", "east") for v in views.values()) >= 8


# ---- the fusion rules on hand-made readings --------------------------------------------------------------------


def _reading(pose, *pieces):
    return TableReading(pose, tuple(pieces), (), ())


def _piece(x, y, heading=0.0, name="fr-1", marker=11):
    return PiecePose(name, marker, x, y, heading)


@pytest.fixture(scope="module")
def flat():
    """The rendered rig's cameras with their true poses, and a one-piece roster."""
    scene = random_scene(standard_layout(), 1, np.random.default_rng(1))
    return two_cameras((1280, 720)), scene.roster


def _views(cams, *per_camera):
    return [CameraView(name, cam.intrinsics, _reading(cam.pose, *pieces))
            for (name, cam), pieces in zip(cams.items(), per_camera, strict=True)]


def test_two_views_are_weighted_by_each_cameras_resolution_there(flat):
    cams, roster = flat
    piece = roster.pieces[0]
    # At x = 900 the west camera looks nearly straight down from 200 mm aside, the east one from 1000 mm aside.
    sw = mm_per_px(cams["west"].intrinsics, cams["west"].pose, 900.0, 600.0, piece.marker_height_mm)
    se = mm_per_px(cams["east"].intrinsics, cams["east"].pose, 900.0, 600.0, piece.marker_height_mm)
    assert sw < se
    fused = fuse_views(_views(cams, [_piece(900.0, 600.0, 10.0, piece.id, piece.marker)],
                              [_piece(902.0, 600.0, 20.0, piece.id, piece.marker)]), roster)
    (f,) = fused.pieces
    w = (1 / sw**2) / (1 / sw**2 + 1 / se**2)
    assert f.views == ("west", "east")
    assert f.pose.x_mm == pytest.approx(900.0 * w + 902.0 * (1 - w))
    assert 900.0 < f.pose.x_mm < 901.0  # nearer the sharper view
    assert 10.0 < f.pose.heading_deg < 15.0


def test_views_further_apart_than_their_uncertainty_are_a_conflict_not_an_average(flat):
    cams, roster = flat
    piece = roster.pieces[0]
    far = 900.0 + AGREE_MM + 2.0
    fused = fuse_views(_views(cams, [_piece(900.0, 600.0, 0, piece.id, piece.marker)],
                              [_piece(far, 600.0, 0, piece.id, piece.marker)]), roster)
    assert fused.pieces == ()
    assert fused.conflicts == (piece.marker,)
    (d,) = fused.disagreements
    assert d.piece == piece.id and d.apart_mm == pytest.approx(far - 900.0)
    assert d.to_json()["views"] == {"west": [900.0, 600.0], "east": [far, 600.0]}


def test_a_camera_without_a_table_pose_is_reported_and_its_markers_unused(flat):
    cams, roster = flat
    piece = roster.pieces[0]
    views = _views(cams, [_piece(900.0, 600.0, 0, piece.id, piece.marker)], [])
    views[1] = CameraView("east", cams["east"].intrinsics, TableReading(None, (), (77,), ()))
    fused = fuse_views(views, roster)
    assert fused.unregistered == ("east",)
    assert [f.views for f in fused.pieces] == [("west",)]
    assert fused.unknown == (77,)


def test_a_marker_seen_twice_by_one_camera_is_left_out_for_all(flat):
    cams, roster = flat
    piece = roster.pieces[0]
    views = _views(cams, [], [_piece(900.0, 600.0, 0, piece.id, piece.marker)])
    views[0] = CameraView("west", cams["west"].intrinsics, TableReading(cams["west"].pose, (), (), (piece.marker,)))
    fused = fuse_views(views, roster)
    assert fused.pieces == () and fused.conflicts == (piece.marker,)
