"""`fieldglass bench vision --rig`: the rendered rig read and fused, and the tally it prints."""

from __future__ import annotations

import numpy as np
import pytest

from fieldglass.benchmarks import rig as rig_bench
from fieldglass.benchmarks.rig import RigTally, _tally, measure_rig
from fieldglass.cli import main
from vision.pieces import PiecePose
from vision.rig import FusedPiece, RigReading
from vision.synthetic import random_scene, standard_layout


def test_a_small_rendered_rig_is_found_once_and_fused_where_both_see():
    tally = measure_rig((1280, 720), 1, seed=4, degraded=False, n_pieces=30)
    assert tally.scenes == 1 and tally.seen >= 25 and tally.both >= 3
    assert tally.found == tally.seen and tally.fused == tally.both
    assert (tally.doubled, tally.false, tally.disagreements, tally.unregistered) == (0, 0, 0, 0)
    assert max(tally.errors_mm) < 1.0


def test_the_tally_counts_false_doubled_and_unfused_pieces():
    scene = random_scene(standard_layout(), 3, np.random.default_rng(2))
    a, b, c = scene.placements
    visible = {"west": {a.piece.id, b.piece.id}, "east": {b.piece.id}}

    def fused(p, dx, views):
        return FusedPiece(PiecePose(p.piece.id, p.piece.marker, p.x_mm + dx, p.y_mm, 0.0), views)

    reading = RigReading((fused(a, 0.5, ("west",)), fused(b, 0.2, ("west",)), fused(b, 0.2, ("west",)),
                          fused(c, 0.0, ("east",))), (), (), (), ())
    tally = RigTally()
    _tally(tally, reading, scene, visible)
    assert (tally.seen, tally.both, tally.found, tally.fused, tally.doubled, tally.false) == (2, 1, 2, 0, 1, 1)
    assert tally.errors_mm == pytest.approx([0.5, 0.2])
    assert "2/2" in tally.row("x") and "0/1" in tally.row("x")


def test_bench_vision_rig_prints_the_table(monkeypatch, capsys):
    monkeypatch.setattr(rig_bench, "RESOLUTIONS", ((960, 540),))
    monkeypatch.setattr(rig_bench, "PIECES", 20)
    assert main(["bench", "vision", "--rig", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "recall" in out and "p95 mm" in out and "960x540 clean" in out and "960x540 degraded" in out
    assert "4K" not in out and "accuracy:" not in out  # only the rig
