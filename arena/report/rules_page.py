"""The rules as a page of the report, so that a citation on a page ("RULES.md §5.4") is a link.

A referee's reasons name the section of the rules they apply ("a marriage needs the king and queen
of hearts in hand (RULES.md §5.4)"): an author whose bot forfeited reads the rule one click away.
The rules document is the repository's own, ``docs/RULES.md`` (the docs site shows it too); a
report and a publish render it as ``rules.html`` beside ``index.html``, with an anchor per numbered
section (``#s5.4``), and a replay page links its citations there.

An installation without the repository's ``docs/`` (a wheel) has no rules page: citations then
stay text, never a link to nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from arena import __version__

RULES_PAGE = "rules.html"
# "RULES.md §7.1", "RULES.md §11 row 23": the section is the link's target, the rest stays text.
CITATION = re.compile(r"RULES\.md §(\d+(?:\.\d+)*)")
_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?\s")

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("arena.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined)


def rules_source() -> Path | None:
    """The repository's rules document beside the installed ``arena`` package, if it is there."""
    path = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
    return path if path.is_file() else None


def anchor(section: str) -> str:
    """The id of a numbered section on the rules page: ``5.4`` -> ``s5.4``."""
    return f"s{section}"


def render_rules(text: str) -> str:
    """The rules document's Markdown as HTML, every numbered heading (``## 7.`` or ``### 7.1``)
    given the id ``anchor`` makes of its number. Raw HTML in the document stays text (the
    document is ours, but a page is no place to trust a Markdown file)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            number = _NUMBERED.match(tokens[i + 1].content)
            if number:
                token.attrSet("id", anchor(number.group(1)))
    return str(md.renderer.render(tokens, md.options, {}))


def write_rules_page(out: Path) -> str | None:
    """Write ``out/rules.html`` from the rules document; its name relative to ``out``, or None
    if this installation has no rules document (then no page links to one)."""
    source = rules_source()
    if source is None:
        return None
    body = render_rules(source.read_text(encoding="utf-8"))
    page = _ENV.get_template("rules.html.j2").render(version=__version__, body=Markup(body))
    out.mkdir(parents=True, exist_ok=True)
    partial = out / f".{RULES_PAGE}.partial"
    partial.write_text(page, encoding="utf-8")
    partial.replace(out / RULES_PAGE)
    return RULES_PAGE


def link_citations(text: str, rules: str | None) -> Markup:
    """``text`` escaped, each "RULES.md §N" in it a link to its section on the page ``rules``
    (a relative address); only escaped when there is no rules page."""
    escaped = str(Markup.escape(text))
    if rules is None:
        return Markup(escaped)
    href = str(Markup.escape(rules))
    return Markup(CITATION.sub(
        lambda m: f'<a href="{href}#{anchor(m.group(1))}">{m.group(0)}</a>', escaped))
