"""Each notebook is paired with a py:percent text source (jupytext.toml); the two must say the same thing.

The .py file is what people edit and review; the .ipynb holds the same cells plus the outputs that strict
nbval compares. `make sync` copies a source into its notebook, `make execute` refreshes the outputs.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import jupytext
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PAIRS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def test_every_notebook_has_exactly_one_text_source() -> None:
    assert PAIRS, "no notebooks found"
    notebooks = {p.stem for p in PAIRS}
    sources = {p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py")}
    assert notebooks == sources, f"unpaired: notebooks {notebooks - sources}, sources {sources - notebooks}"


@pytest.mark.parametrize("notebook", PAIRS, ids=lambda p: p.stem)
def test_pair_agrees(notebook: Path) -> None:
    source = notebook.with_suffix(".py")
    # Both sides go through the same writer, so any difference is a real difference in cells or metadata.
    from_notebook = jupytext.writes(jupytext.read(notebook), fmt="py:percent")
    from_source = jupytext.writes(jupytext.read(source), fmt="py:percent")
    diff = "".join(
        difflib.unified_diff(
            from_source.splitlines(True), from_notebook.splitlines(True), str(source.name), str(notebook.name)
        )
    )
    assert not diff, (
        f"{notebook.name} and {source.name} disagree (run `make sync`, then `make execute`):\n{diff}"
    )
    # The committed text is exactly what jupytext writes, so a save in JupyterLab changes nothing.
    assert source.read_text() == from_source, f"{source.name} is not in jupytext's form; run `make format`"


@pytest.mark.parametrize("notebook", PAIRS, ids=lambda p: p.stem)
def test_notebook_is_valid_nbformat(notebook: Path) -> None:
    """nbformat 4.5 with an id on every cell (jupytext gives new cells ids; 4.4 would call them invalid)."""
    nb = nbformat.read(notebook, as_version=4)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5), (
        f"{notebook.name} is nbformat {nb.nbformat}.{nb.nbformat_minor}"
    )
    nbformat.validate(nb)


@pytest.mark.parametrize("notebook", PAIRS, ids=lambda p: p.stem)
def test_no_execution_timestamps(notebook: Path) -> None:
    cells = json.loads(notebook.read_text())["cells"]
    stamped = [i for i, cell in enumerate(cells) if "execution" in cell.get("metadata", {})]
    assert not stamped, (
        f"{notebook.name}: cells {stamped} carry execution timestamps (make execute drops them)"
    )


def test_a_disagreeing_pair_is_caught(tmp_path: Path) -> None:
    """The comparison above can fail: change one word of a source and the two sides differ."""
    notebook = PAIRS[0]
    text = (
        notebook.with_suffix(".py")
        .read_text()
        .replace("# %% [markdown]\n# ", "# %% [markdown]\n# Changed ", 1)
    )
    changed = tmp_path / notebook.with_suffix(".py").name
    changed.write_text(text)
    assert jupytext.writes(jupytext.read(changed), fmt="py:percent") != jupytext.writes(
        jupytext.read(notebook), fmt="py:percent"
    )
