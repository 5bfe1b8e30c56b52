"""Every kind of page in a real browser: headless Chromium from
Debian's packages (chromium, chromium-driver), driven by Selenium.

Each page must load from a file (no server, no network) without a console
error. The replay viewers are stepped with the keyboard and the buttons,
and the right miniature must stand on the right space at known steps (the
engine's own turn snapshots say where). Screenshots go to ``tmp_path``, or
to ``$SCREENSHOT_DIR`` (``docs/*/images/`` hold the README's).

Without Chromium this module is skipped with a message on a developer's
machine; with ``REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser
fails instead, so CI never skips it silently.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1"]


def _missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not CHROMIUM or not DRIVER:
        return "headless Chromium is not installed (apt-get install chromium chromium-driver; .ci/run installs it)"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium, its console log kept, on a new empty profile."""
    why = _missing()
    if why:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.add_argument("--window-size=1500,1080")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()


def _shots(tmp_path):
    d = os.environ.get("SCREENSHOT_DIR")
    return Path(d) if d else tmp_path


def _open(browser, path: Path):
    """Open a local page; return the console errors it logged."""
    browser.get_log("browser")                      # drop what an earlier page logged
    browser.get(path.resolve().as_uri())
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _load_ms(browser):
    return browser.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return n ? n.loadEventEnd : null;")


def _where(browser, piece):
    """The space a miniature's element stands on, or None if hidden."""
    return browser.execute_script(
        "const g = document.querySelector(`g.piece[data-piece='${arguments[0]}']`);"
        "return g && g.style.display !== 'none' ? g.getAttribute('data-node') : null;", piece)


def _step(browser):
    return int(browser.find_element("tag name", "body").get_attribute("data-step"))


def _key(browser, key, times=1):
    from selenium.webdriver.common.action_chains import ActionChains
    for _ in range(times):
        ActionChains(browser).send_keys(key).perform()


@pytest.fixture(scope="module")
def mq_page(tmp_path_factory):
    """The viewer of the first game from game 7 of seed 1, Easy, 4 players
    (greedy) in which the Shimnavore attacks a hero (a Final Battle step to
    look at), with its replay."""
    from mournesim.replay import replay
    from mournesim import viewer
    for g in range(7, 60):
        rp = replay(seed=1, game=g, level="easy", players=4, policy="greedy")
        if any(r["event"] == "shimnavore_attack" for r in rp.records()):
            break
    f = tmp_path_factory.mktemp("mq") / f"game{g}.html"
    f.write_text(viewer.html(rp), encoding="utf-8")
    return f, rp, viewer.data(rp)


def test_mournequest_viewer_steps_through_the_game(browser, mq_page, tmp_path):
    """The MourneQuest viewer loads without a console error, the arrow keys
    step event by event and turn by turn, and at the start of known turns
    every hero and nightmare stands where the engine's snapshot puts it."""
    from selenium.webdriver.common.keys import Keys
    f, rp, data = mq_page
    errors = _open(browser, f)
    assert not errors, errors
    assert browser.find_element("tag name", "body").get_attribute("data-ready") == "1"
    print(f"MourneQuest viewer: {f.stat().st_size / 1e6:.2f} MB, load event after {_load_ms(browser):.0f} ms")
    assert _step(browser) == 0
    _key(browser, Keys.ARROW_DOWN)                   # next turn: the first turn starts
    assert _step(browser) == data["turns"][0]["step"]
    _key(browser, Keys.ARROW_RIGHT, 3)
    assert _step(browser) == data["turns"][0]["step"] + 3
    _key(browser, Keys.ARROW_LEFT)
    assert _step(browser) == data["turns"][0]["step"] + 2
    _key(browser, Keys.ARROW_DOWN, 4)
    assert _step(browser) == data["turns"][4]["step"]
    _key(browser, Keys.ARROW_UP)                     # at a turn's first step: the turn before
    assert _step(browser) == data["turns"][3]["step"]
    browser.find_element("id", "nextturn").click()   # the buttons do the same
    assert _step(browser) == data["turns"][4]["step"]
    browser.find_element("id", "next").click()
    assert _step(browser) == data["turns"][4]["step"] + 1
    browser.find_element("id", "prevturn").click()   # inside a turn: back to its first step
    assert _step(browser) == data["turns"][4]["step"]
    recs = [r for r in rp.records() if r["event"] == "turn_start"]
    for k in (4, len(recs) // 2, len(recs) - 1):
        browser.execute_script("window.replayViewer.go(arguments[0])", data["turns"][k]["step"])
        sn = recs[k]["snapshot"]
        for h in sn["heroes"]:
            assert _where(browser, h["hero"]) == h["space"], (k, h)
        for n in sn["nightmares_on_board"]:
            assert _where(browser, n["nightmare"]) == n["space"], (k, n)
        for b in sn["bogbeans"]:
            assert _where(browser, f"bogbean_{b['nexus']}") == b["space"], (k, b)
        assert browser.find_element("id", "where").text.startswith(f"step {data['turns'][k]['step'] + 1} /")
    # a move event: the hero is on the new space at that step and on the old one a step before
    # (the text names heroes and spaces as the ruleset does; the pieces are ids)
    shown = rp.rules.display_names()
    id_of = {v: k for k, v in shown.items()}
    heroes = [shown[h["hero"]] for h in recs[0]["snapshot"]["heroes"]]
    moves = [(i, m) for i, st in enumerate(data["steps"])
             if (m := re.match(r"\s*(\S+) moves (.+?) -> (.+?)   ", st["x"])) and m.group(1) in heroes]
    i, m = moves[len(moves) // 2]
    hero, src, dst = (id_of[g] for g in m.groups())
    browser.execute_script("window.replayViewer.go(arguments[0])", i - 1)
    _key(browser, Keys.ARROW_RIGHT)
    assert _where(browser, hero) == dst
    _key(browser, Keys.ARROW_LEFT)
    assert _where(browser, hero) == src
    # the Final Battle: the Shimnavore in the centre attacks the hero on the key stone it faces
    att = next(r for r in rp.records() if r["event"] == "shimnavore_attack")
    i = next(i for i, s in enumerate(data["steps"])
             if f"the Shimnavore attacks {shown[att['actor']]} at {shown[att['key_stone']]}" in s["x"])
    browser.execute_script("window.replayViewer.go(arguments[0])", i)
    assert _where(browser, "shimnavore") == "centre"
    assert _where(browser, att["actor"]) == att["key_stone"]
    assert "the Shimnavore attacks" in browser.find_element("id", "now").text
    browser.save_screenshot(str(_shots(tmp_path) / "mournequest-final-battle.png"))
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_mournequest_viewer_panel_keys_address_and_labels(browser, mq_page):
    """The panel shows the discs as they are after the current step (a disc
    click changes its clicks left there, within the turn); with the slider
    focused Down goes to the next turn and Space plays; ``#step=N`` edited in
    the open tab jumps there; at 1,024 px the board's labels are at least
    9 px; the legend names every kind of space."""
    from selenium.webdriver.common.keys import Keys
    f, rp, data = mq_page
    assert not _open(browser, f)
    shown = rp.rules.display_names()
    # a step that turns a disc, inside a turn (not its first step)
    firsts = {t["step"] for t in data["turns"]}
    i = next(i for i, s in enumerate(data["steps"]) if i not in firsts and i > data["turns"][0]["step"]
             and any(sec["title"] == "Discs" for sec in s.get("q", [])))
    rows = next(sec for sec in data["steps"][i]["q"] if sec["title"] == "Discs")["rows"]
    browser.execute_script("window.replayViewer.go(arguments[0])", i)
    panel = browser.find_element("id", "panel").text
    for row in rows:
        assert " ".join(c for c in row if c) in panel, (row, panel)
    browser.execute_script("window.replayViewer.go(arguments[0])", i - 1)
    before = browser.find_element("id", "panel").text
    assert before != panel
    # the slider focused: the viewer's keys, not the range input's
    browser.execute_script("window.replayViewer.go(arguments[0])", data["turns"][2]["step"])
    browser.find_element("id", "slider").click()
    browser.execute_script("window.replayViewer.go(arguments[0])", data["turns"][2]["step"])
    _key(browser, Keys.ARROW_DOWN)
    assert _step(browser) == data["turns"][3]["step"]
    _key(browser, Keys.SPACE)
    import time
    time.sleep(1.2)
    _key(browser, Keys.SPACE)
    assert _step(browser) > data["turns"][3]["step"]
    # an address edited in the open tab
    browser.execute_script("location.hash = '#step=' + arguments[0]", data["turns"][5]["step"] + 1)
    time.sleep(0.3)
    assert _step(browser) == data["turns"][5]["step"]
    # labels readable on a narrow screen
    browser.set_window_size(1024, 800)
    try:
        time.sleep(0.3)
        px = browser.execute_script(
            "return Math.min(...[...document.querySelectorAll('.node-label')].map(e => e.getBoundingClientRect().height))")
        assert px >= 8.5, px
    finally:
        browser.set_window_size(1500, 1080)
    legend = browser.find_element("id", "legend").text
    for word in ("start point", "nexus", "crossroads", "key stone", "Dunnywater Tunnel"):
        assert word in legend
    assert shown  # the display names are the ruleset's (used by the panel rows above)


def test_questmaster_viewer_shows_a_duel(browser, tmp_path):
    """The Quest Master viewer loads without a console error; at a duel the
    two pawns share the square of the fight, and at every turn start each
    pawn is on its snapshot's square."""
    from questsim import replay as QR
    from questsim import viewer
    rp = QR.replay(seed=1, game=1, players=4)      # a game with duels on a shared square
    data = viewer.data(rp)
    f = tmp_path / "qm.html"
    f.write_text(viewer.html(rp), encoding="utf-8")
    errors = _open(browser, f)
    assert not errors, errors
    recs = rp.records()
    turns = [r for r in recs if r["event"] == "turn" and r["snapshot"]]
    for k in (0, len(turns) // 3, len(turns) - 1):
        browser.execute_script("window.replayViewer.go(arguments[0])", data["turns"][k]["step"])
        for p in turns[k]["snapshot"]["players"]:
            assert _where(browser, f"seat{p['seat']}") == (str(p["square"]) if p["alive"] else None), (k, p)
    # a duel on a square both pawns stand on (an Ambush fights from afar): the
    # n-th fight record is the n-th step that says "fights"
    pawns = viewer.Pawns(rp)
    pawns.from_snapshot(turns[0]["snapshot"])
    fights = []
    for r in recs:
        if r["event"] == "turn" and r["snapshot"]:
            pawns.from_snapshot(r["snapshot"])
        else:
            pawns.apply(r)
        if r["event"] == "fight":
            fights.append((r["seat"], r["defender"], pawns.pos[r["seat"]] == pawns.pos[r["defender"]]))
    steps = [i for i, s in enumerate(data["steps"]) if " fights " in s["x"]]
    assert len(steps) == len(fights)
    n = next(n for n, f in enumerate(fights) if f[2])
    browser.execute_script("window.replayViewer.go(arguments[0])", steps[n] + 3)
    a, b = (_where(browser, f"seat{p}") for p in fights[n][:2])
    assert a == b is not None
    browser.save_screenshot(str(_shots(tmp_path) / "questmaster-duel.png"))
    legend = browser.find_element("id", "legend").text
    assert "Item square" in legend and "Event square" in legend
    labels = [p["label"] for p in data["pieces"]]
    names = [p["name"].split(": ", 1)[1] for p in data["pieces"]]
    assert len({lab for lab, n in zip(labels, names)}) == len(set(names)), (labels, names)


def test_experiment_page_opens_with_its_plots(browser, tmp_path):
    """A committed experiment's index.html opens on its own: no console
    error, its tables, and every plot drawn from the data inside the page."""
    f = ROOT / "experiments" / "results" / "snipe-strength" / "index.html"
    errors = _open(browser, f)
    assert not errors, errors
    imgs = browser.execute_script(
        "return [...document.images].map(i => [i.complete, i.naturalWidth, i.src.slice(0, 22)])")
    assert imgs and all(c and w > 100 and s == "data:image/png;base64," for c, w, s in imgs), imgs
    assert browser.find_elements("tag name", "table")
    browser.save_screenshot(str(_shots(tmp_path) / "experiment-page.png"))


@pytest.mark.parametrize("prog", ["mournesim", "questsim"])
def test_report_page_opens(browser, tmp_path, prog):
    """The page of ``report DIR --format html`` (the command itself is tested
    in tests/mournequest/test_report.py) opens with its tables (rates with their
    intervals) and its plots, without a console error. The games are played
    in this process: a results directory would start a worker process."""
    from importlib import import_module

    import pandas as pd

    from simcore.html_report import figures, tables_page
    sim, rep = import_module(f"{prog}.sim"), import_module(f"{prog}.report")
    if prog == "mournesim":
        df = pd.concat([sim.simulate(games=40, seed=3, level=lv) for lv in ("easy", "hard")], ignore_index=True)
    else:
        df = sim.simulate(games=60, seed=3, players=3)
    page = tables_page(f"{prog} balance report\n40 games", rep.standard_report(df),
                       figures(df, import_module(f"{prog}.plots").PLOTS))
    f = tmp_path / "report.html"
    f.write_text(page, encoding="utf-8")
    errors = _open(browser, f)
    assert not errors, errors
    heads = browser.execute_script("return [...document.querySelectorAll('th')].map(t => t.textContent)")
    assert "win rate (95% CI)" in heads and "ci95_low" not in heads     # one column: "43.0% (40.7–45.4)"
    imgs = browser.execute_script("return [...document.images].map(i => i.naturalWidth)")
    assert imgs and min(imgs) > 100
