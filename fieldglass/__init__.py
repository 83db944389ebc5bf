"""Fieldglass: a computer-vision assistant for tabletop wargames.

This package is the thin wiring: the command line, the live session and the game record.
The work is done in `calibration`, `vision` and `rules`.
"""

__version__ = "0.1.0"
