"""The manifest of the published study (``experiments/results/published.json``:
artefact -> what made it) and the check that plays nothing: which published
artefacts are not what the current study (``experiments.artefacts``) makes."""
from __future__ import annotations

import json
import re
from pathlib import Path

from simcore.errors import InputError

from experiments.artefacts import FULL, GRIDS, MANIFEST, QUICK, ROOT, _experiment_files, _study


class Manifest:
    """``experiments/results/published.json`` of a root: artefact -> its
    stamp. Written atomically; an artefact about to be rewritten is marked
    ``pending`` first and gets its new stamp only after all its files."""

    def __init__(self, root: Path):
        self.path = Path(root) / MANIFEST
        self.entries = read_manifest(self.path) if self.path.exists() else {}

    def save(self):
        from simcore import atomic
        atomic.make_dir(self.path.parent)
        atomic.write_text(self.path, json.dumps(self.entries, indent=1, sort_keys=True) + "\n")

    def begin(self, rel):
        """``rel`` is about to be rewritten: its old stamp no longer holds."""
        st = self.entries.get(rel)
        if st is not None and not st.get("pending"):
            self.entries[rel] = dict(st, pending=True)
            self.save()

    def done(self, rel, stamp):
        """Every file of ``rel`` is written: record what made it."""
        self.entries[rel] = {k: v for k, v in stamp.items() if k != "pending"}
        self.save()

    def update(self, entries: dict):
        if any(self.entries.get(k) != v for k, v in entries.items()):
            for k, v in entries.items():
                self.entries[k] = {x: y for x, y in v.items() if x != "pending"}
            self.save()


def read_manifest(path) -> dict:
    """A manifest's entries; an unreadable one is one InputError line."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        from simcore.atomic import cause
        raise InputError(f"{path}: cannot read ({cause(e)})") from None
    except ValueError as e:
        raise InputError(f"{path}: not a publish manifest (not valid JSON: {e})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError(f"{path}: not a publish manifest (expected an object of artefact stamps)")
    return data


def _header(stamp) -> str:
    return (f"> Made by {stamp['engine']} behaviour v{stamp['behaviour_version']} (sources "
            f"{stamp['engine_hash']}), ruleset {stamp['ruleset_hash']}, seed {stamp.get('seed')}, "
            f"policies {stamp.get('policies')}, {stamp.get('games'):,} games per cell; regenerate with "
            f"`python -m experiments.publish`.\n")


# ---- --check: which published artefacts are stale (plays nothing) -------------------------------------

def _games_text(g) -> str:
    return f"{g:,} games per cell" if isinstance(g, int) and not isinstance(g, bool) else f"games {g!r}"


def _said(text) -> str:
    """The games per cell a stamp line of an artefact says (for a message)."""
    m = re.search(r"([\d,]+) games per cell", text or "")
    return f"{m.group(1)} games per cell" if m else "no stamp"


def _content(root: Path, rel: str, st: dict, want: dict) -> list[str]:
    """Where an artefact carries its own stamp, the problems of it
    disagreeing with the manifest entry ``st`` (or with the study's
    ``want``): a grid's report.md and index.html ``> Made by`` line, a
    ladder's JSON sidecar, an experiment's report.md and index.html set-up
    line."""
    import html
    out = []
    path = root / rel
    if rel.endswith("report.md") and Path(rel).parent.name in GRIDS:
        try:
            header = _header(st).rstrip("\n")
        except (KeyError, TypeError, ValueError):
            return [f"{rel}: its manifest entry is incomplete; run python -m experiments.publish"]
        text = path.read_text(encoding="utf-8", errors="replace")
        line = next((x for x in text.splitlines() if x.startswith("> Made by")), "")
        if line != header:
            out.append(f"{rel}: its '> Made by' line ({_said(line)}) does not match the manifest "
                       f"({_games_text(st.get('games'))}): a run was cut short; run python -m experiments.publish")
        page = path.parent / "index.html"
        if not page.exists():
            out.append(f"{page.relative_to(root)}: missing")
        else:
            body = page.read_text(encoding="utf-8", errors="replace")
            if html.escape(header) not in body:
                m = re.search(r"&gt; Made by[^<]*", body)
                out.append(f"{page.relative_to(root)}: its '> Made by' line ({_said(m.group(0) if m else '')}) does "
                           f"not match report.md and the manifest ({_games_text(st.get('games'))}): a run was cut "
                           "short; run python -m experiments.publish")
    elif rel.endswith(".csv"):
        meta = path.with_suffix(".json")
        try:
            m = json.loads(meta.read_text(encoding="utf-8"))
            assert isinstance(m, dict)
        except (OSError, ValueError, AssertionError):
            return [f"{meta.relative_to(root)}: missing or not JSON; run python -m experiments.publish"]
        for k in ("engine", "behaviour_version", "engine_hash", "ruleset_hash", "seed", "games", "policies"):
            if k in m and m[k] != st.get(k):
                out.append(f"{meta.relative_to(root)}: says {k} {m[k]!r}, the manifest {st.get(k)!r}: a run was "
                           "cut short; run python -m experiments.publish")
        for k, v in (want or {}).get("sidecar", {}).items():
            if m.get(k) != v:
                out.append(f"{rel}: made with {k} {m.get(k)!r}, the study uses {v!r}")
    elif rel.endswith("report.md"):         # an experiment's report
        pat = re.compile(r"seed (\d+); ([\d,]+) games per cell and arm")
        text = path.read_text(encoding="utf-8", errors="replace")
        m = pat.search(text)
        if m and str(st.get("seed")) != m.group(1):
            out.append(f"{rel}: says seed {m.group(1)}, the manifest {st.get('seed')}: a run was cut short; "
                       "run python -m experiments.publish")
        page = path.parent / "index.html"
        if page.exists():
            p = pat.search(page.read_text(encoding="utf-8", errors="replace"))
            if m and p and p.group(0) != m.group(0):
                out.append(f"{page.relative_to(root)}: says {p.group(2)} games per cell, report.md "
                           f"{m.group(2)}: a run was cut short; run python -m experiments.publish")
    return out


def stale(root=ROOT, rulesets=None, only=None) -> list[str]:
    """Published artefacts that are not what the current study makes (plays
    nothing): each artefact of the study is compared, through its manifest
    entry, with the installed engine's behaviour version, the current
    ruleset, and the games per cell, seed and policies of the full study
    (``FULL`` and the steps' own seeds and policies; in a root other than
    the repository, a ``--quick`` artefact with ``QUICK``); an entry whose
    step was cut short while rewriting it, and an artefact whose own stamp
    disagrees with its entry, are stale too; so is an experiment's artefact
    whose file's settings have changed since (``spec``). ``only``: check
    just these artefacts."""
    from importlib import import_module
    from simcore import identity
    rulesets = rulesets or {}
    root = Path(root).resolve()
    f = root / MANIFEST
    if not f.exists():
        return [f"{MANIFEST}: missing; run python -m experiments.publish"]
    try:
        manifest = read_manifest(f)
    except InputError as e:
        return [str(e)]
    experiments = _experiment_files()
    full, quick = _study(FULL, experiments), _study(QUICK, experiments)
    in_repo = root == ROOT
    engines, hashes, out = {}, {}, []
    for path in sorted(set(full) | set(manifest)):
        if only is not None and path not in only:
            continue
        st = manifest.get(path)
        if st is None:
            out.append(f"{path}: not in the manifest; run python -m experiments.publish")
            continue
        if st.get("pending"):
            out.append(f"{path}: its step was cut short while rewriting it (the stamp is from before); "
                       "run python -m experiments.publish")
            continue
        if not (root / path).exists():
            out.append(f"{path}: listed but missing")
            continue
        pkg = st.get("engine")
        if pkg not in engines:
            try:
                engines[pkg] = identity.engine(pkg)
            except (ImportError, TypeError, ValueError):
                engines[pkg] = None
        now = engines[pkg]
        if now is None:
            out.append(f"{path}: made by engine {pkg!r}, which is not installed")
            continue
        if st.get("behaviour_version") != now["behaviour_version"]:
            out.append(f"{path}: made by {pkg} behaviour v{st.get('behaviour_version')}, "
                       f"the engine is v{now['behaviour_version']}")
            continue
        key = (pkg, rulesets.get(pkg, st.get("ruleset")), tuple(st.get("overrides", ())))
        if key not in hashes:
            try:
                hashes[key] = import_module(f"{pkg}.sim").prepare(key[1], key[2]).hash
            except InputError as e:
                hashes[key] = f"unreadable ({str(e).splitlines()[0]})"
        h = hashes[key]
        if h != st.get("ruleset_hash"):
            out.append(f"{path}: made with ruleset {st.get('ruleset_hash')}, the ruleset is now {h}")
        is_quick = bool(st.get("quick")) and not in_repo      # the repository holds the full study only
        want = (quick if is_quick else full).get(path)
        study = "the --quick study" if is_quick else "the study"
        if want is not None:
            note = " (a --quick run)" if st.get("quick") and not is_quick else ""
            if st.get("games") != want["games"]:
                out.append(f"{path}: made with {_games_text(st.get('games'))}{note}, {study} uses "
                           f"{_games_text(want['games'])}")
            for k in ("seed", "policies"):
                if st.get(k) != want[k]:
                    out.append(f"{path}: made with {k} {st.get(k)!r}{note}, {study} uses {want[k]!r}")
            if "spec" in want and st.get("spec") != want["spec"]:
                name = Path(path).parent.name.removesuffix("-again")
                out.append(f"{path}: made from other settings than experiments/{name}.toml holds now (its arms, "
                           "cells or counts changed)")
        out += _content(root, path, st, want)
    return out
