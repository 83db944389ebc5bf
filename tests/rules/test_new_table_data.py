"""Issue 26: what each system's package gives a new table (rules/live.py: piece_kinds, armies, deployment) is
consistent with its own rules: every kind's and army's type is one the system reads, a DBX army fits its §9.7 list."""

from __future__ import annotations

import pytest

from rules.dbx.lists import ARMY_SIZE, army_lists, check_army, composition
from rules.system import game_systems

SYSTEMS = sorted(n for n, g in game_systems().items() if g.live is not None)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_kind_and_army_is_read_by_its_system(name):
    gs = game_systems()[name]
    adapter, live = gs.adapter(None), gs.live
    kinds = {k.type: k for k in live.piece_kinds()}
    for k in kinds.values():
        assert adapter.piece_type(k.type) is not None, k
        assert min(k.base_mm) > 0 and k.prefix.isascii() and k.prefix.isalnum()
    for army in live.armies():
        assert army.pieces and all(t in kinds and n > 0 for t, n in army.pieces), army
    assert len({a.name for a in live.armies()}) == len(live.armies())


@pytest.mark.parametrize("name", SYSTEMS)
def test_deployment_zones_lie_on_the_table(name):
    live = game_systems()[name].live
    for sides in (["a", "b"], ["a", "b", "c"]):
        zones = live.deployment(1800.0, 1200.0, sides)
        assert [z.side for z in zones] == sides
        for z in zones:
            assert 0 <= z.x0 < z.x1 <= 1800 and 0 <= z.y0 < z.y1 <= 1200


def test_wiener_piece_sets_are_its_troop_types_on_their_bases():
    live = game_systems()["wiener"].live
    bases = {k.type: k.base_mm for k in live.piece_kinds()}
    assert bases["infantry"] == (40.0, 14.0) and bases["general"] == (25.0, 25.0)  # §2.1
    assert {a.name for a in live.armies()} >= {"french-demo", "austrian-demo"}


def test_each_dbx_army_is_twelve_elements_its_list_allows_and_a_general():
    live = game_systems()["dbx"].live
    armies = {a.name: a for a in live.armies()}
    lists = {f"{a.group}/{a.name.split(' (')[0]}": a for a in army_lists()}
    assert len(armies) >= 90
    for name, army in armies.items():
        assert army.pieces[0] == ("Gen", 1)
        elements = [t for t, n in army.pieces[1:] for _ in range(n)]
        assert len(elements) == ARMY_SIZE and check_army(lists[name], elements) == [], name
    assert composition(lists["europe_1700/Österreich"]) == (("Li", 6), ("Jä", 1), ("Pk", 1), ("Kü", 1), ("Hu", 1),
                                                           ("Art", 2))  # a mixed army: one more per entry in turn


def test_dbx_deploys_within_600_paces_of_its_edge_clear_of_the_side_edges():
    blue, red = game_systems()["dbx"].live.deployment(600.0, 600.0, ["blue", "red"])
    assert (blue.x0, blue.y0, blue.x1, blue.y1, blue.heading_deg) == (75.0, 0.0, 525.0, 150.0, 0.0)  # §4.1
    assert (red.y0, red.y1, red.heading_deg) == (450.0, 600.0, 180.0)
