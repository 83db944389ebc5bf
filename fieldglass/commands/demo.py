"""fieldglass demo (placeholder until implemented)."""


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="(not yet implemented)")
    p.set_defaults(run=None)
