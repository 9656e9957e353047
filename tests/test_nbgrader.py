"""nbgrader end to end, in a temporary course directory.

`python -m vitcourse.classroom --nbgrader-course` lays the directory out (one assignment per notebook, and the
nbgrader_config.py whose executor timeouts and code stub every step below uses); then:

- `nbgrader generate_assignment` accepts every notebook, and its student copies have the same cells and sources
  as `make student`'s;
- two students hand in: "solutions" the full notebooks, "untouched" the released copies as they are;
- `nbgrader autograde` gives the solutions full marks with no error in any cell, and the untouched copies 0 on
  every exercise, with errors only in the exercise cells (the stubs) and their grading cells;
- `nbgrader generate_feedback` writes a page per student and notebook.

The untouched copies are executed by nbgrader (its Execute step, its kernel and timeouts): the one run of the
student copies, which checks that they run top to bottom with only the exercise cells failing
(tests/test_classroom.py relies on it). The solutions are graded as handed in, with their stored outputs:
autograde's ClearOutput and Execute steps are switched off for that student. Running the full notebooks is strict
nbval's job (`make nbval`, every `make test`): it executes every notebook, solutions and grading cells included,
in a fresh kernel and fails unless each output equals the stored one. So the outputs nbgrader grades here are
those a fresh run gives, and each notebook is executed once less per `make test` (book/pages/testing.md). The
two students are graded side by side, each in its own copy of the course directory. A run that makes no progress
fails within a minute, saying so (tests/process_tree.py's watchdog; book/pages/troubleshooting.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from process_tree import IdleWatch, kill_tree  # tests/process_tree.py

from vitcourse import classroom

pytest.importorskip("nbgrader", reason="nbgrader is in the dev extra: pip install -e '.[dev]'")
from nbgrader.api import Gradebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STUDENTS = ("solutions", "untouched")


# The watchdog ends an nbgrader run when its whole process tree (nbgrader and the kernel) has used no CPU for
# STALL_S seconds. There is no limit per cell: on a busy machine a training cell (notebooks 10 and 11) alone passed 600 s
# while running all along, and a time limit cannot tell that from a stall.
STALL_S = 60


class _Run:
    """One nbgrader command running in ``course``, watched for stalls."""

    def __init__(self, course: Path, *args: str, timeout: int) -> None:
        env = dict(os.environ)
        env["PATH"] = (
            f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # nbgrader calls `alembic`
        )
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(ROOT), env.get("PYTHONPATH")])
        )  # this vitcourse
        env["JUPYTER_CONFIG_DIR"] = str(course / ".jupyter")  # no personal nbgrader settings
        # One thread per kernel: the test is about which cells pass and fail, and on a busy machine torch's
        # OpenMP threads, oversubscribed, make the training notebooks' cells many times slower.
        env.setdefault("OMP_NUM_THREADS", "1")
        self.command, self.timeout = " ".join(["nbgrader", *args]), timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.watch = IdleWatch(
            self.proc.pid, stall_after=STALL_S, on_stall=lambda _: kill_tree(self.proc.pid)
        )
        self.watch.start()

    def finish(self) -> str:
        """Wait for the command; fail with the end of its log if it fails, stalls, runs too long or logs an error."""
        try:
            log, _ = self.proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            kill_tree(self.proc.pid)
            log, _ = self.proc.communicate()
            pytest.fail(f"`{self.command}` ran past {self.timeout} s; its log ends:\n{log[-4000:]}")
        finally:
            self.watch.stop()
        if self.watch.stalled:
            pytest.fail(
                f"`{self.command}` and its kernel used no CPU for {STALL_S} s (a stall) and were stopped; see "
                f"book/pages/troubleshooting.md. Its log ends:\n{log[-4000:]}"
            )
        errors = [line for line in log.splitlines() if "| ERROR]" in line]
        assert self.proc.returncode == 0 and not errors, (
            f"`{self.command}` failed (exit {self.proc.returncode}); errors: {errors}; its log ends:\n{log[-4000:]}"
        )
        return log


def _nbgrader(course: Path, *args: str, timeout: int) -> str:
    """Run one nbgrader command in ``course`` and wait for it (see :class:`_Run`)."""
    return _Run(course, *args, timeout=timeout).finish()


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory after generate_assignment of every notebook."""
    course = tmp_path_factory.mktemp("course")
    assert classroom.main(["--nbgrader-course", str(course), *map(str, NOTEBOOKS)]) == 0
    _nbgrader(course, "generate_assignment", "*", timeout=900)
    return course


@pytest.fixture(scope="module")
def autograded(course: Path) -> dict[str, Path]:
    """Each student's course directory after they handed in every notebook and autograde ran.

    Each student gets a copy of the course directory (its own gradebook), so the two autogrades run at once.
    """
    handed_in = {"solutions": course / "source", "untouched": course / "release"}
    # the solutions keep their stored outputs (strict nbval checks them against a fresh run): nothing re-executed
    graded_as_handed_in = {
        "solutions": ("--ClearOutput.enabled=False", "--Execute.enabled=False"),
        "untouched": (),
    }
    dirs = {}
    for student in STUDENTS:
        dirs[student] = course.parent / f"{course.name}-{student}"
        shutil.copytree(course, dirs[student])
        for path in NOTEBOOKS:
            target = dirs[student] / "submitted" / student / path.stem
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(handed_in[student] / path.stem / path.name, target / path.name)
    runs = [
        _Run(dirs[student], "autograde", "*", *graded_as_handed_in[student], timeout=3600)
        for student in STUDENTS
    ]
    for run in runs:
        run.finish()
    return dirs


@pytest.fixture(scope="module")
def feedback(autograded: dict[str, Path]) -> dict[str, Path]:
    runs = [_Run(folder, "generate_feedback", "*", timeout=900) for folder in autograded.values()]
    for run in runs:
        run.finish()
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
            folded = "source_hidden" in r_cell.metadata.get("jupyter", {})  # only a cell that holds an answer
            assert not folded or "answer-inside" in r_cell.metadata.get("tags", []), (
                f"{path.name} cell {index}"
            )
        else:  # an "After Exercise N" section opens folded in both
            key = classroom.COLLAPSED_HEADING
            assert r_cell.metadata.get(key) == s_cell.metadata.get(key), f"{path.name} cell {index}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_get_full_marks(autograded: dict[str, Path], path: Path) -> None:
    score, max_score, cells = _grades(autograded["solutions"], path, "solutions")
    points = _points(path)
    assert {name: top for name, (_, top) in cells.items()} == points  # every grading cell counted, as marked
    assert max_score == sum(points.values())
    assert score == max_score, f"{path.name}: {score} of {max_score}; cells below full marks: " + str(
        {name: got for name, got in cells.items() if got[0] != got[1]}
    )
    graded = autograded["solutions"] / "autograded" / "solutions" / path.stem / path.name
    errors = _errors(graded)
    assert errors == [], f"{path.name}: cells with an error (index, grade id, exception): {errors}"
    # what was graded is the notebook's stored outputs, the ones strict nbval checks against a fresh run
    stored = [c.outputs for c in nbformat.read(path, 4).cells if c.cell_type == "code"]
    assert [c.outputs for c in nbformat.read(graded, 4).cells if c.cell_type == "code"] == stored, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_untouched_copies_score_zero_and_fail_only_in_exercises(
    autograded: dict[str, Path], path: Path
) -> None:
    """The released copies (= `make student`'s) run top to bottom; only exercises and their grading fail."""
    score, max_score, cells = _grades(autograded["untouched"], path, "untouched")
    assert max_score == sum(_points(path).values())
    assert score == 0, f"{path.name}: untouched copy scored {score}: " + str(
        {name: got for name, got in cells.items() if got[0]}
    )
    graded = autograded["untouched"] / "autograded" / "untouched" / path.stem / path.name
    by_cell = {index: (grade_id, ename) for index, grade_id, ename in _errors(graded)}
    graded_cells = nbformat.read(graded, 4).cells
    ran = [c.execution_count for c in graded_cells if c.cell_type == "code" and c.source.strip()]
    assert all(ran), f"{path.name}: not every cell ran"
    for index, cell in enumerate(graded_cells):
        is_grading = cell.metadata.get("nbgrader", {}).get("grade", False)
        if cell.cell_type == "code" and not is_grading and re.search(r"^check\.\w+\(", cell.source, re.M):
            printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            assert printed.startswith("✗"), (
                f"{path.name} cell {index}: with no answer the check printed {printed!r}"
            )
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
def test_feedback_is_written(feedback: dict[str, Path], student: str) -> None:
    for path in NOTEBOOKS:
        page = feedback[student] / "feedback" / student / path.stem / f"{path.stem}.html"
        assert page.is_file(), f"no feedback page {page.relative_to(feedback[student])}"
        _, max_score, _ = _grades(feedback[student], path, student)
        text = page.read_text()
        assert f"{max_score:g}" in text, (
            f"{page.name}: the page does not show the maximum score {max_score:g}"
        )
        if student == "untouched" and max_score:
            assert "AssertionError" in text, f"{page.name}: the failed grading cells are not shown"
