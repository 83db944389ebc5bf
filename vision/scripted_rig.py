"""The scripted game filmed by a rig of two low cameras side by side (vision/synthetic_rig.py), neither seeing the
whole table: the proof of `fieldglass record --rig`.

The table is the scripted game's (vision/scripted.py: 1200 x 600 mm, 60 mm fields, anchors at the corners and the
edges' midpoints, so the south and north midpoints 4 and 6 lie where the two views overlap). Each camera is fitted
to 720 mm of the table's width and sees about 850 mm of it: "west" sees x < ~790 mm, "east" x > ~410 mm.

Timeline (5 frames a second):

* all pieces stand still; turn 1;
* a cavalry piece is lifted in the west's half and carried to the east's half (seen by one camera at each end);
* an infantry piece slides within the overlap (both cameras see it all along);
* a hand only the west camera sees (a hand near its lens: the east looks past it) hovers over the gun in the
  overlap for longer than the settle time: no move;
* a piece is knocked off the table in the east's half without anyone saying so: reported missing, then confirmed
  removed by a player.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from calibration.camera import save_camera
from calibration.layout import layout_to_toml
from vision.roster import roster_to_toml
from vision.scripted import START, ScriptedGame, field_centre, scripted_roster, write_frames
from vision.synthetic import VirtualCamera, standard_layout
from vision.synthetic_rig import cameras_along_table

CAMERAS = ("west", "east")
PART_MM = 720.0
RESOLUTION = (800, 600)  # 4:3, so that each camera sees only part of the table's width
HEIGHT_MM = 900.0


@dataclass
class RigScript:
    """A scripted game and, for the frames whose hand only one camera sees, that camera's name."""

    game: ScriptedGame
    hand_only: dict[int, str]

    def cameras(self, resolution: tuple[int, int] = RESOLUTION) -> dict[str, VirtualCamera]:
        lay = self.game.layout
        return cameras_along_table(lay.width_mm, lay.depth_mm, CAMERAS, PART_MM, resolution, HEIGHT_MM)

    def seen_by(self, name: str) -> ScriptedGame:
        """The game as camera `name` films it: the hands it does not see left out."""
        frames = [replace(f, hand=None) if self.hand_only.get(i, name) != name else f
                  for i, f in enumerate(self.game.frames)]
        return replace(self.game, frames=frames)

    def render(self, name: str, resolution: tuple[int, int] = RESOLUTION, start: int = 0, stop: int | None = None):
        """(frame number, t s, BGR frame) of camera `name` from frame `start` to `stop` (a tripod that stands still,
        the light steady)."""
        camera = self.cameras(resolution)[name]
        return self.seen_by(name).render(resolution, start, stop, camera=camera, tremble=False, light=False,
                                         bump_at=len(self.game.frames) + 1)

    @property
    def hover(self) -> range:
        """The frames with the hand only one camera sees."""
        return range(min(self.hand_only), max(self.hand_only) + 1)

    def write_frames(self, folder: str | Path, resolution: tuple[int, int] = RESOLUTION, stop: int | None = None
                     ) -> dict[str, Path]:
        """Each camera's frames in folder/NAME/ (what `record --source` reads); the folders by camera name."""
        out = {}
        for name in CAMERAS:
            out[name] = Path(folder) / name
            write_frames(self.render(name, resolution, stop=stop), out[name])
        return out


    def write_rig(self, folder: str | Path, resolution: tuple[int, int] = RESOLUTION, stop: int | None = None
                  ) -> Path:
        """Everything `record --rig` and `gui --rig` read, in `folder`: each camera's frames (folder/NAME/), its
        camera file (NAME.json), rig.toml (sources relative to it), layout.toml, roster.toml and inputs.jsonl.
        Returns the rig file's path."""
        folder = Path(folder)
        self.write_frames(folder, resolution, stop)
        for name, cam in self.cameras(resolution).items():
            save_camera(cam.intrinsics, folder / f"{name}.json")
        rig = folder / "rig.toml"
        rig.write_text("".join(f'[[camera]]\nname = "{n}"\nintrinsics = "{n}.json"\nsource = "{n}"\n'
                               for n in CAMERAS))
        (folder / "layout.toml").write_text(layout_to_toml(self.game.layout))
        (folder / "roster.toml").write_text(roster_to_toml(self.game.roster))
        self.game.write_inputs(folder / "inputs.jsonl")
        return rig


def rig_scripted_game(fps: float = 5.0) -> RigScript:
    """The two-camera scripted game (about 65 frames, 13 s at 5 frames a second; a piece unseen for 1.5 s is
    missing)."""
    layout = standard_layout(1200.0, 600.0)
    g = ScriptedGame(scripted_roster(), layout, fps=fps)
    places = {pid: (*field_centre(cell), h, 0.0) for pid, (cell, h) in START.items()}
    g.still(places, 6)
    for pid, (cell, _h) in START.items():
        g.truth.append({"type": "appeared", "piece": pid, "to": cell})
    g.inputs.append({"frame": g.now - 1, "type": "turn", "turn": 1, "phase": "movement"})

    g.move(places, "fr-c-1", "Q4", 90.0, "lift", seed=3, rest=6)  # D3 (west only) -> Q4 (east only)
    g.move(places, "au-i-2", "K6", 180.0, "slide", seed=9, rest=6)  # L7 -> K6, both cameras
    start = g.now
    g.hover(places, *field_centre("J3"), 6, seed=6)  # over the gun (J3, in the overlap), seen by the west only
    hand_only = {i: "west" for i in range(start, g.now) if g.frames[i].hand is not None}
    g.take_off(places, "au-c-1", seed=10, rest=10)  # O8, the east's half: knocked off, nobody says so
    g.truth.append({"type": "missing", "piece": "au-c-1"})
    g.inputs.append({"frame": g.now - 1, "type": "confirm", "piece": "au-c-1", "removed": True, "by": "AU player"})
    g.truth.append({"type": "removed", "piece": "au-c-1", "by": "AU player"})
    g.still(places, 1)
    return RigScript(g, hand_only)


__all__ = ["CAMERAS", "RigScript", "rig_scripted_game"]
