"""A replay's event log decoded into JSON-ready records (:func:`decode_events`),
and a position's snapshot into a dict (:func:`snapshot_dict`).

Every record has ``i`` (sequence number), ``round``, ``event`` and ``actor``
(a hero name, a nightmare name, or ``"game"``), plus the event's own named
fields; ``turn_start`` records carry a full ``snapshot`` of the position.
Enemies have one name everywhere: a nightmare its ruleset key, a bogbean its
kind and nexus (``"snipe of NE"``). The schema is documented in
docs/mournequest/replay.md. The jsonl replay, the text replay and the viewer
all read these records.
"""
from __future__ import annotations

from . import layout as L

# the kernels' unpack helpers (layout), called here as the Python functions
# they are written as: decoding compiles nothing and dispatches nothing
# (under NUMBA_DISABLE_JIT they are those functions already)
(attack_ability, attack_target, move_to_corner, move_to_hero, pass_hero, pass_slot, relic_trade_count, sub_owner,
 sub_target, trade_give, trade_take) = (getattr(f, "py_func", f) for f in (
    L.attack_ability, L.attack_target, L.move_to_corner, L.move_to_hero, L.pass_hero, L.pass_slot,
    L.relic_trade_count, L.sub_owner, L.sub_target, L.trade_give, L.trade_take))


CH = L.CHARM_NAMES
AB = L.ABILITY_NAMES
DIRS = L.DIR_NAMES
CORN = L.CORNER_NAMES
COMPASS_FACE = ("N", "E", "S", "W", "star", "blank")
FLEE_REASON = ("nightmare arrived", "beaten", "stole and ran", "Shimnavore")
KNOCK_REASON = ("to start point", "Mighty Howl onto disc", "lost to the Shimnavore, onto disc")
BOG_KINDS = ("snipe", "speedwell", "louse_wort")     # bogbean of level 1, 2, 3
# a combat total that is not a number: the engine's -1 and 999
ROLL_RESULT = {-1: "fumble", 999: "dandelion"}


def _face(f):
    return {L.FACE_FAIL: "fail", L.FACE_DOUBLE: "double", L.FACE_DANDELION: "dandelion"}.get(f, str(f))


def bogbean_name(level, corner):
    """The one name of a bogbean: its kind and its nexus, e.g. ``snipe of NE``."""
    kind = BOG_KINDS[level - 1] if 1 <= level <= 3 else "bogbean"
    return f"{kind} of {CORN[corner]}"


class _Ctx:
    """What decoding needs beyond one event: names, and the bogbean now
    beside each nexus and the enemy of the combat being fought (an event
    alone gives only a nexus or an enemy-table row)."""

    def __init__(self, rp):
        self.rp = rp
        self.n = rp.rules.names
        self.hero_ids = [int(rp.final_state[L.G_HERO + h * L.HS + L.H_ID]) for h in range(4)]
        self.bog_level = [0, 0, 0, 0]     # level of the bogbean of each nexus, 0: none
        self.foe = None                   # the enemy of the current combat
        self.cur = -1                     # the actor (seat) of the record being decoded

    def hero(self, h):
        if 0 <= h < 4 and self.hero_ids[h] >= 0:
            return self.n.heroes[self.hero_ids[h]]
        return f"hero{h}"

    def actor(self, a):
        if a >= 0:
            return self.hero(a)
        if -4 <= a <= -1:
            return self.n.nightmares[-1 - a]
        return "game"

    def space(self, sp):
        return self.n.spaces[sp] if 0 <= sp < len(self.n.spaces) else None

    def card(self, c):
        return self.n.cards[c] if 0 <= c < len(self.n.cards) else None

    def relic(self, r):
        return self.n.relics[r] if 0 <= r < len(self.n.relics) else None

    def effect(self, e):
        return self.n.effects[e] if 0 <= e < len(self.n.effects) else None

    def bogbean(self, c):
        return bogbean_name(self.bog_level[c], c)

    def seen(self, s):
        """Take the bogbeans on the board from snapshot state ``s``."""
        for c in range(4):
            o = L.G_NEX + c * L.XSZ
            t = int(s[o + L.X_TILE])
            self.bog_level[c] = int(self.rp.rules.tables.tiles[t, 0]) if t >= 0 and s[o + L.X_BOG_POS] >= 0 else 0


def _needed(s, T, d):
    """Charms disc ``d`` still needs before its nightmare is cast out, by type."""
    o = L.G_DISC + d * L.DSZ
    k = int(s[o + L.D_NM])
    if k < 0:
        return {}
    return {CH[t]: int(T.tables.nm_charms[k, t] - s[o + L.D_DEP + t]) for t in range(4)
            if T.tables.nm_charms[k, t] - s[o + L.D_DEP + t] > 0}


def snapshot_dict(s, ctx):
    """A readable dict of a state vector (every miniature, backpack, life...)."""
    T = ctx.rp.rules
    life = T.ruleset.rules.life
    moon_len = len(T.ruleset.moon.track)
    steps = int(s[L.G_MOON_STEPS])
    heroes = []
    for h in range(int(s[L.G_NHEROES])):
        o = L.G_HERO + h * L.HS
        eq = {}
        for a in range(3):
            c = int(s[o + L.H_EQ + a])
            eq[AB[a]] = int(T.tables.cards[c, 1]) if c >= 0 else 0
        relics = [ctx.relic(r) for r in range(len(ctx.n.relics)) if s[L.G_RELIC_OWNER + r] == h]
        heroes.append({
            "seat": h + 1, "hero": ctx.hero(h), "space": ctx.space(int(s[o + L.H_POS])),
            "life": life - int(s[o + L.H_WOUNDS]),
            "charms": {CH[t]: int(s[o + L.H_CH + t]) for t in range(4) if s[o + L.H_CH + t]},
            "equipment": eq,
            "cards": [ctx.card(int(s[o + L.H_EQ + a])) for a in range(3) if s[o + L.H_EQ + a] >= 0],
            "abilities": {AB[a]: int(T.tables.hero_abil[int(s[o + L.H_ID]), a]) + eq[AB[a]] for a in range(3)},
            "skill_tokens": int(s[o + L.H_SKILLS]), "relics": relics,
        })
    discs = []
    for d in range(4):
        o = L.G_DISC + d * L.DSZ
        k = int(s[o + L.D_NM])
        state = L.DISC_STATE_NAMES[int(s[o + L.D_STATE])]
        discs.append({"disc": DIRS[d], "nightmare": ctx.n.nightmares[k], "clicks_left": int(s[o + L.D_CLICKS]),
                      "state": state,
                      "deposited": {CH[t]: int(s[o + L.D_DEP + t]) for t in range(4) if s[o + L.D_DEP + t]},
                      "needed": _needed(s, T, d) if state in ("on disc", "released") else {}})
    nightmares = []
    for k in range(4):
        o = L.G_NM + k * L.NSZ
        if s[o + L.NM_POS] >= 0:
            nightmares.append({"nightmare": ctx.n.nightmares[k], "space": ctx.space(int(s[o + L.NM_POS])),
                               "wounded": [AB[a] for a in range(3) if (s[o + L.NM_WOUNDS] >> a) & 1]})
    bogbeans, pots = [], []
    for c in range(4):
        o = L.G_NEX + c * L.XSZ
        if s[o + L.X_BOG_POS] >= 0:
            t = int(s[o + L.X_TILE])
            lv = int(T.tables.tiles[t, 0])
            bogbeans.append({"nexus": CORN[c], "name": bogbean_name(lv, c), "bogbean": ctx.n.tiles[t],
                             "level": lv, "space": ctx.space(int(s[o + L.X_BOG_POS])),
                             "wounded": [AB[a] for a in range(3) if (s[o + L.X_BOG_WOUNDS] >> a) & 1]})
        if s[o + L.X_POT]:
            pots.append(ctx.space(int(T.tables.crossroads[c])))
    return {
        "moon": {"space": int(s[L.G_MOON]), "colour": L.COLOUR_NAMES[int(T.tables.moon[int(s[L.G_MOON])])],
                 "cycle": min(steps // moon_len + 1, T.ruleset.rules.moon_cycles)},
        "final_battle": ("no", "triggered", "running")[int(s[L.G_FINAL])],
        "shimnavore": ({"space": "centre", "facing": DIRS[int(s[L.G_SHIM_FACING])]}
                       if s[L.G_FINAL] != L.FB_NONE else None),
        "dice_pool": int(s[L.G_POOL]), "talismans": int(s[L.G_TALISMANS]),
        "compass_tokens": int(s[L.G_TOKENS]), "encounter_level": int(s[L.G_ENC_LEVEL]),
        "charm_pool": {CH[t]: int(s[L.G_POOL_CHARMS + t]) for t in range(4)},
        "heroes": heroes, "discs": discs, "nightmares_on_board": nightmares,
        "bogbeans": bogbeans, "magical_pots": pots,
        "wall_damaged": [DIRS[d] for d in range(4) if s[L.G_WALL + d]],
        "shimnavore_wounds": {AB[a]: int(s[L.G_SHIM_WOUNDS + a]) for a in range(3)},
        "equipment_deck": int(s[L.G_EQ_N]), "surplus": int(s[L.G_SURPLUS_N]), "relic_deck": int(s[L.G_RELIC_N]),
        "encounter_bag": int(s[L.G_BAG_N]),
    }


def _effect_param(e, param, ctx):
    """Readable target of a relic or skill use chosen in a turn (its param
    depends on the effect kind); None when the effect picks its own."""
    kind = int(ctx.rp.rules.tables.effects[e, L.EF_KIND])
    if param < 0:
        return None
    if kind == L.EK_MOVE_TO:
        corner = move_to_corner(param)
        return f"{ctx.hero(move_to_hero(param))} to {ctx.space(int(ctx.rp.rules.tables.crossroads[corner]))}"
    if kind == L.EK_HEAL:
        return ctx.hero(param)
    if kind == L.EK_ROTATE_DISC:
        return f"disc {DIRS[param]}"
    if kind == L.EK_REPAIR_WALL:
        return f"wall {DIRS[param]}"
    if kind == L.EK_GAIN_CHARM:
        return CH[param]
    return None


def _target_name(tgt, ctx):
    """The enemy an attack argument's target (``attack_target``) names."""
    if tgt < L.TGT_BOGBEAN:
        return ctx.n.nightmares[tgt - L.TGT_NIGHTMARE]
    if tgt < L.TGT_SHIM:
        return ctx.bogbean(tgt - L.TGT_BOGBEAN)
    return "shimnavore"


def _action_text(op, arg, ctx):
    """What the chosen action is, in words (before its cost is known)."""
    name = L.OP_NAMES.get(op, str(op))
    if op == L.A_MOVE:
        return f"moves to {ctx.space(arg)}"
    if op == L.A_PICKUP:
        return f"picks up {arg} charm{'s' if arg != 1 else ''}"
    if op == L.A_DEPOSIT:
        return f"deposits {CH[arg]}"
    if op == L.A_DISCARD_CHARM:
        return f"discards 1 {CH[arg]} (free)"
    if op == L.A_ATTACK:
        return f"attacks the {_target_name(attack_target(arg), ctx)} on {AB[attack_ability(arg)]}"
    if op == L.A_TRADE:
        return f"trades 2 {CH[trade_give(arg)]} for 1 {CH[trade_take(arg)]} at the trading post"
    if op == L.A_TRADE_RELIC:
        gave = ", ".join(f"{relic_trade_count(arg, t)} {CH[t]}" for t in range(4) if relic_trade_count(arg, t))
        return f"trades {gave} for a relic"
    if op == L.A_PASS:
        return f"passes the {AB[pass_slot(arg)]} card to {ctx.hero(pass_hero(arg))}"
    if op == L.A_RELIC:
        r = sub_owner(arg)
        e = int(ctx.rp.rules.tables.relics[r, 0])
        t = _effect_param(e, sub_target(arg), ctx)
        return f"uses the relic {ctx.relic(r)}" + (f" on {t}" if t else "")
    if op == L.A_SKILL:
        u = sub_owner(arg)
        e = int(ctx.rp.rules.tables.hero_skill[ctx.hero_ids[u]])
        t = _effect_param(e, sub_target(arg), ctx)
        # a hero's own skill, or another's (some skills act for any hero)
        whose = "the" if u == ctx.cur else f"{ctx.hero(u)}'s"
        return f"uses {whose} skill {ctx.effect(e)}" + (f" on {t}" if t else "")
    if op == L.A_REPAIR:
        return f"repairs the wall at {DIRS[arg]}"
    if op == L.A_HEAL:
        return "regains a life point at the start point"
    if op == L.A_SURPLUS:
        return "takes the top Surplus card at the nexus"
    if op == L.A_DRAW_EQ:
        return "draws an Equipment card at the nexus (free)"
    if op == L.A_END:
        return "ends the turn"
    return name


def _total(v):
    """A combat total for JSON: the number, or None for a fumble or a Dandelion."""
    return None if v in ROLL_RESULT else v


# ---- how each event's slots read ---------------------------------------------
# An event row is (type, round, actor, a, b, c, d, e). FIELDS declares, for
# each event whose fields read one slot each, its fields in record order as
# (name, slot, how it reads); the events whose reading needs more (the
# context a game builds up, two slots at once) have a function in READERS.
# Every event type is in exactly one of the two (tests/mournequest/test_replay.py).
A, B, C, D, E = range(5)


def _number(v, ctx):
    return v


def _flag(v, ctx):
    return bool(v)


def _names(seq):
    return lambda v, ctx: seq[v]


DIR, CORNER, CHARM, ABILITY = _names(DIRS), _names(CORN), _names(CH), _names(AB)
COMPASS, COLOUR = _names(COMPASS_FACE), _names(L.COLOUR_NAMES)


def SPACE(v, ctx):
    return ctx.space(v)


def HERO(v, ctx):
    return ctx.hero(v)


def CARD(v, ctx):
    return ctx.card(v)


def RELIC(v, ctx):
    return ctx.relic(v)


def EFFECT(v, ctx):
    return ctx.effect(v)


def NIGHTMARE(v, ctx):
    return ctx.n.nightmares[v]


def BOGBEAN(v, ctx):
    return ctx.bogbean(v)


def FACE(v, ctx):
    return _face(v)


FIELDS = {
    "move": (("from", A, SPACE), ("to", B, SPACE), ("by_skill", C, _flag)),
    "tunnel": (("from", A, SPACE), ("to", B, SPACE)),
    "tunnel_blocked": (("from", A, SPACE), ("to", B, SPACE)),
    "cast_out": (("disc", A, DIR), ("talisman_gained", B, _flag), ("talismans", C, _number)),
    "nightmare_defeated": (("disc", A, DIR),),
    "equipment_drawn": (("card", A, CARD),),
    "surplus": (("card", A, CARD),),
    "hag": (("card", A, CARD), ("effect", B, EFFECT)),
    "relic_drawn": (("relic", A, RELIC), ("sabotaged", B, _flag)),
    "theft": (("nexus", A, CORNER), ("bogbean", A, BOGBEAN), ("demanded", B, _number), ("charms_held", C, _number)),
    "life": (("change", A, _number), ("life", B, _number)),
    "moon": (("space", A, _number), ("colour", B, COLOUR), ("cycles_done", C, _number)),
    "compass": (("face", A, COMPASS), ("dice", B, _number), ("reroll", C, _flag)),
    "disc_click": (("disc", A, DIR), ("clicks", B, _number), ("clicks_left", C, _number),
                   ("state", D, _names(L.DISC_STATE_NAMES))),
    "all_discs": (),
    "compass_token": (("tokens", A, _number),),
    # blocked: the key stone is full, the nightmare waits on its disc (MQ-GAP-27)
    "escape": (("disc", A, DIR), ("to", B, SPACE), ("blocked", C, _flag)),
    "emerge": (("disc", A, DIR), ("to", B, SPACE), ("blocked", C, _flag)),
    "evil_power": (("power", A, EFFECT), ("at", B, SPACE)),
    "encounter_level": (("level", A, _number), ("tiles_added", B, _number), ("discards_reused", C, _flag)),
    "reroll": (("dice", A, _number),),
    "knock_back": (("from", A, SPACE), ("to", B, SPACE), ("reason", C, _names(KNOCK_REASON))),
    "shimnavore": (("face", A, COMPASS),),
    "shimnavore_held": (("direction", A, DIR), ("nightmare", B, NIGHTMARE), ("key_stone", C, SPACE)),
    "wall_roll": (("section", A, DIR), ("face", B, FACE), ("hit", C, _flag)),
    "wall_damage": (("section", A, DIR), ("result", B, lambda v, ctx: "damaged" if v == 1 else "destroyed")),
    "wall_repair": (("section", A, DIR), ("by", B, lambda v, ctx: "granite" if v else "relic")),
    "shimnavore_wound": (("ability", A, ABILITY), ("wins_on_ability", B, _number)),
    "game_end": (("outcome", A, _names(L.OUTCOME_NAMES)), ("rounds", B, _number)),
    "pot": (("nexus", A, CORNER), ("at", B, SPACE)),
    "dice_pool": (("dice", A, _number),),
    "charm_gain": (("charm", A, CHARM), ("count", B, _number)),
    "charm_loss": (("charm", A, CHARM), ("count", B, _number)),
    "skill_token_lost": (("lost", A, _number),),
    "pass_equipment": (("to", A, HERO), ("card", B, CARD)),
    "nightmare_wounded": (("target", A, NIGHTMARE), ("ability", B, ABILITY)),
    "wort_wounded": (("target", A, BOGBEAN), ("ability", B, ABILITY)),
    "disc_held": (("disc", A, DIR), ("clicks", B, _number),
                  ("reason", B, lambda v, ctx: "released: it turns neither way (MQ-GAP-21)")),
}


def _turn_start(a, b, c, d, e, ctx):
    ctx.seen(ctx.rp.snapshots[a])
    return {"snapshot": snapshot_dict(ctx.rp.snapshots[a], ctx)}


def _action(a, b, c, d, e, ctx):
    if a == L.A_ATTACK:
        ctx.foe = _target_name(attack_target(b), ctx)
    # c: actions before it; d, e: patched by the engine once it is carried
    # out (actions left, turn over)
    return {"action": L.OP_NAMES.get(a, str(a)), "arg": b, "text": _action_text(a, b, ctx),
            "cost": max(c - d, 0), "actions_gained": max(d - c, 0), "actions_left": d, "ends_turn": bool(e)}


def _deposit(a, b, c, d, e, ctx):
    return {"disc": DIRS[a], "charm": CH[b], "count": c,
            "still_needed": {CH[t]: (d >> (4 * t)) & 15 for t in range(4) if (d >> (4 * t)) & 15}}


def _equip(a, b, c, d, e, ctx):
    # a discard's reason, e: 0 the player chose to; else 1 + the card held,
    # which it does not beat (both null for a card equipped)
    return {"card": ctx.card(a), "ability": AB[b], "value": c, "equipped": bool(d),
            "reason": None if d else "chosen" if e == 0 else "no better than the card held",
            "held": ctx.card(e - 1) if e and not d else None}


def _relic_used(a, b, c, d, e, ctx):
    # d=1: played in a combat, for hero c; else c is the turn target
    return {"relic": ctx.relic(a), "effect": ctx.effect(b), "in_combat": bool(d),
            "target": ctx.hero(c) if d else _effect_param(b, c, ctx)}


def _skill_used(a, b, c, d, e, ctx):
    return {"effect": ctx.effect(a), "in_combat": bool(c),
            "target": ctx.hero(b) if c else _effect_param(a, b, ctx)}


def _combat(a, b, c, d, e, ctx):
    foe = ctx.foe if ctx.foe else ("shimnavore" if a == L.ENEMY_SHIM else
                                   ctx.n.nightmares[a - L.ENEMY_NM] if a >= L.ENEMY_NM else BOG_KINDS[a])
    return {"enemy": foe, "ability": AB[b], "target": c, "total": _total(d),
            "result": ROLL_RESULT.get(d, "score"), "won": bool(e & 1), "defending": bool(e & 2)}


def _dice(a, b, c, d, e, ctx):
    faces = []
    for i in range(min(a, 6)):
        faces.append(_face((b >> (4 * (min(a, 6) - 1 - i))) & 15))
    lv = [int(x) for x in f"{c:04d}" if x != "9"][:a]
    return {"dice": [("grey", "green", "orange", "red")[x] for x in lv], "faces": faces,
            "total": _total(d), "result": ROLL_RESULT.get(d, "score"), "bonus": e}


def _final_battle(a, b, c, d, e, ctx):
    if a != 1:
        ctx.foe = None
    return {"step": "begins" if a == 1 else "shimnavore appears"}


def _enemy_move(a, b, c, d, e, ctx):
    who = ctx.n.nightmares[b] if a else ctx.bogbean(b)
    return {"enemy": who, "from": ctx.space(c), "to": ctx.space(d),
            "hunting": ctx.hero((e & 15) - 1) if e & 15 else None, "distance": e >> 4}


def _enemy_stay(a, b, c, d, e, ctx):
    who = ctx.n.nightmares[b] if a else ctx.bogbean(b)
    return {"enemy": who, "at": ctx.space(c), "reason": L.STAY_NAMES[d], "hero": ctx.hero(e - 1) if e > 0 else None}


def _encounter(a, b, c, d, e, ctx):
    lv = int(ctx.rp.rules.tables.tiles[b, 0])
    out = {"nexus": CORN[a], "tile": ctx.n.tiles[b], "kind": L.TILE_KINDS[c], "placed": bool(d),
           "reason": L.TILE_DISCARD_NAMES[e] if not d else None,
           "bogbean": bogbean_name(lv, a) if c == L.TK_BOGBEAN else None}
    if c == L.TK_BOGBEAN and d:
        ctx.bog_level[a] = lv
    return out


def _flee(a, b, c, d, e, ctx):
    out = {"bogbean_of": CORN[a], "bogbean": bogbean_name(d, a), "at": ctx.space(b), "reason": FLEE_REASON[c],
           "level": d}
    ctx.bog_level[a] = 0
    return out


def _shimnavore_attack(a, b, c, d, e, ctx):
    ctx.foe = "shimnavore"
    return {"key_stone": ctx.space(c), "direction": DIRS[a], "ability": AB[b]}


def _trade(a, b, c, d, e, ctx):
    if a < 0:
        return {"gave": {CH[t]: relic_trade_count(b, t) for t in range(4) if relic_trade_count(b, t)}, "for": "relic"}
    return {"gave": {CH[a]: 2}, "for": CH[b]}


def _talisman(a, b, c, d, e, ctx):
    if a >= 0:
        return {"die": a, "face_rerolled": _face(b), "for": "combat"}
    return {"die": None, "face_rerolled": COMPASS_FACE[b] if c == L.CTX_COMPASS else _face(b),
            "for": "compass" if c == L.CTX_COMPASS else "wall"}


def _card_lost(a, b, c, d, e, ctx):
    return {"card": ctx.relic(b) if a else ctx.card(b), "kind": "relic" if a else "equipment", "to_surplus": bool(c)}


def _enemy_phase(a, b, c, d, e, ctx):
    if a == 0:
        ctx.foe = None
        return {"step": "begins"}
    if a == 1:
        ctx.foe = None   # the actor names the nightmare
        return {"step": "nightmare attacks", "hero": ctx.hero(b), "ability": AB[c], "bogbean": None}
    ctx.foe = ctx.bogbean(d)
    return {"step": "bogbean attacks", "hero": ctx.hero(b), "ability": AB[c], "bogbean": ctx.foe}


def _bogbean_defeated(a, b, c, d, e, ctx):
    return {"nexus": CORN[a], "bogbean": bogbean_name(b, a), "level": b, "by_attack": bool(c)}


def _setup(a, b, c, d, e, ctx):
    order = f"{c:04d}"
    # every disc starts at the level's marker (the ruleset's disc_clicks, or its length for b players;
    # the rule variant short_discs_by_players sets some a click shorter, which the viewer reads from the ruleset)
    return {"level": L.LEVEL_NAMES[a], "players": b,
            "discs": {DIRS[i]: ctx.n.nightmares[int(order[i])] for i in range(4)},
            "disc_clicks": int(getattr(ctx.rp.rules.ruleset.levels, L.LEVEL_NAMES[a]).clicks(b)),
            "first_surplus": ctx.card(d)}


# the events read by a function of their own: (their fields, in record order; the reader)
READERS = {
    "turn_start": (("snapshot",), _turn_start),
    "action": (("action", "arg", "text", "cost", "actions_gained", "actions_left", "ends_turn"), _action),
    "deposit": (("disc", "charm", "count", "still_needed"), _deposit),
    "equip": (("card", "ability", "value", "equipped", "reason", "held"), _equip),
    "relic_used": (("relic", "effect", "in_combat", "target"), _relic_used),
    "skill_used": (("effect", "in_combat", "target"), _skill_used),
    "combat": (("enemy", "ability", "target", "total", "result", "won", "defending"), _combat),
    "dice": (("dice", "faces", "total", "result", "bonus"), _dice),
    "final_battle": (("step",), _final_battle),
    "enemy_move": (("enemy", "from", "to", "hunting", "distance"), _enemy_move),
    "enemy_stay": (("enemy", "at", "reason", "hero"), _enemy_stay),
    "encounter": (("nexus", "tile", "kind", "placed", "reason", "bogbean"), _encounter),
    "flee": (("bogbean_of", "bogbean", "at", "reason", "level"), _flee),
    "shimnavore_attack": (("direction", "key_stone", "ability"), _shimnavore_attack),
    "trade": (("gave", "for"), _trade),
    "talisman": (("die", "face_rerolled", "for"), _talisman),
    "card_lost": (("card", "kind", "to_surplus"), _card_lost),
    "enemy_phase": (("step", "hero", "ability", "bogbean"), _enemy_phase),
    "bogbean_defeated": (("nexus", "bogbean", "level", "by_attack"), _bogbean_defeated),
    "setup": (("level", "players", "discs", "disc_clicks", "first_surplus"), _setup),
}


def _fields(et, a, b, c, d, e, ctx):
    """Named, decoded fields of one event (updating the context it tracks)."""
    n = L.EVENT_NAMES[et]
    if n in FIELDS:
        slots = (a, b, c, d, e)
        return {name: read(slots[slot], ctx) for name, slot, read in FIELDS[n]}
    if n in READERS:
        return READERS[n][1](a, b, c, d, e, ctx)
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def decode_events(rp):
    """The event log of Replay ``rp`` as JSON-ready dicts."""
    ctx = _Ctx(rp)
    out = []
    for i, row in enumerate(rp.events):
        et, rnd, actor, a, b, c, d, e = (int(x) for x in row)
        if L.EVENT_NAMES[et] == "enemy_phase" and a == 1:
            ctx.foe = None
        ctx.cur = actor
        rec = {"i": i, "round": rnd, "event": L.EVENT_NAMES[et], "actor": ctx.actor(actor)}
        rec.update(_fields(et, a, b, c, d, e, ctx))
        if rec["event"] == "combat":
            ctx.foe = None
        out.append(rec)
    return out


# docs/mournequest/replay.md's event table, written from this and the fields
# above (python -m experiments.tables, block mq-events): each row's event
# types, when they are logged, and a note on some of their fields
DOCS = (
    (("setup",), "the set-up",
     {"discs": "nightmare by direction",
      "disc_clicks": "every disc's clicks to release at the start"}),
    (("turn_start",), "a hero's turn begins", {}),
    (("action",),
     "a hero's action (free actions included), logged when chosen with what it cost once carried out; its consequences follow",
     {"action": "`end_turn`: the hero stops with actions unused",
      "cost": "actions it took, 0 if free",
      "actions_gained": "a skill that gives actions",
      "actions_left": "after it",
      "ends_turn": "a lost attack ends the turn"}),
    (("move",), "a hero moves one space, or is moved by a skill", {}),
    (("tunnel",), "the Dunnywater Tunnel moves a hero", {}),
    (("tunnel_blocked",), "the tunnel's far end is full, so the hero stays", {}),
    (("charm_gain", "charm_loss"), "charms into / out of a backpack", {}),
    (("deposit",), "charms put on a disc",
     {"still_needed": "charms by type the disc needs after it; `{}`: cast out"}),
    (("cast_out",), "a nightmare is cast out (a talisman joins the team while the supply lasts)", {}),
    (("equipment_drawn", "surplus"), "a card drawn face-down / taken from the Surplus Deck", {}),
    (("equip",), "the card is equipped (true) or discarded to the Surplus (false)",
     {"reason": "for a discard: `chosen`, or `no better than the card held`; `null` if equipped",
      "held": "that card, or `null`"}),
    (("hag",), "a Hag is drawn and acts", {}),
    (("relic_drawn",), "a relic is drawn (pot, trade, Louse Wort)", {}),
    (("relic_used",), "a relic is used",
     {"target": "the hero it helps in a combat; else what it acts on: `\"cobs to crossroads_ne\"`, `\"disc N\"`, a charm; `null` when it picks its own"}),
    (("skill_used",), "a hero skill is used (`actor` is the skill's owner, who spends the token)",
     {"target": "as for `relic_used`"}),
    (("pot",), "a Magical Pot is collected", {}),
    (("trade",), "a Trading Post exchange", {}),
    (("pass_equipment",), "a card passed to another hero", {}),
    (("dice",), "a combat roll and each re-rolled version of it",
     {"dice": "levels rolled",
      "total": "`null` unless a score",
      "result": "`score`, `fumble`, `dandelion`"}),
    (("talisman",), "a talisman is spent",
     {"die": "index in the combat roll; `null` for a compass or wall die",
      "face_rerolled": "the face given up",
      "for": "`combat`, `compass`, `wall`"}),
    (("reroll",), "a skill re-rolls every die of the combat roll (the new faces follow in a `dice` record)", {}),
    (("combat",), "a combat is resolved",
     {"enemy": "its one name: a nightmare key, `\"snipe of NE\"`, `shimnavore`",
      "total": "`null` unless a score",
      "result": "`score`, `fumble`, `dandelion`"}),
    (("nightmare_wounded", "wort_wounded"), "a win that does not yet defeat",
     {"target": "the nightmare, or the Louse Wort by name"}),
    (("bogbean_defeated",), "a bogbean is beaten or fended off", {"bogbean": "its name"}),
    (("nightmare_defeated",), "a nightmare is beaten on all three abilities", {}),
    (("theft",), "a bogbean wins and steals", {}),
    (("card_lost",), "a card is lost (theft, Hag, swap)", {}),
    (("life",), "a hero loses or regains life", {}),
    (("skill_token_lost",), "an evil power takes skill tokens", {}),
    (("moon",), "the moon marker moves", {}),
    (("compass",), "a compass die result (before the Final Battle `dice` is 1 or 2 per turn)", {}),
    (("disc_click",), "a disc turns", {"clicks": "+ forward, − back"}),
    (("disc_held",), "a click on a released disc: it turns neither way (MQ-GAP-21)", {}),
    (("compass_token",), "a compass star places a token", {}),
    (("all_discs",), "the last token: every occupied disc turns (its `disc_click` records follow)", {}),
    (("dice_pool",), "a combat die is unlocked", {}),
    (("encounter_level",),
     "the next tile set goes into the bag, or (true) the empty bag is refilled from the discards", {}),
    (("enemy_phase",), "the enemy phase and each enemy attack",
     {"step": "`begins`, `nightmare attacks`, `bogbean attacks`",
      "ability": "the enemy's strongest, not yet beaten for a nightmare, which it attacks on",
      "bogbean": "its name for a bogbean, else `null`"}),
    (("escape",),
     "a released nightmare escapes onto its key stone; `blocked`: the key stone is full, so it waits on its disc (MQ-GAP-27)", {}),
    (("enemy_move",), "an enemy moves one space",
     {"hunting": "the nearest hero, whom it moves towards",
      "distance": "steps to that hero before the move"}),
    (("enemy_stay",), "an enemy that does not move, and why",
     {"reason": "`already with a hero`, `no hero it can reach`, `every step towards its hero is full`"}),
    (("evil_power",), "a nightmare's evil power acts", {}),
    (("encounter",), "a tile is drawn for a nexus",
     {"reason": "why it was discarded, `null` if placed",
      "bogbean": "its name for a bogbean tile, else `null`"}),
    (("flee",), "a bogbean leaves the board (nightmare arrived, beaten, stole and ran, Shimnavore)", {}),
    (("final_battle",),
     "the moon has completed its cycles and the Shimnavore appears; after that round's turns the Final Battle begins (emergence, then the opening roll)",
     {"step": "`shimnavore appears`, `begins`"}),
    (("emerge",),
     "a nightmare emerges at the start of the Final Battle (or, if it was `blocked`, at a later Final Battle enemy step)", {}),
    (("knock_back",), "a hero is knocked back (to a start point, or onto a disc)", {}),
    (("shimnavore",), "the Shimnavore acts on a compass result", {}),
    (("shimnavore_attack",),
     "the Shimnavore attacks the hero (`actor`) on the key stone it faces; the combat follows",
     {"ability": "its strongest, which it attacks on"}),
    (("shimnavore_held",), "the Shimnavore does nothing: a nightmare stands on that key stone", {}),
    (("wall_roll",), "the Shimnavore's Level 1 die against the wall", {}),
    (("wall_damage",), "the wall is hit", {"result": "`damaged`, `destroyed`"}),
    (("wall_repair",), "a section is repaired (granite or relic)", {}),
    (("shimnavore_wound",), "a hero beats the Shimnavore", {}),
    (("game_end",), "the last record", {"outcome": "`win`, `hero_died`, `wall_destroyed`, `cap`"}),
)


def fields_of(name):
    """The fields of event type ``name``, in record order."""
    return tuple(f for f, _slot, _read in FIELDS[name]) if name in FIELDS else READERS[name][0]
