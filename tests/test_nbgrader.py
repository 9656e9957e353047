"""nbgrader end to end, in a temporary course directory.

`python -m vitcourse.classroom --nbgrader-course` lays the directory out (one assignment per notebook, and the
nbgrader_config.py whose executor timeouts and code stub every step below uses); then:

- `nbgrader generate_assignment` accepts every notebook, and its student copies have the same cells and sources
  as `make student`'s;
- two students hand in: "solutions" the full notebooks, "untouched" the released copies as they are;
- `nbgrader autograde` gives the solutions full marks with no error in any cell, and the untouched copies 0 on
  every exercise, with errors only in the exercise cells (the stubs) and their grading cells;
- `nbgrader generate_feedback` writes a page per student and notebook.

Autograding runs every notebook twice; this module is the slowest part of the unit tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from vitcourse import classroom

pytest.importorskip("nbgrader", reason="nbgrader is in the dev extra: pip install -e '.[dev]'")
from nbgrader.api import Gradebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STUDENTS = ("solutions", "untouched")


def _nbgrader(course: Path, *args: str, timeout: int) -> str:
    """Run one nbgrader command in ``course``; fail with the end of its log if it fails or logs an error."""
    env = dict(os.environ)
    env["PATH"] = (
        f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # nbgrader calls `alembic`
    )
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # this vitcourse
    env["JUPYTER_CONFIG_DIR"] = str(course / ".jupyter")  # no personal nbgrader settings
    # One thread per kernel: the test is about which cells pass and fail, and on a busy machine torch's
    # OpenMP threads, oversubscribed, make notebook 07's training cells many times slower.
    env.setdefault("OMP_NUM_THREADS", "1")
    command = ["nbgrader", *args]
    try:
        result = subprocess.run(
            [sys.executable, "-m", *command],
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as err:
        log = (err.stdout or b"").decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        pytest.fail(f"`{' '.join(command)}` ran past {timeout} s; its log ends:\n{log[-4000:]}")
    log = result.stdout + result.stderr
    errors = [line for line in log.splitlines() if "| ERROR]" in line]
    assert result.returncode == 0 and not errors, (
        f"`{' '.join(command)}` failed (exit {result.returncode}); errors: {errors}; its log ends:\n{log[-4000:]}"
    )
    return log


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory after generate_assignment of every notebook."""
    course = tmp_path_factory.mktemp("course")
    assert classroom.main(["--nbgrader-course", str(course), *map(str, NOTEBOOKS)]) == 0
    _nbgrader(course, "generate_assignment", "*", timeout=900)
    return course


@pytest.fixture(scope="module")
def autograded(course: Path) -> Path:
    """The course after both students handed in every notebook and autograde ran."""
    for path in NOTEBOOKS:
        handed_in = {
            "solutions": course / "source" / path.stem / path.name,
            "untouched": course / "release" / path.stem / path.name,
        }
        for student in STUDENTS:
            target = course / "submitted" / student / path.stem
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(handed_in[student], target / path.name)
    _nbgrader(course, "autograde", "*", timeout=3600)
    return course


@pytest.fixture(scope="module")
def feedback(autograded: Path) -> Path:
    _nbgrader(autograded, "generate_feedback", "*", timeout=900)
    return autograded


def _grades(course: Path, path: Path, student: str) -> tuple[float, float, dict[str, tuple[float, float]]]:
    """(score, max score, {grading cell: (score, max score)}) of one autograded notebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        submitted = gb.find_submission_notebook(path.stem, path.stem, student)
        cells = {g.name: (g.score, g.max_score) for g in submitted.grades}
        return submitted.score, submitted.max_score, cells


def _points(path: Path) -> dict[str, float]:
    """{grading cell: points} from the notebook's own cell metadata."""
    cells = nbformat.read(path, 4).cells
    return {
        c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points
        for c in cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


def _errors(path: Path) -> list[tuple[int, str, str]]:
    """(cell index, grade id or "", exception name) for every cell of a notebook that shows an error."""
    found = []
    for index, cell in enumerate(nbformat.read(path, 4).cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                found.append((index, cell.metadata.get("nbgrader", {}).get("grade_id", ""), output.ename))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_release_is_the_make_student_copy(course: Path, path: Path) -> None:
    released = nbformat.read(course / "release" / path.stem / path.name, 4)
    student = classroom.student_notebook(nbformat.read(path, 4), path.name)
    assert len(released.cells) == len(student.cells), path.name
    for index, (r_cell, s_cell) in enumerate(zip(released.cells, student.cells, strict=True)):
        assert r_cell.cell_type == s_cell.cell_type, f"{path.name} cell {index}"
        assert r_cell.source == s_cell.source, f"{path.name} cell {index}: nbgrader and make student differ"
        if r_cell.cell_type == "code":
            assert r_cell.outputs == [] and r_cell.execution_count is None, f"{path.name} cell {index}"
            assert "source_hidden" not in r_cell.metadata.get("jupyter", {}), f"{path.name} cell {index}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_get_full_marks(autograded: Path, path: Path) -> None:
    score, max_score, cells = _grades(autograded, path, "solutions")
    points = _points(path)
    assert {name: top for name, (_, top) in cells.items()} == points  # every grading cell counted, as marked
    assert max_score == sum(points.values())
    assert score == max_score, f"{path.name}: {score} of {max_score}; cells below full marks: " + str(
        {name: got for name, got in cells.items() if got[0] != got[1]}
    )
    errors = _errors(autograded / "autograded" / "solutions" / path.stem / path.name)
    assert errors == [], f"{path.name}: cells with an error (index, grade id, exception): {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_untouched_copies_score_zero_and_fail_only_in_exercises(autograded: Path, path: Path) -> None:
    score, max_score, cells = _grades(autograded, path, "untouched")
    assert max_score == sum(_points(path).values())
    assert score == 0, f"{path.name}: untouched copy scored {score}: " + str(
        {name: got for name, got in cells.items() if got[0]}
    )
    graded = autograded / "autograded" / "untouched" / path.stem / path.name
    by_cell = {index: (grade_id, ename) for index, grade_id, ename in _errors(graded)}
    for index, cell in enumerate(nbformat.read(graded, 4).cells):
        meta = cell.metadata.get("nbgrader", {})
        where = f"{path.name} cell {index} ({meta.get('grade_id', 'no grade id')})"
        if meta.get("grade"):  # every grading cell fails, with the checker's hint as the AssertionError
            assert by_cell.get(index, ("", ""))[1] == "AssertionError", f"{where}: {by_cell.get(index)}"
        elif meta.get("solution"):  # a stub at the top level raises; one inside a function waits for a call
            top_level_stub = any(
                line.startswith("raise NotImplementedError") for line in cell.source.splitlines()
            )
            expected = "NotImplementedError" if top_level_stub else None
            assert by_cell.get(index, ("", None))[1] == expected, f"{where}: {by_cell.get(index)}"
        else:
            assert index not in by_cell, f"{where}: {by_cell[index][1]} in a cell that is not an exercise"


@pytest.mark.parametrize("student", STUDENTS)
def test_feedback_is_written(feedback: Path, student: str) -> None:
    for path in NOTEBOOKS:
        page = feedback / "feedback" / student / path.stem / f"{path.stem}.html"
        assert page.is_file(), f"no feedback page {page.relative_to(feedback)}"
        _, max_score, _ = _grades(feedback, path, student)
        text = page.read_text()
        assert f"{max_score:g}" in text, (
            f"{page.name}: the page does not show the maximum score {max_score:g}"
        )
        if student == "untouched" and max_score:
            assert "AssertionError" in text, f"{page.name}: the failed grading cells are not shown"
