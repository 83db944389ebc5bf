"""The background scan's tiles: bounded in pixels, so a 4K frame's tile costs what a smaller frame's does."""

import numpy as np
import pytest

from vision.stream import ChangeConfig, ChangeDetector


def _pass(detector: ChangeDetector, w: int, h: int) -> list[tuple[int, int, int, int]]:
    cols, rows = detector._tile_grid(w, h)
    return [detector._next_tile(w, h) for _ in range(cols * rows)]


@pytest.mark.parametrize(("size", "grid"), [((1920, 1080), (12, 6)), ((3840, 2160), (17, 9))])
def test_a_pass_of_tiles_covers_the_frame_each_tile_within_the_bound(size, grid):
    w, h = size
    detector = ChangeDetector("DICT_4X4_250")
    assert detector._tile_grid(w, h) == grid
    tiles = _pass(detector, w, h)
    cover = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in tiles:
        assert (x1 - x0) * (y1 - y0) <= detector.config.refresh_tile_px * 1.1  # (edges on 8 px cells)
        cover[y0:y1, x0:x1] += 1
    assert (cover >= 1).all()  # every px read once a pass (twice at most along a tile's edge rounded out to a cell)
    assert cover.sum() <= 1.05 * w * h
    assert detector._next_tile(w, h) == tiles[0]  # and the next pass starts again


def test_the_bound_only_ever_adds_tiles():
    small = ChangeDetector("DICT_4X4_250", ChangeConfig(refresh_tiles=(4, 2), refresh_tile_px=10**9))
    assert small._tile_grid(3840, 2160) == (4, 2)
    tight = ChangeDetector("DICT_4X4_250", ChangeConfig(refresh_tiles=(4, 2), refresh_tile_px=100 * 100))
    cols, rows = tight._tile_grid(3840, 2160)
    assert (3840 / cols) * (2160 / rows) <= 100 * 100 and cols / rows == pytest.approx(2, rel=0.1)
