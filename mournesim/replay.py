"""Decode a game's raw event log into JSON-ready records and readable text.

Every record has ``i`` (sequence number), ``round``, ``event`` and ``actor``
(a hero name, a nightmare name, or ``"game"``), plus the event's own named
fields; ``turn_start`` records carry a full ``snapshot`` of the position.
Enemies have one name everywhere: a nightmare its ruleset key, a bogbean its
kind and nexus (``"snipe of NE"``). The schema is documented in
docs/replay.md.

``text_lines(rp)`` is the readable replay as (record index, line) pairs: an
action and the event that only repeats it share one line, written as what
happened with its cost. ``render_text`` prints them; the HTML viewer
(``mournesim/viewer.py``) shows the same line for each step.
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
        if s[o + L.N_POS] >= 0:
            nightmares.append({"nightmare": ctx.n.nightmares[k], "space": ctx.space(int(s[o + L.N_POS])),
                               "wounded": [AB[a] for a in range(3) if (s[o + L.N_WOUNDS] >> a) & 1]})
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
    if kind == L.E_MOVE_TO:
        return f"{ctx.hero(param // 4)} to {ctx.space(int(ctx.rp.rules.tables.crossroads[param % 4]))}"
    if kind == L.E_HEAL:
        return ctx.hero(param)
    if kind == L.E_ROTATE_DISC:
        return f"disc {DIRS[param]}"
    if kind == L.E_REPAIR_WALL:
        return f"wall {DIRS[param]}"
    if kind == L.E_GAIN_CHARM:
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
    if op == L.A_DISCARD:
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
        r = arg // 64
        e = int(ctx.rp.rules.tables.relics[r, 0])
        t = _effect_param(e, arg % 64 - 1, ctx)
        return f"uses the relic {ctx.relic(r)}" + (f" on {t}" if t else "")
    if op == L.A_SKILL:
        u = arg // 64
        e = int(ctx.rp.rules.tables.hero_skill[ctx.hero_ids[u]])
        t = _effect_param(e, arg % 64 - 1, ctx)
        return f"uses {ctx.hero(u)}'s skill {ctx.effect(e)}" + (f" on {t}" if t else "")
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
        out = {"card": ctx.card(a), "ability": AB[b], "value": c, "equipped": bool(d)}
        if not d:
            # e: 0 the player chose to; else 1 + the card held, which it does not beat
            out["reason"] = "chosen" if e == 0 else "no better than the card held"
            out["held"] = ctx.card(e - 1) if e else None
        return out
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
        foe = ctx.foe if ctx.foe else ("shimnavore" if a == L.EV_SHIM else
                                       ctx.n.nightmares[a - L.EV_NM] if a >= L.EV_NM else BOG_KINDS[a])
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
               "reason": L.TILE_DISCARD_NAMES[e] if not d else None}
        if c == L.TK_BOGBEAN:
            out["bogbean"] = bogbean_name(lv, a)
            if d:
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
            return {"step": "nightmare attacks", "hero": ctx.hero(b), "ability": AB[c]}
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
        # every disc starts at the level's marker (the ruleset's disc_clicks)
        return {"level": L.LEVEL_NAMES[a], "players": b,
                "discs": {DIRS[i]: ctx.n.nightmares[int(order[i])] for i in range(4)},
                "disc_clicks": int(getattr(ctx.rp.rules.ruleset.levels, L.LEVEL_NAMES[a]).disc_clicks),
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
        rec = {"i": i, "round": rnd, "event": L.EVENT_NAMES[et], "actor": ctx.actor(actor)}
        rec.update(_fields(et, a, b, c, d, e, ctx))
        if rec["event"] == "combat":
            ctx.foe = None
        out.append(rec)
    return out

# =============================================================================
# readable text
# =============================================================================


def _charms(d):
    """``{"granite": 2, "gold": 1}`` as ``2 granite, 1 gold`` (``-`` if empty)."""
    return ", ".join(f"{v} {k}" for k, v in d.items() if v) or "-"


def _plural(n, word):
    """``1 click``, ``2 clicks``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cost(r):
    """The cost part of an action line, known once the action is carried
    out: what it took and the actions left after it."""
    if r["action"] == "end_turn":
        return f"[{_plural(r['actions_left'], 'action')} unused]"
    if r["ends_turn"]:
        return f"[{_plural(r['cost'], 'action')}; lost: the turn ends]"
    if r["actions_gained"]:
        return f"[gains {_plural(r['actions_gained'], 'action')}; {r['actions_left']} left]"
    if r["cost"] == 0:
        return f"[free; {r['actions_left']} left]"
    return f"[{_plural(r['cost'], 'action')}; {r['actions_left']} left]"


# events that only repeat the action just before them: folded into its line
_MIRROR = {"move": "move", "pick_up": "charm_gain", "deposit": "deposit", "discard_charm": "charm_loss",
           "take_surplus": "surplus", "pass_equipment": "pass_equipment", "regain_life": "life",
           "use_relic": "relic_used", "use_skill": "skill_used", "repair_wall": "wall_repair"}


def _action_line(r, mirror):
    """One line for a hero's action, written as what happened."""
    who, act = r["actor"], r["action"]
    text = r["text"]
    if mirror is not None:
        if act == "move":
            text = f"moves {mirror['from']} -> {mirror['to']}"
        elif act == "pick_up":
            text = f"picks up {mirror['count']} {mirror['charm']}"
        elif act == "deposit":
            text = (f"deposits {mirror['count']} {mirror['charm']} on disc {mirror['disc']} "
                    f"(still needed: {_charms(mirror['still_needed']) if mirror['still_needed'] else 'none'})")
        elif act == "discard_charm":
            text = f"discards {mirror['count']} {mirror['charm']}"
        elif act == "take_surplus":
            text = f"takes {mirror['card']} from the Surplus Deck"
        elif act == "pass_equipment":
            text = f"passes {mirror['card']} to {mirror['to']}"
        elif act == "regain_life":
            text = f"regains {mirror['change']} life at the start point (life {mirror['life']})"
    return f"  {who} {text}   {_cost(r)}"


def _enemy(r):
    return r["enemy"]


def _event_line(r):
    """One line for an event that is not a hero's action (None: not shown)."""
    ev, who = r["event"], r["actor"]
    if ev == "setup":
        return (f"  set-up: {r['level']}, {r['players']} player(s); discs "
                + ", ".join(f"{k} {v}" for k, v in r["discs"].items()) + f"; Surplus card {r['first_surplus']}")
    if ev == "move":
        return f"    {who} is moved {r['from']} -> {r['to']}" + (" (skill or relic)" if r["by_skill"] else "")
    if ev == "tunnel":
        return f"    {who} goes through the Dunnywater Tunnel {r['from']} -> {r['to']}"
    if ev == "tunnel_blocked":
        return f"    {who} stays at {r['from']}: the tunnel's far end {r['to']} is full"
    if ev == "charm_gain":
        return f"    {who} gains {r['count']} {r['charm']}"
    if ev == "charm_loss":
        return f"    {who} loses {r['count']} {r['charm']}"
    if ev == "deposit":
        return f"    {who} deposits {r['count']} {r['charm']} on disc {r['disc']}"
    if ev == "cast_out":
        return (f"    {who} is CAST OUT (disc {r['disc']})"
                + (f"; the team gains a talisman ({r['talismans']})" if r["talisman_gained"] else ""))
    if ev == "nightmare_defeated":
        return f"    {who} is DEFEATED (disc {r['disc']})"
    if ev == "equipment_drawn":
        return f"    {who} draws {r['card']}"
    if ev == "surplus":
        return f"    {who} takes {r['card']} from the Surplus Deck"
    if ev == "equip":
        card = r["card"] if r["card"] == f"{r['ability']} +{r['value']}" else \
            f"{r['card']} ({r['ability']} +{r['value']})"
        if r["equipped"]:
            return f"    {who} equips {card}"
        why = f"no better than {r['held']}, which {who} holds" if r["held"] else f"{who}'s choice"
        return f"    {who} discards {card} to the Surplus Deck ({why})"
    if ev == "hag":
        return f"    the Hag {r['card']} acts on {who}" + (f": {r['effect']}" if r["effect"] != r["card"] else "")
    if ev == "relic_drawn":
        return f"    {who} draws the relic {r['relic']}" + (" - sabotaged, it acts at once" if r["sabotaged"] else "")
    if ev == "relic_used":
        eff = f" ({r['effect']})" if r["effect"] != r["relic"] else ""
        return f"    {who} uses the relic {r['relic']}{eff}" + (f" for {r['target']}" if r["target"] else "")
    if ev == "skill_used":
        return f"    {who} uses a skill token: {r['effect']}" + (f" for {r['target']}" if r["target"] else "")
    if ev == "pot":
        return f"    {who} collects the Magical Pot at {r['at']} and draws a relic"
    if ev == "trade":
        return f"    {who} trades {_charms(r['gave'])} for {r['for']}"
    if ev == "pass_equipment":
        return f"    {who} passes {r['card']} to {r['to']}"
    if ev == "dice":
        res = r["result"] if r["result"] != "score" else str(r["total"])
        bonus = f" (bonus {r['bonus']:+d})" if r["bonus"] else ""
        return f"      roll {', '.join(r['dice'])}: {', '.join(r['faces'])} -> {res}{bonus}"
    if ev == "talisman":
        if r["for"] == "combat":
            return f"      a talisman re-rolls die {r['die'] + 1} (was {r['face_rerolled']})"
        return f"      a talisman re-rolls the {r['for']} die (was {r['face_rerolled']})"
    if ev == "reroll":
        return f"      every die is re-rolled ({r['dice']})"
    if ev == "combat":
        res = r["result"] if r["result"] != "score" else str(r["total"])
        verdict = "WON" if r["won"] else "LOST"
        side = f"defends against the {r['enemy']}" if r["defending"] else f"against the {r['enemy']}"
        return f"    {who} {side} on {r['ability']}: {res} vs {r['target']} - {verdict}"
    if ev in ("nightmare_wounded", "wort_wounded"):
        return f"    the {r['target']} is beaten on {r['ability']}"
    if ev == "bogbean_defeated":
        return f"    the {r['bogbean']} is {'beaten' if r['by_attack'] else 'fended off'}"
    if ev == "theft":
        return (f"    the {r['bogbean']} steals from {who}: it wants {r['demanded']} charm(s), "
                f"{who} has {r['charms_held']}")
    if ev == "card_lost":
        kind = "relic" if r["kind"] == "relic" else "Equipment card"
        return f"    {who} loses the {kind} {r['card']}" + (" to the Surplus Deck" if r["to_surplus"] else "")
    if ev == "life":
        return f"    {who} {'regains' if r['change'] > 0 else 'loses'} {abs(r['change'])} life (life {r['life']})"
    if ev == "skill_token_lost":
        return f"    {who} loses {r['lost']} skill token(s)"
    if ev == "moon":
        return f"  the moon moves to space {r['space']} ({r['colour']})"
    if ev == "compass":
        return f"  compass die: {r['face']}" + (" (re-rolled)" if r["reroll"] else "")
    if ev == "disc_click":
        turn = f"turns {r['clicks']:+d} click" if r["clicks"] else "turns"
        return f"    disc {r['disc']} {turn}: {r['clicks_left']} left" + (
            " - RELEASED, its nightmare escapes in the enemy phase" if r["state"] == "released" else "")
    if ev == "disc_held":
        return f"    disc {r['disc']} does not turn: it is already released"
    if ev == "compass_token":
        return f"    a compass token is placed ({r['tokens']})"
    if ev == "all_discs":
        return "    the last compass token: every occupied disc turns"
    if ev == "dice_pool":
        return f"    a combat die is unlocked: the pool is {r['dice']} dice"
    if ev == "encounter_level":
        if r["discards_reused"]:
            return f"    the empty bag is refilled from the discards ({r['tiles_added']} tiles)"
        return f"    level {r['level']} encounter tiles go into the bag ({r['tiles_added']})"
    if ev == "enemy_phase":
        if r["step"] == "nightmare attacks":
            return (f"  the {who} attacks {r['hero']} (on its space) on {r['ability']}, "
                    f"its strongest ability not yet beaten")
        return f"  the {r['bogbean']} attacks {r['hero']} (on its space) on {r['ability']}, its strongest ability"
    if ev == "escape":
        if r["blocked"]:
            return f"  {who} cannot escape: key stone {r['to']} is full, it waits on disc {r['disc']}"
        return f"  {who} ESCAPES from disc {r['disc']} onto {r['to']}"
    if ev == "emerge":
        if r["blocked"]:
            return f"  {who} cannot emerge: key stone {r['to']} is full, it waits on disc {r['disc']}"
        return f"  {who} emerges from disc {r['disc']} onto {r['to']}"
    if ev == "enemy_move":
        why = (f" (towards the nearest hero, {r['hunting']}, {_plural(r['distance'], 'step')} away)"
               if r["hunting"] else "")
        return f"  the {r['enemy']} moves {r['from']} -> {r['to']}{why}"
    if ev == "enemy_stay":
        return f"  the {r['enemy']} stays at {r['at']}: {r['reason']}" + (f" ({r['hero']})" if r["hero"] else "")
    if ev == "evil_power":
        return f"  {who} uses its evil power {r['power']} at {r['at']}"
    if ev == "encounter":
        what = r.get("bogbean") or r["kind"]
        if r["placed"]:
            where = "its nexus" if r["kind"] == "bogbean" else "the crossroads"
            return f"  encounter tile for {r['nexus']}: {r['tile']} - the {what} is placed at {where}"
        return f"  encounter tile for {r['nexus']}: {r['tile']} - discarded: {r['reason']}"
    if ev == "flee":
        return f"    the {r['bogbean']} leaves the board at {r['at']} ({r['reason']})"
    if ev == "knock_back":
        return f"    {who} is knocked back {r['from']} -> {r['to']} ({r['reason']})"
    if ev == "shimnavore":
        return f"  the Shimnavore acts on {r['face']}"
    if ev == "shimnavore_attack":
        return (f"    the Shimnavore attacks {who} at {r['key_stone']} (the key stone it faces) on "
                f"{r['ability']}, its strongest ability")
    if ev == "shimnavore_held":
        return f"    the Shimnavore does nothing: the {r['nightmare']} stands on key stone {r['key_stone']}"
    if ev == "wall_roll":
        return f"    wall die at {r['section']}: {r['face']} - {'hit' if r['hit'] else 'miss'}"
    if ev == "wall_damage":
        return f"    the wall at {r['section']} is {r['result'].upper()}"
    if ev == "wall_repair":
        return f"    {who} repairs the wall at {r['section']} ({r['by']})"
    if ev == "shimnavore_wound":
        return f"    the Shimnavore is beaten on {r['ability']} ({r['wins_on_ability']} win(s) on it)"
    if ev == "game_end":
        return f"GAME OVER: {r['outcome']} after {r['rounds']} rounds"
    rest = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("i", "round", "event", "actor", "snapshot"))
    return f"  {ev} {who} {rest}"


def turn_header(r):
    """The block that opens a hero's turn: the position from its snapshot."""
    sn = r["snapshot"]
    lines = ["", f"== round {r['round']} - {r['actor']}'s turn - moon {sn['moon']['colour']} "
             f"(space {sn['moon']['space']}, cycle {sn['moon']['cycle']}) - dice pool "
             f"{sn['dice_pool']} - talismans {sn['talismans']} - compass tokens {sn['compass_tokens']}"
             + (" - FINAL BATTLE" if sn["final_battle"] == "running" else "")]
    for h in sn["heroes"]:
        lines.append(f"   {h['hero']:<7} at {h['space']:<16} life {h['life']}  "
                     f"C/S/M {h['abilities']['courage']}/{h['abilities']['strength']}/"
                     f"{h['abilities']['magic']}  skill tokens {h['skill_tokens']}  "
                     f"charms {_charms(h['charms'])}  cards {', '.join(h['cards']) or '-'}  "
                     f"relics {', '.join(h['relics']) or '-'}")
    parts = []
    for d in sn["discs"]:
        if d["state"] in ("on disc", "released"):
            need = _charms(d["needed"]) if d["needed"] else "none"
            parts.append(f"{d['disc']} {d['nightmare']} {d['state']}, {_plural(d['clicks_left'], 'click')} left, "
                         f"needs {need}" + (f" (has {_charms(d['deposited'])})" if d["deposited"] else ""))
        else:
            parts.append(f"{d['disc']} {d['nightmare']} {d['state']}")
    lines.append("   discs: " + "; ".join(parts))
    if sn["nightmares_on_board"] or sn["bogbeans"] or sn["magical_pots"]:
        lines.append("   enemies: " + "; ".join(
            [f"{n['nightmare']} at {n['space']}" + (f" (beaten on {', '.join(n['wounded'])})" if n['wounded'] else "")
             for n in sn["nightmares_on_board"]]
            + [f"{b['name']} at {b['space']}" + (f" (beaten on {', '.join(b['wounded'])})" if b['wounded'] else "")
               for b in sn["bogbeans"]])
            + ("  pots: " + ", ".join(sn["magical_pots"]) if sn["magical_pots"] else ""))
    if sn["wall_damaged"] or any(sn["shimnavore_wounds"].values()):
        lines.append(f"   wall damaged: {', '.join(sn['wall_damaged']) or '-'}  "
                     f"shimnavore beaten: {_charms(sn['shimnavore_wounds'])}")
    return lines


def text_lines(rp, records=None):
    """The readable replay as ``(record index, line)`` pairs, in order. A
    turn's header lines carry its ``turn_start`` index; an event that only
    repeats the action before it has no line of its own (its action's line
    says it). Section headers carry the index of the record that opens them."""
    recs = records if records is not None else decode_events(rp)
    out = []
    skip = set()
    for k, r in enumerate(recs):
        if k in skip:
            continue
        ev = r["event"]
        if k == 0:
            out.append((k, "-- set-up"))
        if r["round"] == 0 and ev != "turn_start":
            # set-up lines stand on their own, not under an action
            out.append((k, "  " + _event_line(r).lstrip()))
            continue
        if ev == "charm_loss":
            # a theft takes charms one at a time: one line for each kind lost
            j = k + 1
            while j < len(recs) and recs[j]["event"] == "charm_loss" and recs[j]["actor"] == r["actor"] \
                    and recs[j]["charm"] == r["charm"]:
                skip.add(j)
                j += 1
            if j > k + 1:
                r = dict(r, count=sum(recs[q]["count"] for q in range(k, j)))
        if ev == "turn_start":
            out += [(k, line) for line in turn_header(r)]
        elif ev == "action":
            mirror = None
            want = _MIRROR.get(r["action"])
            if want and k + 1 < len(recs) and recs[k + 1]["event"] == want:
                mirror = recs[k + 1]
                skip.add(k + 1)
            out.append((k, _action_line(r, mirror)))
        elif ev == "final_battle":
            out.append((k, ""))
            out.append((k, "-- THE SHIMNAVORE APPEARS (the moon has completed its cycles)" if r["step"] != "begins"
                        else "-- FINAL BATTLE BEGINS: remaining nightmares emerge, then the opening compass roll"))
        elif ev == "enemy_phase" and r.get("step") == "begins":
            idle = k + 1 < len(recs) and recs[k + 1]["event"] in ("turn_start", "game_end")
            out.append((k, ""))
            out.append((k, f"-- round {r['round']} enemy phase" + (": no enemy acts" if idle else "")))
        else:
            out.append((k, _event_line(r)))
    return out


def render_text(rp):
    """Readable text of a whole game: a snapshot per turn, then its events."""
    head = (f"MourneQuest replay  seed={rp.seed} game={rp.game} level={rp.config.level} "
            f"players={rp.config.players} policy={rp.config.policy}  rules {rp.rules.hash}")
    return "\n".join([head] + [line for _, line in text_lines(rp)]) + "\n"
