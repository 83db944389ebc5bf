"""Shared fixtures: where the real photos live, and a virtual camera over a 2.4 x 1.2 m table."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# The suite's property tests draw the same examples on every run (CI never fails by the luck of the draw);
# HYPOTHESIS_PROFILE=explore draws new ones, to look for bugs.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

from calibration.camera import CameraIntrinsics, CameraPose  # noqa: E402

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


@pytest.fixture(scope="session")
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f"real photos not found at {REALDATA}")
    return REALDATA


def camera_over_table(tilt_deg: float = 15.0, size=(3840, 2160), height_mm=1700.0, f_px=2300.0):
    """A distorted camera above the centre of a 2400 x 1200 table, tilted toward +y, and its pose."""
    w, h = size
    k = np.array([[f_px * w / 3840, 0, w / 2 - 0.5], [0, f_px * w / 3840, h / 2 - 0.5], [0, 0, 1.0]])
    cam = CameraIntrinsics((w, h), k, np.array([-0.08, 0.03, 0.0005, -0.0003, 0.0]))
    t = np.radians(tilt_deg)
    # Camera axes in table coordinates: image x along +x, image y toward -y (near edge at the bottom), looking down.
    x_axis = np.array([1.0, 0, 0])
    z_axis = np.array([0, np.sin(t), -np.cos(t)])
    y_axis = np.cross(z_axis, x_axis)
    rot = np.vstack([x_axis, y_axis, z_axis])
    centre = np.array([1200.0, 600.0 - height_mm * np.tan(t), height_mm])
    pose = CameraPose(cv2.Rodrigues(rot)[0].ravel(), -rot @ centre)
    return cam, pose


@pytest.fixture
def table_camera():
    return camera_over_table()
