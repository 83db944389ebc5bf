"""Wiener Napoleon's own options of `fieldglass analyze` and `fieldglass resolve`, as data (rules/system.py
CliOption): the wiring adds them to the parsers under the system's title."""

from __future__ import annotations

from rules.system import CliOption

PATH = CliOption(("--path",), "analyze: check a move of the acting piece through these fields; resolve gegenzug: the "
                 "fields the mover enters, in order", {"metavar": "F,F,.."})
FACING = CliOption(("--facing",), "analyze --path: facing after the move")

ANALYZE = (
    CliOption(("--all",), "every ordered pair of enemies: the table columns, no details", {"action": "store_true"}),
    PATH,
    FACING,
)

RESOLVE = (
    CliOption(("--loss-die",), "the loss test roll if the effect is 6+", {"type": int, "metavar": "N"}),
    CliOption(("--simultaneous",), "fire/melee: up to 2 more pieces acting at the same time as --attacker (§8.6)",
              {"metavar": "ID,ID"}),
    CliOption(("--retreat",), "fire: infantry retreats through these fields after firing (§5.5)", {"metavar": "F,F"}),
    CliOption(("--evade",), "melee: the target evades this many LE (§5.5, §8.7)", {"type": int, "metavar": "LE"}),
    CliOption(("--against",), "counterattack: the not combat-ready troop the mover attacks", {"metavar": "ID"}),
    CliOption(("--turn",), "flight: change the direction by 45 degrees", {"choices": ("left", "right")}),
    CliOption(("--side",), "replace_general: the side of the new general"),
    CliOption(("--defender-supporters",), "the defender's supporters", {"metavar": "ID,ID"}),
    CliOption(("--flight",), "flight distance in LE (default from the options)", {"type": int, "choices": (1, 2)}),
    CliOption(("--follow-up",), "the winning attacker moves into the loser's field",
              {"dest": "follow_up", "action": "store_true", "default": None}),
    CliOption(("--no-follow-up",), "stay (ignored where the rules demand a follow-up)",
              {"dest": "follow_up", "action": "store_false"}),
    CliOption(("--capitulate",), "a fleeing troop capitulates rather than sweep own troops along (domino)",
              {"action": "store_true"}),
    CliOption(("--reroll",), "attacker and/or defender demand an attached general's re-roll", {"metavar": "SIDE,.."}),
    PATH,
    CliOption(("--at",), "gegenzug: the field of the path where the fire is triggered", {"metavar": "FIELD"}),
    CliOption(("--field",), "bombard/work: the building or bridge field", {"metavar": "FIELD"}),
    CliOption(("--edge",), "bombard/work: the edge between two fields", {"metavar": "F,F"}),
    CliOption(("--incendiary",), "bombard: incendiary shells (howitzers)", {"action": "store_true"}),
    CliOption(("--work",), "work: remove_obstacle make_passable build_barricade arson extinguish repair_bridge "
              "demolition build_bridge", {"dest": "work_type", "metavar": "KIND"}),
    CliOption(("--obstacle",), "work build_barricade: barricade or chevaux_de_frise", {"default": "barricade"}),
    CliOption(("--objector",), "work: the enemy base objecting", {"metavar": "ID"}),
)

EXAMPLES = {
    "analyze": """\
  fieldglass analyze game.json --from fr-art-1 --to au-ir4-1           one pair, readable
  fieldglass analyze game.json --from fr-art-1 --to au-ir4-1 --json    the same as JSON for tools
  fieldglass analyze game.json --from fr-art-1                         every enemy piece, nearest first
  fieldglass analyze game.json --from au-ir4-1 --path C8,C7            may it move there? (LE, Red markers)
  fieldglass analyze game.json --from fr-art-1 --options house.toml    with your table's rules options
  fieldglass analyze game.json --all --json                            every enemy pair at once (dashboard)""",
    "resolve": """\
  fieldglass resolve game.json --action fire --attacker fr-art-1 --target au-ir4-1 --dice 5,3 --loss-die 4
  fieldglass resolve game.json --action melee --attacker fr-cuir-1 --target au-ir4-1 --dice 4,2 --json
  fieldglass resolve game.json --action melee --attacker a --target b --supporters s1,s2 --flight 1 --follow-up
  fieldglass resolve game.json --action fire --attacker a --target b          rolls itself, prints the seed
  fieldglass resolve game.json --action gegenzug --attacker fr-art-1 --target au-hus-1 --path E5,F5,G5 --at F5
  fieldglass resolve game.json --action rally --attacker au-ir4-1 --dice 3
  fieldglass resolve game.json --action bombard --attacker fr-art-1 --field E5 --dice 6,4
  fieldglass resolve game.json --action work --attacker fr-pio-1 --work remove_obstacle --edge C5,C6 --dice 5
  fieldglass resolve game.json --action fire --attacker a --target b --out after.json   save the new position
  fieldglass resolve game.json --action fire --attacker a --simultaneous b,c --target t --dice 5,3,4,2,6,1
  fieldglass resolve game.json --action fire --attacker inf --target t --retreat C2 --dice 4,2   fire, then retreat
  fieldglass resolve game.json --action melee --attacker inf --target hus --evade 2      the hussars evade
  fieldglass resolve game.json --action counterattack --attacker au-cuir --target fr-drag --at E5 --against au-ir3
  fieldglass resolve game.json --action flight --attacker fr-ir2 --turn left            a failed rally flees on
  fieldglass resolve game.json --action mount --attacker au-hus-1
  fieldglass resolve game.json --action replace_general --attacker fr-gen-2 --side FR --field A10 --dice 6

  Wiener --dice lists the rolls in the order they are taken: the attacker's (and its re-roll with --reroll
  attacker), then the defender's (and its re-roll); with --simultaneous each acting piece's duel in turn; rally,
  bombard and work take theirs the same way (bombard: WZ roll, then the 4+ roll; work: worker, then objector).""",
}
