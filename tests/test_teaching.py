"""TEACHING.md names the exercises as they are: every checker it names exists, and every checker is named."""

from __future__ import annotations

import re
from pathlib import Path

from vitcourse import check

TEACHING = (Path(__file__).resolve().parent.parent / "TEACHING.md").read_text()
CHECKERS = {name for name in check.__all__ if name not in ("Verdict", "require")}


def test_every_checker_teaching_names_exists() -> None:
    named = set(re.findall(r"`([a-z][a-z0-9_]*)`", TEACHING))
    # Backticked words that look like checker names: those ending as the course's checkers do.
    suffixes = ("_function", "_count", "_answer", "_choice", "_prediction", "_params", "_side", "_entry")
    stale = {n for n in named if n.endswith(suffixes) and not n.startswith("my_") and n not in CHECKERS}
    known_other = {"count_tokens", "parameter_count", "count_parameters", "row_column_score"}
    assert not stale - known_other, (
        f"TEACHING.md names checkers that do not exist: {sorted(stale - known_other)}"
    )


def test_every_checker_is_in_teaching() -> None:
    missing = {name for name in CHECKERS if f"`{name}`" not in TEACHING}
    assert not missing, f"TEACHING.md's concept matrix does not name these checkers: {sorted(missing)}"


def test_points_per_notebook_are_the_notebooks_own() -> None:
    """The points TEACHING.md lists are the sum of each notebook's graded cells' points (nbgrader metadata)."""
    import nbformat

    listed = dict(re.findall(r"\b(\d\d): (\d+)", TEACHING.split("Points per notebook:")[1].split("\n\n")[0]))
    notebooks = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for path in notebooks:
        cells = nbformat.read(path, as_version=4).cells
        points = sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in cells)
        assert path.name[:2] in listed or not points, f"{path.name}: {points} points, TEACHING.md lists none"
        if points:
            assert int(listed.get(path.name[:2], -1)) == points, (
                f"{path.name}: {points} points, TEACHING.md says {listed.get(path.name[:2])}"
            )
