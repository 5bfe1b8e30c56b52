"""Golden reference games: the guard behind each game's behaviour version.

Each game package has a ``reference`` module whose ``games()`` plays a fixed
set of reference games (every built-in policy, every level / player count,
non-default toggles) and returns ``(columns, {name: result rows})``.
``tests/golden/<package>.json`` stores the sha256 of each cell's rows, the
result columns they cover and the behaviour version that produced them. Only
those columns are compared, so adding a result column (a new counter) is not
a change of play; nor is the wording of a replay, which is not digested. The
test fails when

- a game changed but ``BEHAVIOUR_VERSION`` did not: play changed by accident,
  or on purpose without saying so (bump the version); or
- the version changed but the golden file was not regenerated.

After an intended change of play::

    # 1. bump BEHAVIOUR_VERSION in the package's __init__.py (say why there)
    # 2. regenerate the golden digests
    python -m simcore.golden --update mournesim questsim
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib import import_module
from pathlib import Path

import numpy as np

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "tests" / "golden"


def digest_array(a) -> str:
    """sha256 of an integer array's values and shape (platform-independent)."""
    a = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    h = hashlib.sha256(str(a.shape).encode())
    h.update(a.astype("<i8").tobytes())
    return h.hexdigest()


def current(package: str, columns=None) -> dict:
    """The behaviour version and reference digests of the installed engine,
    over ``columns`` (default: every result column it has now)."""
    mod = import_module(package)
    have, games = import_module(package + ".reference").games()
    columns = list(have) if columns is None else list(columns)
    missing = [c for c in columns if c not in have]
    if missing:
        raise KeyError(f"{package}: result columns {missing} are gone")
    idx = [list(have).index(c) for c in columns]
    return {"behaviour_version": int(mod.BEHAVIOUR_VERSION), "columns": columns,
            "digests": {k: digest_array(np.asarray(v)[:, idx]) for k, v in games.items()}}


def path_of(package: str) -> Path:
    return GOLDEN_DIR / f"{package}.json"


def problems(package: str) -> list[str]:
    """Why the golden file of ``package`` does not match the engine ([] if it does)."""
    f = path_of(package)
    if not f.is_file():
        return [f"{f}: missing; create it with python -m simcore.golden --update {package}"]
    stored = json.loads(f.read_text())
    try:
        now = current(package, stored["columns"])
    except KeyError as e:
        return [f"{e.args[0]}; if that is intended, regenerate: python -m simcore.golden --update {package}"]
    if stored["behaviour_version"] != now["behaviour_version"]:
        return [f"{package}: BEHAVIOUR_VERSION is {now['behaviour_version']} but {f.name} was made by "
                f"v{stored['behaviour_version']}; regenerate it: python -m simcore.golden --update {package}"]
    changed = sorted(k for k in set(stored["digests"]) | set(now["digests"])
                     if stored["digests"].get(k) != now["digests"].get(k))
    if changed:
        return [f"{package}: reference games changed with BEHAVIOUR_VERSION still {now['behaviour_version']}: "
                f"{', '.join(changed)}. If play changed on purpose, bump {package}.BEHAVIOUR_VERSION and run "
                f"python -m simcore.golden --update {package}; if not, the change broke determinism"]
    return []


def update(package: str) -> Path:
    """Write the golden file of ``package`` from the installed engine."""
    f = path_of(package)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(current(package), indent=1, sort_keys=True) + "\n")
    return f


def main(argv=None):
    """``python -m simcore.golden [--update] [PACKAGE ...]``: check or rewrite."""
    ap = argparse.ArgumentParser(prog="python -m simcore.golden", description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", default=["mournesim", "questsim"])
    ap.add_argument("--update", action="store_true", help="rewrite the golden files from this engine")
    a = ap.parse_args(argv)
    bad = 0
    for p in a.packages:
        if a.update:
            print(f"wrote {update(p)}")
            continue
        for line in problems(p):
            print(line)
            bad += 1
        if not bad:
            print(f"{p}: reference games match behaviour v{import_module(p).BEHAVIOUR_VERSION}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
