"""One source per figure: every plot of the balance study is drawn from
exactly the frame its table prints (experiments/figures.py), sits at the
end of that table's generated block, and shows the same numbers the table
does (same policies, cells and measure), checked here on the published
study."""
import re
from pathlib import Path

import numpy as np
import pytest

from experiments import balance, balance_levers, balance_qm, figures

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("docs/mournequest/balance.md", "docs/questmaster/balance.md")


def _block(name: str) -> str:
    for page in PAGES:
        m = re.search(rf"<!-- generated:{name} -->\n(.*?)<!-- /generated:{name} -->",
                      (ROOT / page).read_text(encoding="utf-8"), re.S)
        if m:
            return m.group(1)
    raise KeyError(name)


def _rows(block: str) -> dict:
    """A block's table rows by their first cell (backticks dropped)."""
    out = {}
    for ln in block.splitlines():
        if ln.startswith("| ") and not ln.startswith("|---"):
            cells = [c.strip() for c in ln.strip("|").split(" | ")]
            out.setdefault(cells[0].strip("`"), []).append(cells)
    return out


def test_every_study_image_is_a_figure_at_the_end_of_its_block():
    images = [m for page in PAGES for m in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (ROOT / page).read_text())]
    assert sorted(Path(i).name for i in images) == sorted(figures.FIGURES)
    for name, (block, *_rest) in figures.FIGURES.items():
        assert _block(block).rstrip().endswith(f"/experiments/results/study/{name})"), name
        assert (ROOT / figures.FOLDER / name).stat().st_size > 5000


def _pp(e, lo, hi) -> str:
    return f"{100 * e:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


@pytest.mark.parametrize("block,frame,label", [("bal-mq-heroes", balance.heroes_frame, "hero"),
                                               ("bal-qm-characters", balance_qm.characters_frame, "character")])
def test_a_forest_shows_the_effects_its_table_prints(block, frame, label):
    t = frame(ROOT)
    rows = _rows(_block(block))
    cols = {"greedy": 1, "planner": 2, "expert": 3}
    for r in t.to_dict("records"):
        cell = rows[balance.name(r[label])][0][cols[r["policy"]]]
        assert cell.startswith(_pp(r["effect"], r["low"], r["high"])), (r, cell)
    from simcore.plots import plt
    fig, ax = plt.subplots()
    figures.FIGURES[{"bal-mq-heroes": "mq-heroes.png", "bal-qm-characters": "qm-characters.png"}[block]][2](t, ax)
    drawn = [c.lines[0].get_xdata() for c in ax.containers]      # one errorbar per policy, in frame order
    for pol, x in zip(dict.fromkeys(t["policy"]), drawn):
        assert np.allclose(x, 100 * t.loc[t["policy"] == pol, "effect"].to_numpy())
    plt.close(fig)


def test_the_levels_figure_shows_the_rates_its_table_prints():
    t = balance.levels_frame(ROOT)
    rows = {(c[0], c[1]): c for cs in _rows(_block("bal-mq-levels")).values() for c in cs}
    cols = {"greedy": 2, "planner": 3, "expert": 4}
    for r in t.to_dict("records"):
        cell = rows[(balance.name(r["level"]), balance.PLAYERS_MQ[r["players"]])][cols[r["policy"]]]
        want = f"{100 * r['win_rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"
        assert cell.strip("*") == want, (r, cell)


def test_the_losses_figure_shows_the_shares_its_table_prints():
    t = balance.losses_frame(ROOT)
    rows = _rows(_block("bal-mq-losses"))
    shares = [c for c in t.columns if c not in ("level", "games")]
    for r in t.to_dict("records"):
        assert rows[balance.name(r["level"])][0][2:] == [f"{100 * r[c]:.1f}%" for c in shares]


def test_the_tornado_shows_the_changes_its_table_prints_and_cuts_none_silently():
    t = balance_levers.sensitivity_frame(ROOT)
    rows = _rows(_block("bal-sensitivity"))
    counts = list(dict.fromkeys(t["players"]))
    for r in t.to_dict("records"):
        cell = rows[r["param"]][0][1 + 2 * counts.index(r["players"]) + (r["way"] == "up")]
        assert cell.startswith(_pp(r["change"], r["low"], r["high"])), (r, cell)
        assert cell.endswith("(no game changed)") == r["unchanged"], (r, cell)
    from simcore.plots import plt
    fig, ax = plt.subplots()
    figures.draw_sensitivity(t, ax)
    cut = t[100 * t["change"].abs() > figures.TORNADO_CLIP]
    labels = [x.get_text().strip() for x in ax.texts]
    assert labels == [f"{100 * v:+.1f}" for v in cut["change"]]     # every cut bar carries its value
    plt.close(fig)


def test_the_quarter_click_panels_show_the_rates_their_table_prints():
    t = balance_levers.quarters_frame(ROOT)
    assert set(t["team"]) == {team for team, *_ in balance_levers.SCANS}
    rows = {(c[0], c[1], c[3]): c for cs in _rows(_block("bal-quarters")).values() for c in cs}
    steps = sorted(t["step"].unique())
    for r in t.to_dict("records"):
        row = rows[(balance.name(r["level"]), balance.PLAYERS_MQ[r["players"]], r["team"])]
        assert row[5 + steps.index(r["step"])].strip("*") == f"{100 * r['rate']:.1f}%", (r, row)
        assert row[5 + steps.index(r["step"])].startswith("**") == r["nearest"], (r, row)
    from simcore.plots import plt
    fig, ax = plt.subplots()
    figures.draw_quarters(t, ax)
    panels = {a.get_title(): a for a in fig.axes}
    for (lv, p, team), g in t.groupby(["level", "players", "team"], sort=False):
        a = panels[f"{balance.name(lv)}, {balance.PLAYERS_MQ[p]}"]
        line = next(c.lines[0] for c in a.containers if c.get_label() == team)
        assert np.allclose(line.get_xdata(), g["clicks"] / 4) and np.allclose(line.get_ydata(), 100 * g["rate"])
    plt.close(fig)
