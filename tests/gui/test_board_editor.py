"""The board editor (offscreen): rectify a frame from the board's anchors, draw two areas, validation shows an
unpaired approach, pair the borders, save, and the saved file loads with rules.board. Screenshot:
out/screenshots/board-editor.png."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QPushButton  # noqa: E402

import gui  # noqa: E402,F401
from fieldglass.setup import synthetic_scene  # noqa: E402
from gui.board_editor import BoardDraft, BoardEditor  # noqa: E402
from rules.board import links, load_board  # noqa: E402
from rules.marengo.model import demo_board_path, load_demo_board  # noqa: E402
from rules.nie.demo import data_path  # noqa: E402
from rules.nie.model import position_from_dict  # noqa: E402
from rules.nie.strategic import land_move, naval_move  # noqa: E402
from tests.gui.helpers import SHOTS  # noqa: E402
from vision.synthetic import SyntheticSource  # noqa: E402


@pytest.fixture(scope="module")
def board_frame():
    src = SyntheticSource(synthetic_scene("marengo"), resolution=(1280, 720), frames=1)
    return next(iter(src))[1]


def test_draw_validate_save_and_load(qtbot, tmp_path, board_frame):
    ed = BoardEditor(frame=(board_frame, None))
    qtbot.addWidget(ed)
    ed.show()
    assert ed.image is not None and "rectified from anchors 100, 101, 102, 103" in ed.last_message
    assert ed.image.shape[:2] == (800, 1440)
    ed.name.setText("two fields")
    # area A: four clicks, closed by a double-click (snap: 2 mm off the board edge lands on it)
    ed.area_id.setText("A")
    ed.area_name.setText("West field")
    for x, y in ((2, 2), (300, 1), (300, 398), (1, 400)):
        ed.click(x, y)
    ed.finish()
    # area B: its first corners land on A's corners (snapped), so they share an exact border
    ed.area_id.setText("B")
    for x, y in ((304, 3), (720, 0), (720, 400), (297, 396)):
        ed.click(x, y)
    ed.finish()
    assert [a["id"] for a in ed.draft.areas] == ["A", "B"]
    assert ed.draft.areas[0]["polygon"] == [[0.0, 0.0], [300.0, 0.0], [300.0, 400.0], [0.0, 400.0]]
    assert ed.draft.areas[1]["polygon"][0] == [300.0, 0.0] and ed.draft.areas[1]["polygon"][3] == [300.0, 400.0]
    assert ed.draft.neighbours("A") == ["B"]
    # one approach only: A's side of the border, wide
    ed.set_mode("approach")
    ed.width_choice.setCurrentText("wide")
    ed.click(290, 200)
    assert ed.draft.approach("A", "B")["width"] == "wide"
    assert not ed.validate()
    assert "approach A>B has no opposite approach B>A" in ed.report.toPlainText()
    assert not ed.save(tmp_path / "bad.toml") and not (tmp_path / "bad.toml").exists()
    assert [it.toolTip() for it in ed.items_of("approach:")] == ["approach A>B: wide, NOT PAIRED"]
    ed.grab().save(str(SHOTS / "board-editor-unpaired.png"))
    ed.pair_borders()
    assert ed.draft.approach("B", "A")["width"] == "wide"
    # a road from A to B, and an attribute edited in the table
    ed.set_mode("road")
    ed.click(100, 200)
    ed.click(500, 200)
    ed.finish_road()
    ed.areas_model.setData(ed.areas_model.index(1, 3), "2")  # B: start_positions 2
    assert ed.validate(), ed.report.toPlainText()
    path = tmp_path / "two.toml"
    assert ed.save(path)
    b = load_board(path)
    assert b.name == "two fields" and set(b.areas) == {"A", "B"} and b.areas["A"].name == "West field"
    assert b.adjacent("A", "B") and b.approach("B", "A").width == "wide"
    assert b.roads[0].areas == ("A", "B") and b.areas["B"].start_positions == 2
    assert b.locate(150, 200).area == "A"
    SHOTS.mkdir(parents=True, exist_ok=True)
    ed.grab().save(str(SHOTS / "board-editor.png"))


def test_open_existing_board_round_trips(qtbot, tmp_path):
    ed = BoardEditor()
    qtbot.addWidget(ed)
    ed.open(demo_board_path())
    assert len(ed.draft.areas) == 11 and ed.validate()
    assert ed.save(tmp_path / "demo.toml")
    again, demo = load_board(tmp_path / "demo.toml"), load_demo_board()
    assert set(again.approaches) == set(demo.approaches) and len(again.roads) == len(demo.roads)
    assert again.boxes == demo.boxes and again.arrows == demo.arrows


def test_draft_reports_overlap_and_unreachable():
    d = BoardDraft(width_mm=300, depth_mm=100)
    d.add_area([(0, 0), (150, 0), (150, 100), (0, 100)], "1")
    d.add_area([(100, 0), (300, 0), (300, 100), (100, 100)], "2")
    assert any("overlap" in p for p in d.validate())
    d.remove_area("2")
    d.add_area([(200, 0), (300, 0), (300, 100), (200, 100)], "2")
    assert any("cannot be reached" in p for p in d.validate())


def test_digitise_a_strategic_map_by_clicks_and_play_on_it(qtbot, tmp_path):
    """A printed strategic map digitised through the widget: areas clicked, their kind and attributes typed in the
    table, borders linked, a strait marked in link mode; saved, the Napoleon in Europe engine reads its topology from
    the file and moves an army and a squadron on it."""
    ed = BoardEditor()
    qtbot.addWidget(ed)
    ed.show()
    ed.width_mm.setValue(400)
    ed.depth_mm.setValue(200)
    shapes = {"paris": (0, 0, 100, 100), "picardy": (100, 0, 200, 100), "channel": (0, 100, 200, 150),
              "london": (0, 150, 200, 200), "north_sea": (200, 0, 400, 200)}
    for aid, (x0, y0, x1, y1) in shapes.items():
        ed.area_id.setText(aid)
        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            ed.click(x, y)
        ed.finish()
    assert [a["id"] for a in ed.draft.areas] == list(shapes)
    typed = {"paris": ("region", 'home = "france", capital = true'),
             "picardy": ("region", 'home = "france", port = ["channel", "north_sea"]'),
             "channel": ("sea", ""), "north_sea": ("sea", ""),
             "london": ("region", 'capital = true, home = "britain", port = ["channel"]')}
    cols = [name for name, _ in ed.areas_model.columns]
    for row, aid in enumerate(shapes):
        kind, attrs = typed[aid]
        ed.areas_model.setData(ed.areas_model.index(row, cols.index("kind")), kind)
        ed.areas_model.setData(ed.areas_model.index(row, cols.index("attributes")), attrs)
    assert ed.draft.areas[1]["attributes"] == {"kind": "region", "home": "france", "port": ["channel", "north_sea"]}
    ed.areas_model.setData(ed.areas_model.index(0, cols.index("attributes")), "home = france")  # not TOML
    assert "attributes must be TOML pairs" in ed.last_message
    assert ed.draft.areas[0]["attributes"] == {"kind": "region", "home": "france", "capital": True}  # unchanged
    assert not ed.validate() and "share a border but have no approaches" in ed.report.toPlainText()
    next(b for b in ed.findChildren(QPushButton) if b.text() == "Link borders").click()
    assert ed.draft.connection("paris", "picardy")["kind"] == "land"
    assert ed.draft.connection("channel", "north_sea")["kind"] == "sea"
    ed.set_mode("link")
    ed.link_kind.setCurrentText("strait")
    ed.click(100, 125)  # in the channel
    ed.click(300, 100)  # in the north sea
    assert ed.draft.connection("channel", "north_sea")["kind"] == "strait"
    assert "connection channel-north_sea: strait" in [it.toolTip() for it in ed.items_of("connection:")]
    assert ed.validate(), ed.report.toPlainText()
    path = tmp_path / "map.toml"
    assert ed.save(path)
    board = load_board(path)
    assert board.areas["picardy"].attribute("port") == ("channel", "north_sea")
    assert links(board)[("channel", "north_sea")] == ("border", "strait")
    ed.grab().save(str(SHOTS / "board-editor-strategic.png"))
    # the map in play (§5.1 land move, §5.3 naval move through the strait)
    pos = position_from_dict({"system": "nie", "board": str(path), "units": [
        {"id": "fr-inf-1", "nation": "france", "type": "inf", "at": "paris"},
        {"id": "gb-sq-1", "nation": "britain", "type": "ship", "at": "port:london"}]}, "game.json")
    assert pos.europe.seas["channel"].straits == {"north_sea"} and pos.europe.regions["london"].neighbours == set()
    assert land_move(pos, ["fr-inf-1"], ["picardy"]).after.units["fr-inf-1"].at == "picardy"
    assert naval_move(pos, ["gb-sq-1"], ["channel", "north_sea"]).after.units["gb-sq-1"].at == "north_sea"
    # reopened, the attributes and connections are the editor's again; a renamed area renames its connections
    ed.open(path)
    assert ed.areas_model.records[3]["attributes"] == 'capital = true, home = "britain", port = ["channel"]'
    ed.areas_model.setData(ed.areas_model.index(1, 0), "artois")
    assert ed.draft.connection("paris", "artois")["kind"] == "land" and ed.draft.connection("paris", "picardy") is None


def test_open_a_strategic_board_keeps_attributes_and_connections(qtbot, tmp_path):
    ed = BoardEditor()
    qtbot.addWidget(ed)
    ed.open(data_path("europe_demo_board.toml"))
    assert ed.validate(), ed.report.toPlainText()
    assert ed.save(tmp_path / "map.toml")
    again, shipped = load_board(tmp_path / "map.toml"), load_board(data_path("europe_demo_board.toml"))
    assert {a.id: a.attributes for a in again.areas.values()} == {a.id: a.attributes for a in shipped.areas.values()}
    assert again.connections == shipped.connections and links(again) == links(shipped)
    # links dropped: "Link borders" puts one back on every shared border, the straits stay as marked
    ed.draft.connections = [c for c in ed.draft.connections if c["kind"] in ("strait", "closed")]
    assert not ed.validate()
    ed.link_borders()
    assert ed.validate(), ed.report.toPlainText()
    assert ed.draft.connection("channel", "picardy")["kind"] == "sea"  # a coast: either area a sea
