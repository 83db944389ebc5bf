"""Dice read from real photos of thrown dice (tests/data/dice_real: webcam photos of white dice; tests/data/dice_real2:
overhead and coloured dice, three other sources; tests/data/dice_real3: webcam close-ups and oblique throws; all
with hand-checked truth): the truth is whole, no die is given a wrong value with high confidence, no reading lies
away from a die, an empty table gives no die. The issue's 98 % of values right is not reached yet (xfail, strict:
it fails loudly once it is)."""

import json

import pytest

from common.errors import InputError
from fieldglass.benchmarks.dice_real import DEFAULT_DIR, DEFAULT_DIRS, VIEWS, load_truth, measure_real, photo_options
from vision.dice_both import read_dice_both
from vision.sources import read_image

PHOTOS = load_truth(DEFAULT_DIR)
SETS = {d.name: d for d in DEFAULT_DIRS}
_TALLIES: dict = {}


def _tally(name: str):
    if name not in _TALLIES:
        _TALLIES[name], _ = measure_real(SETS[name], out=lambda line: None)
    return _TALLIES[name]


@pytest.fixture(scope="module")
def tally():
    return _tally(DEFAULT_DIR.name)


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_truth_file_is_whole_and_every_photo_loads(name):
    folder = SETS[name]
    photos = load_truth(folder)
    doc = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    files = [entry["file"] for entry in doc["images"]]
    assert len(files) == len(set(files)), "a photo listed twice"
    on_disk = {p.name for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")}
    assert on_disk == set(files), "a photo without truth, or truth without its photo"
    for entry in doc["images"]:
        assert entry["licence"] and entry["source"]["repo"] and entry["source"]["commit"] and entry["source"]["path"]
    assert len(photos) == len(files)
    assert any(p.dice for p in photos) and any(not p.dice for p in photos), "photos with dice and empty tables"
    for photo in photos:
        assert photo.view in VIEWS
        image = read_image(photo.file)
        h, w = image.shape[:2]
        for die in photo.dice:
            assert die.value is None or 1 <= die.value <= 6
            x, y = die.centre_px
            assert 0 <= x < w and 0 <= y < h, (photo.file.name, die)
            assert 10 <= die.side_px <= min(w, h) / 2, (photo.file.name, die)
        # no two dice closer than a side: a die listed twice (two unreadable dice cut by the frame's edge may be)
        for i, a in enumerate(photo.dice):
            for b in photo.dice[i + 1:]:
                if a.value is None and b.value is None:
                    continue
                d = ((a.centre_px[0] - b.centre_px[0]) ** 2 + (a.centre_px[1] - b.centre_px[1]) ** 2) ** 0.5
                assert d > 0.7 * min(a.side_px, b.side_px), (photo.file.name, a, b)


def test_a_broken_truth_file_is_one_line_naming_it(tmp_path):
    (tmp_path / "truth.json").write_text('{"images": [{"file": "a.jpg", "licence": "MIT", "source": "x",'
                                         ' "view": "sideways", "dice": []}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"truth\.json: image 0 \(a\.jpg\): view 'sideways'"):
        load_truth(tmp_path)


@pytest.mark.parametrize("name", sorted(SETS))
def test_no_die_is_given_a_wrong_value_with_high_confidence(name):
    tally = _tally(name)
    assert tally.dice >= 150
    assert tally.wrong_sure == 0


PHANTOMS = {
    "dice_real2": "issue 29: one reading beside the dice in a tray of 36 (rune_pxl_192403811)",
    "dice_real3": "issue 29: two readings beside the dice of an oblique throw (robl_301efab8), read once unseen",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason=PHANTOMS[n])) if n in PHANTOMS else n for n in sorted(SETS)])
def test_no_reading_lies_away_from_a_die(name):
    assert _tally(name).phantoms == 0


EMPTY = [(p, photos) for photos in map(load_truth, DEFAULT_DIRS) for p in photos if not p.dice]


@pytest.mark.parametrize(("photo", "photos"), EMPTY, ids=[p.file.name for p, _ in EMPTY])
def test_an_empty_table_gives_no_die(photo, photos):
    assert read_dice_both(read_image(photo.file), photo_options(photo, photos)) == []


def test_two_touching_dice_whose_pips_run_together_are_read_as_two():
    """mp65_valid_76: a 4 and a 5 touching on pale wood; the gap between them is faint and their pips (and a side
    face's between) make one group of 10. No face has more than 6 pips: the group is split where they lie farthest
    apart (vision.dice_pips._faces_of_groups) and both are read."""
    photo = next(p for p in PHOTOS if p.file.name == "mp65_valid_76.jpg")
    read = read_dice_both(read_image(photo.file), photo_options(photo, PHOTOS))
    for die in photo.dice:
        near = [r for r in read if abs(r.centre_px[0] - die.centre_px[0]) + abs(r.centre_px[1] - die.centre_px[1])
                < 0.5 * die.side_px]
        assert [r.value for r in near] == [die.value], die


def test_a_six_on_an_even_grid_is_read():
    """dt_dice31 (set 2's development half): a cream die whose 6 is a 2 x 3 block of pips, its columns as close as
    its rows, not the textbook 6 with its columns at the face's corners (vision.dice._LAYOUTS)."""
    photos = load_truth(SETS["dice_real2"])
    photo = next(p for p in photos if p.file.name == "dt_dice31.jpg")
    read = read_dice_both(read_image(photo.file), photo_options(photo, photos))
    assert [r.value for r in read] == [6]

def test_a_face_whose_pip_runs_into_the_gap_beside_it_is_read():
    """kp_24 (set 2's development half): a white 5 touching two dice; one corner pip runs into the dark gap beside
    it and is no round pip candidate. The four found fit a 5 with one place empty, a pip's spot lies there, and the
    face is read as a 5 (vision.dice_pips._completed); its neighbours are read as before."""
    photos = load_truth(SETS["dice_real2"])
    photo = next(p for p in photos if p.file.name == "kp_24.jpg")
    read = read_dice_both(read_image(photo.file), photo_options(photo, photos))
    die = photo.dice[5]
    near = [r for r in read if abs(r.centre_px[0] - die.centre_px[0]) + abs(r.centre_px[1] - die.centre_px[1])
            < 0.5 * die.side_px]
    assert [r.value for r in near] == [5]


def _read_at(photo_name: str, k: int, folder: str = "dice_real2"):
    """The values read within half a side of die `k` of a photo of set 2 (or `folder`)."""
    photos = load_truth(SETS[folder])
    photo = next(p for p in photos if p.file.name == photo_name)
    read = read_dice_both(read_image(photo.file), photo_options(photo, photos))
    die = photo.dice[k]
    return die.value, [r.value for r in read if abs(r.centre_px[0] - die.centre_px[0])
                       + abs(r.centre_px[1] - die.centre_px[1]) < 0.5 * die.side_px]


@pytest.mark.parametrize(("photo", "k"), [("rune_pxl_192403811.jpg", 9), ("rune_pxl_192403811.jpg", 16),
                                          ("rune_pxl_192137038.jpg", 1)])
def test_a_six_between_the_even_grid_and_the_corners_is_read(photo, k):
    """Marbled 6s of set 2's development half whose columns sit between an even grid and the face's corners: a
    6 may be stretched by up to 1 / 0.6 between the two layouts (vision.dice_pips._affine_misfit)."""
    value, read = _read_at(photo, k)
    assert (value, read) == (6, [6])


@pytest.mark.parametrize(("photo", "k"), [("rune_pxl_192403811.jpg", 34), ("rune_pxl_192137038.jpg", 6)])
def test_a_large_one_pip_whose_face_ends_close_round_it_is_read(photo, k):
    """A "1" whose pip is large, its face ending within 4 of the pip's radii: the face round it is judged to near
    its end, not to where another face's pips would sit (vision.dice_pips._face_check)."""
    value, read = _read_at(photo, k)
    assert (value, read) == (1, [1])


def test_a_one_with_a_faint_step_on_one_side_of_its_face_is_read():
    """kp_24 #8: a white 1 touching a red die; one step on its face near the pip is not its face's end (the face
    is judged to near its end only where it ends close round the pip on three sides)."""
    assert _read_at("kp_24.jpg", 8) == (1, [1])


def test_a_two_whose_face_is_shaded_on_one_side_is_read():
    """rwc_00052 #1 (set 3's development half): a grey 2 near the webcam's vignette, its face's end on one side
    1.6 times as far as on the other; with all four ends well beyond its pips it is no part of a larger face."""
    assert _read_at("rwc_00052.jpg", 1, "dice_real3") == (2, [2])


def test_a_face_joined_to_a_touching_dies_pip_is_read():
    """rwc_00074 #2 (set 3's development half): a white 4 touching a white die whose pip joins its group across
    the faint gap between them; that pip is farther off than the 4's own pips are from each other, so the group
    is read as the 4 and the stray pip apart (vision.dice_pips._gap_ratio)."""
    assert _read_at("rwc_00074.jpg", 2, "dice_real3") == (4, [4])

NOT_YET = {
    "dice_real": "issue 29: 96.8 % right (both readers merged): 6 dice of the held-out photos missed (two touching dice"
                 " read as one group of pips at half size, a lone 1 on a face with uneven edges)",
    "dice_real2": "issue 29: 59.5 % right on the second set read once unseen, 69 % after developing on half of it:"
                  " under half of the small, soft marbled and coloured dice in felt trays, 96 % of the overhead white,"
                  " red and black dice",
    "dice_real3": "issue 29: 53.3 % right on the third set read once unseen, 56 % after developing on half: 62 % of the"
                  " webcam close-ups (touching, grey and translucent dice, printed rings), 34 % of the oblique throws",
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[n]))
                                  for n in sorted(SETS)])
def test_at_least_98_percent_of_the_dice_are_read_right(name):
    tally = _tally(name)
    assert tally.right >= 0.98 * tally.dice

