"""Where a game's compiled kernels spend their time: a sampling profile of
one cell's games, by kernel or by source function.

    python -m simcore.profile questmaster greedy            # by kernel
    python -m simcore.profile mournequest planner --lines   # by source function
    python -m simcore.profile questmaster greedy --games 40000 --players 6 --top 40

numba's machine code has no symbols that ``perf`` can read, so the games
run in a child process under ``perf record`` (Debian's ``linux-perf``;
software clock samples, which need no hardware counters) that writes, at
exit, the address and size of every function of the libraries numba loaded
(``/tmp/perf-PID.map``, perf's format for code made at run time) and the
libraries' object code. Shares are of all samples of the child, Python and
the start included, so a kernel's share is a lower bound of its part of
play. ``--lines`` attributes samples to the source function whose code they
fall in (inlined functions included), read from debug information: the
engine is then compiled once more with it (``NUMBA_DEBUGINFO=1``) into a
cache of its own (``$SIMCORE_PROFILE_CACHE``, default under the user's
cache), a few minutes the first time; its code is close to, not the same
as, the engine's. The games are the same either way.

Every number here is a share of samples, not a speed: compare speeds side
by side (docs/common/performance.md).
"""
from __future__ import annotations

import argparse
import ast
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROG = "profile"


def _demangle(name: str) -> str:
    """``questsim.scores.fight_value`` from numba's mangled
    ``_ZN8questsim6scores11fight_valueB4v230B40...`` (others unchanged)."""
    cfunc = name.startswith("cfunc.")
    m = re.match(r"_ZN((?:\d+[A-Za-z_][A-Za-z0-9_]*)+)", name[6:] if cfunc else name)
    if not m:
        return name
    parts, s = [], m.group(1)
    while s and s[0].isdigit():
        k = re.match(r"\d+", s).group(0)
        n = int(k)
        parts.append(s[len(k):len(k) + n])
        s = s[len(k) + n:]
    return ("cfunc " if cfunc else "") + ".".join(parts)


# ---- the child: play the cell, then write the map and the object code -----

def _child(game_key, policy, games, players, level, out):
    from numba.core import codegen
    libraries = []
    set_compiled = codegen.CPUCodeLibrary._set_compiled_object

    def keep(self, value):
        libraries.append((self, value))
        return set_compiled(self, value)
    codegen.CPUCodeLibrary._set_compiled_object = keep

    from simcore.game import get
    game = get(game_key)
    cfg = game.cell_config({"level": level, "players": players, "heroes": "random", "characters": "random",
                            "policy": policy, "params": []})
    rules = game.prepare()
    game.play(rules, cfg, 1, 0, 10)          # compiled or loaded
    if games == 0:                           # the parent's first run: compile only
        return
    game.play(rules, cfg, 1, 0, games)
    lines = []
    for i, (lib, obj) in enumerate(libraries):
        path = Path(out) / f"lib{i}.o"
        path.write_bytes(obj)
        nm = subprocess.run(["nm", "-S", "--defined-only", str(path)], capture_output=True, text=True).stdout
        for row in nm.splitlines():
            p = row.split()
            if len(p) == 4 and p[2] in "tTwW":
                try:
                    addr = lib._codegen._engine.get_function_address(p[3])
                except Exception:       # a local symbol the engine does not export
                    addr = 0
                if addr:
                    lines.append(f"{addr:x} {int(p[1], 16):x} {p[3]}")
    Path(f"/tmp/perf-{os.getpid()}.map").write_text("\n".join(lines) + "\n")


# ---- the parent: record, then read the samples --------------------------

def _samples(data):
    """(pid, Counter of instruction addresses) of the recorded child."""
    out = subprocess.run(["perf", "script", "-i", str(data), "-F", "pid,ip"], capture_output=True, text=True).stdout
    ips, pids = collections.Counter(), collections.Counter()
    for row in out.splitlines():
        p = row.split()
        if len(p) == 2:
            pids[p[0]] += 1
            ips[int(p[1], 16)] += 1
    return (pids.most_common(1)[0][0] if pids else None), ips


def _symbols(pid):
    rows = []
    path = Path(f"/tmp/perf-{pid}.map")
    for row in path.read_text().splitlines():
        a, size, name = row.split(maxsplit=2)
        rows.append((int(a, 16), int(size, 16), name))
    path.unlink()
    return sorted(rows)


def _source_function(cache, path, line):
    """The innermost ``def`` of file ``path`` holding ``line``."""
    if path not in cache:
        try:
            tree = ast.parse(Path(path).read_text())
            cache[path] = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(tree)
                           if isinstance(n, ast.FunctionDef)]
        except (OSError, SyntaxError, ValueError):
            cache[path] = []
    best = None
    for a, b, name in cache[path]:
        if a <= line <= b and (best is None or a > best[0]):
            best = (a, b, name)
    if best is None:
        return None
    return f"{Path(path).stem}.{best[2]}"


def _by_line(objdir, hits):
    """Samples per source function from the objects' debug information;
    ``hits`` is [(symbol name, offset in it, samples)]."""
    where = {}
    for obj in Path(objdir).glob("lib*.o"):
        table = subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True).stdout
        for row in table.splitlines():
            p = row.split()
            if len(p) >= 6 and "F" in p[2:4] and p[-1] not in where:
                where[p[-1]] = (obj, p[-3], int(p[0], 16))
    asked = collections.defaultdict(list)
    for name, off, c in hits:
        if name in where:
            obj, section, value = where[name]
            asked[(obj, section)].append((value + off, c))
    counts, defs = collections.Counter(), {}
    for (obj, section), items in asked.items():
        # an address past the section separates one address's frames from the next
        text = "".join(f"{a:x}\nffffffff\n" for a, _ in items)
        out = subprocess.run(["addr2line", "-e", str(obj), "-j", section], input=text,
                             capture_output=True, text=True).stdout.splitlines()
        frames = [r for r in out if not r.startswith("??")]
        for (a, c), row in zip(items, frames):
            path, _, line = row.split(" ")[0].rpartition(":")
            fn = _source_function(defs, path, int(line)) if line.isdigit() else None
            counts[fn or "(no line)"] += c
    return counts


def main(argv=None) -> int:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(prog=f"python -m simcore.{PROG}", description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="mournequest or questmaster")
    ap.add_argument("policy", help="the policy in every seat (Quest Master: a table such as planner+greedy)")
    ap.add_argument("--games", type=int, default=20000, help="games profiled (default 20000)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--level", default="medium", help="MourneQuest's level")
    ap.add_argument("--lines", action="store_true", help="by source function (a debug-information build)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        _child(a.game, a.policy, a.games, a.players, a.level, a.child)
        return 0
    from simcore.game import games
    if a.game not in games():
        print(f"{PROG}: error: unknown game {a.game!r} (one of {', '.join(sorted(games()))})", file=sys.stderr)
        return 2
    for tool in ("perf", "nm", "objdump", "addr2line"):
        if not shutil.which(tool):
            print(f"{PROG}: error: {tool} is not installed (Debian: linux-perf, binutils)", file=sys.stderr)
            return 2
    env = dict(os.environ)
    if a.lines:
        from simcore.jitcache import user_cache
        env["NUMBA_DEBUGINFO"] = "1"
        env["NUMBA_CACHE_DIR"] = os.environ.get("SIMCORE_PROFILE_CACHE", str(user_cache("mourne-balance-profile")))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        child = [sys.executable, "-m", "simcore.profile", a.game, a.policy, "--players", str(a.players),
                 "--level", a.level, "--child", tmp]
        # a first run compiles what the cache lacks, so no compile is sampled
        r = subprocess.run(child + ["--games", "0"], env=env)
        if r.returncode == 0:
            r = subprocess.run(["perf", "record", "-q", "-F", "2000", "-e", "cpu-clock", "-o", str(data), "--"]
                               + child + ["--games", str(a.games)], env=env)
        if r.returncode != 0:
            print(f"{PROG}: error: the profiled run failed (exit {r.returncode})", file=sys.stderr)
            return 2
        pid, ips = _samples(data)
        syms = _symbols(pid)
        starts = [s[0] for s in syms]
        total = sum(ips.values())
        kernels, hits, jit = collections.Counter(), [], 0
        for ip, c in ips.items():
            i = bisect.bisect_right(starts, ip) - 1
            if i >= 0 and ip < syms[i][0] + syms[i][1]:
                kernels[_demangle(syms[i][2])] += c
                hits.append((syms[i][2], ip - syms[i][0], c))
                jit += c
        counts = _by_line(tmp, hits) if a.lines else kernels
        what = "source function (debug-information build)" if a.lines else "kernel"
        print(f"{a.game} {a.policy}, {a.players} players, {a.games:,} games: {total:,} samples, "
              f"{100 * jit / total:.1f}% in compiled kernels; share of all samples by {what}:")
        for name, c in counts.most_common(a.top):
            print(f"  {100 * c / total:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
