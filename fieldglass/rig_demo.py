"""`fieldglass demo --rig`: the two-camera scripted game (vision/scripted_rig.py) rendered and read as `record --rig`
reads a rig (vision/rig_stream.py), the tracker committing its moves; headless, it prints what the rig sees: each
camera's anchors, every committed event with the cameras that saw the piece, each piece a camera loses under a hand
while another still sees it, and the committed moves against the script."""

from __future__ import annotations

from vision.rig_stream import RigFrame, RigStreamReader
from vision.scripted_rig import CAMERAS, HEIGHT_MM, RESOLUTION, rig_scripted_game
from vision.tracking import Moved, Tracker, TrackerConfig

MISSING_AFTER_S = 1.5


def _cell(place) -> str:
    return place.cell or f"({place.x_mm:.0f}, {place.y_mm:.0f}) mm"


def _event_line(e, views: dict[str, tuple[str, ...]]) -> str:
    seen = views.get(e.piece)
    by = f" (seen by {', '.join(seen)})" if seen else ""
    if isinstance(e, Moved):
        return f"move {e.piece} {_cell(e.src)} -> {_cell(e.dst)} facing {e.dst.facing}{by}"
    place = getattr(e, "place", None)
    return f"{e.type} {e.piece}" + (f" at {_cell(place)}" if place is not None else "") + by


def _hands(frame: RigFrame, before: dict[str, tuple[str, ...]]) -> list[str]:
    """What changed in the pieces each camera holds hidden under a hand."""
    out = []
    others = {v.name: {p.piece for p in v.reading.pieces} for v in frame.views}
    for name, now in frame.hidden.items():
        for pid in sorted(set(now) - set(before.get(name, ()))):
            also = [n for n, seen in others.items() if n != name and pid in seen]
            still = f"; {', '.join(also)} still sees it: held where it stands" if also else ""
            out.append(f"{name}: {pid} lost under a hand{still}")
        for pid in sorted(set(before.get(name, ())) - set(now)):
            out.append(f"{name}: {pid} no longer hidden")
    return out


def run_rig_demo() -> int:
    """Play the scripted game through the rig and the tracker; 0 when the committed moves equal the script."""
    script = rig_scripted_game()
    game = script.game
    cams = script.cameras()
    rig = RigStreamReader(game.layout, game.roster, [(n, cams[n].intrinsics) for n in CAMERAS])
    tracker = Tracker(game.roster, TrackerConfig(missing_after_s=MISSING_AFTER_S))
    w, h = RESOLUTION
    print(f"synthetic rig: {len(CAMERAS)} cameras ({', '.join(CAMERAS)}) {HEIGHT_MM / 1000:g} m over a "
          f"{game.layout.width_mm:g} x {game.layout.depth_mm:g} mm table, {w}x{h} px each, neither seeing all of it;"
          f" the scripted game, {len(game.frames)} frames at {game.fps:g} fps; a hand only the west sees at frames "
          f"{script.hover.start}-{script.hover.stop - 1}")
    renders = [script.render(n) for n in CAMERAS]
    confirms = {inp["frame"]: inp for inp in game.inputs if inp["type"] == "confirm"}
    hidden: dict[str, tuple[str, ...]] = {}
    moves = []
    for shots in zip(*renders, strict=True):
        i, t = shots[0][0], shots[0][1]
        frame = rig.read([img for _, _, img in shots], t)
        if i == 0:
            for v in frame.views:
                anchors = " ".join(map(str, v.reading.pose.anchors)) if v.reading.pose is not None else "none"
                print(f"{v.name}: anchors {anchors}; pieces {', '.join(p.piece for p in v.reading.pieces)}")
        lines = _hands(frame, hidden)
        hidden = frame.hidden
        views = {p.pose.piece: p.views for p in frame.fused.pieces}
        events = tracker.update(frame.reading, t, i)
        if i in confirms:
            inp = confirms[i]
            events.append(tracker.confirm(inp["piece"], bool(inp.get("removed", True)), inp["by"], t, i))
        moves += [e for e in events if isinstance(e, Moved)]
        for text in lines + [_event_line(e, views) for e in events]:
            print(f"frame {i:>3}  {text}")
    got = [(e.piece, e.src.cell, e.dst.cell, e.dst.facing) for e in moves]
    truth = [(m["piece"], m["from"], m["to"], m["to_facing"]) for m in game.true_moves()]
    same = got == truth
    print(f"committed moves {'equal' if same else 'differ from'} the script: {len(got)} committed, {len(truth)} "
          "in the script")
    return 0 if same else 1


__all__ = ["run_rig_demo"]
