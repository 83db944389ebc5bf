"""`fieldglass plan` on geometry worked out by hand, the stored detection limits, and the limits sweep itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fieldglass import cli
from fieldglass.benchmarks.limits import Reading, limits_table, min_side, stored_limits, sweep_frame
from fieldglass.commands import check_print, plan, print_
from fieldglass.planning import CameraSetup, Limits, format_plan
from fieldglass.planning import plan as make_plan
from vision.dice import FLAT_OF_SIDE, READABLE_FACE_PX
from vision.roster import Piece, Roster

# A made-up detector: 10 px straight on, 12 px up to 50 deg, 30 px up to 65 deg; blurred (2 px) twice that.
LIMITS = Limits({1.0: {0.0: 10, 30.0: 10, 50.0: 12, 65.0: 30}, 2.0: {0.0: 20, 30.0: 20, 50.0: 24, 65.0: None}}, 1.0,
                "test rule")


def run_cli(argv: list[str]) -> int:
    missing = tuple(m for m in (print_, plan, check_print) if m not in cli.COMMANDS)
    saved = cli.COMMANDS
    cli.COMMANDS = saved + missing
    try:
        return cli.main(argv)
    finally:
        cli.COMMANDS = saved


def straight_down(table=(1800.0, 900.0), tilt=0.0, height=1000.0) -> CameraSetup:
    # 2000 x 1000 px, 90 deg horizontal field of view: f = 1000 px; 1000 mm up -> 1 mm per px, 2000 x 1000 mm in view
    return CameraSetup(table, (2000, 1000), 90.0, height, tilt, "horizontal")


def test_straight_down_figures_by_hand():
    p = make_plan(straight_down(), LIMITS, marker_mm=12.0)
    assert p.setup.focal_px() == pytest.approx(1000.0)
    assert p.near_mm_per_px == pytest.approx(1.0, rel=1e-3) and p.far_mm_per_px == pytest.approx(1.0, rel=1e-3)
    assert p.whole_table and p.cameras[:2] == (1, 1)
    assert p.near_point == pytest.approx((900.0, 450.0)) and p.far_point in {(0, 0), (1800, 0), (0, 900), (1800, 900)}
    corner = math.hypot(900, 450)  # from the point under the camera to a table corner
    assert p.max_angle_deg == pytest.approx(math.degrees(math.atan(corner / 1000)), abs=0.01)  # 45.2 deg: the 50 column
    assert p.smallest_marker_mm == pytest.approx(12.0, rel=1e-3)  # 12 px at 1 mm per px
    assert p.smallest_marker_soft_mm == pytest.approx(24.0, rel=1e-3)
    for h in (3.0, 25.0, 50.0):
        assert p.parallax_mm[h] == pytest.approx(corner * h / (1000 - h), rel=1e-6)
        assert p.parallax_centre_mm[h] == pytest.approx(0.0, abs=1e-9)
    [(m, px, ok)] = p.marker_checks
    assert (m, ok) == (12.0, True) and px == pytest.approx(12.0, rel=1e-3)


def test_tilt_makes_the_far_side_coarser():
    p = make_plan(straight_down((1200.0, 600.0), tilt=20.0), LIMITS)
    assert p.far_mm_per_px > 1.2 * p.near_mm_per_px
    assert p.far_point[1] == 600.0 and p.near_point[1] < 300.0  # the camera stands on the near (y = 0) side
    assert p.parallax_centre_mm[25.0] == pytest.approx(1000 * math.tan(math.radians(20)) * 25 / 975, rel=1e-6)


def test_too_small_pieces_and_a_table_that_needs_more_cameras():
    pieces = (
        Piece("a-1", 10, "A", "inf", (40.0, 30.0), 20.0, 3.0),
        Piece("b-1", 11, "B", "skirm", (20.0, 20.0), 8.0, 3.0),
    )
    p = make_plan(straight_down(), LIMITS, roster=Roster("DICT_4X4_250", pieces))
    assert p.too_small == [("b-1", 8.0)]
    assert sorted(p.parallax_mm) == [3.0]  # the roster's heights
    assert "b-1 (8 mm)" in "\n".join(format_plan(p))
    wide = make_plan(straight_down((4000.0, 900.0)), LIMITS)
    assert not wide.whole_table and wide.share_in_view == pytest.approx(2000 / 4000, abs=0.03)
    assert wide.cameras[:2] == (3, 1)  # 4000 / 2 + 100 overlap > 2000 mm in view; 4000 / 3 + 100 fits
    assert wide.height_for_whole_table_mm == pytest.approx(2000.0, rel=0.01)
    text = "\n".join(format_plan(wide))
    assert "whole table in view: NO" in text and "cameras: 3 (3 x 1)" in text


def test_stored_limits_are_measured_and_used():
    data = stored_limits()
    rule = data["in_focus_min_side_px"]
    assert isinstance(rule, int) and 6 <= rule <= 30
    assert f"at least {rule} px" in data["rule"] and data["markers_scored"] > 1000
    limits = Limits.load()
    assert limits.min_side_px(0.0) <= rule and limits.min_side_px(45.0) <= rule
    assert limits.min_side_px(80.0) == math.inf
    p = make_plan(CameraSetup((2400.0, 1200.0), (3840, 2160), 78.0, 1700.0, 15.0))
    assert 5.0 < p.smallest_marker_mm < 20.0


def test_cli_issue_example(capsys):
    argv = ["plan", "--table", "2400x1200", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "1700",
            "--tilt", "15", "--markers", "20"]
    assert run_cli(argv) == 0
    out = capsys.readouterr().out
    for words in ("mm per px", "whole table in view", "smallest marker read reliably", "20 mm markers",
                  "parallax", "cameras:", "px on the shortest side"):
        assert words in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--table", "2400", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "1700"],
        ["--table", "2400x1200", "--camera-resolution", "3840x2160.5", "--fov", "78", "--height", "1700"],
        ["--table", "2400x1200", "--camera-resolution", "3840x2160", "--fov", "0", "--height", "1700"],
        ["--table", "2400x1200", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "-5"],
        ["--table", "2400x1200", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "1700", "--tilt", "85"],
        ["--table", "2400x1200", "--camera-resolution", "3840x2160", "--fov", "78", "--height", "1700",
         "--roster", "/nonexistent/roster.toml"],
    ],
)
def test_bad_input_is_one_line_exit_2(argv, capsys):
    assert run_cli(["plan", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fieldglass: error: ") and "\n" not in err


def test_limits_sweep_machinery():
    # One small frame: 24 markers around 16 px, in focus, read; and the limit rule on made-up readings.
    readings = sweep_frame(16, 0.8, 30, seed=5)
    assert len(readings) == 24 and sum(r.found for r in readings) >= 23
    assert all(12 < r.side_px < 20 for r in readings)
    made_up = [Reading(s + 0.5, 1.0, 0.0, s >= 11 or (s == 10 and k % 2 == 0)) for s in range(6, 20) for k in range(10)]
    assert min_side(made_up) == 11
    table = limits_table(made_up)
    assert table["min_side_px"]["1"]["0"] == 11 and table["in_focus_min_side_px"] == 11
    assert np.isfinite(Limits.load(table).min_side_px(0.0))


def test_plan_says_the_smallest_die_read_and_it_grows_with_height():
    low = make_plan(CameraSetup((800.0, 450.0), (1920, 1080), 78.0, 600.0, 0.0, "diagonal"))
    high = make_plan(CameraSetup((800.0, 450.0), (1920, 1080), 78.0, 1200.0, 0.0, "diagonal"))
    assert high.smallest_die_mm > 1.8 * low.smallest_die_mm
    assert low.smallest_die_mm == pytest.approx(READABLE_FACE_PX / FLAT_OF_SIDE * low.far_mm_per_px)
    assert any(line.startswith("smallest die read everywhere in view:") for line in format_plan(low))
