"""The set-up loader of `fieldglass record --system marengo` by its old name: a thin wrapper over the one generic
`fieldglass.setup.load_setup` (the demo board and blocks are rules/marengo/demo.py's, the block roster
rules/marengo/live.py's `setup_roster`). New code calls `load_setup("marengo", ...)`."""

from __future__ import annotations

from fieldglass.setup import Setup, load_setup


def load_marengo_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
                       board: str | None = None, game: str | None = None) -> Setup:
    """`load_setup("marengo", ...)`."""
    return load_setup("marengo", source, camera, layout, roster, game, board)


__all__ = ["load_marengo_setup"]
