"""`fieldglass bench live`: the scripted stretch, the clocked run's bookkeeping and what the report counts (figures
are printed, never asserted: these are not timed tests)."""

import pytest

from fieldglass.benchmarks.live import PHASES, LiveFigures, build_stretch, knock_costs, report, run_clocked


@pytest.fixture(scope="module")
def stretch():
    return build_stretch((640, 360), fps=30.0, n_pieces=12, scale=0.15)


def test_the_stretch_plays_still_hand_move_and_bump_in_order(stretch):
    assert len(stretch.jpegs) == len(stretch.phases)
    order = [p for k, p in enumerate(stretch.phases) if k == 0 or stretch.phases[k - 1] != p]
    assert order == ["still", "hand", "still", "move", "still", "bump", "still"]
    assert all(j[:2] == b"\xff\xd8" for j in stretch.jpegs)  # JPEG, as an MJPG camera sends it


def test_every_frame_is_either_read_or_counted_dropped_and_read_in_order(stretch):
    figures = run_clocked(stretch)
    assert figures.frames == len(stretch.jpegs)
    assert figures.processed == sorted(set(figures.processed))  # oldest first, none twice
    assert figures.processed[-1] == figures.frames - 1  # the last frame is never dropped: nothing newer came
    assert figures.kinds[0] == "full"
    assert 0 <= figures.warmup < figures.frames and len(figures.background) == len(figures.processed)
    assert len(figures.cost_s) == len(figures.latency_s) == len(figures.processed)
    assert all(lat >= cost for lat, cost in zip(figures.latency_s, figures.cost_s, strict=True))


def test_the_report_counts_drops_by_phase(stretch):
    n = len(stretch.phases)
    processed = [k for k in range(n) if k % 3 != 1]  # every third frame dropped
    figures = LiveFigures(n, processed, [0.01] * len(processed), [0.02] * len(processed),
                          ["regions"] * len(processed), [0.005] * len(processed))
    lines = report(stretch, figures, plain=[0.02] * 5, full=[0.1] * 2)
    dropped = [k for k in range(n) if k % 3 == 1]
    still = sum(p == "still" for p in stretch.phases)
    still_dropped = sum(stretch.phases[k] == "still" for k in dropped)
    line = next(x for x in lines if x.startswith("frames dropped"))
    assert f"{len(dropped)} of {n}" in line and f"still table: {still_dropped} of {still}" in line
    assert any("ratio to the plain       p50   0.50" in x for x in lines)
    figures.warmup = 4  # frames 1-4 came while the first full scan ran: 1 and 4 were dropped
    lines = report(stretch, figures, plain=[0.02] * 5, full=[0.1] * 2)
    after = [k for k in range(5, n) if stretch.phases[k] == "still"]
    line = next(x for x in lines if x.strip().startswith("after the warm-up        still"))
    assert f"{sum(k in dropped for k in after)} of {len(after)} dropped" in line and "4 frames" in line
    assert "2 of them dropped" in line
    assert any("10.0 % of a full scan" in x for x in lines)
    assert set(PHASES) >= {p for p in stretch.phases}


def test_the_knocked_frame_is_re_registered_without_a_full_scan(stretch):
    rebased, full = knock_costs(stretch, repeats=2)
    assert len(rebased) == len(full) == 2  # each time the knock was seen and re-registered


def test_the_grabber_decodes_in_a_pool_and_every_frame_is_decoded_or_counted(stretch):
    figures = run_clocked(stretch, workers=2)
    assert figures.decoders == 2
    assert len(figures.decode_s) + figures.decoder_dropped == figures.frames
    assert figures.processed == sorted(set(figures.processed))  # in order though decoded two at a time
