"""`fieldglass print anchors --rig`: anchors placed for a rig's footprints, checked on geometry and on rendered
photos of the table from each camera."""

from __future__ import annotations

import math

import pytest

from calibration.layout import layout_to_toml, load_layout
from calibration.registration import estimate_pose
from calibration.rig import footprint_overlap
from calibration.rig_anchors import PER_CAMERA, REQUIRED_IN_OVERLAP, anchor_inset_mm, is_seam, place_rig_anchors
from common.errors import InputError
from fieldglass.cli import main
from fieldglass.planning import CameraSetup, plan, rig_parts
from vision.markers import detect_markers
from vision.roster import Roster
from vision.synthetic import SyntheticScene, VirtualCamera, render_table, standard_layout
from vision.synthetic_rig import shifted


def _whole_inside(a, rect, inset) -> bool:
    return rect[0] + inset - 1e-6 <= a.x_mm <= rect[2] - inset + 1e-6 and \
        rect[1] + inset - 1e-6 <= a.y_mm <= rect[3] - inset + 1e-6


@pytest.mark.parametrize(("table", "resolution", "fov", "height"), [
    ((2400.0, 1200.0), (1920, 1080), 90.0, 1300.0),  # two cameras side by side
    ((3600.0, 2400.0), (1280, 720), 78.0, 1000.0),  # a grid of twelve
    ((1800.0, 2400.0), (1920, 1080), 78.0, 1200.0),  # a column
])
def test_every_camera_sees_four_and_every_seam_holds_two(table, resolution, fov, height):
    parts = rig_parts(plan(CameraSetup(table, resolution, fov, height)))
    assert len(parts) >= 2
    feet = [(p.name, p.footprint_mm) for p in parts]
    anchors = place_rig_anchors(feet, table, 50.0, "DICT_4X4_250")
    inset = anchor_inset_mm(50.0, "DICT_4X4_250")
    assert [a.id for a in anchors] == list(range(len(anchors)))
    assert all(_whole_inside(a, (0.0, 0.0, *table), inset) for a in anchors)
    for i, a in enumerate(anchors):  # no two papers touch
        assert all(math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) >= 2 * inset - 0.2 for b in anchors[i + 1:])
    for _, f in feet:
        assert sum(_whole_inside(a, f, inset) for a in anchors) >= PER_CAMERA
    seams = 0
    for i, (_, fa) in enumerate(feet):
        for _, fb in feet[i + 1:]:
            shared = footprint_overlap(fa, fb)
            if shared is not None and is_seam(shared, fa, fb):
                seams += 1
                assert sum(_whole_inside(a, shared, inset) for a in anchors) >= REQUIRED_IN_OVERLAP
    assert seams >= len(parts) - 1  # the cameras are chained together by seams


def test_an_overlap_too_narrow_for_two_anchors_is_one_line():
    with pytest.raises(InputError, match="rig cameras a and b: their overlap \\(40 x 1200 mm\\) cannot hold 2"):
        place_rig_anchors([("a", (0, 0, 1220, 1200)), ("b", (1180, 0, 2400, 1200))], (2400, 1200), 50.0,
                          "DICT_4X4_250")


RIG = """\
[[camera]]
name = "west"
intrinsics = "west.json"
footprint_mm = [0, 0, 1250, 1200]
[[camera]]
name = "east"
intrinsics = "east.json"
footprint_mm = [1150, 0, 2400, 1200]
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "rig.toml").write_text(RIG)
    (tmp_path / "table.toml").write_text(layout_to_toml(standard_layout()))
    return tmp_path


def test_print_anchors_for_a_rig_writes_the_layout_and_the_pdf_and_each_camera_registers(files, capsys):
    out, layout_out = files / "anchors.pdf", files / "table-rig.toml"
    argv = ["print", "anchors", "--rig", str(files / "rig.toml"), "--layout", str(files / "table.toml"),
            "--out", str(out), "--layout-out", str(layout_out)]
    assert main(argv) == 0  # the camera files do not exist yet: they are not needed to place anchors
    said = capsys.readouterr().out
    assert "# west sees anchors 0, 1, 3, 4" in said and "# west and east share anchors 1, 4" in said
    assert said.count("[[anchor]]") == 6 and out.read_bytes()[:5] == b"%PDF-"
    layout = load_layout(layout_out)
    assert layout.grid == standard_layout().grid and len(layout.anchors) == 6
    # Rendered: a camera over each end, each fitted to its footprint, registers from the anchors the file says.
    base = VirtualCamera.looking_at_table(1250.0, 1200.0, (1280, 720), 1150.0, 0.0, margin_mm=20.0)
    scene = SyntheticScene(layout, Roster(layout.dictionary, ()), ())
    for name, dx, expected in (("west", 0.0, {0, 1, 3, 4}), ("east", 1150.0, {1, 2, 4, 5})):
        frame, _ = render_table(scene, shifted(base, dx))
        corners = {m.id: m.corners for m in detect_markers(frame, layout.dictionary) if m.id in layout.anchor_ids}
        pose = estimate_pose(corners, layout, base.intrinsics)
        assert pose is not None and set(pose.anchors) == expected, name
        assert pose.reprojection_px < 1.0


@pytest.mark.parametrize(("extra", "rig", "message"), [
    ([], RIG.replace("footprint_mm = [1150, 0, 2400, 1200]\n", ""), "rig camera east: no footprint_mm"),
    (["--anchor-mm", "-3"], RIG, "--anchor-mm -3: must be"),
    ([], RIG.replace("footprint_mm", "footprint"), "camera 1: unknown key 'footprint'"),
])
def test_rig_anchor_mistakes_are_one_line(files, capsys, extra, rig, message):
    (files / "rig.toml").write_text(rig)
    argv = ["print", "anchors", "--rig", str(files / "rig.toml"), "--out", str(files / "a.pdf"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and not (files / "a.pdf").exists()


def test_without_rig_the_layout_is_needed_and_rig_options_refused(files, capsys):
    assert main(["print", "anchors", "--out", str(files / "a.pdf")]) == 2
    assert "needs --layout LAYOUT.toml" in capsys.readouterr().err
    argv = ["print", "anchors", "--layout", str(files / "table.toml"), "--out", str(files / "a.pdf"),
            "--anchor-mm", "40"]
    assert main(argv) == 2
    assert "go with --rig" in capsys.readouterr().err


def test_without_a_layout_the_table_is_the_footprints_and_sizes_follow_anchor_mm(files, capsys):
    argv = ["print", "anchors", "--rig", str(files / "rig.toml"), "--out", str(files / "a.pdf"), "--anchor-mm", "40",
            "--layout-out", str(files / "new.toml")]
    assert main(argv) == 0
    layout = load_layout(files / "new.toml")
    assert (layout.width_mm, layout.depth_mm, layout.grid) == (2400.0, 1200.0, None)
    assert {a.size_mm for a in layout.anchors} == {40.0}
    assert min(a.x_mm for a in layout.anchors) == anchor_inset_mm(40.0, "DICT_4X4_250") == 34.0
