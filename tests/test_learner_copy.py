"""What a learner sees before trying an exercise (README, "How a learner meets an exercise").

JupyterLab (``make lab``) and a browse of the repository show the stored notebooks. Before a try, they must
show no answer: solutions and grading cells are collapsed, a grading cell holds only ``check.require`` calls,
and a check cell's stored output is only the ✓ line, which names no value (the checkers' own tests check that
no ✓ message and no hint holds the value).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from vitcourse.classroom import has_hidden_tests, has_solution

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _cells(path: Path) -> list:
    return nbformat.read(path, as_version=4).cells


def _grade_id(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_and_grading_cells_are_collapsed(path: Path) -> None:
    for index, cell in enumerate(_cells(path)):
        if cell.cell_type != "code" or not (has_solution(cell.source) or has_hidden_tests(cell.source)):
            continue
        hidden = cell.metadata.get("jupyter", {}).get("source_hidden", False)
        assert hidden is True, f"{path.name}, cell {index} ({_grade_id(cell)}): not collapsed in JupyterLab"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_grading_cells_hold_no_answer(path: Path) -> None:
    for index, cell in enumerate(_cells(path)):
        if cell.cell_type != "code" or not has_hidden_tests(cell.source):
            continue
        block = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
        for line in filter(None, (line.strip() for line in block.splitlines())):
            assert re.fullmatch(r"check\.require\(check\.\w+(, [A-Za-z_]\w*)*\)", line), (
                f"{path.name}, cell {index}: a hidden test may only call check.require with names, got {line!r}"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_check_outputs_say_only_right(path: Path) -> None:
    checks = [c for c in _cells(path) if c.cell_type == "code" and _grade_id(c).endswith("-check")]
    for cell in checks:
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        lines = [line for line in text.splitlines() if line.strip()]
        assert lines, f"{path.name}, {_grade_id(cell)}: the check cell has no stored output"
        for line in lines:
            assert line.startswith("✓") and re.search(r": (right|all \d+ test cases pass)\.$", line), (
                f"{path.name}, {_grade_id(cell)}: a stored check output must be a bare ✓ line, got {line!r}"
            )


def test_the_test_sees_the_exercises() -> None:
    """The tests above cannot pass vacuously: the course has collapsed solutions and check cells."""
    check_cells = [c for p in NOTEBOOKS for c in _cells(p) if _grade_id(c).endswith("-check")]
    assert len(check_cells) >= 25
