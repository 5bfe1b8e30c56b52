"""The studio (simcore.studio, simcore.whatif): the real server started as a
user starts it (``mournesim studio``), its JSON API, and a what-if driven in
headless Chromium to its interval; the numbers a saved what-if gives from
the CLI are the studio's; bad input is one line and runs nothing; four
what-ifs at once don't mix; a killed server loses no finished round.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from simcore import whatif
from simcore.errors import InputError
from simcore.game import get

from .test_browser import _open, browser  # noqa: F401  (the headless Chromium fixture)

MQ = get("mournequest")
CHANGE = "levels.medium.disc_clicks"       # a value every player feels: the discs' length on Medium


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``mournesim studio`` in a child process, as a user runs it."""

    def __init__(self, tmp: Path):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.saves = tmp / "saves"
        env = dict(os.environ, HOME=str(tmp / "home"))      # the what-if cache under a home of the test's own
        self.proc = subprocess.Popen([sys.executable, "-m", "mournesim", "studio", "--port", str(self.port),
                                      "--workers", "2", "--saves", str(self.saves)], env=env,
                                     stderr=subprocess.PIPE, text=True,
                                     # Ctrl-C reaches it even where the tests run with SIGINT ignored
                                     # (a background job of a shell without job control)
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        line = self.proc.stderr.readline()
        assert f"open {self.url}/" in line, line + self.proc.stderr.read()

    def call(self, path, body=None):
        """(status, JSON) of a GET, or of a POST of ``body``."""
        req = urllib.request.Request(self.url + path, method="GET" if body is None else "POST",
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def until_done(self, key, timeout=120):
        t = time.monotonic()
        while time.monotonic() - t < timeout:
            _, w = self.call(f"/api/whatif/{key}")
            if w["state"] not in ("queued", "running"):
                return w
            time.sleep(0.2)
        raise AssertionError(f"what-if {key} not done in {timeout} s: {w}")

    def stop(self, sig=signal.SIGINT):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    if s.proc.poll() is None:
        s.stop()


def test_rounds_cover_the_cap_the_same_way_every_time():
    """Round sizes depend only on the cap (a restarted server finds its rounds again)."""
    for cap in (100, 501, 4_000, 123_457):
        r = whatif.rounds(cap)
        assert sum(r) == cap and r == whatif.rounds(cap) and all(s > 0 for s in r)
        assert r[0] == min(cap, whatif.FIRST_ROUND)


def test_the_form_holds_every_value_of_the_ruleset_file_with_its_provenance_and_range():
    """Every value the shipped ruleset file sets is a row of the form, with
    its provenance; a bounded number carries its model's bounds."""
    from simcore.rulesets import leaves
    for game in (MQ, get("questmaster")):
        form = whatif.form(game)
        rows = {r["path"]: r for r in form["rows"]}
        raw = game.module("experiment").load_raw(None)
        assert set(rows) == {p for p, _ in leaves(raw) if not p.startswith("provenance")}
        assert all(r["provenance"].startswith(("rulebook:", "assumed:")) for r in rows.values())
    rows = {r["path"]: r for r in whatif.form(MQ)["rows"]}
    assert rows[CHANGE]["kind"] == "number" and rows[CHANGE]["low"] is not None


@pytest.mark.parametrize("changed, message", [
    ({"levels.medium.no_such_value": 3}, "not a value of the MourneQuest ruleset"),
    ({CHANGE: "many"}, "is not a number"),
    ({CHANGE: -4}, "outside its allowed range"),
    ({CHANGE: 2.5}, "is not a number"),
])
def test_bad_values_are_one_line_before_anything_runs(changed, message):
    with pytest.raises(InputError, match=message) as e:
        whatif.overrides(MQ, changed)
    assert "\n" not in str(e.value)


def test_bad_command_lines_are_one_line_and_exit_2(tmp_path, server):
    """A bad port, host or saves folder, or a port already in use: one line,
    exit status 2, and no server left running."""
    afile = tmp_path / "a-file"
    afile.write_text("mine")
    for args, says in ((["--port", "0"], "--port"), (["--host", ""], "--host"),
                       (["--host", "no-such-host.invalid"], "not an address"),
                       (["--saves", str(afile)], "--saves"), (["--port", str(server.port)], "already in use")):
        r = subprocess.run([sys.executable, "-m", "mournesim", "studio", *args], capture_output=True, text=True,
                           timeout=120, env=dict(os.environ, HOME=str(tmp_path / "home")))
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("mournesim: error: ") and says in lines[0], (args, r.stderr)
    assert afile.read_text() == "mine"


def test_bad_input_in_the_api_is_one_line_and_runs_nothing(server):
    """A bad value, an unknown base key, an out-of-range target, a
    non-JSON body: 400 (or 415) with one line; no what-if exists after."""
    for body, says in (({"changed": {"nope.x": 1}}, "not a value"), ({"base": {"planet": "mars"}, "changed": {CHANGE: 9}},
                                                                    "not a base setting"),
                       ({"changed": {CHANGE: 9}, "target": 3}, "target"), ({"changed": {}}, "change at least one")):
        status, d = server.call("/api/whatif", body)
        assert status == 400 and says in d["error"] and "\n" not in d["error"], d
    req = urllib.request.Request(server.url + "/api/whatif", method="POST", data=b"level=easy",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 415
    assert server.call("/api/whatifs") == (200, [])


def test_a_what_if_in_the_browser_narrows_to_its_interval_and_saves_what_the_cli_reproduces(server, browser,  # noqa: F811
                                                                                            tmp_path):
    """Change the Medium discs' length in the page, run it: the interval
    narrows round by round to the target, the page shows it, and Save writes
    an experiment file whose CLI run gives the very same comparison."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(server.url + "/")
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"input[data-path='{CHANGE}']"))
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    inp = browser.find_element(By.CSS_SELECTOR, f"input[data-path='{CHANGE}']")
    browser.execute_script("arguments[0].closest('details').open = true", inp)
    before = int(inp.get_attribute("value"))
    inp.clear()
    inp.send_keys(str(before - 1))
    for name, value in (("target", "3"), ("games", "6000")):
        box = browser.find_element(By.ID, name)
        box.clear()
        box.send_keys(value)
    browser.find_element(By.ID, "run").click()
    card = WebDriverWait(browser, 120).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".card[data-state='done']"))
    headline = card.find_element(By.CLASS_NAME, "headline").text
    assert headline.startswith("win: ") and " points (" in headline, headline
    key = card.get_attribute("data-key")
    _, w = server.call(f"/api/whatif/{key}")
    assert w["set"] == [f"{CHANGE}={before - 1}"]
    widths = [r["half_width"] for r in w["history"]]
    assert len(widths) >= 2 and widths[-1] < widths[0]      # narrower as the games come in
    assert widths[-1] <= 0.03 or w["played"] == 6000
    # the games behind the figure: one the change turned opens in the viewer, as each arm played it
    link = card.find_element(By.CSS_SELECTOR, "[data-example] a")
    g = int(link.get_attribute("href").rsplit("/", 1)[1])
    way = "lost" if g in w["examples"]["lost"] else "won"
    assert g in w["examples"][way]
    for arm in ("baseline", "what_if"):
        with urllib.request.urlopen(f"{server.url}/game/{key}/{arm}/{g}", timeout=60) as r:
            text = r.read().decode()
        assert f"seed {whatif.SEED}, game {g}" in text, arm
        assert ("outcome win;" in text) == ((arm == "baseline") == (way == "lost")), (arm, way)
    assert server.call(f"/game/{key}/baseline/{w['played']}")[0] == 404
    # opened from the card in the browser (a tab of its own): the viewer, its decisions listed
    studio_tab = browser.current_window_handle
    link.click()
    WebDriverWait(browser, 30).until(lambda b: len(b.window_handles) > 1)
    browser.switch_to.window([h for h in browser.window_handles if h != studio_tab][0])
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "return document.body && document.body.getAttribute('data-ready')"))
    assert f"/game/{key}/" in browser.current_url
    assert browser.execute_script("return window.replayViewer.decisionSteps.length") > 20
    browser.close()
    browser.switch_to.window(studio_tab)
    shots = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(shots / "studio-what-if.png"))

    card.find_element(By.CSS_SELECTOR, "input[type=text]").clear()
    card.find_element(By.CSS_SELECTOR, "input[type=text]").send_keys("shorter-discs")
    card.find_element(By.XPATH, ".//button[text()='Save']").click()
    WebDriverWait(browser, 30).until(lambda d: "saved" in card.text)
    exp = server.saves / "shorter-discs.experiment.toml"
    assert exp.exists() and (server.saves / "shorter-discs.ruleset.toml").exists()
    out = tmp_path / "cli"
    r = subprocess.run([sys.executable, "-m", "mournesim", "experiment", str(exp), "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    import pandas as pd
    cli = pd.read_csv(out / "comparisons.csv")
    for m in w["table"]:
        row = cli[(cli["measure"] == m["measure"])].iloc[0]
        assert int(row["n"]) == w["played"] == m["n"]
        for col in ("baseline", "value", "change", "ci95_low", "ci95_high"):
            assert row[col] == pytest.approx(m[col], abs=1e-12), (m["measure"], col)


def test_eight_what_ifs_and_many_readers_at_once_do_not_mix(server):
    """A load test: eight what-ifs asked together (one of them asked twice)
    while eight clients read the studio (status, every what-if, a game page
    with its decisions, the dice calculator) as fast as they can. Every
    request is answered; the repeated ask is the same what-if; each what-if
    plays its own change on the same base games: the base rate is the same
    in all, and each what-if's rate is the one a plain simulate with that
    change gives. The answer times are printed (``-s``), never asserted."""
    import statistics
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from mournesim import sim
    asks = [{CHANGE: v} for v in (4, 5, 6, 7, 8, 9, 10, 13)]
    keys, times, failures = [], [], []
    stop = threading.Event()
    reads = ["/api/whatifs", "/play?players=2&game=1", "/api/dice?dice=grey,green&ability=7&target=7", "/"]

    def reader(k):
        i = k
        while not stop.is_set():
            path = reads[i % len(reads)] if not keys or i % 5 else f"/api/whatif/{keys[i % len(keys)]}"
            t = time.monotonic()
            try:
                with urllib.request.urlopen(server.url + path, timeout=120) as r:
                    r.read()
                    if r.status != 200:
                        failures.append((path, r.status))
            except Exception as e:      # noqa: BLE001 - any failure to answer is the finding
                failures.append((path, repr(e)))
            times.append(time.monotonic() - t)
            i += 1

    with ThreadPoolExecutor(8) as pool:
        for k in range(8):
            pool.submit(reader, k)
        for a in asks + asks[:1]:
            status, w = server.call("/api/whatif", {"changed": a, "games": 500, "target": 0.001})
            assert status == 200, w
            keys.append(w["key"])
        done = [server.until_done(k, timeout=300) for k in keys[:len(asks)]]
        stop.set()
    assert not failures, failures[:3]
    assert keys[-1] == keys[0] and len(set(keys)) == len(asks)
    print(f"\nload: {len(times)} reads during {len(asks)} what-ifs, answered in median "
          f"{1000 * statistics.median(times):.0f} ms, 95th percentile "
          f"{1000 * statistics.quantiles(times, n=20)[-1]:.0f} ms, max {1000 * max(times):.0f} ms")
    assert all(w["state"] == "done" and w["played"] == 500 for w in done)
    assert len({w["table"][0]["baseline"] for w in done}) == 1
    for a, w in zip(asks[::3], done[::3]):
        (path, v), = a.items()
        df = sim.simulate(games=500, seed=whatif.SEED, level="medium", players=4, policy="greedy",
                          overrides=(f"{path}={v}",))
        assert w["table"][0]["value"] == pytest.approx(df["win"].mean(), abs=1e-12)


def test_a_killed_server_loses_no_finished_round(tmp_path):
    """Kill the server (SIGKILL) mid what-if; started again and asked the
    same, it re-uses the rounds that finished (their files untouched) and
    plays on to the same answer as an uninterrupted what-if."""
    s = Server(tmp_path)
    try:
        _, w = s.call("/api/whatif", {"changed": {CHANGE: 6}, "games": 10_000, "target": 0.0001})
        t = time.monotonic()
        while s.call(f"/api/whatif/{w['key']}")[1]["played"] < 1000 and time.monotonic() - t < 120:
            time.sleep(0.05)
        s.proc.kill()
        s.proc.wait(timeout=30)
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
    cache = tmp_path / "home" / ".cache" / "mournesim" / "studio" / w["key"] / "data"
    kept = {p: p.stat().st_mtime_ns for p in cache.glob("round-*/**/*.parquet")}
    assert kept, "no round was finished before the kill"
    s = Server(tmp_path)
    try:
        _, again = s.call("/api/whatif", {"changed": {CHANGE: 6}, "games": 10_000, "target": 0.0001})
        assert again["key"] == w["key"]
        done = s.until_done(w["key"], timeout=300)
        assert done["played"] == 10_000
        assert all(p.stat().st_mtime_ns == m for p, m in kept.items())
    finally:
        s.stop()


def test_the_dice_calculator_is_exact_and_its_address_is_the_roll(server, browser, tmp_path):  # noqa: F811
    """The calculator's chance of reaching the target is the exact odds the
    players use (mournesim.odds.combat_odds) for every pool; the page opened
    from an address shows that roll, and a change is kept in the address."""
    from fractions import Fraction

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from mournesim import odds, sim
    rules = sim.prepare()
    for dice, ability, target, blue in (("grey", 7, 7, False), ("grey,green", 7, 7, False),
                                        ("grey,green,orange", 7, 7, False), ("green,red", 3, 12, True)):
        status, d = server.call(f"/api/dice?dice={dice}&ability={ability}&target={target}&blue={int(blue)}")
        assert status == 200, d
        exact = Fraction(d["summary"][0].rsplit("(", 1)[1].rstrip(")"))
        idx = [odds.DICE_NAMES.index(x) for x in dice.split(",")]
        assert float(exact) == pytest.approx(odds.combat_odds(rules, ability, target, idx, 0, blue), abs=1e-12)
        assert sum(b["p"] for b in d["bars"]) == pytest.approx(1)
    # a third die against a weak enemy: more fumbles (the study's design note)
    one, two, three = (Fraction(server.call(f"/api/dice?dice={x}&ability=7&target=7")[1]["summary"][0]
                                .rsplit("(", 1)[1].rstrip(")")) for x in ("grey", "grey,green", "grey,green,orange"))
    assert one < two and three < two
    assert server.call("/api/dice?dice=purple")[0] == 400
    assert server.call("/api/dice?ability=99")[0] == 400
    browser.get(server.url + "/dice?dice=grey,green&ability=7&target=7")
    WebDriverWait(browser, 30).until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    assert "reaches 7: " in browser.find_element(By.ID, "summary").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#plot rect")) >= 3
    box = browser.find_element(By.ID, "in-target")
    box.clear()
    box.send_keys("9")
    WebDriverWait(browser, 30).until(lambda b: "reaches 9: " in b.find_element(By.ID, "summary").text)
    assert "target=9" in browser.current_url and "dice=grey%2Cgreen" in browser.current_url
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    browser.save_screenshot(str(Path(os.environ.get("SCREENSHOT_DIR", tmp_path)) / "studio-dice.png"))


def _viewer_ready(drv, url):
    from selenium.webdriver.support.ui import WebDriverWait
    drv.get_log("browser")
    drv.get(url)
    WebDriverWait(drv, 60).until(
        lambda b: b.execute_script("return document.body && document.body.getAttribute('data-ready')"))
    assert not [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]


def _follow(drv, link):
    """Click a link of the decisions box; wait for the page it opens."""
    from selenium.webdriver.support.ui import WebDriverWait
    old = drv.find_element("tag name", "body")
    link.click()
    WebDriverWait(drv, 60).until(lambda b: b.find_element("tag name", "body") != old and b.execute_script(
        "return document.body.getAttribute('data-ready')"))
    assert not [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]


def test_a_person_takes_a_seat_and_branches_a_game_in_the_browser(server, browser, tmp_path):  # noqa: F811
    """Opened from the studio's form with a seat, a game pauses at the
    person's first decision and offers its options; a choice other than
    the player's is played and the game pauses at the person's next
    decision. Watching a game, a decision lists its options with the
    player's scores, and 'play on with this' opens the game branched there:
    the same position, the other option played."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(server.url + "/")
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[data-base='players']"))
    players = browser.find_element(By.CSS_SELECTOR, "input[data-base='players']")
    players.clear()
    players.send_keys("2")
    for box, value in (("gameno", "3"), ("seat", "1")):
        browser.find_element(By.ID, box).clear()
        browser.find_element(By.ID, box).send_keys(value)
    browser.find_element(By.ID, "open").click()
    browser.switch_to.window(browser.window_handles[-1])
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "return document.body && document.body.getAttribute('data-ready')"))
    assert "players=2" in browser.current_url and "game=3" in browser.current_url and "seat=0" in browser.current_url
    view = "return window.replayViewer.decisions()"
    mine = browser.execute_script(view)
    assert len(mine) == 1 and "Your decision" in browser.find_element(By.ID, "choices").text
    first = mine[0]
    assert browser.execute_script("return window.replayViewer.step()") == browser.execute_script(
        "return window.replayViewer.steps") - 1          # nothing shown after the person's decision
    j = next(k for k in range(len(first["options"])) if k != first["player"])
    links = browser.find_elements(By.CSS_SELECTOR, "#choices a")
    assert len(links) == len(first["options"])
    _follow(browser, links[j])
    assert f"o={first['i']}%3A" in browser.current_url
    nxt = browser.execute_script(view)
    assert len(nxt) == 1 and nxt[0]["i"] > first["i"] and "Your decision" in browser.find_element(By.ID, "choices").text
    browser.save_screenshot(str(Path(os.environ.get("SCREENSHOT_DIR", tmp_path)) / "studio-seat.png"))

    # watching: a decision with scores, branched with another option
    _viewer_ready(browser, server.url + "/play?players=2&game=3")
    steps = browser.execute_script("return window.replayViewer.decisionSteps")
    for s in steps[3:]:
        browser.execute_script("window.replayViewer.go(arguments[0])", s)
        here = [d for d in browser.execute_script(view) if len(d["options"]) > 1]
        if here:
            break
    d = here[0]
    assert d["scores"] and d["scores"][d["played"]] == max(d["scores"])      # greedy plays its best score
    j = next(k for k in range(len(d["options"])) if k != d["played"])
    codes = browser.execute_script("return JSON.parse(document.getElementById('replay-data').textContent)"
                                   ".decisions.find(x => x.i === arguments[0]).k", d["i"])
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "#choices a")
                if a.get_attribute("href").split("#")[0].endswith(f"o={d['i']}%3A{codes[j]}&seat=-1"))
    assert link.text == "play on with this"
    _follow(browser, link)
    assert browser.execute_script("return window.replayViewer.step()") == s      # the same position
    again = next(x for x in browser.execute_script(view) if x["i"] == d["i"])
    assert again["options"] == d["options"] and again["played"] == j and again["player"] == d["player"]
    browser.save_screenshot(str(Path(os.environ.get("SCREENSHOT_DIR", tmp_path)) / "studio-branch.png"))
    assert server.call("/play?players=2&game=3&o=1:999999")[0] == 400


def test_a_reports_example_games_open_in_the_studio_as_the_run_played_them(server, tmp_path):
    """The HTML report of a run (a ``--set`` override, two cells) links each
    example game number to the studio; each opens the very game of the run:
    the won ones won, the lost ones lost."""
    import html
    import re

    from simcore.report import STUDIO
    out = tmp_path / "run"
    sim = [sys.executable, "-m", "mournesim", "simulate", "--games", "100", "--players", "1,3", "--seed", "17",
           "--set", "levels.medium.disc_clicks=10", "--out", str(out), "--quiet"]
    r = subprocess.run(sim, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "mournesim", "report", str(out), "--format", "html"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    section = r.stdout.split('<h2 id="example-games-per-cell', 1)[1].split("<h2", 1)[0]
    opened = 0
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section)[1:]:        # the rows carry ids (other tables link to them)
        cells = re.findall(r"<td>(.*?)</td>", row)
        for cell, won in ((cells[-2], True), (cells[-1], False)):      # the columns end: won, lost
            address = html.unescape(re.search(r'href="([^"]+)"', cell).group(1))
            assert address.startswith(STUDIO + "/play?") and "seed=17" in address
            assert "set=levels.medium.disc_clicks%3D10" in address
            with urllib.request.urlopen(server.url + address[len(STUDIO):], timeout=60) as resp:
                page = resp.read().decode()
            game = int(re.search(r"game=(\d+)", address).group(1))
            assert f"seed 17, game {game}" in page and f">{game}</a>" in cell
            assert ("outcome win;" in page) == won, (address, won)
            opened += 1
    assert opened == 4


def test_an_experiments_turned_games_open_in_the_studio_as_each_arm_played_them(server, tmp_path):
    """An experiment's report lists, per arm and cell, games the arm turned;
    each number opens in the studio as the arm played it (won there), and
    the same address without the arm's override is the baseline's play of
    that very game (lost there), and the reverse way round."""
    import html
    import re

    from simcore.report import STUDIO
    exp = tmp_path / "two-dice.toml"
    exp.write_text('title = "two dice"\ngame = "mournequest"\nseed = 5\ngames = 150\nmeasures = ["win"]\n'
                   '[base]\nlevel = "hard"\nplayers = [1, 4]\n'
                   '[[variant]]\nname = "two"\nset = ["rules.starting_dice=2"]\n')
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "mournesim", "experiment", str(exp), "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    page = (out / "index.html").read_text()
    body = page.split("Games the change turned</h2>", 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    assert len(rows) == 2
    opened = 0
    for row in rows:
        cells = re.findall(r"<td>(.*?)</td>", row, re.S)
        for cell, arm_wins in ((cells[-2], True), (cells[-1], False)):
            for address in re.findall(r'href="([^"]+)"', cell)[:1]:
                address = html.unescape(address)
                assert address.startswith(STUDIO + "/play?") and "seed=5" in address
                for path, wins in ((address, arm_wins), (address.replace("&set=rules.starting_dice%3D2", ""),
                                                         not arm_wins)):
                    with urllib.request.urlopen(server.url + path[len(STUDIO):], timeout=60) as resp:
                        assert ("outcome win;" in resp.read().decode()) == wins, path
                opened += 1
    assert opened >= 3
