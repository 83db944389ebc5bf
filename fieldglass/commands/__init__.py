"""One module per subcommand: each has `add_parser(subparsers)` that sets `run=` on its parser."""
