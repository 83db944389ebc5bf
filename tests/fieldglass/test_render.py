"""The exports' OpenCV renderer draws a system's picture items where they are, in their tones."""

from __future__ import annotations

import numpy as np

from fieldglass.render import draw
from rules.picture import Area, Dot, Label, Line, rgb


def to_px(xy):  # 1 mm = 1 px, north up in a 200 x 200 image
    xy = np.asarray(xy, float).reshape(-1, 2)
    return np.column_stack([xy[:, 0], 200.0 - xy[:, 1]])


def bgr(tone):
    r, g, b = rgb(tone)
    return np.array([b, g, r])


def test_areas_lines_dots_and_labels_land_where_the_picture_says():
    img = np.zeros((200, 200, 3), np.uint8)
    pic = (Area("zone", (((20, 20), (80, 20), (80, 80), (20, 80)),), "reach", fill=1.0, pen="none"),
           Line("fire-line", (((100, 150), (190, 150)),), "blocked", width=3),
           Line("dashed", (((100, 100), (190, 100)),), "clear", pen="dash", width=2),
           Dot("contact", (150, 40), "contact-flank", radius_px=5),
           Label("label", (20, 190), "A1", "text"))
    draw(img, pic, to_px)
    assert np.array_equal(img[150, 50], bgr("reach"))  # the area's inside (y 50 mm -> row 150)
    assert np.array_equal(img[10, 10], [0, 0, 0])  # outside everything
    assert np.abs(img[50, 150].astype(int) - bgr("blocked")).max() < 40  # on the solid line
    dashes = [bool(img[100, x].any()) for x in range(100, 190)]
    assert any(dashes) and not all(dashes)  # a dashed pen leaves gaps
    assert np.abs(img[160, 150].astype(int) - bgr("contact-flank")).max() < 40
    assert img[10:25, 18:40].any()  # the label's plate and text
