"""Marker and QR figures on the real photos in shared/realdata (see its README), for `fieldglass bench vision`.

AprilTags: the reference corners in apriltag-nasa/*.txt are the AprilTag C library's own detections
(quad_decimate 1, refine_edges off). Two differences from our output, both measured on these photos:
- pixel convention: the library puts pixel centres at integer + 0.5, OpenCV at integers, so reference = OpenCV + 0.5
  px (mean measured offset +0.49 px in x, +0.36 px in y over 188 corners). OpenCV's CORNER_REFINE_APRILTAG, a port
  of the library, keeps the library's convention: on synthetic markers its corners sit +0.46 px off in x and y.
- corner order: the library goes counter-clockwise in the image from the corner ArUco calls top-right, so
  reference corners [0, 1, 2, 3] are ArUco's [1, 0, 3, 2].
The reference lists 47 tags; the photos show more (cube tops at grazing angles, side faces). The 24 extra tags we
find were each checked by eye and are listed in EXTRA_TAGS; a detection on neither list is a false positive.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.markers import detect_markers, detect_qr

APRILTAG_DICTIONARY = "DICT_APRILTAG_36h11"
APRILTAG_ID = 0  # every tag in these photos (NASA Swarmathon cubes) is tag36h11 id 0
TOLERANCE_PX = 1.5
REFERENCE_ORDER = [1, 0, 3, 2]  # reference corner k is ArUco corner REFERENCE_ORDER[k], and back
REFERENCE_SHIFT_PX = 0.5  # reference = OpenCV + 0.5 px

# Real tags missing from the reference, centres in OpenCV px (checked by eye).
EXTRA_TAGS = {
    "33369213973_9d9bb4cc96_c": [(370, 354), (526, 329), (585, 318), (667, 327), (677, 341), (688, 441)],
    "34085369442_304b6bafd9_c": [
        (37, 347), (446, 85), (476, 332), (492, 84), (610, 105), (635, 108), (655, 111), (749, 114),
    ],
    "34139872896_defdb2f8d9_c": [
        (301, 386), (314, 370), (362, 428), (389, 278), (464, 383), (481, 413), (524, 402), (535, 365),
        (565, 398), (752, 366),
    ],
}

PYZBAR_EXPECTED = {  # pyzbar's own tests: code128*.png and empty.png hold no QR code
    "qrcode.png": ["Thalassiodracon"],
    "qrcode_rotated.png": ["Thalassiodracon", "Thalassiodracon"],
    "code128.png": [],
    "code128_null_character.png": [],
    "empty.png": [],
}


def load_apriltag_reference(txt: Path) -> list[np.ndarray]:
    """Reference tags of one photo as (4, 2) corners in OpenCV's convention and ArUco's corner order."""
    tags = []
    for line in txt.read_text().splitlines():
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", line)]
        if len(nums) == 9:
            ref = np.array(nums[1:]).reshape(4, 2)
            tags.append(ref[REFERENCE_ORDER] - REFERENCE_SHIFT_PX)
    return tags


@dataclass
class AprilTagScore:
    reference: int = 0
    found: int = 0  # reference tags detected with every corner within TOLERANCE_PX
    off: list[str] = field(default_factory=list)  # reference tags detected, but a corner further off
    missed: list[str] = field(default_factory=list)
    extra: int = 0  # detections of the checked tags the reference lacks
    false_positives: list[str] = field(default_factory=list)  # detections on no known tag, or with another id
    errors: list[float] = field(default_factory=list)  # corner errors px of the found tags
    photos: int = 0
    seconds: float = 0.0


def score_apriltags(folder: Path) -> AprilTagScore:
    """Our AprilTag detections on apriltag-nasa/ against the reference corners and the checked extra tags."""
    score = AprilTagScore()
    for jpg in sorted(folder.glob("*.jpg")):
        refs = load_apriltag_reference(jpg.with_suffix(".txt"))
        image = cv2.imread(str(jpg))
        t0 = time.perf_counter()
        found = detect_markers(image, APRILTAG_DICTIONARY)
        score.seconds += time.perf_counter() - t0
        score.photos += 1
        score.reference += len(refs)
        centres = np.array([r.mean(axis=0) for r in refs])
        extras = np.array(EXTRA_TAGS.get(jpg.stem, []), dtype=float).reshape(-1, 2)
        matched: dict[int, float] = {}
        for m in found:
            c = m.corners.mean(axis=0)
            half_side = 0.5 * np.linalg.norm(m.corners - np.roll(m.corners, 1, axis=0), axis=1).mean()
            where = f"{jpg.stem} at ({c[0]:.0f}, {c[1]:.0f})"
            near_ref = np.linalg.norm(centres - c, axis=1) if len(refs) else np.array([np.inf])
            if m.id != APRILTAG_ID:
                score.false_positives.append(f"{where}: id {m.id}")
            elif near_ref.min() < half_side:
                k = int(near_ref.argmin())
                err = float(np.linalg.norm(m.corners - refs[k], axis=1).max())
                matched[k] = min(err, matched.get(k, np.inf))
                if err <= TOLERANCE_PX:
                    score.errors += np.linalg.norm(m.corners - refs[k], axis=1).tolist()
            elif len(extras) and np.linalg.norm(extras - c, axis=1).min() < half_side:
                score.extra += 1
            else:
                score.false_positives.append(where)
        for k, ref in enumerate(refs):
            c = ref.mean(axis=0)
            if k not in matched:
                score.missed.append(f"{jpg.stem} at ({c[0]:.0f}, {c[1]:.0f})")
            elif matched[k] <= TOLERANCE_PX:
                score.found += 1
            else:
                score.off.append(f"{jpg.stem} at ({c[0]:.0f}, {c[1]:.0f}): {matched[k]:.2f} px")
    return score


def score_pyzbar_folder(folder: Path) -> tuple[int, int, list[str]]:
    """(QR codes read with the right payload, QR codes expected, problems) on pyzbar's test images."""
    right, expected, problems = 0, 0, []
    for name, payloads in PYZBAR_EXPECTED.items():
        image = cv2.imread(str(folder / name))
        got = sorted(q.payload for q in detect_qr(image)) if image is not None else []
        expected += len(payloads)
        if got == sorted(payloads):
            right += len(payloads)
        else:
            problems.append(f"{name}: expected {payloads}, got {got}")
    return right, expected, problems


def score_zxing(folder: Path) -> tuple[int, int, float]:
    """(images whose exact text was decoded, images with a same-named .txt, seconds)."""
    decoded = total = 0
    seconds = 0.0
    for img_path in sorted(p for p in folder.glob("*/*") if p.suffix.lower() in (".png", ".jpg", ".webp")):
        txt = img_path.with_suffix(".txt")
        if not txt.exists():
            continue  # qrcode-7: parts of one structured-append code, with one .txt for the whole
        total += 1
        image = cv2.imread(str(img_path))
        if image is None:
            continue
        t0 = time.perf_counter()
        payloads = [q.payload for q in detect_qr(image)]
        seconds += time.perf_counter() - t0
        decoded += txt.read_bytes().decode("utf-8") in payloads
    return decoded, total, seconds


def realdata_figures(shared_realdata: Path) -> list[str]:
    """Printable lines: AprilTags against the reference, QR codes on pyzbar's and zxing-cpp's test images."""
    root = Path(shared_realdata)
    lines = []
    tags = root / "apriltag-nasa"
    if tags.is_dir():
        s = score_apriltags(tags)
        err = np.array(s.errors) if s.errors else np.array([np.nan])
        per_photo_ms = 1000 * s.seconds / max(s.photos, 1)
        lines += [
            f"AprilTag 36h11 (apriltag-nasa, {s.photos} photos): {s.found}/{s.reference} reference tags found with"
            f" every corner within {TOLERANCE_PX} px   (AprilTag C library 44, OpenCV defaults ~36)",
            f"  compared in OpenCV's convention: reference corners [1, 0, 3, 2] - {REFERENCE_SHIFT_PX} px",
            f"  corner error px of those: mean {err.mean():.3f}  max {err.max():.3f}",
            f"  false positives {len(s.false_positives)}; real tags missing from the reference, found too: {s.extra}",
            f"  {len(s.off)} found but off by more, {len(s.missed)} missed; {per_photo_ms:.0f} ms per photo",
        ]
        lines += [f"  false positive: {f}" for f in s.false_positives]
    else:
        lines.append(f"AprilTag: {tags} not found")
    qr = root / "pyzbar"
    if qr.is_dir():
        right, expected, problems = score_pyzbar_folder(qr)
        lines.append(f"QR (pyzbar test images): {right}/{expected} codes read with the right payload, none in the"
                     " Code 128 and empty images" if not problems else f"QR (pyzbar test images): {right}/{expected}")
        lines += [f"  {p}" for p in problems]
    zxing = root / "qrcode-zxing"
    if zxing.is_dir():
        decoded, total, seconds = score_zxing(zxing)
        lines.append(f"QR (zxing-cpp test images): {decoded}/{total} decoded exactly   (pyzbar alone ~95, zxing-cpp"
                     f" ~123); {1000 * seconds / max(total, 1):.0f} ms per image")
    return lines
