"""fieldglass detect (placeholder until implemented)."""


def add_parser(sub) -> None:
    p = sub.add_parser("detect", help="(not yet implemented)")
    p.set_defaults(run=None)
