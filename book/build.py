"""Build the course website: ``python book/build.py`` (``make book``) writes ``_build/html/``.

Design (book/pages/website.md, "The course website"):

* one page per notebook, from the notebook as stored (its outputs are what strict nbval checks; nothing is
  executed here), the soft-split animation playing (its GIF), equations rendered by a MathJax copy served with
  the site, search built in; the home page is the README's first screen (its introduction, the course map as a
  table whose links open the notebook pages, how a notebook is laid out, the two commands, how a learner meets an
  exercise), TEACHING.md is a page, and so is every ``book/pages/*.md`` (the README's long sections);
* links between files are written for the forge (relative paths from the file that holds them); here they are
  rewritten for the site, and a link to a repository file the site does not hold keeps its text and, when the site
  knows the repository (``BOOK_REPOSITORY``), points there. JupyterLab's heading anchors in the notebooks
  (``#Evidence:-the-controls``: the heading text, spaces turned into ``-``) become the site's anchors;
* every figure's text alternative is its cell's ``mystnb.image.alt`` metadata (MyST-NB writes it as the
  ``<img alt>``); a figure without one gets no ``alt`` attribute at all, never its file name (docutils' default),
  and the build lists such figures;
* solutions stay collapsed (MyST-NB's ``hide-input``: a "Show code cell source" toggle), and nbgrader's grading
  cells are left out (they print nothing and hold only ``check.require`` calls);
* an explorer cannot run on a static page: its output (a widget) is replaced by a still picture of its default
  view, drawn here by the same explorer code, with a text alternative of its own (``EXPLORER_ALT``), and a
  sentence saying what moving its controls would show and how to run it (``make lab``, or Binder when the site
  is built with ``BOOK_REPOSITORY``);
* code and printed outputs fit the text column (book/_static/vitcourse.css); nothing on a page downloads anything
  from another host (the browser suite checks every page).

The prepared sources go to ``_build/book_src/``; ``sphinx-build -c book`` turns them into ``_build/html/``.
"""

from __future__ import annotations

import argparse
import base64
import html
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

import nbformat

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "book" / "pages"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
IMAGE_TYPES = ("image/png", "image/gif", "image/jpeg", "image/svg+xml")
EXPLORER_CALL = re.compile(r"widgets\.(\w+_explorer)\(([^()]*)\)")
#: A markdown link or image: ``[text](target)`` with a target that may hold balanced parentheses (JupyterLab
#: anchors such as ``#2.-Attention-(10-min)`` do).
#: Code, where nothing is a link (fenced blocks and inline code spans), is matched first and left alone. A link's
#: text may run over several lines.
LINK = re.compile(
    r"(?P<code>^(?P<fence>```|~~~).*?^(?P=fence)[ \t]*$|(?P<ticks>`+)(?:(?!(?P=ticks)).)+?(?P=ticks))"
    r"|(?P<label>!?\[[^\]]*\])\((?P<target>(?:[^()\s]|\([^()\s]*\))+)\)",
    flags=re.M | re.S,
)
#: Where each repository file the site holds is on the site (paths relative to the site's root).
SITE_PATHS = {"README.md": "index.md", "TEACHING.md": "teaching.md", "data/mountains.png": "mountains.png"}

#: What moving each explorer's controls would show, for the still picture on the static page.
EXPLORER_TEXT = {
    "patch_explorer": "choosing another patch size from the drop-down redraws the patch grid on the picture and "
    "the token matrix, and the summary counts the tokens (only sizes that divide both sides are offered)",
    "soft_split_explorer": "moving the kernel, stride and padding sliders redraws the windows on the padded "
    "picture and the token matrix, counts the tokens, and says in a sentence when a setting is impossible",
    "position_explorer": "moving the sliders changes the table's number of positions N, its length d, the base, "
    "the pair of columns drawn as curves and the position whose similarity to every other is plotted",
    "attention_explorer": "changing the number of heads, the scale and the temperature redraws each head's "
    "attention weights over the picture's 15 patch tokens and their mean entropy",
    "t2t_stages_explorer": "moving the image size and each stage's kernel, stride and padding redraws the grid "
    "after every soft split and each stage's share of the module's multiply-adds",
    "model_attention_explorer": "moving the block and head sliders shows where the shipped ViT's class token "
    "looks on the picture in every block and head",
}

#: The text alternative of each explorer's still picture: what its default view shows.
EXPLORER_ALT = {
    "patch_explorer": "The patch explorer at its default patch size: the picture with its patch grid drawn on "
    "it, and the matrix of flattened patch tokens",
    "soft_split_explorer": "The soft-split explorer at its default kernel, stride and padding: the windows drawn "
    "on the padded picture, and the matrix of overlapping tokens",
    "position_explorer": "The position-embedding explorer at its default settings: the sinusoidal table, a pair "
    "of its columns as curves, and one position's similarity to every other position",
    "attention_explorer": "The attention explorer at its default settings: each head's attention weights between "
    "the picture's 15 patch tokens, query token by key token, and each head's mean entropy as a bar beside the "
    "entropy of uniform weights",
    "t2t_stages_explorer": "The Tokens-to-Token stages explorer at its default settings: the token grid after "
    "each soft split, side by side to scale, and each stage's share of the module's multiply-adds as a bar",
    "model_attention_explorer": "The trained-model explorer at its default block and head: the shipped ViT's "
    "prediction token's attention weight on each of the picture's patches, as the patch's colour over the "
    "picture's outlines",
}


def github_slug(anchor: str) -> str:
    """The site's anchor for a heading (MyST's default, GitHub's rule) from the heading text or JupyterLab's
    anchor of it. JupyterLab turns the spaces of the heading into ``-`` and keeps the rest; GitHub's rule turns
    spaces into ``-``, lowercases and drops every other character that is not a letter, digit, ``_`` or ``-``, so
    both forms of one heading give the same slug."""
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", unquote(anchor).lower().replace(" ", "-"))


def _rewrite_links(text: str, repo_dir: str, site_dir: str, repository: str = "") -> str:
    """Rewrite the links of a markdown text written at ``repo_dir`` (a folder of the repository, "" for its root)
    for the same text at ``site_dir`` on the site. Notebook anchors become the site's; a repository file the
    site does not hold becomes a link to the forge (``repository``) or plain text."""

    def one(match: re.Match) -> str:
        if match.group("code"):
            return match.group(0)
        label, target = match.group("label"), match.group("target")
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, mailto: ...: left alone
            return match.group(0)
        path, _, anchor = target.partition("#")
        if not path:  # an anchor on this page
            return f"{label}(#{github_slug(anchor)})" if anchor else match.group(0)
        repo_path = posixpath.normpath(posixpath.join(repo_dir, path))
        if repo_path.startswith("notebooks/") and repo_path.endswith(".ipynb"):
            site_path = repo_path
        elif repo_path.startswith("book/pages/"):
            site_path = "pages/" + repo_path.removeprefix("book/pages/")
        elif repo_path in SITE_PATHS:
            site_path = SITE_PATHS[repo_path]
        elif repository:
            return (
                f"{label}({repository.rstrip('/')}/blob/{os.environ.get('BOOK_BRANCH', 'main')}/{repo_path})"
            )
        else:
            return label[1:-1] if not label.startswith("!") else match.group(0)
        relative = posixpath.relpath(site_path, site_dir or ".")
        return f"{label}({relative}{'#' + github_slug(anchor) if anchor else ''})"

    return LINK.sub(one, text)


def _namespace() -> dict:
    """What the explorer calls in the notebooks refer to: the picture in use and the shipped model."""
    from vitcourse import data, train, widgets

    picture = data.load_mountains()
    return {
        "widgets": widgets,
        "picture": picture,
        "H": picture.shape[0],
        "W": picture.shape[1],
        "vit": train.load_shipped("vit_where").model,  # the name notebook 13 gives the shipped moon-task ViT
    }


def _still(call: str, namespace: dict) -> tuple[bytes, str]:
    """The PNG of an explorer's default view and its one-line summary, from the explorer itself."""
    explorer = eval(
        call, namespace
    )  # a call found in our own notebooks, e.g. widgets.patch_explorer(picture)
    png = explorer.image.value
    if not png:
        raise RuntimeError(f"{call} drew no picture: {explorer!r}")
    return png, repr(explorer)


def _explorer_output(name: str, call: str, namespace: dict) -> list:
    png, summary = _still(call, namespace)
    sentence = (
        f"*A still picture of the explorer's default view ({summary}). On this page it cannot move: in "
        f"JupyterLab (`make lab`) or on Binder, {EXPLORER_TEXT[name]}.*"
    )
    return [
        nbformat.v4.new_output("display_data", data={"text/markdown": sentence}),
        nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(png).decode()}),
    ]


def _tags(cell: nbformat.NotebookNode) -> list:
    return cell.setdefault("metadata", {}).setdefault("tags", [])


def image_alt(cell: nbformat.NotebookNode) -> str:
    """The text alternative a cell gives its figures (``mystnb.image.alt``), or ""."""
    image = cell.get("metadata", {}).get("mystnb", {}).get("image", {})
    return str(image.get("alt", "")).strip() if isinstance(image, dict) else ""


def _set_image_alt(cell: nbformat.NotebookNode, alt: str) -> None:
    mystnb = cell.setdefault("metadata", {}).setdefault("mystnb", {})
    mystnb.setdefault("image", {})["alt"] = alt


def figures_without_alt(nb: nbformat.NotebookNode) -> list[str]:
    """The code cells that show a figure and give it no text alternative: "cell N (first line of code)"."""
    missing = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or image_alt(cell):
            continue
        if any(kind in out.get("data", {}) for out in cell.get("outputs", []) for kind in IMAGE_TYPES):
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            missing.append(f"cell {index} ({first[:60]})")
    return missing


def prepare_notebook(nb: nbformat.NotebookNode, namespace: dict) -> tuple[nbformat.NotebookNode, int]:
    """The notebook as its page shows it; returns it and how many explorers were replaced by stills."""
    from vitcourse.classroom import has_hidden_tests, has_solution

    nb = nbformat.from_dict(nb)
    nb.metadata.pop("widgets", None)  # no widget state, so no widget scripts on the page
    stills = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _rewrite_links(cell.source, "notebooks", "notebooks")
            continue
        if cell.cell_type != "code":
            continue
        if has_hidden_tests(cell.source):
            _tags(cell).append("remove-cell")
        elif has_solution(cell.source):
            _tags(cell).append("hide-input")
        if any(WIDGET_VIEW in out.get("data", {}) for out in cell.outputs):
            match = EXPLORER_CALL.search(cell.source)
            if match is None or match.group(1) not in EXPLORER_TEXT:
                raise ValueError(f"a widget output whose explorer is unknown: {cell.source[:80]!r}")
            cell.outputs = _explorer_output(
                match.group(1), f"widgets.{match.group(1)}({match.group(2)})", namespace
            )
            # The still picture is the build's own, so is its text alternative (a cell's alt may describe the
            # explorer's controls, which the still does not show).
            _set_image_alt(cell, EXPLORER_ALT[match.group(1)])
            stills += 1
    return nb, stills


def readme_section(readme: str, title: str) -> str:
    """A ``## `` section of the README, heading included, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", readme, flags=re.M | re.S)
    if match is None:
        raise ValueError(f"README.md has no section '## {title}'")
    return f"## {title}\n{match.group(1).rstrip()}\n"


def page_title(path: Path) -> str:
    """A markdown page's first ``# `` heading."""
    match = re.search(r"^# (.+)$", path.read_text(), flags=re.M)
    if match is None:
        raise ValueError(f"{path} has no '# ' title")
    return match.group(1).strip()


def _home_page(notebooks: list[Path], pages: list[Path], repository: str) -> str:
    """The README's introduction, course map, two commands and exercise guide, and the site's contents."""
    readme = (ROOT / "README.md").read_text()
    intro = readme.split("\n## ", 1)[0] + (
        "\n\nRead the notebooks here as pages, then run them in JupyterLab (`make lab`, below) to move the "
        "explorers and try the exercises.\n"
    )
    titles = ("Course map", "How a notebook is laid out", "Two commands", "How a learner meets an exercise")
    body = _rewrite_links(
        "\n\n".join([intro, *(readme_section(readme, t) for t in titles)]), "", "", repository
    )
    course = "\n".join(f"notebooks/{p.stem}" for p in notebooks)
    about = "\n".join(f"pages/{p.stem}" for p in pages)
    return (
        f"{body}\n\n## Contents\n\n"
        f"```{{toctree}}\n:maxdepth: 1\n:caption: The course\n\n{course}\n```\n\n"
        f"```{{toctree}}\n:maxdepth: 1\n:caption: About the course\n\n{about}\n```\n\n"
        "```{toctree}\n:maxdepth: 1\n:caption: For teachers\n\nteaching\n```\n"
    )


def site_pages() -> list[Path]:
    """The README's long sections as pages, in the order ``book/pages/ORDER`` gives (one file name a line)."""
    order = [line.strip() for line in (PAGES / "ORDER").read_text().splitlines() if line.strip()]
    found = {p.name for p in PAGES.glob("*.md")}
    if set(order) != found:
        raise ValueError(f"book/pages/ORDER and the pages differ: {sorted(set(order) ^ found)}")
    return [PAGES / name for name in order]


def prepare(src: Path, repository: str = "") -> tuple[dict[str, int], dict[str, list[str]]]:
    """Write the site's sources into ``src`` (emptied first); returns the stills made per notebook and the
    figures without a text alternative per notebook."""
    if src.exists():
        shutil.rmtree(src)
    (src / "notebooks").mkdir(parents=True)
    (src / "pages").mkdir()
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    pages = site_pages()
    namespace = _namespace()
    stills, no_alt = {}, {}
    for path in notebooks:
        nb, stills[path.stem] = prepare_notebook(nbformat.read(path, as_version=4), namespace)
        no_alt[path.stem] = figures_without_alt(nb)
        nbformat.write(nb, src / "notebooks" / path.name)
    (src / "index.md").write_text(_home_page(notebooks, pages, repository))
    for page in pages:
        text = _rewrite_links(page.read_text(), "book/pages", "pages", repository)
        (src / "pages" / page.name).write_text(text)
    teaching = _rewrite_links((ROOT / "TEACHING.md").read_text(), "", "", repository)
    (src / "teaching.md").write_text(teaching)
    shutil.copy(ROOT / "data" / "mountains.png", src / "mountains.png")
    return stills, {name: cells for name, cells in no_alt.items() if cells}


IMG = re.compile(r"<img\b[^>]*>")
ATTRIBUTE = re.compile(r'\s(alt|src)="([^"]*)"')


def drop_file_name_alts(html_dir: Path) -> int:
    """Remove the ``alt`` that docutils writes when a figure has none (the image's own path): a file name is
    no text alternative. Returns how many were removed."""
    removed = 0

    def one(match: re.Match) -> str:
        nonlocal removed
        tag = match.group(0)
        attributes = dict(ATTRIBUTE.findall(tag))
        if "alt" in attributes and html.unescape(attributes["alt"]) == html.unescape(
            attributes.get("src", "")
        ):
            removed += 1
            return re.sub(r'\salt="[^"]*"', "", tag, count=1)
        return tag

    for path in html_dir.rglob("*.html"):
        text = path.read_text()
        new = IMG.sub(one, text)
        if new != text:
            path.write_text(new)
    return removed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build", help="build folder (default: _build)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    repository = os.environ.get("BOOK_REPOSITORY", "").strip()
    stills, no_alt = prepare(args.out / "book_src", repository)
    print("explorers shown as still pictures:", sum(stills.values()), stills)
    command = [
        sys.executable, "-m", "sphinx", "-b", "html", "-c", str(ROOT / "book"), "-W", "--keep-going", "-q",
        str(args.out / "book_src"), str(args.out / "html"),
    ]  # fmt: skip
    returncode = subprocess.run(command, check=False).returncode
    if returncode == 0:
        drop_file_name_alts(args.out / "html")
    for name, cells in no_alt.items():
        print(f"figures without a text alternative (mystnb.image.alt) in {name}: {'; '.join(cells)}")
    print(
        f"website built in {time.perf_counter() - start:.0f} s" if returncode == 0 else "website build failed"
    )
    return returncode


if __name__ == "__main__":
    sys.exit(main())
