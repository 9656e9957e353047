"""The README is a newcomer's first screen, and the website's pages hold the rest (book/pages/, issue 26).

The README names the two commands, stays about 1,500 words, and its course map lists every notebook once, in
order, with the time the notebook itself states; every link in the README and in the pages opens a file of the
repository (and a heading of it, where the link names one), so they work on the forge as on the website.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PAGES_DIR = ROOT / "book" / "pages"
ORDER = [line.strip() for line in (PAGES_DIR / "ORDER").read_text().splitlines() if line.strip()]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MARKDOWN = [ROOT / "README.md", *sorted(PAGES_DIR.glob("*.md"))]
LINK = re.compile(r"(?<!`)!?\[[^\]]*\]\(((?:[^()\s]|\([^()\s]*\))+)\)")
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", flags=re.M | re.S)


def _words(text: str) -> int:
    return len(re.sub(r"```.*?```", " ", text, flags=re.S).split())


def test_the_readme_names_the_two_commands_and_stays_a_first_screen() -> None:
    assert "make lab" in README and "make test" in README
    assert 1_200 <= _words(README) <= 1_800, f"the README has {_words(README)} words: about 1,500, please"


def _stated_minutes(notebook: Path) -> int | None:
    match = re.search(r"\*\*Time:\*\* about (\d+) minutes", notebook.with_suffix(".py").read_text())
    return int(match.group(1)) if match else None


def test_the_course_map_lists_every_notebook_with_its_stated_time() -> None:
    section = README.split("\n## Course map", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| [")]
    linked = [re.search(r"\]\((notebooks/[^)]+\.ipynb)\)", row).group(1) for row in rows]
    assert linked == [f"notebooks/{p.name}" for p in NOTEBOOKS], "the course map and notebooks/ differ"
    header = [cell.strip() for cell in section.split("\n| notebook", 1)[1].split("\n", 1)[0].split("|")]
    assert header[1:4] == ["what you learn", "time", "module"], header
    wrong = []
    for row, notebook in zip(rows, NOTEBOOKS, strict=True):
        stated = _stated_minutes(notebook)
        time = [cell.strip() for cell in row.split(" | ")][2]
        if stated is None or time != f"{stated} min":
            wrong.append(f"{notebook.name}: the map says {time!r}, the notebook states {stated} minutes")
    assert not wrong, "\n".join(wrong)


def test_the_readme_links_every_page_of_the_website() -> None:
    assert sorted(ORDER) == sorted(p.name for p in PAGES_DIR.glob("*.md"))
    missing = [name for name in ORDER if f"](book/pages/{name})" not in README]
    assert not missing, f"pages the README does not link: {missing}"


def _slugs(path: Path) -> set[str]:
    """GitHub's anchors for a markdown file's headings (MyST's default on the website is the same rule)."""
    text = CODE.sub("", path.read_text())
    return {
        re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        for title in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    }


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_opens_a_file_and_heading_of_the_repository(path: Path) -> None:
    broken = []
    for target in LINK.findall(CODE.sub("", path.read_text())):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        file, _, anchor = target.partition("#")
        resolved = ROOT / posixpath.normpath(
            posixpath.join(str(path.parent.relative_to(ROOT)), file or path.name)
        )
        if not resolved.exists():
            broken.append(f"{target} (no file {resolved.relative_to(ROOT)})")
        elif anchor and resolved.suffix == ".md" and anchor not in _slugs(resolved):
            broken.append(f"{target} (no heading #{anchor})")
    assert not broken, f"{path.name}: {broken}"
