"""The set-up loader of `fieldglass record --system dbx` by its old name: a thin wrapper over the one generic
`fieldglass.setup.load_setup` (the DBX demo table and the template position are rules/dbx/demo.py's and
rules/dbx/live.py's). New code calls `load_setup("dbx", ...)`."""

from __future__ import annotations

import dataclasses

from fieldglass.setup import Setup, load_setup
from rules.dbx.demo import DEMO_GAME  # the old home of the demo's elements


def load_dbx_setup(source: str, camera: str | None = None, layout: str | None = None, roster: str | None = None,
                   game: str | None = None, options: str | None = None) -> Setup:
    """`load_setup("dbx", ...)`; as before, a synthetic source given its own --layout or --roster has no demo
    scene (the recorder films the demo table only with the demo's files)."""
    setup = load_setup("dbx", source, camera, layout, roster, game, options=options)
    if source == "synthetic" and (layout or roster):
        setup = dataclasses.replace(setup, scene=None)
    return setup


__all__ = ["DEMO_GAME", "load_dbx_setup"]
