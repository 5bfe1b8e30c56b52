"""Quest Master's `expert`: one budget parameter, only legal choices at any
table, the other decisions searched from budget 4 on exact replays, the same
game alone, in a batch and replayed, and a fair value of a future.

The first use compiles expert's entry point once (half a minute)."""
import numpy as np
import pytest

from questsim import expert, layout as L, plugins, sim
from questsim import tables as TB
from questsim.core import pb
from questsim.policies import PLANNER_PARAMS
from simcore import search

RULES = sim.prepare()
INFO = plugins.get("expert")


def _params(budget):
    return tuple(budget if k == "budget" else v for k, v in zip(INFO.param_names, INFO.defaults))


def _counted(policies, n=4, budget=1.0, seed=1, first=0):
    """A table played in this process: (result rows, decisions other than
    movement searched by the expert seats, replays that missed)."""
    cfg = sim.Config(players=len(policies), policies=policies,
                     params=_params(budget) if policies[0] == "expert" else ())
    chars, pids, pp, engine = cfg.resolved(RULES)
    out = np.zeros((n, L.NRES), np.int32)
    engine.run_batch(np.uint64(seed), first, n, len(policies), chars, pids, pp, RULES.T, out)
    seats = [i for i, p in enumerate(policies) if p == "expert"]
    return (out, sum(pp[i, expert.BASE + search.SEARCHED] for i in seats),
            sum(pp[i, expert.BASE + search.FAILED] for i in seats))


def test_expert_has_the_planners_parameters_and_one_budget():
    assert INFO.param_names == tuple(PLANNER_PARAMS) + ("budget",)
    assert INFO.ranges["budget"] == (0.5, 64.0)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_expert_only_ever_picks_legal_choices(players):
    out, _, _ = _counted(("expert",) + ("planner",) * (players - 1), n=2)
    assert (out[:, L.RESULT_INDEX["illegal_choices"]] == 0).all()
    assert (out[:, L.RESULT_INDEX["winner_seat"]] >= -1).all()


def test_other_decisions_are_searched_from_budget_four_on_exact_replays():
    """Below budget 4 only movement is searched; from 4 the cards, targets,
    attacks, defences and discards too, each on a copy that retraces the
    game to the very decision (checked before any candidate)."""
    _, searched, _ = _counted(("expert", "greedy", "planner"), n=2, budget=2.0)
    assert searched == 0
    out, searched, failed = _counted(("expert", "greedy", "planner"), n=2, budget=4.0)
    assert searched >= 4 and failed == 0
    assert (out[:, L.RESULT_INDEX["illegal_choices"]] == 0).all()


def test_an_expert_game_is_the_same_alone_in_a_batch_and_replayed():
    from questsim import game as engine
    from questsim.replay import replay
    batch, _, _ = _counted(("expert", "planner", "planner"), n=4, seed=9)
    alone, _, _ = _counted(("expert", "planner", "planner"), n=1, seed=9, first=3)
    assert np.array_equal(batch[3], alone[0])
    rp = replay(seed=9, game=3, players=3, policies=("expert", "planner", "planner"),
                    params=_params(1.0), rules=RULES)
    out = np.zeros(L.NRES, np.int32)
    engine.result_row(rp.final_state, RULES.T, out)
    assert np.array_equal(out, batch[3])


def test_a_future_is_worth_a_win_or_how_near_the_seat_came():
    """1 for the seat's win; else half the larger of its share of the castles
    and of the Hp a win needs; 0 when it was knocked out."""
    T = RULES.T
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.G_WINNER] = 1
    b = pb(0)
    s[b + L.S_ALIVE] = 1
    s[b + L.S_CASTLES] = 0b111           # three castles
    s[b + L.S_HP] = 10
    want = 0.5 * max(3 / T[TB.P_CASTLES_TO_WIN], 10 / (T[TB.P_WIN_HP_ABOVE] + 1))
    assert expert.value(s, T, 0) == pytest.approx(want)
    assert expert.value(s, T, 1) == 1.0
    s[b + L.S_ALIVE] = 0
    assert expert.value(s, T, 0) == 0.0


def test_the_search_starts_when_a_seat_still_playing_is_near_a_win():
    """The endgame: some seat still playing holds four of the five castles,
    or Hp 33 of the 41 a win needs (80% of either); a knocked-out seat does
    not count."""
    T = RULES.T
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.G_NP] = 3
    for p in range(3):
        s[pb(p) + L.S_ALIVE] = 1
        s[pb(p) + L.S_HP] = 20
    b = pb(2)
    s[b + L.S_CASTLES] = 0b00111         # three castles: not yet
    assert not expert.endgame(s, T)
    s[b + L.S_CASTLES] = 0b10111         # four
    assert expert.endgame(s, T)
    s[b + L.S_ALIVE] = 0                 # knocked out: its castles no longer threaten
    assert not expert.endgame(s, T)
    s[pb(1) + L.S_HP] = 32
    assert not expert.endgame(s, T)
    s[pb(1) + L.S_HP] = 33
    assert expert.endgame(s, T)


def test_the_planners_choices_judged_in_full_decline_no_win():
    """QM-END-04, QM-END-05: the rule kernels skip the declined-win judge for
    the built-in greedy and planner (decision.takes_sure_wins), which take a
    win on offer before anything else. The expert is a plug-in that plays the
    planner's answers (raced, in the endgame, against others that cannot
    beat a win), and a plug-in is judged in full: whole games of it, each
    won by a move, a card or a fight some seat chose, count no declined win."""
    from questsim.decision import (POLICY_GREEDY, POLICY_PLANNER, POLICY_PLANNER_V2, SURE_GREEDY, SURE_PLANNER,
                                   takes_sure_wins)
    out, _, _ = _counted(("expert", "planner"), n=12, seed=4)
    assert (out[:, L.RESULT_INDEX["winner_seat"]] == 0).sum() >= 3       # the judged seat won games
    assert out[:, L.RESULT_INDEX["blunder_declined_win"]].sum() == 0
    s = np.zeros(L.STATE_SIZE, np.int32)
    on = np.zeros((L.MAX_PLAYERS, L.MAX_PARAMS + 1))
    on[:, SURE_GREEDY] = on[:, SURE_PLANNER] = 1.0
    off = np.zeros_like(on)
    for pid, skips in ((POLICY_GREEDY, True), (POLICY_PLANNER, True), (POLICY_PLANNER_V2, False), (100, False)):
        s[pb(0) + L.S_POLICY] = pid
        assert takes_sure_wins(s, on, 0) == skips
        assert not takes_sure_wins(s, off, 0)      # ``sure`` off: judged as any player
