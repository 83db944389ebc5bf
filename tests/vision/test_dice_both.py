"""The two dice readers merged (vision/dice_both.py): a die either reads is kept once; two values for one die make it
unreadable, never a guess; an unsure reading gives way to a sure one."""

from __future__ import annotations

from vision.dice import DieReading
from vision.dice_both import merge_readings


def _r(x, y, value, confidence=0.9, side=40.0):
    return DieReading(value, (x, y), side, 0.0, confidence)


def test_a_die_either_reader_reads_is_kept_once():
    faces = [_r(100, 100, 5), _r(300, 100, None, 0.4)]
    pips = [_r(104, 98, 5, 0.95), _r(300, 102, 3), _r(500, 300, 2)]
    merged = merge_readings(faces, pips)
    assert [(round(m.centre_px[0]), m.value) for m in merged] == [(100, 5), (300, 3), (500, 2)]
    assert merged[0].confidence == 0.95  # agreeing: the surer confidence, the first reader's face


def test_two_values_for_one_die_make_it_unreadable():
    merged = merge_readings([_r(100, 100, 5, 0.9)], [_r(103, 101, 6, 0.7)])
    assert [(m.value, m.confidence) for m in merged] == [(None, 0.7)]


def test_dice_half_a_side_apart_are_two_dice():
    merged = merge_readings([_r(100, 100, 4)], [_r(125, 100, 4)])
    assert len(merged) == 2
