"""Frames of a synthetic table with a player's hand reaching in over a chosen point: the renderer of a scripted game
built outside vision (fieldglass/scripted_board.py), as vision/scripted.py renders the grid's scripted game.

The table without the hand is drawn once per scene (`HandRenderer` keeps it while the scene stays the same); the hand
(vision.synthetic's arm, reaching in from the nearer long edge) is drawn over it, then the lens distortion, blur and
the frame's own sensor noise.
"""

from __future__ import annotations

import numpy as np

from vision import synthetic
from vision.synthetic import RenderOptions, SyntheticScene, VirtualCamera


class HandRenderer:
    """Renders scenes through one camera; the last scene's static drawing is reused while the scene is equal."""

    def __init__(self, camera: VirtualCamera, blur_sigma_px: float = 0.6, noise_sigma: float = 2.0):
        self.camera = camera
        self.geom = synthetic._geometry(camera)
        self.blur_sigma_px, self.noise_sigma = blur_sigma_px, noise_sigma
        self._key = None
        self._static = None

    def render(self, scene: SyntheticScene, key, seed: int,
               hand: tuple[float, float, float] | None = None, hand_seed: int = 0) -> np.ndarray:
        """One BGR frame of `scene` (`key`: anything equal for equal scenes); `hand` (x_mm, y_mm, reach 0..1): a hand
        reaching toward that table point, reach 1 over it; `seed` the frame's noise."""
        if key != self._key or self._static is None:
            self._static = synthetic._render_static(scene, self.geom)
            self._key = key
        canvas = self._static.canvas
        if hand is not None:
            tx, ty, reach = hand
            canvas = canvas.copy()
            arm = synthetic._hand_shapes(scene.layout, [(float(tx), float(ty))], int(hand_seed), float(reach))
            synthetic._draw_hand(canvas, self.geom, arm)
        frame = self.geom.distort(canvas)
        opts = RenderOptions(blur_sigma_px=self.blur_sigma_px, noise_sigma=self.noise_sigma, seed=seed)
        return synthetic._finish(frame, opts, np.random.default_rng([int(seed), 0x4E4F49]))


__all__ = ["HandRenderer"]
