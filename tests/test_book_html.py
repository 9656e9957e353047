"""The course website as a visitor reads it, checked on the built HTML with the standard library's html.parser
(no browser): no page shows a markdown table as raw text, the home page's course map is a table whose links open
every notebook's page, every internal link and anchor resolves, every page has its headings, and every image
has a text alternative that is not a file name (book/pages/website.md, "Tested").

The site is `make book`'s `_build/html/` when it is newer than everything it is built from (`make test` builds it
just before the unit tests); otherwise this module builds it into a temporary folder first (about 40 s on the
2-core machine of book/pages/measurements.md). The browser suite (tests/browser/test_book.py) checks the same
pages in Chromium, and that their lines fit.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "_build" / "html"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PAGE_NAMES = [
    line.strip() for line in (ROOT / "book" / "pages" / "ORDER").read_text().splitlines() if line.strip()
]
PAGES = (
    ["index.html", "teaching.html"]
    + [f"pages/{name.removesuffix('.md')}.html" for name in PAGE_NAMES]
    + [f"notebooks/{p.stem}.html" for p in NOTEBOOKS]
)
#: A markdown table that did not render: a separator row (|---|, |:--|, or |—| once typeset) or a line of
#: |-separated cells.
RAW_TABLE = re.compile(r"\|\s*:?(?:-{3,}|[—–]+):?\s*\||^\s*\|.*\|\s*$", flags=re.M)
#: What a file name looks like as alt text: one word ending in an image suffix, a path, or a hash.
FILE_NAME = re.compile(r"^\S+\.(png|gif|jpe?g|svg|webp)$|_images/|^[0-9a-f]{32,}", flags=re.I)
SKIPPED_TEXT = {"pre", "code", "script", "style", "mjx-container", "svg", "math"}


def _inputs() -> list[Path]:
    """Everything the site is built from."""
    files = [ROOT / "README.md", ROOT / "TEACHING.md", ROOT / "data" / "mountains.png", *NOTEBOOKS]
    files += [p for p in (ROOT / "book").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += list(
        (ROOT / "vitcourse").rglob("*.py")
    )  # the explorers' still pictures are drawn by the package
    return files


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = SITE / "index.html"
    if index.exists() and index.stat().st_mtime >= max(p.stat().st_mtime for p in _inputs()):
        return SITE
    out = tmp_path_factory.mktemp("book")
    result = subprocess.run(
        [sys.executable, str(ROOT / "book" / "build.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, (
        f"the website does not build:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    )
    return out / "html"


class Page(HTMLParser):
    """What a visitor reads in a page's article (``<article class="bd-article">``), and every link and id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []  # every href of the page (navigation included)
        self.text: list[str] = []  # the article's text outside code, math and scripts
        self.headings: list[tuple[str, str]] = []  # (h1..h6, text) in the article
        self.images: list[dict[str, str | None]] = []  # the article's <img> attributes
        self.tables: list[list[list[tuple[str, list[str]]]]] = []  # table -> rows -> cells (text, hrefs)
        self._article = 0  # depth inside the article
        self._skip = 0  # depth inside code, math, scripts
        self._heading: list[str] | None = None
        self._cell: tuple[list[str], list[str]] | None = None
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag in {"img", "br", "hr", "meta", "link", "input", "source"}:  # void elements
            if tag == "img" and self._article:
                self.images.append(attributes)
            return
        self._stack.append(tag)
        if tag == "article" and "bd-article" in (attributes.get("class") or ""):
            self._article = len(self._stack)
        if not self._article:
            return
        classes = (attributes.get("class") or "").split()
        if self._skip or tag in SKIPPED_TEXT or "math" in classes:
            self._skip = self._skip or len(self._stack)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = [tag]
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in {"td", "th"}:
            self._cell = ([], [])
        if tag == "a" and self._cell is not None and attributes.get("href"):
            self._cell[1].append(attributes["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag not in self._stack:
            return
        while self._stack:
            depth = len(self._stack)
            if self._skip == depth:
                self._skip = 0
            if self._article == depth:
                self._article = 0
            top = self._stack.pop()
            if top == tag:
                break
        if self._heading is not None and tag == self._heading[0]:
            self.headings.append((tag, "".join(self._heading[1:]).replace("#", "").strip()))
            self._heading = None
        elif tag in {"td", "th"} and self._cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append(("".join(self._cell[0]).strip(), self._cell[1]))
            self._cell = None
        if tag in {"p", "li", "div", "section", "h1", "h2", "h3", "h4", "td", "th", "tr"}:
            self.text.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._article:
            return
        if self._heading is not None:
            self._heading.append(data)
        if self._cell is not None:
            self._cell[0].append(data)
        if not self._skip:
            self.text.append(data)


def _read(site: Path, path: str) -> Page:
    page = Page()
    page.feed((site / path).read_text())
    page.close()
    return page


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, Page]:
    missing = [path for path in PAGES if not (site / path).exists()]
    assert not missing, f"pages the website should have and does not: {missing}"
    return {path: _read(site, path) for path in PAGES}


def _target(path: str, href: str) -> tuple[str, str] | None:
    """The page and anchor an internal link opens, relative to the site's root; None for outside links."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    page = (
        posixpath.normpath(posixpath.join(posixpath.dirname(path), unquote(parts.path)))
        if parts.path
        else path
    )
    return page, unquote(parts.fragment)


@pytest.mark.parametrize("path", PAGES)
def test_no_markdown_table_shows_as_text(pages: dict[str, Page], path: str) -> None:
    text = "".join(pages[path].text)
    raw = [line.strip()[:100] for line in text.splitlines() if RAW_TABLE.search(line)]
    assert not raw, f"{path}: a markdown table shows as raw text: {raw[:5]}"
    headings = [text for _, text in pages[path].headings if "|" in text]
    assert not headings, f"{path}: a heading holds table pipes: {headings}"


def test_the_home_page_course_map_is_a_table_whose_links_open_every_notebook(
    site: Path, pages: dict[str, Page]
) -> None:
    home = pages["index.html"]
    assert ("h2", "Course map") in home.headings, home.headings
    maps = [t for t in home.tables if t and [cell for cell, _ in t[0]][:2] == ["notebook", "what you learn"]]
    assert len(maps) == 1, f"the home page has no course-map table: {[t[:1] for t in home.tables]}"
    rows = maps[0][1:]
    assert len(rows) == len(NOTEBOOKS), f"{len(rows)} rows for {len(NOTEBOOKS)} notebooks"
    opened = []
    for row in rows:
        hrefs = row[0][1]
        assert len(hrefs) == 1, f"the row {row[0][0]!r} has {len(hrefs)} links in its first cell"
        target, _ = _target("index.html", hrefs[0])
        assert (site / target).is_file(), f"{row[0][0]!r} links to {hrefs[0]}, which does not exist"
        opened.append(target)
    assert opened == [f"notebooks/{p.stem}.html" for p in NOTEBOOKS]
    for target, notebook in zip(opened, NOTEBOOKS, strict=True):
        h1 = [text for tag, text in pages[target].headings if tag == "h1"]
        assert h1 and h1[0].startswith(notebook.name[:2]), f"{target} opens a page titled {h1}"


@pytest.mark.parametrize("path", PAGES)
def test_every_internal_link_and_anchor_resolves(site: Path, pages: dict[str, Page], path: str) -> None:
    broken = []
    for href in pages[path].links:
        target = _target(path, href)
        if target is None:
            continue
        page, anchor = target
        if not (site / page).is_file():
            broken.append(f"{href} (no page {page})")
        elif anchor and page.endswith(".html"):
            ids = pages[page].ids if page in pages else _read(site, page).ids
            if anchor not in ids:
                broken.append(f"{href} (no anchor #{anchor} in {page})")
    assert not broken, f"{path}: broken links: {sorted(set(broken))[:10]}"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_its_headings(pages: dict[str, Page], path: str) -> None:
    headings = pages[path].headings
    h1 = [text for tag, text in headings if tag == "h1"]
    assert len(h1) == 1 and h1[0], f"{path}: one title (h1) expected, found {h1}"
    sections = [text for tag, text in headings if tag == "h2"]
    if path.startswith("notebooks/") or path == "index.html":
        assert len(sections) >= 2, f"{path}: a page without its sections (h2): {sections}"
    assert all(text for _, text in headings), f"{path}: an empty heading"


@pytest.mark.parametrize("path", PAGES)
def test_every_image_has_a_text_alternative_that_is_not_a_file_name(
    pages: dict[str, Page], path: str
) -> None:
    images = pages[path].images
    named = [image["src"] for image in images if FILE_NAME.search(image.get("alt") or "")]
    assert not named, f"{path}: images whose alt text is a file name: {named}"
    missing = [image["src"] for image in images if not (image.get("alt") or "").strip()]
    assert not missing, (
        f"{path}: {len(missing)} of {len(images)} images have no text alternative; give each figure cell "
        f'mystnb={{"image": {{"alt": "..."}}}} (book/pages/setup.md, "Editing a notebook"): {missing}'
    )
    short = [image["alt"] for image in images if len((image.get("alt") or "").split()) < 3]
    assert not short, f"{path}: a text alternative says what the figure shows, in words: {short}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_cell_gives_its_text_alternative(path: Path) -> None:
    """The source of the website's alt texts: each code cell that shows a figure carries mystnb.image.alt."""
    sys.path.insert(0, str(ROOT / "book"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "book"))
    missing = build.figures_without_alt(nbformat.read(path, as_version=4))
    assert not missing, f"{path.name}: figure cells without mystnb.image.alt: {missing}"
