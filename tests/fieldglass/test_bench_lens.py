"""`fieldglass bench lens` / the perturbed-intrinsics part of `bench vision`: the scenario's pieces, on few frames
(the figures themselves are printed by the benches, never asserted on time)."""

from __future__ import annotations

import numpy as np

from fieldglass.benchmarks.lens import K1_OFF, VIEWS, measure_lens, measure_lens_stream, perturbed
from vision.synthetic import VirtualCamera


def test_perturbed_moves_k2_only_when_asked():
    cam = VirtualCamera.looking_at_table(2400, 1200, (1920, 1080)).intrinsics
    plain = perturbed(cam, np.random.default_rng(4))
    assert abs(abs(plain.dist_coeffs[0] - cam.dist_coeffs[0]) - K1_OFF) < 1e-12
    assert plain.dist_coeffs[1] == cam.dist_coeffs[1]
    again = perturbed(cam, np.random.default_rng(4), k2_off=0.0)
    np.testing.assert_array_equal(again.camera_matrix, plain.camera_matrix)
    with_k2 = perturbed(cam, np.random.default_rng(4), k2_off=0.01)
    assert abs(abs(with_k2.dist_coeffs[1] - cam.dist_coeffs[1]) - 0.01) < 1e-12


def test_the_stream_keeps_each_registration_over_its_frames_and_the_chosen_lens_beats_the_file():
    tally = measure_lens_stream(2, (1920, 1080), raised=False, seed=3, n_pieces=30)
    assert tally.frames == 2
    n = len(tally.true)
    assert n >= 50 and len(tally.before) == len(tally.default) == len(tally.after) == n
    p95 = {k: float(np.percentile(getattr(tally, k), 95)) for k in ("true", "before", "default", "after")}
    assert p95["true"] < 0.5
    assert p95["default"] < 0.5 * p95["before"] and p95["after"] < 0.5 * p95["before"]
    lines = tally.lines(False)
    assert len(lines) == 4 and "goal p95 <= 1.0" in lines[2]


def test_single_photos_by_default_are_as_exact_as_refine_lens_and_keep_a_true_lens():
    """Issue 26's done-when on one small photo per view: the default refines a perturbed lens (as exact as
    --refine-lens, far better than --no-refine-lens) and leaves the true lens as it is."""
    for view, tilts in VIEWS.items():
        tally = measure_lens(1, (1920, 1080), raised=False, seed=5, n_pieces=30, tilt_range=tilts)
        assert tally.photos == 1 and tally.refined == 1 and tally.true_refined == 0, view
        r = tally.row()
        assert r["default"] == r["forced"] and r["default"][0] < 0.5 * r["plain"][0], (view, r)
        assert r["true_default"] == r["true"]
        lines = tally.lines(False)
        assert "camera file, default (refined 1/1)" in lines[3] and "goal p95 <= 1.0" in lines[3]
