"""Build the course website: ``python book/build.py`` (``make book``) writes ``_build/html/``.

Design (README, "The course website"):

* one page per notebook, from the notebook as stored (its outputs are what strict nbval checks; nothing is
  executed here), the soft-split animation playing (its GIF), equations rendered by a MathJax copy served with
  the site, search built in; the home page is the course map (from README.md), TEACHING.md is a page;
* solutions stay collapsed (MyST-NB's ``hide-input``: a "Show code cell source" toggle), and nbgrader's grading
  cells are left out (they print nothing and hold only ``check.require`` calls);
* an explorer cannot run on a static page: its output (a widget) is replaced by a still picture of its default
  view, drawn here by the same explorer code, and a sentence saying what moving its controls would show and how
  to run it (``make lab``, or Binder when the site is built with ``BOOK_REPOSITORY``);
* nothing on a page downloads anything from another host (the browser suite checks every page).

The prepared sources go to ``_build/book_src/``; ``sphinx-build -c book`` turns them into ``_build/html/``.
"""

from __future__ import annotations

import argparse
import base64
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
EXPLORER_CALL = re.compile(r"widgets\.(\w+_explorer)\(([^()]*)\)")

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


def _namespace() -> dict:
    """What the explorer calls in the notebooks refer to: the picture in use and the shipped model."""
    from vitcourse import data, train, widgets

    picture = data.load_mountains()
    return {
        "widgets": widgets,
        "picture": picture,
        "H": picture.shape[0],
        "W": picture.shape[1],
        "trained": train.load_shipped("vit_where").model,
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


def prepare_notebook(nb: nbformat.NotebookNode, namespace: dict) -> tuple[nbformat.NotebookNode, int]:
    """The notebook as its page shows it; returns it and how many explorers were replaced by stills."""
    from vitcourse.classroom import has_hidden_tests, has_solution

    nb = nbformat.from_dict(nb)
    nb.metadata.pop("widgets", None)  # no widget state, so no widget scripts on the page
    stills = 0
    for cell in nb.cells:
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
            stills += 1
    return nb, stills


def _home_page(notebooks: list[Path]) -> str:
    """The course map from README.md, with links to the notebook pages, and the table of contents."""
    readme = (ROOT / "README.md").read_text()
    intro = readme.split("\n## ", 1)[0].replace("(data/mountains.png)", "(mountains.png)")
    course_map = "## " + readme.split("\n## Course map", 1)[1].split("\n## ", 1)[0].lstrip()
    course_map = (
        "## Course map" + course_map[len("## ") :]
        if not course_map.startswith("## Course map")
        else course_map
    )
    course_map = course_map.replace("(TEACHING.md)", "(teaching.md)")
    toc = "\n".join(f"notebooks/{p.stem}" for p in notebooks)
    return (
        f"{intro}\n\nRead the notebooks here as pages, then run them in JupyterLab (`make lab`, see the README) "
        "to move the explorers and try the exercises.\n\n"
        f"{course_map}\n\n```{{toctree}}\n:maxdepth: 1\n:caption: The course\n\n{toc}\n```\n\n"
        "```{toctree}\n:maxdepth: 1\n:caption: For teachers\n\nteaching\n```\n"
    )


def prepare(src: Path) -> dict[str, int]:
    """Write the site's sources into ``src`` (emptied first); returns the stills made per notebook."""
    if src.exists():
        shutil.rmtree(src)
    (src / "notebooks").mkdir(parents=True)
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    namespace = _namespace()
    stills = {}
    for path in notebooks:
        nb, stills[path.stem] = prepare_notebook(nbformat.read(path, as_version=4), namespace)
        nbformat.write(nb, src / "notebooks" / path.name)
    (src / "index.md").write_text(_home_page(notebooks))
    teaching = (ROOT / "TEACHING.md").read_text().replace("](README.md", "](index.md")
    (src / "teaching.md").write_text(teaching)
    shutil.copy(ROOT / "data" / "mountains.png", src / "mountains.png")
    return stills


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build", help="build folder (default: _build)")
    args = parser.parse_args(argv)
    stills = prepare(args.out / "book_src")
    print("explorers shown as still pictures:", sum(stills.values()), stills)
    command = [
        sys.executable, "-m", "sphinx", "-b", "html", "-c", str(ROOT / "book"), "-W", "--keep-going", "-q",
        str(args.out / "book_src"), str(args.out / "html"),
    ]  # fmt: skip
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
