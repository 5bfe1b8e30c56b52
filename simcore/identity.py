"""Which engine made a run: a *behaviour version* and a hash of the sources.

Each game package declares ``BEHAVIOUR_VERSION``, an integer that changes
exactly when the games it plays change (a rule, a policy, the random streams).
A golden test (``simcore.golden``) replays reference games of every policy and
fails when any of them changes while the version stays the same, so a
refactor or a speed-up that keeps every game identical keeps the version,
and with it every dataset and published figure, valid.

The *engine hash* fingerprints the exact build (every source file of the game
package and of ``simcore``); it is recorded for traceability only: two builds
with the same behaviour version play the same games.

Batches from two behaviour versions must never be mixed in one dataset or one
comparison, so ``check_same`` refuses with one line (exit 2) wherever a run
would be continued or re-used.
"""
from __future__ import annotations

import functools
import hashlib
from importlib import import_module
from pathlib import Path

from .errors import InputError

_SIMCORE = Path(__file__).parent


def source_hash(dirs) -> str:
    """Short sha256 over every ``*.py`` file under ``dirs`` (names and bytes)."""
    h = hashlib.sha256()
    for d in dirs:
        d = Path(d)
        for f in sorted(d.rglob("*.py")):
            h.update(f.relative_to(d.parent).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


@functools.lru_cache(maxsize=None)
def engine(package: str) -> dict:
    """``{"engine", "behaviour_version", "engine_hash"}`` of a game package."""
    mod = import_module(package)
    return {"engine": package, "behaviour_version": int(mod.BEHAVIOUR_VERSION),
            "engine_hash": source_hash([Path(mod.__file__).parent, _SIMCORE])}


def stamp(info: dict) -> str:
    """One readable line naming an engine identity (from ``engine`` or a run)."""
    v = info.get("behaviour_version")
    if v is None:
        return f"{info.get('engine') or info.get('package', '?')} engine of unknown behaviour version"
    return f"{info.get('engine') or info.get('package')} behaviour v{v} (sources {info.get('engine_hash', '?')})"


def check_same(run: dict, package: str, where: str, action: str = "resume"):
    """Refuse (InputError) to continue or re-use games recorded in ``run`` when
    they were played by another behaviour version than the installed one."""
    now = engine(package)
    then = run.get("behaviour_version")
    other = run.get("engine") or run.get("package")
    if other and other != package:
        use = f"{other} simulate --resume {where}" if action == "resume" else f"the {other} command"
        raise InputError(f"cannot {action} {where}: it holds {other} games, not {package} games (use: {use})")
    if then == now["behaviour_version"]:
        return
    was = f"behaviour v{then}" if then is not None else "an engine that recorded no behaviour version"
    raise InputError(f"cannot {action} {where}: its games were played by {was}, this is "
                     f"{package} behaviour v{now['behaviour_version']}; mixing them would corrupt the "
                     "comparison (start a new run in another directory, or install the engine that made it)")


def describe(package: str, run: dict | None = None) -> str:
    """``engine: ...`` for a report header: the engine that played ``run``
    (or the installed one), saying so when it is not the installed version."""
    now = engine(package)
    if run is None:
        return f"engine: {stamp(now)}"
    line = f"engine: {stamp(run)}"
    if run.get("behaviour_version") != now["behaviour_version"]:
        line += f" — not the installed v{now['behaviour_version']}: these games are from an older engine"
    return line
