"""The label placer of the drawing language (rules/labels.py, rules.picture.place_labels): labels never overlap each
other, a piece's outline or what the renderer keeps clear, and stay inside the view; they stand beside what they
name, shorten, move out with a leader line or are left out as the view zooms out, the selected piece's always shown;
from one frame to the next they keep their places."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import labels as placer
from rules.picture import (
    MUST,
    Area,
    Label,
    LabelLayout,
    Scene,
    ScenePiece,
    base_items,
    grid_labels,
    place_labels,
    short_name,
)


def measure(text: str, size: float, bold: bool) -> tuple[float, float]:
    """A plain font: 0.62 em a character, a line 1.3 em (px = pt here)."""
    return len(text) * size * 0.62 * (1.08 if bold else 1.0) + 4, size * 1.3 + 2


def top_down(scale: float, depth_mm: float = 600.0):
    def to_px(xy, z=0.0):
        xy = np.asarray(xy, float).reshape(-1, 2)
        return np.column_stack([xy[:, 0] * scale, (depth_mm - xy[:, 1]) * scale])
    return to_px


def line_of_bases(n: int = 12, width: float = 40.0, selected: str | None = None, label=lambda i: f"au-1-{i + 1}",
                  moved: dict | None = None):
    """A Wiener brigade in line: `n` bases shoulder to shoulder, facing north (`moved`: id -> a pose instead)."""
    moved = moved or {}
    pieces = tuple(ScenePiece(f"au-1-{i + 1}", label(i), "austria", 0, "infantry", "infantry", (width, 30.0), 10.0,
                              moved.get(f"au-1-{i + 1}", (200.0 + width * i, 300.0, 0.0)), "seen", {})
                   for i in range(n))
    scene = Scene(None, pieces, selected=selected)
    return [it for p in pieces for it in base_items(p, scene, "piece:seen", p.id, p.label)]


def boxes_of(items, to_px, sizes=measure):
    """Each placed label's box in screen px, and each piece outline's px polygon."""
    labels, outlines = [], []
    for it in items:
        if isinstance(it, Label):
            a = to_px([it.at], it.z_mm)[0]
            w, h = sizes(it.text, it.size, it.bold)
            x0, y0 = a[0] + it.offset_px[0], a[1] + it.offset_px[1]
            labels.append((it, (x0, y0, x0 + w, y0 + h)))
        elif isinstance(it, Area) and it.body:
            outlines.append((it.piece, to_px(it.polygons[0], it.z_mm)))
    return labels, outlines


def assert_clear(items, to_px, bounds):
    """No label over another, over a piece's outline (its true polygon, not its box) or out of `bounds`."""
    labels, outlines = boxes_of(items, to_px)
    for (a, ba), (b, bb) in itertools.combinations(labels, 2):
        assert not placer.overlaps(ba, bb), (a.text, b.text)
    for it, box in labels:
        assert placer.inside(box, bounds), (it.text, box)
        for pid, poly in outlines:
            assert not placer.Shape(poly.tolist()).hits(box, 0.0), (it.text, pid)


def test_a_brigade_in_line_shoulder_to_shoulder_labels_clear_of_each_other_and_of_the_bases():
    for scale in (0.5, 0.8, 1.2, 2.0):
        to_px = top_down(scale)
        bounds = (0.0, 0.0, 1000.0 * scale, 600.0 * scale)
        out = place_labels(line_of_bases(selected="au-1-5"), to_px, measure, bounds)
        assert_clear(out, to_px, bounds)
        shown = {it.piece: it for it in out if isinstance(it, Label)}
        assert "au-1-5" in shown  # the selected piece's, always
        if scale >= 1.2:  # room enough: every base named
            assert len(shown) == 12


def block_of_bases(rows: int = 3, selected: str | None = None):
    """Three lines of 12 bases, one behind the other, touching: the middle line's labels must go out of the block."""
    pieces = tuple(ScenePiece(f"au-{r}-{i + 1}", f"au-{r}-{i + 1}", "austria", 0, "infantry", "infantry", (40.0, 30.0),
                              10.0, (200.0 + 40.0 * i, 300.0 - 30.0 * r, 0.0), "seen", {})
                   for r in range(rows) for i in range(12))
    scene = Scene(None, pieces, selected=selected)
    return [it for p in pieces for it in base_items(p, scene, "piece:seen", p.id, p.label)]


def test_labels_shorten_move_out_with_a_leader_and_thin_out_as_the_view_zooms_out():
    counts, led, short = {}, {}, {}
    for scale in (0.2, 0.3, 0.7, 1.5):
        to_px = top_down(scale)
        bounds = (0.0, 0.0, 1000.0 * scale, 600.0 * scale)
        out = place_labels(block_of_bases(selected="au-1-1"), to_px, measure, bounds)
        assert_clear(out, to_px, bounds)
        labels = [it for it in out if isinstance(it, Label)]
        counts[scale] = len(labels)
        led[scale] = sum(it.leader_px is not None for it in labels)
        short[scale] = sum(it.text == it.short for it in labels)
        assert "au-1-1" in {it.piece for it in labels}
    assert counts[0.2] < counts[0.3] < counts[0.7] == counts[1.5] == 36  # thinned out as the view zooms out
    assert led[0.7] > 0 and led[1.5] > 0  # the middle line's labels out of the block, a line back to each
    assert short[0.7] > 0  # crowded: short names


def test_a_leader_runs_from_the_pieces_outline_to_its_label():
    to_px = top_down(0.7)
    out = place_labels(block_of_bases(), to_px, measure, (0, 0, 1200, 700))
    labels, outlines = boxes_of(out, to_px)
    polys = dict(outlines)
    led = [(it, box) for it, box in labels if it.leader_px is not None]
    assert led
    for it, box in led:
        x0, y0, x1, y1 = it.leader_px
        end = (box[0] + x1, box[1] + y1)
        assert box[0] - 0.01 <= end[0] <= box[2] + 0.01 and box[1] - 0.01 <= end[1] <= box[3] + 0.01  # on the box
        start = np.array([box[0] + x0, box[1] + y0])
        poly = polys[it.piece]  # on (the box of) its own piece's outline
        assert poly.min(0)[0] - 0.01 <= start[0] <= poly.max(0)[0] + 0.01
        assert poly.min(0)[1] - 0.01 <= start[1] <= poly.max(0)[1] + 0.01


def test_obstacles_the_renderer_draws_are_kept_clear_and_fixed_labels_stay_put():
    to_px = top_down(1.0)
    anchor = placer.Shape([(190, 270), (260, 270), (260, 340), (190, 340)])  # over the first bases' labels' spots
    title = Label("title", (0.0, 600.0), "a title", fixed=True, offset_px=(5.0, 5.0))
    out = place_labels([*line_of_bases(4), title], to_px, measure, (0, 0, 1000, 700), obstacles=[anchor])
    labels, _ = boxes_of(out, to_px)
    assert dict((it.kind, box) for it, box in labels)["title"][:2] == (5.0, 5.0)
    for it, box in labels:
        assert not anchor.hits(box, 0.0), it.text


def test_a_label_whose_subject_is_out_of_view_is_left_out_and_none_sticks_out_of_the_view():
    to_px = top_down(1.0)
    bounds = (0.0, 0.0, 420.0, 700.0)  # the view shows the first five bases only
    out = place_labels(line_of_bases(), to_px, measure, bounds)
    assert_clear(out, to_px, bounds)
    shown = {it.piece for it in out if isinstance(it, Label)}
    assert shown and shown <= {f"au-1-{i}" for i in range(1, 7)}


def test_short_names_drop_the_sides_prefix_or_come_from_the_roster():
    p = ScenePiece("au-1-3", "au-1-3", "austria", 0, None, "inf", (40, 30), 0, None, "seen", {})
    assert short_name(p) == "1-3"
    assert short_name(dataclasses.replace(p, label="gb-1")) == "gb-1"
    assert short_name(dataclasses.replace(p, label="AU block 3")) == "AU block 3"
    assert short_name(dataclasses.replace(p, short="III/3")) == "III/3"


def test_grid_coordinates_thin_out_where_fields_are_small():
    grid = type("G", (), {"cols": 40, "rows": 20, "field_mm": 30.0, "origin_x_mm": 0.0, "origin_y_mm": 0.0})()
    wide = grid_labels(grid, 50.0)
    narrow = grid_labels(grid, 12.0)
    assert [it.text for it in wide[:3]] == ["A", "B", "C"] and len(wide) == 40 + 20
    assert [it.text for it in narrow if it.align == "top"][:3] == ["A", "F", "K"]
    assert [it.text for it in narrow if it.align == "right"] == ["1", "5", "10", "15", "20"]


def test_from_frame_to_frame_labels_keep_their_places_and_a_moved_piece_is_placed_anew():
    to_px = top_down(0.8)
    bounds = (0.0, 0.0, 1200.0, 700.0)
    layout = LabelLayout()
    first = place_labels(line_of_bases(selected="au-1-2"), to_px, measure, bounds, layout=layout, view_key=1)
    before = {it.piece: it.offset_px for it in first if isinstance(it, Label)}
    moved = line_of_bases(selected="au-1-2", moved={"au-1-12": (640.0, 100.0, 0.0)})
    second = place_labels(moved, to_px, measure, bounds, layout=layout, view_key=1)
    assert_clear(second, to_px, bounds)
    after = {it.piece: it.offset_px for it in second if isinstance(it, Label)}
    kept = [pid for pid in before if pid in after and pid != "au-1-12" and before[pid] == after[pid]]
    assert len(kept) >= len(before) - 3  # nearly every label where it was
    assert layout.placement.searched <= 4
    assert "au-1-12" in after  # alone now: room for its label


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(50, 1150), st.floats(50, 550), st.floats(0, 359)), min_size=1, max_size=40),
       st.floats(0.3, 2.0), st.integers(0, 39))
def test_any_table_any_zoom_no_label_over_another_or_a_piece(poses, scale, chosen):
    pieces = tuple(ScenePiece(f"fr-{i}-{i % 3}", f"fr-{i}-{i % 3}", "france", 1, None, "inf", (40.0, 20.0), 0.0,
                              pose, "seen", {}) for i, pose in enumerate(poses))
    scene = Scene(None, pieces, selected=pieces[chosen % len(pieces)].id)
    items = [it for p in pieces for it in base_items(p, scene, "piece:seen", p.id, p.label)]
    to_px = top_down(scale)
    bounds = (0.0, 0.0, 1200 * scale, 600 * scale)
    out = place_labels(items, to_px, measure, bounds)
    labels, _ = boxes_of(out, to_px)
    chosen_label = [it for it, _ in labels if it.priority >= MUST]
    assert len(chosen_label) == 1  # the selected piece's label, always
    # every other label clear of everything (the selected one may have had to cover something, nowhere else left)
    rest = [it for it in out if not (isinstance(it, Label) and it.priority >= MUST)]
    sel_box = next(b for it, b in labels if it.priority >= MUST)
    assert_clear(rest, to_px, bounds)
    for it, box in labels:
        if it.priority < MUST:
            assert not placer.overlaps(box, sel_box), it.text
