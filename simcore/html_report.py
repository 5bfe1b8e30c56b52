"""Reports as pages: one self-contained HTML file (styles inline, plots
embedded as PNG data) that opens in any browser and can be mailed.

- ``tables_page``: a balance report (``report DIR --format html``), the
  same named tables as the text report, each rate with its interval, and
  the same plots as ``--plots``;
- ``markdown_page``: an experiment's ``report.md`` with its plots, as the
  ``index.html`` written beside it (``experiment_index``).

Every value a user supplied is shown as text, never as markup: the table
pages escape each one, and the Markdown page passes no raw HTML (a tag in
report.md comes out as the tag's text), no link or image to a
``javascript:``/``data:``/``vbscript:`` address and no ``on*=`` attribute;
the only ``data:`` addresses are the PNG plots it embeds itself.

Run ``python -m simcore.html_report DIR [DIR..]`` to (re)write the
``index.html`` of experiment directories from their ``report.md``.
"""
from __future__ import annotations

import base64
import html
import io
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .present import EMPTY, is_share_table, readable
from .report import EXAMPLES, example_row

CSS = """
body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 40px; font: 14px/1.5 system-ui, -apple-system,
  "Segoe UI", sans-serif; color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 26px 0 6px; border-bottom: 1px solid #d0d7de;
  padding-bottom: 3px; } h3 { font-size: 15px; }
.meta { color: #57606a; font-size: 12.5px; white-space: pre-wrap; margin: 0 0 10px; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 12.5px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: right; }
th { background: #f6f8fa; } td:first-child, th:first-child { text-align: left; }
tr:nth-child(even) td { background: #fbfbfc; }
img { max-width: 100%; height: auto; border: 1px solid #eaeef2; margin: 6px 0; }
code { background: #f6f8fa; padding: 0 3px; border-radius: 3px; font-size: 12.5px; }
nav a { margin-right: 10px; font-size: 12.5px; }
figure { margin: 10px 0 20px; } figcaption { color: #57606a; font-size: 12.5px; }
"""


def _doc(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def png_data_uri(data: bytes) -> str:
    """``data:`` URI of PNG bytes, for an <img> inside the page."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def figures(df, plots: dict, names: dict | None = None) -> list:
    """``[(caption, png bytes)]``: each ``{name: draw(df, ax, names)}`` of
    ``plots`` drawn as ``simcore.plots.write_plots`` draws it, kept in
    memory, with the caption that says what it shows."""
    from .plots import caption
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out = []
    for name, draw in plots.items():
        fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
        try:
            draw(df, ax, names)
            ax.grid(alpha=0.3)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=90)
            out.append((caption(draw) or name, buf.getvalue()))
        finally:
            plt.close(fig)
    return out


def _cell(x):
    if isinstance(x, (float, np.floating)):
        return "" if np.isnan(x) else f"{x:.3f}"
    return str(x)


def table_html(t: pd.DataFrame, hrefs: dict | None = None, row_ids: dict | None = None) -> str:
    """One table: every column as in the text report (floats to 3 places);
    ``hrefs``: {(row, column position): address} of the cells that link;
    ``row_ids``: {row: id} of the rows another table links to."""
    if t.empty:
        return f"<p>{html.escape(EMPTY)}</p>"
    hrefs = hrefs or {}
    row_ids = row_ids or {}

    def td(i, j, x):
        text = html.escape(_cell(x))
        if (i, j) in hrefs:
            text = f"<a href=\"{html.escape(hrefs[i, j])}\">{text}</a>"
        return f"<td>{text}</td>"
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.columns)
    rows = "".join((f"<tr id=\"{html.escape(row_ids[i])}\">" if i in row_ids else "<tr>")
                   + "".join(td(i, j, x) for j, x in enumerate(row)) + "</tr>"
                   for i, row in enumerate(t.itertuples(index=False)))
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>{rows}</tbody>\n</table>"


def _slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


def tables_page(title: str, tables: dict, figs=(), note: str = "", names: dict | None = None,
                examples=None) -> str:
    """A report page: ``title`` (first line the heading, the rest shown as
    the run's description), a contents line, every ``{name: DataFrame}``
    as a person reads it (simcore.present, ``names`` for ids) and every
    ``(name, png)`` figure. ``examples`` (simcore.report.example_links):
    the game numbers of the example-games tables link to the studio's
    viewer of each game, and a row of any other table that names one cell
    links to that cell's example games."""
    first, _, rest = title.partition("\n")
    parts = [f"<h1>{html.escape(first)}</h1>"]
    if rest:
        parts.append(f"<p class=\"meta\">{html.escape(rest)}</p>")
    links = [f"<a href=\"#{_slug(k)}\">{html.escape(k)}</a>" for k in tables]
    if figs:
        links.append("<a href=\"#plots\">plots</a>")
    parts.append("<nav>" + " ".join(links) + "</nav>")
    to_examples = _example_rows(tables, examples)
    for k, v in tables.items():
        hrefs, row_ids, found = {}, {}, []
        if examples is not None and k.startswith(EXAMPLES):
            hrefs = {(i, j): a for i, row in enumerate(v.to_dict("records")) for j, c in enumerate(v.columns)
                     if (a := examples(row, c))}
            row_ids = {i: f"{_slug(k)}-{i}" for i in range(len(v))}
        elif to_examples is not None:
            found = [to_examples(row) for row in v.to_dict("records")]
        v = readable(v, names, is_share_table(k))
        if any(found):      # a row naming one cell links to that cell's example games
            v[EXAMPLE_COLUMN] = ["games" if f else "" for f in found]
            hrefs = {(i, len(v.columns) - 1): f for i, f in enumerate(found) if f}
        parts.append(f"<h2 id=\"{_slug(k)}\">{html.escape(k)}</h2>\n{table_html(v, hrefs, row_ids)}")
        if hrefs and row_ids:
            parts.append(f"<p class=\"meta\">Each game number opens that game in the studio's replay viewer, "
                         f"its decisions listed (start the studio first: <code>{html.escape(examples.command)}"
                         "</code>).</p>")
    if figs:
        parts.append("<h2 id=\"plots\">Plots</h2>")
        for name, png in figs:
            parts.append(f"<figure><img alt=\"{html.escape(name)}\" src=\"{png_data_uri(png)}\">"
                         f"<figcaption>{html.escape(name)}</figcaption></figure>")
    parts.append(f"<p class=\"meta\">{html.escape(note or 'Rates are shown with their Wilson 95% intervals.')}</p>")
    return _doc(first, "\n".join(parts))


EXAMPLE_COLUMN = "example games"


def _example_rows(tables: dict, examples):
    """For a row of another table (a dict): the in-page address of the
    example-games row of the one cell the row names, or None
    (simcore.report.example_row). None without example links or an
    example-games table."""
    found = example_row(tables, examples)
    if found is None:
        return None
    k, find = found

    def address(row):
        i = find(row)
        return None if i is None else f"#{_slug(k)}-{i}"
    return address


# the addresses a link or an image of a Markdown page may have: no scheme (a
# file beside the page, an anchor) or one of these; never javascript:, data:,
# vbscript: or any other a browser might run or render as a page
_SAFE_SCHEMES = ("http", "https", "mailto")
_URL_ATTRS = frozenset({"href", "src", "srcset", "action", "formaction", "xlink:href", "background", "poster",
                        "cite", "data"})


def safe_url(url: str) -> bool:
    """Whether ``url`` may stand in a link or image of a page: relative, or
    http(s)/mailto. Judged as a browser reads it: character references
    decoded, the spaces and control characters it ignores dropped."""
    s = re.sub(r"[\x00-\x20\x7f]+", "", html.unescape(url or "")).lower()
    m = re.match(r"([a-z][a-z0-9+.\-]*):", s)
    return m is None or m.group(1) in _SAFE_SCHEMES


def _markdown():
    """Python-Markdown for a page built from user text: tables, fenced code,
    lists; no raw HTML (a tag is shown as text), no unsafe address or event
    attribute in what it makes (``_Defang``); ``\\<`` and ``\\~`` escape
    as in CommonMark (simcore.experiment_report.md_text writes them)."""
    import markdown
    from markdown.treeprocessors import Treeprocessor

    class _Defang(Treeprocessor):
        def run(self, root):
            for el in root.iter():
                for k in list(el.keys()):
                    kl = k.lower()
                    if kl.startswith("on") or (kl in _URL_ATTRS and not safe_url(el.get(k))):
                        del el.attrib[k]

    md = markdown.Markdown(extensions=["tables", "fenced_code", "sane_lists"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.ESCAPED_CHARS = md.ESCAPED_CHARS + [c for c in "<~" if c not in md.ESCAPED_CHARS]
    md.treeprocessors.register(_Defang(md), "defang", -10)      # after "unescape" (0): the final values
    return md


def markdown_page(md: str, base: Path, title: str = "") -> str:
    """``md`` (a report.md) as a page, each image it names from ``base``
    embedded, so the page needs nothing beside it. Raw HTML in ``md`` is
    shown as text (``_markdown``); ``title`` defaults to the first heading's
    text."""
    body = _markdown().convert(md)

    def embed(m):
        src = html.unescape(m.group(2))
        f = Path(base) / src
        if src.lower().endswith(".png") and f.is_file() and "/" not in src.replace("\\", "/"):
            return f"{m.group(1)}{png_data_uri(f.read_bytes())}{m.group(3)}"
        return m.group(0)
    body = re.sub(r'(<img[^>]*?src=")([^"]+)(")', embed, body)
    if not title:       # the first heading as the reader sees it (Markdown escapes undone); _doc escapes it
        m = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S)
        title = html.unescape(re.sub(r"<[^>]*>", "", m.group(1))).strip() if m else ""
    return _doc(title or "report", body)


def experiment_index(directory) -> Path:
    """Write ``index.html`` beside ``report.md`` in an experiment directory,
    one the tool wrote (simcore.outdir: never over a page of the user's)."""
    from .outdir import owned
    with owned(directory, "python -m simcore.html_report") as d:
        md = (d.path / "report.md").read_text(encoding="utf-8")
        return d.write_text("index.html", markdown_page(md, d.path))


def main(argv=None) -> int:
    """(Re)write the index.html of each experiment directory named; a
    directory that is not an experiment's is one line, exit status 2."""
    from .errors import InputError
    for d in (argv if argv is not None else sys.argv[1:]):
        try:
            if not (Path(d) / "report.md").is_file():
                raise InputError(f"{d}: no report.md (not an experiment's --out directory)")
            print(experiment_index(d))
        except InputError as e:
            print(f"simcore.html_report: error: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
