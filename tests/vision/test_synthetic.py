"""The synthetic table: framing, exact geometry, visibility truth, scenes and the frame source."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.layout import load_layout, square_corners_mm
from calibration.projection import table_to_pixels
from vision.markers import detect_markers
from vision.roster import Piece, Roster, load_roster
from vision.synthetic import (
    _INK,
    _PAPER,
    PlacedPiece,
    RenderOptions,
    SyntheticScene,
    SyntheticSource,
    VirtualCamera,
    demo_files,
    demo_scene,
    random_scene,
    render_table,
    standard_layout,
)


@pytest.fixture(scope="module")
def demo():
    return demo_scene()


@pytest.fixture(scope="module")
def cam_1080():
    return VirtualCamera.looking_at_table(2400, 1200, (1920, 1080))


@pytest.fixture(scope="module")
def demo_frame(demo, cam_1080):
    return render_table(demo, cam_1080)


def _marker_corners(placed: PlacedPiece) -> np.ndarray:
    """The marker's black square in table mm, computed here independently of the renderer."""
    p = placed.piece
    h = np.radians(placed.heading_deg)
    fwd, right = np.array([np.sin(h), np.cos(h)]), np.array([np.cos(h), -np.sin(h)])
    c = np.array([placed.x_mm, placed.y_mm]) + right * p.marker_offset_mm[0] + fwd * p.marker_offset_mm[1]
    return square_corners_mm(c[0], c[1], p.marker_mm, placed.heading_deg, p.marker_height_mm)


# ---------------------------------------------------------------------------------------------------------------
# Camera


@pytest.mark.parametrize("tilt", [0.0, 25.0])
@pytest.mark.parametrize("resolution", [(3840, 2160), (1280, 720)])
def test_table_fits_the_frame_with_its_margin(tilt, resolution):
    cam = VirtualCamera.looking_at_table(2400, 1200, resolution, tilt_deg=tilt)
    w, h = resolution
    k = cam.intrinsics.camera_matrix
    assert k[0, 0] == pytest.approx(k[1, 1])
    assert (k[0, 2], k[1, 2]) == pytest.approx(((w - 1) / 2, (h - 1) / 2))
    corners = np.array([[0, 0, 0], [2400, 0, 0], [2400, 1200, 0], [0, 1200, 0]], float)
    px = table_to_pixels(corners, cam.intrinsics, cam.pose)
    assert np.all(px >= 0) and np.all(px[:, 0] <= w - 1) and np.all(px[:, 1] <= h - 1)
    # the margin outline (edges bowed by the lens) fits, and touches the frame: the focal length is the largest
    t = np.linspace(0, 1, 200)
    m = 60.0
    ring = np.concatenate([np.column_stack([-m + t * 2520, np.full_like(t, -m)]),
                           np.column_stack([-m + t * 2520, np.full_like(t, 1260)]),
                           np.column_stack([np.full_like(t, -m), -m + t * 1320]),
                           np.column_stack([np.full_like(t, 2460), -m + t * 1320])])
    px = table_to_pixels(np.column_stack([ring, np.zeros(len(ring))]), cam.intrinsics, cam.pose)
    slack = min(px[:, 0].min(), px[:, 1].min(), w - 1 - px[:, 0].max(), h - 1 - px[:, 1].max())
    assert -0.05 < slack < 1.0


def test_camera_looks_down_with_north_up_and_tilts_from_the_south():
    cam = VirtualCamera.looking_at_table(2400, 1200, (1280, 720), tilt_deg=25)
    centre = cam.pose.camera_centre_mm
    assert centre[2] == pytest.approx(1700.0)
    assert centre[1] < 0 and centre[0] == pytest.approx(1200.0)  # south of the table, looking north
    px = table_to_pixels(np.array([[1200, 600, 0], [1300, 600, 0], [1200, 700, 0]], float), cam.intrinsics, cam.pose)
    assert px[0] == pytest.approx([639.5, 359.5], abs=1e-6)  # aimed at the table centre
    assert px[1, 0] > px[0, 0] and px[2, 1] < px[0, 1]  # +x to the right, +y up the image
    yawed = VirtualCamera.looking_at_table(2400, 1200, (1280, 720), tilt_deg=20, yaw_deg=90)
    assert yawed.pose.camera_centre_mm[0] < 1200 - 500  # west of the table, looking east


# ---------------------------------------------------------------------------------------------------------------
# Geometry is exact


def _edge_errors(gray: np.ndarray, corners: np.ndarray, white: float, black: float) -> list[float]:
    """Left and right edges of a marker's black square, measured by area on the row through its top border
    module, minus where the true corners put them (px). Exact for an area-sampled edge, whatever its sharpness."""
    tl, tr, br, bl = corners
    row = int(round((tl[1] + tr[1]) / 2 + (bl[1] - tl[1]) / 12))
    xl = tl[0] + (bl[0] - tl[0]) * (row - tl[1]) / (bl[1] - tl[1])
    xr = tr[0] + (br[0] - tr[0]) * (row - tr[1]) / (br[1] - tr[1])
    module = (xr - xl) / 6
    frac_white = (gray[row].astype(float) - black) / (white - black)
    mid = int(round((xl + xr) / 2))
    a, b = int(np.floor(xl - module / 2)), int(np.ceil(xr + module / 2))
    left = a - 0.5 + frac_white[a:mid].sum()
    right = b + 0.5 - frac_white[mid : b + 1].sum()
    return [left - xl, right - xr]


@pytest.mark.parametrize("distortion", [(0.0, 0.0, 0.0, 0.0, 0.0), (-0.08, 0.03, 0.0, 0.0, 0.0)])
def test_drawn_marker_edges_are_where_projectpoints_puts_them(distortion):
    """Big square-on markers (anchors at z=0, bases 3-50 mm high): every edge within a few hundredths of a px."""
    layout = standard_layout(1200, 800, anchor_mm=120)
    pieces = [Piece(f"p{i}", 20 + i, "FR", "infantry", (150, 150), 100, h) for i, h in enumerate((3, 25, 50, 0))]
    places = [(400, 300), (800, 300), (600, 500), (900, 550)]
    scene = SyntheticScene(layout, Roster(layout.dictionary, tuple(pieces)),
                           tuple(PlacedPiece(p, x, y, 0.0) for p, (x, y) in zip(pieces, places, strict=True)))
    cam = VirtualCamera.looking_at_table(1200, 800, (1280, 720), distortion=distortion)
    img, truth = render_table(scene, cam)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    white = float(cv2.cvtColor(np.uint8([[_PAPER]]), cv2.COLOR_BGR2GRAY)[0, 0])
    black = float(cv2.cvtColor(np.uint8([[_INK]]), cv2.COLOR_BGR2GRAY)[0, 0])
    quads = list(truth.anchor_corners_px.values()) + [p.marker_corners_px for p in truth.pieces]
    errors = np.abs([e for q in quads for e in _edge_errors(gray, q, white, black)])
    assert len(errors) == 24
    assert errors.mean() < 0.02
    assert errors.max() < 0.05


def test_detected_corners_agree_with_truth(demo_frame):
    img, truth = demo_frame
    found = {m.id: m.corners for m in detect_markers(img, "DICT_4X4_250")}
    expected = {p.marker: p.marker_corners_px for p in truth.pieces if p.visible} | truth.anchor_corners_px
    assert all(t.visible for t in truth.pieces)
    assert set(found) == set(expected), f"missed {set(expected) - set(found)}, extra {set(found) - set(expected)}"
    err = np.concatenate([np.linalg.norm(found[m] - c, axis=1) for m, c in expected.items()])
    assert err.mean() < 0.3


def test_opencv_finds_every_marker_where_the_truth_puts_it(demo_frame):
    """The renderer alone, checked with plain cv2.aruco (independent of vision.markers): right ids, right places,
    right corner order. cornerSubPix pulls small markers' corners ~0.5 px inward, so this is not the precision test;
    test_drawn_marker_edges_are_where_projectpoints_puts_them is."""
    img, truth = demo_frame
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.005
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
    expected = {p.marker: p.marker_corners_px for p in truth.pieces} | truth.anchor_corners_px
    assert set(found) == set(expected)
    err = np.concatenate([np.linalg.norm(found[m] - c, axis=1) for m, c in expected.items()])
    assert err.max() < 3.0  # a marker side is ~15 px: a wrong corner order or place would be far off


def test_truth_corners_are_table_to_pixels_of_the_marker(demo, demo_frame):
    _, truth = demo_frame
    cam = truth.camera
    assert len(truth.pieces) == len(demo.placements)
    for placed, t in zip(demo.placements, truth.pieces, strict=True):
        assert (t.piece_id, t.marker) == (placed.piece.id, placed.piece.marker)
        assert (t.x_mm, t.y_mm, t.heading_deg) == (placed.x_mm, placed.y_mm, placed.heading_deg)
        expected = table_to_pixels(_marker_corners(placed), cam.intrinsics, cam.pose)
        np.testing.assert_allclose(t.marker_corners_px, expected, atol=1e-9)
    for a in demo.layout.anchors:
        expected = table_to_pixels(a.corners_mm(), cam.intrinsics, cam.pose)
        np.testing.assert_allclose(truth.anchor_corners_px[a.id], expected, atol=1e-9)
    assert truth.hand_polygon_px is None


# ---------------------------------------------------------------------------------------------------------------
# Visibility


def test_a_tall_base_hides_the_marker_just_behind_it():
    layout = standard_layout(1200, 800)
    tall = Piece("gun", 20, "AU", "artillery", (40, 40), 20, 50)
    low = Piece("stand", 21, "FR", "infantry", (40, 30), 20, 3)
    lone = Piece("lone", 22, "FR", "infantry", (40, 30), 20, 3)
    # the camera stands south: the top of a tall base leans north in the image, over its northern neighbour
    places = (PlacedPiece(tall, 600, 150, 0), PlacedPiece(low, 600, 188, 0), PlacedPiece(lone, 600, 500, 0))
    scene = SyntheticScene(layout, Roster(layout.dictionary, (tall, low, lone)), places)
    cam = VirtualCamera.looking_at_table(1200, 800, (1280, 720), tilt_deg=25)
    img, truth = render_table(scene, cam)
    vis = {t.piece_id: t.visible for t in truth.pieces}
    assert vis == {"gun": True, "stand": False, "lone": True}
    found = {m.id for m in detect_markers(img)}
    assert {20, 22} <= found and 21 not in found


def test_markers_outside_the_frame_are_not_visible():
    layout = standard_layout(1200, 800)
    scene = random_scene(layout, 6, np.random.default_rng(4))
    cam = VirtualCamera.looking_at_table(1200, 800, (640, 360), margin_mm=-150)  # the frame crops the table
    _, truth = render_table(scene, cam)
    assert not any(truth.anchor_visible.values())  # every anchor is within 75 mm of an edge
    for t in truth.pieces:
        inside = np.all((t.marker_corners_px >= 0) & (t.marker_corners_px <= [639, 359]))
        assert t.visible == bool(inside)


def test_the_hand_hides_markers_and_the_truth_says_which(demo):
    cam = VirtualCamera.looking_at_table(2400, 1200, (1280, 720), tilt_deg=20)
    clear = {t.piece_id: t.visible for t in render_table(demo, cam)[1].pieces}
    hidden_total = 0
    for seed in (1, 9):
        img, truth = render_table(demo, cam, RenderOptions(hand=True, seed=seed))
        hand = truth.hand_polygon_px
        assert hand is not None and len(hand) >= 8
        hand_mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(hand_mask, [np.round(hand).astype(np.int32)], 255)
        found = {m.id for m in detect_markers(img)}
        for t in truth.pieces:
            marker_mask = np.zeros_like(hand_mask)
            cv2.fillPoly(marker_mask, [np.round(t.marker_corners_px * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
            covered = np.count_nonzero(marker_mask & hand_mask) / max(np.count_nonzero(marker_mask), 1)
            if clear[t.piece_id] and not t.visible:
                hidden_total += 1
                assert covered > 0  # hidden by the hand: it lies (partly) under the hand's outline
            if covered >= 0.25:
                assert not t.visible and t.marker not in found
            if covered == 0:
                assert t.visible == clear[t.piece_id]
    assert hidden_total >= 2


# ---------------------------------------------------------------------------------------------------------------
# Frames


def test_frame_shape_dtype_and_determinism():
    layout = standard_layout(1200, 800)
    scene = random_scene(layout, 12, np.random.default_rng(1))
    cam = VirtualCamera.looking_at_table(1200, 800, (640, 360), tilt_deg=15)
    opts = RenderOptions(blur_sigma_px=0.8, noise_sigma=3.0, jpeg_quality=85, uneven_light=0.5, hand=True, seed=5)
    a, ta = render_table(scene, cam, opts)
    b, tb = render_table(scene, cam, opts)
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    np.testing.assert_array_equal(ta.hand_polygon_px, tb.hand_polygon_px)
    assert [t.visible for t in ta.pieces] == [t.visible for t in tb.pieces]
    c, _ = render_table(scene, cam, RenderOptions(blur_sigma_px=0.8, noise_sigma=3.0, jpeg_quality=85,
                                                  uneven_light=0.5, hand=True, seed=6))
    assert not np.array_equal(a, c)


def test_camera_effects_change_the_frame_as_they_should():
    layout = standard_layout(1200, 800)
    scene = random_scene(layout, 4, np.random.default_rng(2))
    cam = VirtualCamera.looking_at_table(1200, 800, (640, 360))
    clean, _ = render_table(scene, cam)
    noisy, _ = render_table(scene, cam, RenderOptions(noise_sigma=4.0))
    diff = noisy.astype(float) - clean.astype(float)
    assert 3.3 < diff.std() < 4.7 and abs(diff.mean()) < 0.3
    blurred, _ = render_table(scene, cam, RenderOptions(blur_sigma_px=2.0))
    lap = lambda im: cv2.Laplacian(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()  # noqa: E731
    assert lap(blurred) < 0.5 * lap(clean)
    lit, _ = render_table(scene, cam, RenderOptions(uneven_light=0.8))
    ratio = lit.astype(float).mean(axis=2) / np.maximum(clean.astype(float).mean(axis=2), 1)
    assert ratio.max() <= 1.01 and ratio.min() < 0.7  # darker somewhere, never brighter
    jpeg, _ = render_table(scene, cam, RenderOptions(jpeg_quality=30))
    assert 0 < np.abs(jpeg.astype(float) - clean).mean() < 6


# ---------------------------------------------------------------------------------------------------------------
# Scenes


def _add_raster(count: np.ndarray, poly_mm: np.ndarray, per_mm: float = 2.0) -> None:
    """Adds 1 to every cell (1 / per_mm mm) whose centre lies inside the polygon."""
    px = np.asarray(poly_mm, float) * per_mm
    x0, y0 = np.maximum(np.floor(px.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 2
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((px - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    count[y0:y1, x0:x1] += m[: count.shape[0] - y0, : count.shape[1] - x0]


def _base_polygon(placed: PlacedPiece) -> np.ndarray:
    h = np.radians(placed.heading_deg)
    fwd, right = np.array([np.sin(h), np.cos(h)]), np.array([np.cos(h), -np.sin(h)])
    w, d = placed.piece.base_mm[0] / 2, placed.piece.base_mm[1] / 2
    c = np.array([placed.x_mm, placed.y_mm])
    return np.array([c + sr * right * w + sf * fwd * d for sr, sf in ((-1, 1), (1, 1), (1, -1), (-1, -1))])


def _assert_bases_apart(scene: SyntheticScene) -> None:
    lay = scene.layout
    shape = (int(lay.depth_mm * 2), int(lay.width_mm * 2))
    count = np.zeros(shape, np.uint8)
    for placed in scene.placements:
        poly = _base_polygon(placed)
        assert poly.min() >= 0 and np.all(poly.max(axis=0) <= [lay.width_mm, lay.depth_mm])
        _add_raster(count, poly)
    for a in lay.anchors:
        paper = a.size_mm * 8 / 6  # black square plus a one-module quiet zone
        _add_raster(count, square_corners_mm(a.x_mm, a.y_mm, paper)[:, :2])
    assert count.max() == 1


def test_random_scene_places_bases_apart_with_proper_markers():
    layout = standard_layout()
    scene = random_scene(layout, 100, np.random.default_rng(7), first_marker=3)
    assert len(scene.placements) == 100
    _assert_bases_apart(scene)
    markers = [p.piece.marker for p in scene.placements]
    assert len(set(markers)) == 100 and not set(markers) & layout.anchor_ids and min(markers) == 8
    assert {p.piece.side for p in scene.placements} == {"FR", "AU"}
    assert {p.piece.type for p in scene.placements} == {"infantry", "cavalry", "artillery"}
    assert {p.piece.marker_height_mm for p in scene.placements} == {3.0, 25.0, 50.0}
    assert len({round(p.heading_deg) for p in scene.placements}) > 50
    assert scene.roster.dictionary == layout.dictionary
    again = random_scene(layout, 100, np.random.default_rng(7), first_marker=3)
    assert [(p.x_mm, p.y_mm) for p in again.placements] == [(p.x_mm, p.y_mm) for p in scene.placements]
    with pytest.raises(ValueError):
        random_scene(standard_layout(300, 300), 60, np.random.default_rng(0))


def test_standard_layout():
    lay = standard_layout()
    assert (lay.width_mm, lay.depth_mm, lay.dictionary) == (2400, 1200, "DICT_4X4_250")
    assert sorted(lay.anchor_ids) == list(range(8))
    assert (lay.grid.cols, lay.grid.rows, lay.grid.field_mm) == (40, 20, 60)
    for a in lay.anchors:  # black square plus its quiet zone on the table
        q = a.size_mm / 2 + a.size_mm / 6
        assert q < a.x_mm < lay.width_mm - q and q < a.y_mm < lay.depth_mm - q


def test_demo_scene_loads_from_the_package_files(demo):
    layout_path, roster_path = demo_files()
    assert load_layout(layout_path) == standard_layout() == demo.layout
    roster = load_roster(roster_path)
    assert roster == demo.roster and 20 <= len(roster.pieces) <= 30
    assert min(p.marker for p in roster.pieces) >= 10
    assert {p.marker_height_mm for p in roster.pieces} == {3.0, 25.0, 50.0}
    assert len(demo.placements) == len(roster.pieces)
    assert {t.kind for t in demo.terrain} >= {"wood", "hill", "town"}
    _assert_bases_apart(demo)
    near_edge = [p for p in demo.placements if demo.layout.grid.edge_distance_mm(p.x_mm, p.y_mm) < 5]
    assert len(near_edge) >= 3


# ---------------------------------------------------------------------------------------------------------------
# Frame source


def test_synthetic_source_yields_numbered_frames_and_their_truth(demo):
    cam = VirtualCamera.looking_at_table(2400, 1200, (640, 360))
    src = SyntheticSource(demo, cam, RenderOptions(noise_sigma=2.0), frames=3)
    frames = list(src)
    assert [i for i, _ in frames] == [0, 1, 2]
    assert all(f.shape == (360, 640, 3) and f.dtype == np.uint8 for _, f in frames)
    assert not np.array_equal(frames[0][1], frames[1][1])  # fresh noise
    assert src.truth is not None and src.camera is cam and src.truth.camera is cam
    src.close()
    assert src.read() is None


def test_synthetic_source_keeps_one_light_while_its_noise_changes(demo):
    """Frame to frame only the noise changes: the uneven light (a lamp's) stays where it is, as a real one does."""
    cam = VirtualCamera.looking_at_table(2400, 1200, (640, 360))
    src = SyntheticSource(demo, cam, RenderOptions(noise_sigma=2.0, uneven_light=0.3, seed=4), frames=2)
    (_, a), (_, b) = list(src)
    smooth = [cv2.blur(f, (15, 15)).astype(np.int16) for f in (a, b)]
    assert not np.array_equal(a, b)
    assert np.abs(smooth[0] - smooth[1]).max() <= 3  # (a lamp that moved changes whole regions by tens of levels)

    passing = SyntheticSource(demo, cam, RenderOptions(), frames=8, hand_period=8)
    hands = []
    for _ in passing:
        hands.append(passing.truth.hand_polygon_px is not None)
    assert hands[0] is False and any(hands)
    passing.close()
