"""The bottom layer: what every package may import and what imports none of ours.

`errors` (the one error a user sees), `fields` (field naming and the 8 facings), `dice`, `dice_tray` (the tray
polygon a table layout and a board file both read and write), `options` (rules options layered over a system's
defaults), `choices` (the --choice KEY=VALUE parser the rules engines' commands read) and `events` (plain callback
lists a view connects to). Nothing here imports calibration, vision, rules, gui or fieldglass; `make test` checks it
(import-linter, pyproject.toml).
"""
