"""Every system says, through its live rules' `dice_wanted`, how many dice a throw at the table gives each of its
actions (issue 29): a system without dice takes none for any action; one with dice names each die's owner (or
takes as many as are thrown), and only actions it has."""

from __future__ import annotations

import pytest

from fieldglass.setup import load_setup
from rules.system import game_systems


@pytest.fixture(scope="module", params=sorted(game_systems()))
def session(request):
    return load_setup(request.param, "synthetic").make_session()


def test_each_action_takes_no_dice_named_dice_or_as_many_as_thrown(session):
    answers = {a: session.dice_wanted(a, None, None) for a in session.system.actions}
    if not session.live.uses_dice:
        assert set(answers.values()) == {()}
        return
    assert any(w for w in answers.values())  # some action takes dice
    for action, wanted in answers.items():
        assert wanted is None or (isinstance(wanted, tuple) and all(isinstance(w, str) and w for w in wanted)), action
        assert wanted is None or len(wanted) <= 6, action


def test_the_throws_name_only_actions_of_the_system(session):
    throws = getattr(type(session.live), "THROWS", {})
    assert set(throws) <= set(session.system.actions)
