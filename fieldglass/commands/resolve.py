"""fieldglass resolve: what happens with these dice? (Wiener Napoleon rules)"""

from __future__ import annotations

import argparse

EPILOG = """\
examples:
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

--dice lists the rolls in the order they are taken: the attacker's (and its re-roll with --reroll attacker),
then the defender's (and its re-roll); with --simultaneous each acting piece's duel in turn; rally, bombard and work
take theirs the same way (bombard: WZ roll, then the 4+ roll; work: worker, then objector). Missing rolls come
from a seeded generator whose seed is printed; --seed replays it.
"""

def add_parser(sub) -> None:
    p = sub.add_parser(
        "resolve",
        help="resolve fire, melee, Gegenzug, rally, bombardment or work with dice",
        description="Answer 'what happens with these dice?': rolls, modifiers, effect numbers, winner, effect, "
        "the changed pieces and the position after (Wiener Napoleon Kriegsspielregeln 2022).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("position", help="position file (JSON)")
    p.add_argument("--action", required=True, help="the action: each system's own (listed by 'fieldglass systems')")
    p.add_argument("--attacker", required=True, metavar="ID", help="the acting piece (rally: the rallying piece)")
    p.add_argument("--target", metavar="ID", help="the target piece (fire, melee, gegenzug)")
    p.add_argument("--dice", metavar="N,N", help="the rolls, attacker first (default: seeded generator)")
    p.add_argument("--loss-die", type=int, metavar="N", help="the loss test roll if the effect is 6+")
    p.add_argument("--seed", type=int, help="seed for rolls not given")
    p.add_argument("--supporters", metavar="ID,ID", help="the acting side's supporters from its side fields")
    p.add_argument("--simultaneous", metavar="ID,ID",
                   help="fire/melee: up to 2 more pieces acting at the same time as --attacker (§8.6)")
    p.add_argument("--retreat", metavar="F,F", help="fire: infantry retreats through these fields after firing (§5.5)")
    p.add_argument("--evade", type=int, metavar="LE", help="melee: the target evades this many LE (§5.5, §8.7)")
    p.add_argument("--against", metavar="ID", help="counterattack: the not combat-ready troop the mover attacks")
    p.add_argument("--turn", choices=("left", "right"), help="flight: change the direction by 45 degrees")
    p.add_argument("--side", help="replace_general: the side of the new general")
    p.add_argument("--defender-supporters", metavar="ID,ID", help="the defender's supporters")
    p.add_argument("--flight", type=int, choices=(1, 2), help="flight distance in LE (default from the options)")
    follow = p.add_mutually_exclusive_group()
    follow.add_argument("--follow-up", dest="follow_up", action="store_true", default=None,
                        help="the winning attacker moves into the loser's field")
    follow.add_argument("--no-follow-up", dest="follow_up", action="store_false",
                        help="stay (ignored where the rules demand a follow-up)")
    p.add_argument("--capitulate", action="store_true",
                   help="a fleeing troop capitulates rather than sweep own troops along (domino)")
    p.add_argument("--reroll", metavar="SIDE,..", help="attacker and/or defender demand an attached general's re-roll")
    p.add_argument("--path", metavar="F,F,..", help="gegenzug: the fields the mover enters, in order")
    p.add_argument("--at", metavar="FIELD", help="gegenzug: the field of the path where the fire is triggered")
    p.add_argument("--field", metavar="FIELD", help="bombard/work: the building or bridge field")
    p.add_argument("--edge", metavar="F,F", help="bombard/work: the edge between two fields")
    p.add_argument("--incendiary", action="store_true", help="bombard: incendiary shells (howitzers)")
    p.add_argument("--work", dest="work_type", metavar="KIND", help="work: remove_obstacle make_passable "
                   "build_barricade arson extinguish repair_bridge demolition build_bridge")
    p.add_argument("--obstacle", default="barricade", help="work build_barricade: barricade or chevaux_de_frise")
    p.add_argument("--objector", metavar="ID", help="work: the enemy base objecting")
    p.add_argument("--options", metavar="FILE", help="rules options (TOML) overriding the defaults")
    p.add_argument("--out", metavar="FILE", help="write the position after the action to FILE")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--choice", action="append", default=[], metavar="KEY=VALUE",
                   help="a choice of another rule system (DBX, Marengo: see their READMEs); repeatable")
    p.set_defaults(run=run)


def run(args) -> int:
    from fieldglass.commands.systems import delegate, position_system

    return delegate(position_system(args.position), "resolve", args)
