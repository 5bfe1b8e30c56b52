"""Quest Master positions and checks shared by the rule tests
(test_qm_setup, _movement, _wins, _duel, _cards, _turns) on top of
``qm_game.QGame``.

Every rule test sets a game up with ``engine.setup``, overwrites the few
fields it needs (Hp, pawn squares, hands, decks, die faces in a private copy
of ``T``) and calls ONE engine entry point (``duel``, ``take_turn``,
``walk``, ``land`` + ``resolve``, ``lose_hp`` ...). Expected values are
worked out from the rulebook (shared/rules/questmaster-rulebook.txt), the
rule checklist (shared/rules/questmaster-rules.md: QM-* ids) and the
rulings in docs/questmaster/rulings.md (QM-GAP-nn); each docstring names the
rules it checks.

The shipped board (assumed data, QM-GAP-01): a 40-square loop of five
identical stretches::

    0 Castle(W)  1 item  2 event  3 sword  4 WARP  5 item  6 event  7 item
    8 Wizard School(M) ... 16 Church(P) ... 24 Scientist's House(R) ... 32 Haunted House(E)
    warps at 4, 12, 20, 28, 36 (each leads to every other warp)
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from questsim import layout as L
from questsim import tables as TB

from .qm_game import (ALL_CASTLES, CASTLE, CHEST, IT, RS, SQ_WIZARD, SWORD, QGame, _quiet_pair)

REPO = Path(__file__).resolve().parents[2]


def start_rounds(g):
    """Split the start-roll log into rounds, checking that each re-roll is made
    by exactly the players tied for the highest total of the round before."""
    rows = g.events("start_roll")
    contenders = list(range(g.n))
    i, rounds = 0, []
    while True:
        rnd = rows[i:i + len(contenders)]
        i += len(contenders)
        assert [r[0] for r in rnd] == contenders
        rounds.append(rnd)
        best = max(r[1] for r in rnd)
        contenders = [r[0] for r in rnd if r[1] == best]
        if len(contenders) == 1:
            break
    assert i == len(rows)
    return rounds, contenders[0]


def shoe_race(shoe_any, seed=1):
    """Seat 0 (Robot) on square 4 rolls 2 + 2: a move of 4 lands on the
    Wizard School (square 8), a castle it has not landed on; seat 1 (Priest)
    holds a Yellow Bird Shoe. Every other square is plain::

        4 . . . 8 9
        R       W .      (R: the Robot's pawn, W: the Wizard School)
    """
    g = _quiet_pair(("robot", "priest"), seed=seed)
    g.T[TB.P_SHOE_ANY_PLAYER] = shoe_any
    g.square(SQ_WIZARD, L.SQ_CASTLE)
    g.put(0, 4)
    g.set_hand(1, ["yellow_bird_shoe"])
    g.set_item_used([])
    g.fix_dice(2, 2)
    g.clear_log()
    g.turn(0)
    return g


MASK_ALL_BUT_CHURCH = ALL_CASTLES & ~(1 << CASTLE["church"])


MASK_ALL_BUT_WIZARD = ALL_CASTLES & ~(1 << CASTLE["wizard_school"])


def duel_pair(att="priest", dfn="wizard", red=SWORD, blue=CHEST, R=None):
    g = QGame([att, dfn], R=R)
    g.clear_hands()
    g.no_abilities(att, dfn)
    g.fix_dice(red, blue)
    g.set_item_used([])
    g.clear_log()
    return g


def check_duel_log(g, mp, cost, at, lone, after_decline):
    """Check a logged combat (seat 0 attacks seat 1, no cards or abilities)
    against the combat rules, step by step, from the log's own records:
    the free attack first; then whenever a side is due, it attacks (paying its
    cost) if it can pay and does not decline; a side that cannot pay ends the
    combat (or, with ``lone``, stops while the other goes on); a side that
    declines stops and the other goes on (or, without ``after_decline``, the
    combat ends); the combat ends when both have stopped. Returns the number
    of declines."""
    recs = [(L.EVENT_NAMES[int(r[0])], int(r[2]), int(r[3]), int(r[4]), int(r[5]))
            for r in g.ev[:int(g.s[L.G_LOGN])]
            if L.EVENT_NAMES[int(r[0])] in ("attack", "decline", "cannot_pay", "duel_end")]
    mp = dict(mp)
    assert recs[0] == ("attack", 0, 1, 2, 0), "the free attack comes first"
    i, due, out, declines, n_att = 1, 1, set(), 0, 1
    while True:
        other = 1 - due
        if due in out:
            due = other
            continue
        ev, who = recs[i][0], recs[i][1]
        if mp[due] < cost[due]:
            assert (ev, who) == ("cannot_pay", due), recs[i]
            i += 1
            if not lone:
                end = L.END_CANNOT_PAY
                break
            out.add(due)
        elif ev == "decline":
            assert who == due, recs[i]
            declines += 1
            i += 1
            out.add(due)
            if not after_decline:
                end = L.END_DECLINED
                break
        else:
            assert recs[i] == ("attack", due, other, at[due], cost[due]), recs[i]
            mp[due] -= cost[due]
            n_att += 1
            i += 1
        if out == {0, 1}:
            end = L.END_BOTH_STOPPED
            break
        if other not in out:
            due = other
    assert recs[i:] == [("duel_end", 0, 1, end, n_att)], recs[i:]
    return declines


NON_CARD_SECTIONS = {"meta", "toggles", "rules", "components", "dice", "symbols", "landing", "board", "provenance",
                     "names"}


def card_timing(recs, counts):
    """Check every Item card played in one logged game against the time its
    card allows (QM-CARD-03, QM-CARD-04, QM-CARD-05, QM-CARD-06, QM-CARD-07,
    QM-TURN-02): a blue (combat) card only in a
    combat, by one of its two sides: a sword card by the side attacking, a
    shield card by the side attacked, a sword-and-shield card by either; its
    casting cost as printed. A red (foot) card never in a combat, and only
    in its window: before the roll (the player whose turn it is), after the
    roll (its movement choice made, before the move), after the move (before
    the square). A Phoenix only when its holder's Hp reached 0."""
    phase, seat_of_turn, duel, attack = None, None, None, None
    for i, r in enumerate(recs):
        ev, p = r["event"], r["seat"]
        if ev == "turn":
            phase, seat_of_turn = "before_roll", p
        elif ev == "roll":
            phase = "rolled"
        elif ev == "choice":
            phase = "after_roll"
        elif ev in ("move", "warp"):
            phase = "after_move" if phase == "after_roll" else "other"
        elif ev in ("land", "event", "draw_item", "discard"):
            phase = "other"
        elif ev == "fight":
            duel, phase = (p, r["defender"]), "other"
        elif ev == "attack":
            attack = (p, r["defender"])
        elif ev == "duel_end":
            duel, attack = None, None
        elif ev == "revive":
            assert (recs[i - 1]["event"], recs[i - 1]["seat"], recs[i - 1]["hp"]) == ("hp", p, 0), r
            counts["hp_zero"] += 1
        elif ev == "play_item" and "item_name" in r:
            it = RS.items[r["item_name"]]
            assert r["cost"] == it.cost, r
            if it.colour == "blue":
                assert duel is not None and attack is not None and p in duel, r
                side = {"sword": (attack[0],), "shield": (attack[1],), "sword_shield": attack}[it.symbol]
                assert p in side, r
                counts[(it.symbol, "attacking" if p == attack[0] else "defending")] += 1
            else:
                assert duel is None and it.symbol == "foot", r
                assert phase == it.when, (r, phase)
                if it.when != "after_roll":          # any player's Shoe (toggle shoe_any_player)
                    assert p == seat_of_turn, r
                counts[it.when] += 1


def used_pile_gains(g, run):
    before = Counter(g.item_used())
    run()
    after = Counter(g.item_used())
    assert not before - after, "a card left the used pile"
    return sorted((after - before).elements())


def after_move_potion(g):
    """The Potion re-timed in this game's copy of T: used after moving."""
    g.T[TB.O_ITEM + IT["potion"] * TB.IK + 4] = L.W_AFTER_MOVE
