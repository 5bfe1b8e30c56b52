"""Decode a game's raw event log into JSON-ready records and readable text.

Every record has ``i`` (sequence number), ``round``, ``event`` and ``actor``
(a hero name, a nightmare name, or ``"game"``), plus the event's own named
fields; ``turn_start`` records carry a full ``snapshot`` of the position.
The schema is documented in docs/replay.md.
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


def _face(f):
    return {L.FACE_FAIL: "fail", L.FACE_DOUBLE: "double", L.FACE_DANDELION: "dandelion"}.get(f, str(f))


def _row_name(row, names):
    if row < L.EV_NM:
        return ("snipe", "speedwell", "louse_wort")[row - L.EV_BOG]
    if row < L.EV_SHIM:
        return names.nightmares[row - L.EV_NM]
    return "shimnavore"


class _Ctx:
    def __init__(self, rp):
        self.rp = rp
        self.n = rp.rules.names
        self.hero_ids = [int(rp.final_state[L.G_HERO + h * L.HS + L.H_ID]) for h in range(4)]

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
            "abilities": {AB[a]: int(T.tables.hero_abil[int(s[o + L.H_ID]), a]) + eq[AB[a]] for a in range(3)},
            "skill_tokens": int(s[o + L.H_SKILLS]), "relics": relics,
        })
    discs = []
    for d in range(4):
        o = L.G_DISC + d * L.DSZ
        k = int(s[o + L.D_NM])
        discs.append({"disc": DIRS[d], "nightmare": ctx.n.nightmares[k], "clicks_left": int(s[o + L.D_CLICKS]),
                      "state": L.DISC_STATE_NAMES[int(s[o + L.D_STATE])],
                      "deposited": {CH[t]: int(s[o + L.D_DEP + t]) for t in range(4) if s[o + L.D_DEP + t]}})
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
            bogbeans.append({"nexus": CORN[c], "bogbean": ctx.n.tiles[t], "level": int(T.tables.tiles[t, 0]),
                             "space": ctx.space(int(s[o + L.X_BOG_POS])),
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
    """Readable target of a relic or skill use (its param depends on the effect kind)."""
    kind = int(ctx.rp.rules.tables.effects[e, L.EF_KIND])
    if param < 0:
        return ""
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
    return str(param)


def _action_text(op, arg, ctx):
    name = L.OP_NAMES.get(op, str(op))
    if op == L.A_MOVE:
        return f"{name} -> {ctx.space(arg)}"
    if op in (L.A_PICKUP,):
        return f"{name} x{arg}"
    if op in (L.A_DEPOSIT, L.A_DISCARD):
        return f"{name} {CH[arg]}"
    if op == L.A_ATTACK:
        tgt, a = divmod(arg, 4)
        who = (ctx.n.nightmares[tgt] if tgt < 4 else f"bogbean of {CORN[tgt - 4]}" if tgt < 8 else "shimnavore")
        return f"{name} {who} with {AB[a]}"
    if op == L.A_TRADE:
        return f"{name} 2 {CH[arg // 4]} -> 1 {CH[arg % 4]}"
    if op == L.A_PASS:
        return f"{name} {AB[arg // 4]} card to {ctx.hero(arg % 4)}"
    if op == L.A_RELIC:
        r = arg // 64
        e = int(ctx.rp.rules.tables.relics[r, 0])
        return f"{name} {ctx.relic(r)} {_effect_param(e, arg % 64 - 1, ctx)}".rstrip()
    if op == L.A_SKILL:
        u = arg // 64
        e = int(ctx.rp.rules.tables.hero_skill[ctx.hero_ids[u]])
        return f"{ctx.hero(u)} uses skill {ctx.effect(e)} {_effect_param(e, arg % 64 - 1, ctx)}".rstrip()
    if op == L.A_REPAIR:
        return f"{name} {DIRS[arg]}"
    return name


def _fields(et, a, b, c, d, e, ctx):
    """Named, decoded fields of one event."""
    n = L.EVENT_NAMES[et]
    if n == "turn_start":
        return {"snapshot": snapshot_dict(ctx.rp.snapshots[a], ctx)}
    if n == "action":
        return {"action": L.OP_NAMES.get(a, str(a)), "arg": b, "actions_left": c,
                "text": _action_text(a, b, ctx)}
    if n in ("move", "tunnel"):
        return {"from": ctx.space(a), "to": ctx.space(b), "by_skill": bool(c)}
    if n == "deposit":
        return {"disc": DIRS[a], "charm": CH[b], "count": c}
    if n == "cast_out":
        return {"disc": DIRS[a], "talisman_gained": bool(b), "talismans": c}
    if n == "nightmare_defeated":
        return {"disc": DIRS[a]}
    if n == "equipment_drawn" or n == "surplus":
        return {"card": ctx.card(a)}
    if n == "equip":
        return {"card": ctx.card(a), "ability": AB[b], "value": c, "equipped": bool(d)}
    if n == "hag":
        return {"card": ctx.card(a), "effect": ctx.effect(b)}
    if n == "relic_drawn":
        return {"relic": ctx.relic(a), "sabotaged": bool(b)}
    if n == "relic_used":
        return {"relic": ctx.relic(a), "effect": ctx.effect(b), "target": c,
                "target_text": _effect_param(b, c, ctx) if c >= 0 else ""}
    if n == "skill_used":
        return {"effect": ctx.effect(a), "target": b, "target_text": _effect_param(a, b, ctx) if b >= 0 else ""}
    if n == "combat":
        return {"enemy": _row_name(a, ctx.n), "ability": AB[b], "target": c, "total": d,
                "won": bool(e & 1), "defending": bool(e & 2)}
    if n == "dice":
        faces = []
        for i in range(min(a, 6)):
            faces.append(_face((b >> (4 * (min(a, 6) - 1 - i))) & 15))
        lv = [int(x) for x in f"{c:04d}" if x != "9"][:a]
        return {"dice": [("grey", "green", "orange", "red")[x] for x in lv], "faces": faces,
                "total": d, "bonus": e}
    if n == "theft":
        return {"nexus": CORN[a], "demanded": b, "charms_held": c}
    if n == "life":
        return {"change": a, "life": b}
    if n == "moon":
        return {"space": a, "colour": L.COLOUR_NAMES[b], "cycles_done": c}
    if n == "compass":
        return {"face": COMPASS_FACE[a], "dice": b, "reroll": bool(c)}
    if n == "disc_click":
        return {"disc": DIRS[a], "clicks": b, "clicks_left": c, "state": L.DISC_STATE_NAMES[d]}
    if n == "final_battle":
        return {"step": "begins" if a == 1 else "shimnavore appears"}
    if n == "all_discs":
        return {}
    if n == "compass_token":
        return {"tokens": a}
    if n in ("escape", "emerge"):
        # blocked: the key stone is full, the nightmare waits on its disc (MQ-GAP-27)
        return {"disc": DIRS[a], "to": ctx.space(b), "blocked": bool(c)}
    if n == "enemy_move":
        who = ctx.n.nightmares[b] if a else f"bogbean of {CORN[b]}"
        return {"enemy": who, "from": ctx.space(c), "to": ctx.space(d)}
    if n == "evil_power":
        return {"power": ctx.effect(a), "at": ctx.space(b)}
    if n == "encounter":
        return {"nexus": CORN[a], "tile": ctx.n.tiles[b], "kind": L.TILE_KINDS[c], "placed": bool(d)}
    if n == "encounter_level":
        return {"level": a, "tiles_added": b, "discards_reused": bool(c)}
    if n == "reroll":
        return {"dice": a}
    if n == "flee":
        return {"bogbean_of": CORN[a], "at": ctx.space(b), "reason": FLEE_REASON[c], "level": d}
    if n == "knock_back":
        return {"from": ctx.space(a), "to": ctx.space(b), "reason": KNOCK_REASON[c]}
    if n == "shimnavore":
        return {"face": COMPASS_FACE[a]}
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
        return {"die": a, "face_rerolled": COMPASS_FACE[b] if c == L.CTX_COMPASS else _face(b),
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
            return {"step": "begins"}
        return {"step": "nightmare attacks" if a == 1 else "bogbean attacks", "hero": ctx.hero(b),
                "ability": AB[c]}
    if n == "pass_equipment":
        return {"to": ctx.hero(a), "card": ctx.card(b)}
    if n == "bogbean_defeated":
        return {"nexus": CORN[a], "level": b, "by_attack": bool(c)}
    if n in ("nightmare_wounded", "wort_wounded"):
        return {"target": ctx.n.nightmares[a] if n == "nightmare_wounded" else CORN[a], "ability": AB[b]}
    if n == "setup":
        order = f"{c:04d}"
        return {"level": L.LEVEL_NAMES[a], "players": b,
                "discs": {DIRS[i]: ctx.n.nightmares[int(order[i])] for i in range(4)},
                "first_surplus": ctx.card(d)}
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def decode_events(rp):
    """The event log of Replay ``rp`` as JSON-ready dicts."""
    ctx = _Ctx(rp)
    out = []
    for i, row in enumerate(rp.events):
        et, rnd, actor, a, b, c, d, e = (int(x) for x in row)
        rec = {"i": i, "round": rnd, "event": L.EVENT_NAMES[et], "actor": ctx.actor(actor)}
        rec.update(_fields(et, a, b, c, d, e, ctx))
        out.append(rec)
    return out


def _line(r):
    ev = r["event"]
    who = r["actor"]
    skip = {"i", "round", "event", "actor", "snapshot"}
    rest = ", ".join(f"{k}={v}" for k, v in r.items() if k not in skip)
    if ev == "action":
        return f"  {who}: {r['text']}   [{r['actions_left']} action(s) left]"
    if ev in ("dice", "combat") and r.get("total") in (-1, 999):
        r = dict(r, total="fumble" if r["total"] == -1 else "dandelion")
        rest = ", ".join(f"{k}={v}" for k, v in r.items() if k not in skip)
    return f"  {ev:<16} {who:<10} {rest}"


def render_text(rp):
    """Readable text of a whole game: a snapshot per turn, then its events."""
    lines = [f"MourneQuest replay  seed={rp.seed} game={rp.game} level={rp.config.level} "
             f"players={rp.config.players} policy={rp.config.policy}  rules {rp.rules.hash}"]
    for r in decode_events(rp):
        if r["event"] == "turn_start":
            sn = r["snapshot"]
            lines.append("")
            lines.append(f"== round {r['round']} - {r['actor']}'s turn - moon {sn['moon']['colour']} "
                         f"(space {sn['moon']['space']}, cycle {sn['moon']['cycle']}) - dice pool "
                         f"{sn['dice_pool']} - talismans {sn['talismans']} - compass tokens {sn['compass_tokens']}"
                         + (" - FINAL BATTLE" if sn["final_battle"] == "running" else ""))
            for h in sn["heroes"]:
                lines.append(f"   {h['hero']:<7} at {h['space']:<16} life {h['life']}  "
                             f"C/S/M {h['abilities']['courage']}/{h['abilities']['strength']}/"
                             f"{h['abilities']['magic']}  skill tokens {h['skill_tokens']}  "
                             f"charms {h['charms'] or '-'}  relics {h['relics'] or '-'}")
            lines.append("   discs: " + "; ".join(
                f"{d['disc']} {d['nightmare']} {d['state']} {d['clicks_left']} left {d['deposited'] or ''}"
                for d in sn["discs"]))
            if sn["nightmares_on_board"] or sn["bogbeans"] or sn["magical_pots"]:
                lines.append("   enemies: " + "; ".join(
                    [f"{n['nightmare']} at {n['space']}" + (f" (beaten on {', '.join(n['wounded'])})" if n['wounded'] else "")
                     for n in sn["nightmares_on_board"]]
                    + [f"{b['bogbean']} of {b['nexus']} at {b['space']}" + (f" (beaten on {', '.join(b['wounded'])})" if b['wounded'] else "")
                       for b in sn["bogbeans"]])
                    + ("  pots: " + ", ".join(sn["magical_pots"]) if sn["magical_pots"] else ""))
            if sn["wall_damaged"] or any(sn["shimnavore_wounds"].values()):
                lines.append(f"   wall damaged: {sn['wall_damaged']}  shimnavore wounds: {sn['shimnavore_wounds']}")
        else:
            if r["event"] == "final_battle":
                lines.append("")
                lines.append("-- THE SHIMNAVORE APPEARS (the moon has completed its cycles)" if r["step"] != "begins"
                             else "-- FINAL BATTLE BEGINS: remaining nightmares emerge, then the opening compass roll")
                continue
            if r["event"] == "enemy_phase" and r.get("step") == "begins":
                lines.append("")
                lines.append(f"-- round {r['round']} enemy phase")
                continue
            lines.append(_line(r))
    return "\n".join(lines) + "\n"
