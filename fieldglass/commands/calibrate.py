"""fieldglass calibrate (placeholder until implemented)."""


def add_parser(sub) -> None:
    p = sub.add_parser("calibrate", help="(not yet implemented)")
    p.set_defaults(run=None)
