"""Report tables both games share: rates with Wilson 95% intervals by group,
and rendering a set of named tables as text, Markdown, CSV or JSON."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from .present import EMPTY, is_number, is_share_table, readable, text_table
from .stats import wilson_arrays

def with_interval(t: pd.DataFrame, k="wins", n="games", name="win_rate") -> pd.DataFrame:
    """Add ``name`` = k/n and its Wilson interval columns to table ``t``."""
    lo, hi = wilson_arrays(t[k].to_numpy(), t[n].to_numpy())
    t[name] = t[k] / t[n]
    t["ci95_low"], t["ci95_high"] = lo, hi
    return t


def rates(df: pd.DataFrame, by, col="win") -> pd.DataFrame:
    """Games, successes of boolean column ``col``, rate and Wilson 95%
    interval for each group of ``by`` (a column name or list)."""
    by = [by] if isinstance(by, str) else list(by)
    t = df.groupby(by, observed=True, sort=True)[col].agg(games="size", wins="sum").reset_index()
    t["wins"] = t["wins"].astype(np.int64)
    return with_interval(t)


def render(tables: dict, fmt="table", title="", names: dict | None = None, examples=None) -> str:
    """Render ``{name: DataFrame}`` as ``table`` (aligned text), ``markdown``,
    ``csv`` (one CSV, the table name in the first column) or ``json``. Text
    and Markdown show each table as a person reads it (simcore.present:
    percentages with intervals, ``names`` for ids); CSV and JSON keep the
    raw columns. In Markdown, ``examples`` (:func:`example_links`) links
    each game number of the example-games table to the studio's viewer, and
    gives a row of any other table that names one cell a column of links to
    that cell's example games."""
    if fmt == "json":
        return json.dumps({"title": title, "tables": {k: json.loads(v.to_json(orient="records"))
                                                       for k, v in tables.items()}}, indent=1) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        pd.concat([v.assign(table=k) for k, v in tables.items()], ignore_index=True) \
            .pipe(lambda d: d[["table"] + [c for c in d.columns if c != "table"]]).to_csv(buf, index=False)
        return buf.getvalue()
    out = [f"# {title}\n" if fmt == "markdown" else title + "\n"] if title else []
    games_of = _cell_games(tables, examples) if fmt == "markdown" else None
    for k, v in tables.items():
        links, column = {}, []
        if examples is not None and fmt == "markdown" and k.startswith(EXAMPLES):
            links = {(i, j): a for i, row in enumerate(v.to_dict("records")) for j, c in enumerate(v.columns)
                     if (a := examples(row, c))}
        elif games_of is not None:
            column = [games_of(row) for row in v.to_dict("records")]
        v = readable(v, names, is_share_table(k))
        if fmt == "markdown":
            if any(column):
                v[EXAMPLES] = column
            out.append(f"## {k}\n\n{_markdown(v, links)}\n")
        else:
            out.append(f"{k}\n{text_table(v, _num)}\n")
    return "\n".join(out)


def _num(x):
    return f"{x:.3f}"


def _markdown(t: pd.DataFrame, links=None) -> str:
    """Table ``t`` in Markdown; ``links`` maps (row, column) positions to the
    address their cell links to."""
    if t.empty:
        return EMPTY + "\n"
    links = links or {}

    def cell(i, j, x):
        text = _num(x) if is_number(x) else str(x)
        return f"[{text}]({links[i, j]})" if (i, j) in links else text
    lines = ["| " + " | ".join(map(str, t.columns)) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(cell(i, j, x) for j, x in enumerate(row)) + " |"
              for i, row in enumerate(t.itertuples(index=False))]
    return "\n".join(lines) + "\n"


def example_row(tables: dict, examples):
    """The example-games table of ``tables`` and, for a row of another table
    (a dict), the position of the example-games row of the one cell the row
    names (by its values of the cell's columns, ``examples.keys``, that it
    has), or None where it names none or several. None without example
    links or an example-games table."""
    k = next((k for k in tables if k.startswith(EXAMPLES)), None)
    if examples is None or k is None or not getattr(examples, "keys", ()):
        return None
    ex = [{c: str(r[c]) for c in examples.keys} for r in tables[k].to_dict("records")]

    def find(row):
        have = [c for c in examples.keys if c in row]
        match = [i for i, e in enumerate(ex) if all(e[c] == str(row[c]) for c in have)] if have else []
        return match[0] if len(match) == 1 else None
    return k, find


def _cell_games(tables: dict, examples):
    """For a row of a table other than the example games (a dict): its
    cell's example games as Markdown links to the studio, each after its
    column's name ("won [3](...)"), "" where it names no single cell
    (:func:`example_row`). None without example links."""
    found = example_row(tables, examples)
    if found is None:
        return None
    k, find = found
    ex = tables[k].to_dict("records")

    def games(row):
        i = find(row)
        return "" if i is None else ", ".join(f"{c} [{ex[i][c]}]({a})" for c in tables[k].columns
                                               if (a := examples(ex[i], c)))
    return games


def decisions_by_policy(df: pd.DataFrame, items, prefix="", shares=None) -> pd.DataFrame:
    """What the players use: for each decision counter ``(name, what)`` of
    ``items`` found in ``df`` (column ``prefix + name``), the mean count per
    game under each policy, one column per policy. ``shares`` maps a counter
    to the counter it is a share of (Quest Master's targets: a share of the
    fights with a choice of target). Empty for a dataset written before the
    counters existed. A rule a policy never uses shows as 0.000."""
    names = [(n, w) for n, w in items if prefix + n in df.columns]
    if not names:
        return pd.DataFrame()
    g = df.groupby("policy", observed=True)
    per_game = g[[prefix + n for n, _ in names]].mean()
    total = g[[prefix + n for n, _ in names]].sum()
    shares = shares or {}
    rows = []
    for n, what in names:
        row = {"decision": n, "what": what}
        for pol in per_game.index:
            if n in shares:
                tot = total.loc[pol, prefix + shares[n]]
                row[pol] = f"{total.loc[pol, prefix + n] / tot:.1%} of {shares[n]}" if tot else "—"
            else:
                row[pol] = f"{per_game.loc[pol, prefix + n]:.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


STUDIO = "http://127.0.0.1:8765"      # the studio's address as `PACKAGE studio` starts it (simcore.studio.serve)
EXAMPLES = "example games"            # how the report tables of example games are titled


def play_url(base: dict, seed: int, game: int, sets=()) -> str:
    """The studio's address of game ``game`` of ``seed`` played from the
    base settings ``base`` with the ``--set`` overrides ``sets``."""
    from urllib.parse import urlencode
    return f"{STUDIO}/play?{urlencode(dict(base, seed=seed, game=game, set=list(sets)), doseq=True)}"


def example_links(run: dict, keys, base_of):
    """Where the game numbers of a run's example-games table open in the
    studio's viewer: a function of (table row, column) giving the address
    of that game (``/play`` with the run's seed and ``--set`` overrides), or
    None where the studio cannot play it (a ruleset file of the user's, a
    cell it cannot name). ``keys``: the columns naming a cell;
    ``base_of(cell)``: a run cell's base settings (an experiment's
    ``base`` keys) or None. None (no links at all) for a run of a ruleset
    file."""
    if run.get("ruleset"):
        return None
    cells = {}
    for c in run.get("cells", []):
        if isinstance(c, dict):
            cells.setdefault(tuple(str(c.get(k)) for k in keys), []).append(c)

    def link(row: dict, col: str):
        number = row.get(col)
        if col in keys or col == "seed" or not isinstance(number, (int, np.integer)):
            return None
        found = cells.get(tuple(str(row[k]) for k in keys), [])
        base = base_of(found[0]) if len(found) == 1 else None
        if base is None:
            return None
        return play_url(base, int(row["seed"]), int(number), run.get("overrides", ()))
    link.command = f"{run.get('package', '')} studio".strip()
    link.keys = tuple(keys)
    return link
