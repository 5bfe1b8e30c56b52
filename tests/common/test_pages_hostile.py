"""Every page the project writes shows a user's values as text, never as
markup that runs (the design guide: "Every page escapes every value a user
supplied (names, titles, paths, rulesets)").

The values come in through the real paths: an experiment file (title,
question, variant names and descriptions), its ruleset's file name and the
command line (``--out``), a ruleset that names a hero or a character, the
balance report's title and tables. Each page is read with ``html.parser``:
no ``<script>`` but the page's own, no ``on*=`` attribute, no
``javascript:``/``vbscript:``/``data:`` address (but the PNG plots a page
embeds itself), and the hostile text still there for the reader, literally.
The browser tests at the end open the same pages in headless Chromium (the
``browser`` fixture of test_browser.py) and check that nothing ran.
"""
from __future__ import annotations

import json
import re
import shutil
import time
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest

from . import test_browser as tb

browser = tb.browser            # the same fixture: headless Chromium (skipped without it unless REQUIRE_BROWSER=1)

# what must never run; each sets window.__pwned (or opens an alert) if it does
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
JS_LINK = "](javascript:window.__pwned=3)"
HOSTILE = [
    SCRIPT,
    IMG,
    "<img src=x onerror=alert(1)>",
    JS_LINK,
    "[click](javascript:window.__pwned=4)",
    "![i](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[v](vbscript:msgbox(1))",
    "a`<img src=x onerror=\"window.__pwned=5\">`b",
    "``<b>bold?</b>``",
    "</script><script>window.__pwned=6</script>",
    "title\n# injected heading",
    "a\r\n\r\n<div onclick=\"window.__pwned=7\">x</div>",
    "*bold* _it_ __init__ ~~gone~~ win_hp_above",
    "C# # trailing #",
    "cell | split | here",
    "\\<b>escaped?\\</b> back\\slash\\",
    "&lt;script&gt; &amp; &#60;b&#62;",
    "<http://example.org> <javascript:alert(1)>",
    "$\\x$ costs $5",
]


def _norm(s: str) -> str:
    """Text as a reader sees it: every run of white space one space."""
    return " ".join(s.split())


class Page(HTMLParser):
    """One page read as a browser would: its elements, scripts, title and
    the text shown (outside script, style and title)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements, self.scripts, self.title, self._text, self._in = [], [], "", [], None
        self.feed(text)
        self.close()
        self.text = _norm("".join(self._text))

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style", "title"):
            self._in = tag
            if tag == "script":
                self.scripts.append([dict(attrs), ""])

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1][1] += data
        elif self._in == "title":
            self.title += data
        elif self._in is None:
            self._text.append(data)

    def runnable(self) -> list:
        """Whatever in the page could run: event attributes, script-like
        addresses (a data: address only as an embedded PNG), frames and
        plug-ins, a meta refresh. The page's own scripts are checked apart."""
        bad = []
        for tag, attrs in self.elements:
            if tag in ("iframe", "frame", "object", "embed", "base", "link", "form") or (
                    tag == "meta" and "http-equiv" in attrs):
                bad.append((tag, attrs))
            for k, v in attrs.items():
                url = re.sub(r"[\x00-\x20\x7f]+", "", v or "").lower()
                if k.lower().startswith("on") or url.startswith(("javascript:", "vbscript:")) or (
                        url.startswith("data:") and not (tag == "img" and k == "src"
                                                         and url.startswith("data:image/png;base64,"))):
                    bad.append((tag, k, v))
        return bad

    def cells(self, text: str):
        """Each table row's number of cells (header row included)."""
        return [len(re.findall(r"<t[hd][ >]", row)) for row in re.findall(r"<tr>(.*?)</tr>", text, re.S)]

    def cells_by_table(self, text: str):
        """Per table, each row's number of cells (header row included)."""
        return [self.cells(t) for t in re.findall(r"<table>(.*?)</table>", text, re.S)]


def _png() -> bytes:
    import matplotlib
    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


# --------------------------------------------------- the Markdown helpers --

@pytest.mark.parametrize("value", HOSTILE)
def test_md_text_shows_the_value_as_text(value, tmp_path):
    """``md_text`` of a hostile value, as a heading, inside a paragraph and in
    a table cell, renders as exactly that text (line breaks as spaces) on
    one line: no markup, no extra heading or cell, nothing that runs."""
    from simcore.experiment_report import md_text
    from simcore.html_report import markdown_page
    v = md_text(value)
    assert "\n" not in v and "\r" not in v
    md = f"# {v}\n\nbefore {v} after\n\n| name | x |\n|---|---|\n| {v} | 1 |\n"
    text = markdown_page(md, tmp_path)
    page = Page(text)
    assert not page.scripts and not page.runnable(), page.runnable()
    assert [t for t, _ in page.elements if t not in ("html", "head", "meta", "title", "style", "body")] == \
        ["h1", "p", "table", "thead", "tr", "th", "th", "tbody", "tr", "td", "td"]
    h1 = re.search(r"<h1>(.*?)</h1>", text, re.S).group(1)
    assert _norm(Page(h1).text) == _norm(value) == _norm(page.title)
    assert f"before {_norm(value)} after" in page.text
    assert Page(re.search(r"<td>(.*?)</td>", text, re.S).group(1)).text == _norm(value)


@pytest.mark.parametrize("value", [v for v in HOSTILE if "`" in v] + ["`", "x`", "`x", "a``b```c", "<b>x</b>", "&lt;b&gt; `&amp;`"])
def test_md_code_is_one_code_span_whatever_it_holds(value, tmp_path):
    """``md_code`` of a value with backticks (a path given to ``--out``)
    stays one code span holding exactly the value: a backtick in it never
    ends the span and lets a tag out."""
    from simcore.experiment_report import md_code
    from simcore.html_report import markdown_page
    text = markdown_page(f"- command: {md_code(value)} (end)\n", tmp_path)
    page = Page(text)
    assert not page.scripts and not page.runnable(), page.runnable()
    codes = re.findall(r"<code>(.*?)</code>", text, re.S)
    assert len(codes) == 1 and Page(codes[0]).text == _norm(value)
    assert page.text == f"command: {_norm(value)} (end)"


def test_markdown_page_passes_no_raw_html_and_no_script_address(tmp_path):
    """A report.md holding raw HTML (blocks and inline), event attributes and
    links or images to javascript:/vbscript:/data: addresses (obfuscated too)
    becomes a page where the HTML is text and no such address survives;
    tables, code, bold, http links and the plots it embeds still render."""
    from simcore.html_report import markdown_page
    (tmp_path / "changes.png").write_bytes(_png())
    md = "\n".join([
        "# Report <script>window.__pwned=1</script>", "",
        "<script>window.__pwned=2</script>", "",
        '<div onclick="window.__pwned=3"><img src=x onerror="window.__pwned=4"></div>', "",
        "text <b onmouseover=alert(1)>inline</b> <svg onload=alert(1)>", "",
        "[a](javascript:window.__pwned=5) [b](JaVaScRiPt:alert(1)) [c]( java\tscript:alert(1)) "
        "[d](javascript&#58;alert(1)) [e](vbscript:msgbox(1)) [f](data:text/html,<script>alert(1)</script>)", "",
        "![g](data:text/html;base64,PHNjcmlwdD4=) ![h](javascript:alert(1))", "",
        "[r]: javascript:alert(1)", "",
        "[ref link][r] <javascript:alert(1)>", "",
        "| a | b |", "|---|---|", "| **bold** | `code` |", "",
        "[site](https://example.org/x) [anchor](#plots) ![changes](changes.png)", ""])
    text = markdown_page(md, tmp_path)
    page = Page(text)
    assert not page.scripts and not page.runnable(), page.runnable()
    assert "window.__pwned=2" in page.text and "<script>" in page.text and "onerror=" in page.text
    assert page.title == "Report <script>window.__pwned=1</script>"
    hrefs = [a["href"] for t, a in page.elements if t == "a" and "href" in a]
    assert hrefs == ["https://example.org/x", "#plots"], hrefs
    srcs = [a.get("src", "") for t, a in page.elements if t == "img"]
    assert sum(s.startswith("data:image/png;base64,") for s in srcs) == 1       # the plot, embedded
    assert "<strong>bold</strong>" in text and "<code>code</code>" in text and page.cells(text) == [2, 2]


# ------------------------------------------------- an experiment's report --

def _toml(s: str) -> str:
    return json.dumps(s)            # a JSON string is a TOML basic string


TITLE = "Hostile " + SCRIPT + " *bold* $\\x$ C#\n# injected heading"
QUESTION = "Why " + IMG + " [click](javascript:window.__pwned=7) `code`?\n\n<script>alert(1)</script>"
V1 = "v<script>window.__pwned=3</script>"
V1_DESC = 'desc <img src=x onerror="window.__pwned=4"> ](javascript:window.__pwned=5) | pipe *x*\n# h2'
V2 = "w_*x*_ [a](javascript:window.__pwned=6)"
RULESET_NAME = 'r`<img src=x onerror="window.__pwned=8">.toml'
OUT_NAME = 'out`<img src=x onerror="window.__pwned=9">'


@pytest.fixture(scope="module")
def hostile_experiment(tmp_path_factory):
    """A real Quest Master experiment (20 games a cell) whose title, question,
    variant names and descriptions, ruleset file name and ``--out`` path are
    hostile; its report.md and index.html as ``experiment_report.write``
    makes them (``markdown`` then ``html_report.markdown_page``), its plots
    drawn by the report's own plot functions. Returns (directory, report.md
    text, index.html text)."""
    from simcore import experiment as ex, experiment_play as play
    from simcore import experiment_report as rep
    from simcore.html_report import markdown_page
    from simcore.plots import plt
    d = tmp_path_factory.mktemp("hostile-exp")
    ruleset = d / RULESET_NAME
    shutil.copy(files("questsim").joinpath("data/ruleset.toml"), ruleset)
    f = d / "exp.toml"
    f.write_text(f"""title = {_toml(TITLE)}
question = {_toml(QUESTION)}
game = "questmaster"
games = 20
measures = ["win_hp"]
[base]
players = 3
ruleset = {_toml(str(ruleset))}
[[variant]]
name = {_toml(V1)}
set = ["rules.win_hp_above=35"]
description = {_toml(V1_DESC)}
[[variant]]
name = {_toml(V2)}
set = ["rules.win_hp_above=40"]
""", encoding="utf-8")
    exp = ex.load(f)
    game = ex.adapter(exp, "questsim")
    res = play.run(exp, game, workers=1)
    out = d / OUT_NAME
    out.mkdir()
    plots = []
    for name, draw in rep.plots_for(res).items():
        fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
        try:
            draw(res, game, ax)
            fig.savefig(out / f"{name}.png", dpi=60)
        finally:
            plt.close(fig)
        plots.append(out / f"{name}.png")
    md = rep.markdown(res, game, plots, f"questsim experiment {f} --out {out}")
    (out / "report.md").write_text(md, encoding="utf-8")
    page = markdown_page(md, out)
    (out / "index.html").write_text(page, encoding="utf-8")
    return out, md, page


def test_experiment_report_shows_hostile_names_as_text(hostile_experiment):
    """An experiment whose title, question, variant names and descriptions,
    ruleset file name and --out path hold tags, links and backticks: its
    report.md has one title line and no tag a renderer would pass; its
    index.html runs nothing and shows every value literally (line breaks
    as spaces), each table row with its heading's number of cells."""
    out, md, text = hostile_experiment
    assert md.splitlines()[0].startswith("# Hostile ") and not re.search(r"^# injected", md, re.M)
    outside_code = re.sub(r"(`+)(.+?)(?<!`)\1(?!`)", "", md)
    assert not re.search(r"(?<!\\)<(script|img|div)", outside_code), "a tag a Markdown renderer would pass"
    page = Page(text)
    assert not page.scripts and not page.runnable(), page.runnable()
    assert [t for t, _ in page.elements].count("h1") == 1
    for value in (TITLE, QUESTION, V1, V1_DESC, V2, RULESET_NAME, f"--out {out}"):
        assert _norm(value) in page.text, value
    assert page.title == _norm(TITLE)
    tables = page.cells_by_table(text)
    assert len(tables) >= 2 and all(rows and len(set(rows)) == 1 for rows in tables), tables
    srcs = [a.get("src", "") for t, a in page.elements if t == "img"]
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)


# ------------------------------------------------------- the table pages --

def _hostile_tables_page():
    from simcore.html_report import tables_page
    t = pd.DataFrame({SCRIPT: [IMG, "</td></tr></table><script>window.__pwned=3</script>"],
                      "win rate": [0.5, float("nan")]})
    return tables_page(f"report {SCRIPT}\nrun in /tmp/{IMG}", {f"by {IMG}": t, "plain": t},
                       [(f"plot {SCRIPT}", _png())], note=f"note {JS_LINK} {SCRIPT}")


def test_tables_page_shows_hostile_values_as_text():
    """The balance report page (``report --format html``, the publish
    pipeline's pages): a title, a description line, table names, column
    names, cells, figure names and the note holding tags are all text."""
    text = _hostile_tables_page()
    page = Page(text)
    assert not page.scripts and not page.runnable(), page.runnable()
    assert page.title == f"report {SCRIPT}"
    for value in (f"run in /tmp/{IMG}", f"by {IMG}", SCRIPT, IMG, "</td></tr></table>", f"plot {SCRIPT}",
                  f"note {JS_LINK} {SCRIPT}"):
        assert value in page.text, value
    assert page.cells(text) == [2, 2, 2] * 2


# ---------------------------------------------------------- the viewers --

H = "</script><script>window.__pwned=10</script><img src=x onerror=\"window.__pwned=11\"><!--"


def _ruleset(package: str, table: str, key: str, to: str) -> str:
    """The shipped ruleset of ``package`` with ``[table.key]`` renamed ``to``
    (its provenance notes dropped), and its ``[names]`` entry: the name a
    person reads is ``to`` as well."""
    text = files(package).joinpath("data/ruleset.toml").read_text(encoding="utf-8")
    text = text.replace(f"[{table}.{key}]", f"[{table}.{_toml(to)}]").replace(f"[{table}.{key}.",
                                                                               f"[{table}.{_toml(to)}.")
    text = re.sub(rf"^{key} = .*$", lambda _: f"{_toml(to)} = {_toml(to)}", text, count=1, flags=re.M)
    return "\n".join(line for line in text.splitlines() if not line.startswith(f'"{table}.{key}.'))


@pytest.fixture(scope="module")
def hostile_replays(tmp_path_factory):
    """The replay pages of a MourneQuest game whose first hero and a Quest
    Master game whose first seat's character are named ``H`` (a ruleset that
    renames them): {game: (page file, viewer data)}."""
    from mournesim import replay as mq
    from mournesim import viewer as mqv
    from questsim import replay as qr
    from questsim import viewer as qmv
    d = tmp_path_factory.mktemp("hostile-replays")
    (d / "mq.toml").write_text(_ruleset("mournesim", "heroes", "jack", H), encoding="utf-8")
    (d / "qm.toml").write_text(_ruleset("questsim", "characters", "swordsman", H), encoding="utf-8")
    rp_mq = mq.replay(seed=1, game=7, level="easy", players=4, policy="greedy", ruleset=str(d / "mq.toml"))
    rp_qm = qr.replay(seed=1, game=1, players=2, characters=(H, "knight"), ruleset=str(d / "qm.toml"))
    out = {}
    for key, rp, v in (("mournequest", rp_mq, mqv), ("questmaster", rp_qm, qmv)):
        f = d / f"{key}.html"
        f.write_text(v.html(rp), encoding="utf-8")
        out[key] = (f, v.data(rp))
    return out


@pytest.mark.parametrize("key", ["mournequest", "questmaster"])
def test_replay_viewer_keeps_a_hostile_name_as_data(hostile_replays, key):
    """A hero (MourneQuest) or character (Quest Master) named with
    ``</script>``, a tag and ``<!--``: the viewer page has only its own two
    scripts (the data, unchanged once parsed, and the template's code), and
    the name is nowhere in the page as markup."""
    f, data = hostile_replays[key]
    text = f.read_text(encoding="utf-8")
    assert any(H in p["name"] for p in data["pieces"])
    page = Page(text)
    assert not page.runnable(), page.runnable()
    assert [a for a, _ in page.scripts] == [{"id": "replay-data", "type": "application/json"}, {}]
    assert json.loads(page.scripts[0][1]) == json.loads(json.dumps(data))
    template = files("simcore").joinpath("templates/viewer.html").read_text(encoding="utf-8")
    assert page.scripts[1][1] == re.search(r"<script>(.*?)</script>", template, re.S).group(1)
    # the name only inside the data: cut the data element as a browser would (at the first "</script")
    assert "__pwned" not in re.sub(r'<script id="replay-data".*?</script>', "", text, flags=re.S)


def _tiny_viewer_data(name: str) -> dict:
    """The smallest replay page data with ``name`` in every string field."""
    return {"title": name, "subtitle": name,
            "board": {"nodes": [{"id": name, "x": 0, "y": 0, "kind": "k", "label": name, "title": name}],
                      "edges": [], "style": {}, "viewbox": [-40, -40, 80, 80]},
            "pieces": [{"id": name, "name": name, "label": name[:2], "colour": "#123456"}],
            "steps": [{"x": name, "p": [0], "m": {"0": name}}, {"x": name + " 2"}],
            "turns": [{"step": 1, "label": name, "panel": [{"title": name, "text": [name],
                                                              "columns": [name], "rows": [[name]]}]}],
            "legend": [name]}


@pytest.mark.parametrize("name", [H, "__DATA__ </title><script>window.__pwned=12</script>", "__TITLE__ & <b>"])
def test_viewer_page_fills_title_and_data_once(name):
    """``simcore.viewer.page``: the title is the page's title, as text, even
    when it holds the other placeholder (``__DATA__``) or closes the title
    element; every field's hostile text stays data."""
    from simcore.viewer import page as viewer_page
    data = _tiny_viewer_data(name)
    text = viewer_page(data)
    page = Page(text)
    assert not page.runnable(), page.runnable()
    assert page.title == name
    assert [a for a, _ in page.scripts] == [{"id": "replay-data", "type": "application/json"}, {}]
    assert json.loads(page.scripts[0][1]) == data


# ---------------------------------------------------------- in a browser --

def _nothing_ran(browser, path: Path):
    """Open ``path``; assert it logged no error, opened no alert and set no
    ``window.__pwned``; return the text the page shows."""
    from selenium.common.exceptions import NoAlertPresentException
    errors = tb._open(browser, path)        # an injected <img src=x> would log its failed load
    time.sleep(0.3)                                  # an image's onerror, a late handler
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert not errors, errors
    return browser.execute_script("return document.body.innerText")


def test_browser_runs_nothing_of_a_hostile_experiment_page(browser, hostile_experiment):
    """The hostile experiment's index.html in Chromium: nothing ran (no
    ``window.__pwned``, no alert), the names show as text, the plots draw."""
    out, _md, _text = hostile_experiment
    shown = _norm(_nothing_ran(browser, out / "index.html"))
    for value in (TITLE, V1, V2, RULESET_NAME):
        assert _norm(value) in shown, value
    widths = browser.execute_script("return [...document.images].map(i => i.naturalWidth)")
    assert widths and min(widths) > 50


def test_browser_runs_nothing_of_a_hostile_report_page(browser, tmp_path):
    """A balance report page with tags in its title, tables and figure name,
    in Chromium: nothing ran, the values show as text."""
    f = tmp_path / "report.html"
    f.write_text(_hostile_tables_page(), encoding="utf-8")
    shown = _nothing_ran(browser, f)
    assert SCRIPT in shown and IMG in shown


@pytest.mark.parametrize("key", ["mournequest", "questmaster"])
def test_browser_runs_nothing_of_a_replay_with_a_hostile_name(browser, hostile_replays, key):
    """A replay page whose hero or character is named with ``</script>``, a
    tag and ``<!--``, in Chromium: the viewer loads (its data parsed, its
    script ran), nothing else ran, and the legend shows the name as text."""
    f, _data = hostile_replays[key]
    _nothing_ran(browser, f)
    assert browser.find_element("tag name", "body").get_attribute("data-ready") == "1"
    assert H in browser.execute_script("return document.getElementById('legend').textContent")
    browser.execute_script("window.replayViewer.go(window.replayViewer.steps - 1)")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
