"""The live dice watch on rendered frames: a throw read once it settles, in order along x, never while rolling, not
again for a hand passing over, and nothing from an empty tray or the pieces' markers."""

from __future__ import annotations

import time
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.dice_watch import DiceWatch
from vision.synthetic import PlacedDie, RenderOptions, render_table
from vision.synthetic_dice import dice_camera, dice_scene

CLEAN = RenderOptions(blur_sigma_px=0.5, noise_sigma=1.5, seed=3)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(7)
    scene = dice_scene(rng, 0, surface="felt", pieces=3)
    cam = dice_camera((1280, 720))
    tray = ((128.0, 65.0), (512.0, 65.0), (512.0, 295.0), (128.0, 295.0))
    return scene, cam, tray


def _die(x, y, value, turn=10.0, side=18.0):
    return PlacedDie(x, y, side, value, turn)


THROW = (_die(300.0, 150.0, 5), _die(200.0, 210.0, 3, 40.0), _die(420.0, 120.0, 6, 15.0))
ROLLING = [(_die(180.0 + 40 * k, 110.0 + 25 * k, 1 + k % 6, 20.0 * k),) for k in range(4)]


class Feed:
    def __init__(self, table, watch):
        self.scene, self.cam, _ = table
        self.watch = watch
        self.t, self.number = 0.0, 0
        self.cache: dict = {}

    def frames(self, dice, n: int, step_s: float = 0.1) -> list:
        key = tuple(dice)
        if key not in self.cache:
            self.cache[key] = render_table(replace(self.scene, dice=key), self.cam, CLEAN)[0]
        frame = self.cache[key]
        out = []
        for _ in range(n):
            self.t += step_s
            self.number += 1
            th = self.watch.feed(frame, self.t, self.number, self.cam.intrinsics, self.cam.pose)
            if th is not None:
                out.append(th)
        return out


def _watch(table, **kw):
    scene, _, tray = table
    return DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, tray, **kw)


def test_a_settled_throw_is_read_once_in_order_along_x(table):
    feed = Feed(table, _watch(table))
    assert feed.frames((), 5) == []  # an empty tray: nothing
    rolling = []
    for dice in ROLLING:
        rolling += feed.frames(dice, 1)
    assert rolling == []  # still rolling: nothing read
    early = feed.frames(THROW, 5)  # 0.5 s still: not yet settled
    assert early == []
    throws = feed.frames(THROW, 3)
    assert len(throws) == 1
    th = throws[0]
    assert th.values == (3, 5, 6)  # x = 200, 300, 420 mm
    assert th.number == 1 and th.readable and th.text() == "3, 5, 6"
    xs = [p[0] for p in th.table_mm]
    assert xs == sorted(xs)
    assert np.allclose(xs, [200.0, 300.0, 420.0], atol=6.0)
    assert th.crop.ndim == 3 and min(th.crop.shape[:2]) > 20
    assert cv2.imdecode(np.frombuffer(th.jpeg, np.uint8), cv2.IMREAD_COLOR) is not None
    assert feed.frames(THROW, 10) == []  # lying still: read once


def test_a_hand_passing_over_the_tray_throws_nothing_a_new_throw_does(table):
    feed = Feed(table, _watch(table))
    feed.frames((), 2)
    feed.frames(ROLLING[0], 1)
    assert len(feed.frames(THROW, 8)) == 1
    feed.frames(ROLLING[1] + THROW, 2)  # something over the tray, then gone: the dice as they were
    assert feed.frames(THROW, 10) == []
    again = (_die(250.0, 150.0, 2), _die(350.0, 200.0, 4, 30.0))
    feed.frames(ROLLING[2], 1)
    throws = feed.frames(again, 8)
    assert [t.values for t in throws] == [(2, 4)] and throws[0].number == 2


def test_dice_outside_the_tray_are_not_read(table):
    feed = Feed(table, _watch(table))
    feed.frames((), 2)
    outside = (_die(60.0, 180.0, 4), _die(300.0, 150.0, 2))  # x = 60 is off the tray (128-512)
    feed.frames(ROLLING[0], 1)
    throws = feed.frames(outside, 8)
    assert [t.values for t in throws] == [(2,)]


def test_without_a_tray_the_whole_table_is_watched_off_the_bases(table):
    scene, cam, _ = table
    watch = DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, None,
                      base_mm={p.piece.id: p.piece.base_mm for p in scene.placements})
    feed = Feed(table, watch)
    feed.frames((), 2)
    near = (_die(60.0, 180.0, 4), _die(300.0, 150.0, 2))
    feed.frames(ROLLING[0], 1)
    throws = feed.frames(near, 8)
    assert [t.values for t in throws] == [(4, 2)]


def test_no_table_pose_watches_nothing(table):
    scene, cam, tray = table
    watch = _watch(table)
    frame = render_table(replace(scene, dice=THROW), cam, CLEAN)[0]
    assert all(watch.feed(frame, 0.1 * k, k, cam.intrinsics, None) is None for k in range(12))


def test_a_die_left_lying_is_not_read_again_with_the_next_throw(table):
    feed = Feed(table, _watch(table))
    feed.frames((), 2)
    first = (_die(300.0, 150.0, 5),)
    feed.frames(ROLLING[0], 1)
    assert [t.values for t in feed.frames(first, 8)] == [(5,)]
    second = (*first, _die(200.0, 210.0, 3, 40.0))  # the defender throws his die beside the attacker's
    feed.frames(ROLLING[1] + first, 1)
    assert [t.values for t in feed.frames(second, 8)] == [(3,)]


def test_in_the_background_the_throw_comes_with_a_later_frame(table):
    watch = _watch(table, background=True)
    feed = Feed(table, watch)
    try:
        feed.frames((), 2)
        feed.frames(ROLLING[0], 1)
        got = feed.frames(THROW, 7)  # settles at the 6th still frame; read in the watch's own thread
        deadline = 50
        while not got and deadline:
            time.sleep(0.05)
            got = feed.frames(THROW, 1)
            deadline -= 1
        assert [t.values for t in got] == [(3, 5, 6)]
        assert feed.frames(THROW, 5) == []
    finally:
        watch.close()


def test_restarted_for_another_camera_the_watch_starts_afresh_and_a_throw_being_read_is_read_first(table):
    """A rig's dice camera changes (gui/rig_worker.py): the throw the first camera saw settle, still being read, is
    read with that camera's view of the tray; the other camera's frames are then no motion against the first's, and
    the dice lying there are not read again; its next throw is, numbered on."""
    scene, _, tray = table
    watch = _watch(table, background=True)
    first = Feed(table, watch)
    other = Feed((scene, dice_camera((1280, 720), tilt_deg=30.0), tray), watch)
    other.cache[THROW] = render_table(replace(scene, dice=THROW), other.cam, CLEAN)[0]  # its frame at once, below
    try:
        first.frames((), 2)
        first.frames(ROLLING[0], 1)
        got = first.frames(THROW, 8)  # settled after 0.6 s still: read in the watch's own thread
        watch.restart()
        other.t, other.number = first.t, first.number
        got += other.frames(THROW, 1)
        assert [t.values for t in got] == [(3, 5, 6)]
        assert np.allclose([p[0] for p in got[0].table_mm], [200.0, 300.0, 420.0], atol=6.0)
        assert other.frames(THROW, 12) == []  # the same dice through the other camera: no motion, no new throw
        other.frames(ROLLING[1], 1)
        again = other.frames((_die(350.0, 200.0, 2, 25.0),), 7)
        deadline = 50
        while not again and deadline:
            time.sleep(0.05)
            again = other.frames((_die(350.0, 200.0, 2, 25.0),), 1)
            deadline -= 1
        assert [(t.number, t.values) for t in again] == [(2, (2,))]
    finally:
        watch.close()


def test_the_light_stepping_throws_nothing(table):
    """A camera's exposure stepping (every pixel 30 levels brighter, then back) is no motion: the dice lying in the
    tray are not read again."""
    watch = _watch(table)
    feed = Feed(table, watch)
    feed.frames((), 2)
    feed.frames(ROLLING[0], 1)
    assert len(feed.frames(THROW, 8)) == 1
    frame = feed.cache[tuple(THROW)]
    brighter = np.clip(frame.astype(np.int16) + 30, 0, 255).astype(np.uint8)
    scene, cam, _ = table
    got = [watch.feed(brighter if k < 10 else frame, 10.0 + 0.1 * k, 100 + k, cam.intrinsics, cam.pose)
           for k in range(20)]
    assert [g for g in got if g is not None] == []


def test_a_die_of_the_cloths_colour_is_read_where_it_changed_the_table_little(table):
    """A die of the felt's own colour, its pips dark: the watch's small copy changes by less than its motion level
    where it lies, yet the die was not there before: it is read (vision.dice_watch.CHANGE_LEVEL)."""
    scene, _, _ = table
    cam = dice_camera((1920, 1080))
    empty = render_table(scene, cam, CLEAN)[0]
    x, y = (int(v) for v in cam.project(np.array([[300.0, 150.0, 0.0]]))[0])
    felt = tuple(float(v) for v in np.median(empty[y - 15 : y + 15, x - 15 : x + 15].reshape(-1, 3), axis=0))
    die = PlacedDie(300.0, 150.0, 18.0, 4, 10.0, felt, tuple(0.35 * v for v in felt))
    feed = Feed((scene, cam, None), DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, None))
    feed.frames((), 3)
    assert [t.values for t in feed.frames((die,), 10)] == [(4,)]


def test_fresh_noise_in_every_frame_throws_nothing_more(table):
    """A camera's noise and JPEG differ in every frame (the light does not): a throw is read once, and nothing after
    it while the dice lie still, though the watch looks for smaller changes where dice land than for motion."""
    scene, _, _ = table
    cam = dice_camera((1280, 720))
    watch = DiceWatch(scene.layout.width_mm, scene.layout.depth_mm, None)
    got, t = [], 0.0
    for k, dice in enumerate([()] * 3 + [ROLLING[0]] + [THROW] * 20):
        opts = RenderOptions(blur_sigma_px=0.6, noise_sigma=4.0, jpeg_quality=85, uneven_light=0.25, seed=100 + k,
                             light_seed=1)
        t += 0.1
        th = watch.feed(render_table(replace(scene, dice=dice), cam, opts)[0], t, k, cam.intrinsics, cam.pose)
        if th is not None:
            got.append(th.values)
    assert got == [(3, 5, 6)]
