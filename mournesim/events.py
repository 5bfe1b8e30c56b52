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
        return f"{ctx.hero(param // 4)} to {ctx.space(int(ctx.rp.rules.tables.crossroads[param % 4]))}"
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
    """The enemy an attack argument (``arg // 4``) names."""
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
        tgt, a = divmod(arg, 4)
        return f"attacks the {_target_name(tgt, ctx)} on {AB[a]}"
    if op == L.A_TRADE:
        return f"trades 2 {CH[arg // 4]} for 1 {CH[arg % 4]} at the trading post"
    if op == L.A_TRADE_RELIC:
        gave = ", ".join(f"{(arg >> (2 * t)) & 3} {CH[t]}" for t in range(4) if (arg >> (2 * t)) & 3)
        return f"trades {gave} for a relic"
    if op == L.A_PASS:
        return f"passes the {AB[arg // 4]} card to {ctx.hero(arg % 4)}"
    if op == L.A_RELIC:
        r = arg // L.SUB
        e = int(ctx.rp.rules.tables.relics[r, 0])
        t = _effect_param(e, arg % L.SUB - 1, ctx)
        return f"uses the relic {ctx.relic(r)}" + (f" on {t}" if t else "")
    if op == L.A_SKILL:
        u = arg // L.SUB
        e = int(ctx.rp.rules.tables.hero_skill[ctx.hero_ids[u]])
        t = _effect_param(e, arg % L.SUB - 1, ctx)
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


def _fields(et, a, b, c, d, e, ctx):
    """Named, decoded fields of one event (updating the context it tracks)."""
    n = L.EVENT_NAMES[et]
    T = ctx.rp.rules.tables
    if n == "turn_start":
        ctx.seen(ctx.rp.snapshots[a])
        return {"snapshot": snapshot_dict(ctx.rp.snapshots[a], ctx)}
    if n == "action":
        if a == L.A_ATTACK:
            ctx.foe = _target_name(b // 4, ctx)
        # c: actions before it; d, e: patched by the engine once it is carried
        # out (actions left, turn over)
        return {"action": L.OP_NAMES.get(a, str(a)), "arg": b, "text": _action_text(a, b, ctx),
                "cost": max(c - d, 0), "actions_gained": max(d - c, 0), "actions_left": d, "ends_turn": bool(e)}
    if n in ("move", "tunnel", "tunnel_blocked"):
        out = {"from": ctx.space(a), "to": ctx.space(b)}
        if n == "move":
            out["by_skill"] = bool(c)
        return out
    if n == "deposit":
        return {"disc": DIRS[a], "charm": CH[b], "count": c,
                "still_needed": {CH[t]: (d >> (4 * t)) & 15 for t in range(4) if (d >> (4 * t)) & 15}}
    if n == "cast_out":
        return {"disc": DIRS[a], "talisman_gained": bool(b), "talismans": c}
    if n == "nightmare_defeated":
        return {"disc": DIRS[a]}
    if n == "equipment_drawn" or n == "surplus":
        return {"card": ctx.card(a)}
    if n == "equip":
        # a discard's reason, e: 0 the player chose to; else 1 + the card held,
        # which it does not beat (both null for a card equipped)
        return {"card": ctx.card(a), "ability": AB[b], "value": c, "equipped": bool(d),
                "reason": None if d else "chosen" if e == 0 else "no better than the card held",
                "held": ctx.card(e - 1) if e and not d else None}
    if n == "hag":
        return {"card": ctx.card(a), "effect": ctx.effect(b)}
    if n == "relic_drawn":
        return {"relic": ctx.relic(a), "sabotaged": bool(b)}
    if n == "relic_used":
        # d=1: played in a combat, for hero c; else c is the turn target
        return {"relic": ctx.relic(a), "effect": ctx.effect(b), "in_combat": bool(d),
                "target": ctx.hero(c) if d else _effect_param(b, c, ctx)}
    if n == "skill_used":
        return {"effect": ctx.effect(a), "in_combat": bool(c),
                "target": ctx.hero(b) if c else _effect_param(a, b, ctx)}
    if n == "combat":
        foe = ctx.foe if ctx.foe else ("shimnavore" if a == L.ENEMY_SHIM else
                                       ctx.n.nightmares[a - L.ENEMY_NM] if a >= L.ENEMY_NM else BOG_KINDS[a])
        return {"enemy": foe, "ability": AB[b], "target": c, "total": _total(d),
                "result": ROLL_RESULT.get(d, "score"), "won": bool(e & 1), "defending": bool(e & 2)}
    if n == "dice":
        faces = []
        for i in range(min(a, 6)):
            faces.append(_face((b >> (4 * (min(a, 6) - 1 - i))) & 15))
        lv = [int(x) for x in f"{c:04d}" if x != "9"][:a]
        return {"dice": [("grey", "green", "orange", "red")[x] for x in lv], "faces": faces,
                "total": _total(d), "result": ROLL_RESULT.get(d, "score"), "bonus": e}
    if n == "theft":
        return {"nexus": CORN[a], "bogbean": ctx.bogbean(a), "demanded": b, "charms_held": c}
    if n == "life":
        return {"change": a, "life": b}
    if n == "moon":
        return {"space": a, "colour": L.COLOUR_NAMES[b], "cycles_done": c}
    if n == "compass":
        return {"face": COMPASS_FACE[a], "dice": b, "reroll": bool(c)}
    if n == "disc_click":
        return {"disc": DIRS[a], "clicks": b, "clicks_left": c, "state": L.DISC_STATE_NAMES[d]}
    if n == "disc_held":
        return {"disc": DIRS[a], "clicks": b, "reason": "released: it turns neither way (MQ-GAP-21)"}
    if n == "final_battle":
        if a != 1:
            ctx.foe = None
        return {"step": "begins" if a == 1 else "shimnavore appears"}
    if n == "all_discs":
        return {}
    if n == "compass_token":
        return {"tokens": a}
    if n in ("escape", "emerge"):
        # blocked: the key stone is full, the nightmare waits on its disc (MQ-GAP-27)
        return {"disc": DIRS[a], "to": ctx.space(b), "blocked": bool(c)}
    if n == "enemy_move":
        who = ctx.n.nightmares[b] if a else ctx.bogbean(b)
        return {"enemy": who, "from": ctx.space(c), "to": ctx.space(d),
                "hunting": ctx.hero((e & 15) - 1) if e & 15 else None, "distance": e >> 4}
    if n == "enemy_stay":
        who = ctx.n.nightmares[b] if a else ctx.bogbean(b)
        return {"enemy": who, "at": ctx.space(c), "reason": L.STAY_NAMES[d],
                "hero": ctx.hero(e - 1) if e > 0 else None}
    if n == "evil_power":
        return {"power": ctx.effect(a), "at": ctx.space(b)}
    if n == "encounter":
        lv = int(T.tiles[b, 0])
        out = {"nexus": CORN[a], "tile": ctx.n.tiles[b], "kind": L.TILE_KINDS[c], "placed": bool(d),
               "reason": L.TILE_DISCARD_NAMES[e] if not d else None,
               "bogbean": bogbean_name(lv, a) if c == L.TK_BOGBEAN else None}
        if c == L.TK_BOGBEAN and d:
            ctx.bog_level[a] = lv
        return out
    if n == "encounter_level":
        return {"level": a, "tiles_added": b, "discards_reused": bool(c)}
    if n == "reroll":
        return {"dice": a}
    if n == "flee":
        out = {"bogbean_of": CORN[a], "bogbean": bogbean_name(d, a), "at": ctx.space(b),
               "reason": FLEE_REASON[c], "level": d}
        ctx.bog_level[a] = 0
        return out
    if n == "knock_back":
        return {"from": ctx.space(a), "to": ctx.space(b), "reason": KNOCK_REASON[c]}
    if n == "shimnavore":
        return {"face": COMPASS_FACE[a]}
    if n == "shimnavore_attack":
        ctx.foe = "shimnavore"
        return {"key_stone": ctx.space(c), "direction": DIRS[a], "ability": AB[b]}
    if n == "shimnavore_held":
        return {"direction": DIRS[a], "nightmare": ctx.n.nightmares[b], "key_stone": ctx.space(c)}
    if n == "wall_roll":
        return {"section": DIRS[a], "face": _face(b), "hit": bool(c)}
    if n == "wall_damage":
        return {"section": DIRS[a], "result": "damaged" if b == 1 else "destroyed"}
    if n == "wall_repair":
        return {"section": DIRS[a], "by": "granite" if b else "relic"}
    if n == "shimnavore_wound":
        return {"ability": AB[a], "wins_on_ability": b}
    if n == "game_end":
        return {"outcome": L.OUTCOME_NAMES[a], "rounds": b}
    if n == "trade":
        if a < 0:
            return {"gave": {CH[t]: (b >> (2 * t)) & 3 for t in range(4) if (b >> (2 * t)) & 3}, "for": "relic"}
        return {"gave": {CH[a]: 2}, "for": CH[b]}
    if n == "pot":
        return {"nexus": CORN[a], "at": ctx.space(b)}
    if n == "dice_pool":
        return {"dice": a}
    if n == "talisman":
        if a >= 0:
            return {"die": a, "face_rerolled": _face(b), "for": "combat"}
        return {"die": None, "face_rerolled": COMPASS_FACE[b] if c == L.CTX_COMPASS else _face(b),
                "for": "compass" if c == L.CTX_COMPASS else "wall"}
    if n == "card_lost":
        return {"card": ctx.relic(b) if a else ctx.card(b), "kind": "relic" if a else "equipment",
                "to_surplus": bool(c)}
    if n in ("charm_gain", "charm_loss"):
        return {"charm": CH[a], "count": b}
    if n == "skill_token_lost":
        return {"lost": a}
    if n == "enemy_phase":
        if a == 0:
            ctx.foe = None
            return {"step": "begins"}
        if a == 1:
            ctx.foe = None   # the actor names the nightmare
            return {"step": "nightmare attacks", "hero": ctx.hero(b), "ability": AB[c], "bogbean": None}
        ctx.foe = ctx.bogbean(d)
        return {"step": "bogbean attacks", "hero": ctx.hero(b), "ability": AB[c], "bogbean": ctx.foe}
    if n == "pass_equipment":
        return {"to": ctx.hero(a), "card": ctx.card(b)}
    if n == "bogbean_defeated":
        return {"nexus": CORN[a], "bogbean": bogbean_name(b, a), "level": b, "by_attack": bool(c)}
    if n in ("nightmare_wounded", "wort_wounded"):
        return {"target": ctx.n.nightmares[a] if n == "nightmare_wounded" else ctx.bogbean(a), "ability": AB[b]}
    if n == "setup":
        order = f"{c:04d}"
        # every disc starts at the level's marker (the ruleset's disc_clicks, or its length for b players)
        return {"level": L.LEVEL_NAMES[a], "players": b,
                "discs": {DIRS[i]: ctx.n.nightmares[int(order[i])] for i in range(4)},
                "disc_clicks": int(getattr(ctx.rp.rules.ruleset.levels, L.LEVEL_NAMES[a]).clicks(b)),
                "first_surplus": ctx.card(d)}
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
