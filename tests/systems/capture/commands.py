"""`fieldglass analyze` and `fieldglass resolve` on a Capture position."""

from __future__ import annotations

from common import jsonout
from common.errors import InputError
from rules import position as positions
from tests.systems.capture.adapter import CaptureSystem, captures


def _load(args):
    pos = positions.load(args.position)
    for pid in (getattr(args, "from_id", None), getattr(args, "to_id", None), getattr(args, "attacker", None),
                getattr(args, "target", None)):
        if pid is not None and pid not in pos.by_id:
            raise InputError(f"{args.position}: no stone {pid!r}")
    return pos


def analyze(args) -> int:
    pos = _load(args)
    if not args.from_id:
        raise InputError("analyze needs --from ID")
    can = captures(pos, args.from_id)
    out = {"from": args.from_id, "captures": can}
    if args.to_id:
        out = {"from": args.from_id, "to": args.to_id, "capture": args.to_id in can}
    print(jsonout.dumps(out) if args.json else f"{args.from_id} may capture: {', '.join(can) or 'nothing'}")
    return 0


def resolve(args) -> int:
    pos = _load(args)
    outcome = CaptureSystem().resolve(pos, args.action, args.attacker, args.target)
    if args.out:
        positions.save(outcome.after, args.out)
    if args.json:
        print(jsonout.dumps({"action": args.action, "changes": outcome.changes}))
    else:
        print("\n".join(outcome.lines))
    return 0
