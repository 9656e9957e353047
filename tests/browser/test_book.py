"""The course website (`make book`, _build/html/): every page loads in headless Chromium with no console error,
no failed or outside request and no broken image; the animation, the equations, the search, the collapsed
solutions and the explorers' still pictures are there. A screenshot of each page goes to screenshots/book/.

The site is served from _build/html/ by a local HTTP server; every request to another host is aborted and
counted as a failure (the site must download nothing). `make test` builds the site before this suite runs.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator

import pytest

from .conftest import ROOT, SCREENSHOTS

SITE = ROOT / "_build" / "html"
PAGES = ["index.html", "teaching.html"] + [
    f"notebooks/{p.stem}.html" for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    if not (SITE / "index.html").exists():
        pytest.fail("the website is not built: run `make book` first (make test does)")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def visit(browser, site: str):
    """Open a page of the site; returns the page and the problems seen while it loaded."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    problems: list[str] = []

    def only_local(route) -> None:
        if route.request.url.startswith((site, "data:", "blob:")):
            route.continue_()
        else:
            problems.append(f"outside request: {route.request.url}")
            route.abort()

    context.route("**/*", only_local)

    def open_page(path: str):
        page = context.new_page()
        page.on(
            "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
        )
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on(
            "response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None
        )
        page.goto(f"{site}/{path}", wait_until="load")
        page.wait_for_load_state("networkidle")
        return page, problems

    try:
        yield open_page
    finally:
        context.close()


def _broken_images(page) -> list[str]:
    return page.evaluate(
        "() => Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
    )


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_cleanly(visit, path: str) -> None:
    page, problems = visit(path)
    assert page.title(), f"{path}: no title"
    broken = _broken_images(page)
    (SCREENSHOTS / "book").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "book" / (path.replace("/", "_").removesuffix(".html") + ".png")))
    assert not broken, f"{path}: broken images {broken}"
    assert not problems, f"{path}: {problems}"
    if path.startswith("notebooks/0") and not path.startswith("notebooks/00"):
        assert page.locator("img").count() >= 2, f"{path}: a course page without its figures"


def test_the_home_page_is_the_course_map(visit) -> None:
    page, problems = visit("index.html")
    text = page.inner_text("article")
    assert "Course map" in text and "Tokens-to-Token" in text
    links = page.eval_on_selector_all(
        "article a[href*='notebooks/']", "as => as.map(a => a.getAttribute('href'))"
    )
    assert len({link.split("#")[0] for link in links}) >= 8, links
    assert not problems


def test_the_soft_split_animation_and_the_equations_render(visit) -> None:
    page, problems = visit("notebooks/02_soft_split.html")
    gifs = page.eval_on_selector_all("img[src$='.gif']", "is => is.map(i => i.naturalWidth)")
    assert gifs and min(gifs) > 0, "the soft-split animation is missing"
    page, problems = visit("notebooks/03_position_embeddings.html")
    page.wait_for_selector("mjx-container", timeout=30_000)  # MathJax, served with the site, typeset the page
    assert page.locator("mjx-container").count() > 5
    assert not problems


def test_solutions_are_collapsed_and_grading_cells_left_out(visit) -> None:
    page, problems = visit("notebooks/01_patch_tokenization.html")
    hidden = page.locator("details.hide.above-input")
    assert hidden.count() >= 3
    assert all(not hidden.nth(i).evaluate("d => d.open") for i in range(hidden.count()))
    assert "BEGIN HIDDEN TESTS" not in page.content()
    assert not problems


def test_explorers_are_still_pictures_with_a_sentence(visit) -> None:
    page, problems = visit("notebooks/01_patch_tokenization.html")
    text = page.inner_text("article")
    assert "still picture of the explorer" in text and "default view" in text and "make lab" in text
    assert not problems


def test_search_finds_a_notebook(visit) -> None:
    page, problems = visit("search.html?q=soft+split")
    page.wait_for_selector("#search-results li", timeout=30_000)
    assert page.locator("#search-results li").count() >= 1
    assert not problems
