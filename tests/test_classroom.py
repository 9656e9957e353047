"""Student copies: no solution survives, and nbgrader's markers are where nbgrader needs them.

That the copies run with only the exercise cells failing is checked on nbgrader's autograded copies, which are
the same notebooks (tests/test_nbgrader.py).
"""

import re
from pathlib import Path

import nbformat
import pytest

from vitcourse import classroom

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
# The notebooks that have no exercises by design, and why: 00 has at most one warm-up (the mechanics, tried once),
# the others none. Every other notebook must have at least three (the test below holds both sides), so a notebook
# cannot lose its exercises unnoticed.
WITHOUT_EXERCISES = {
    "00_start_here": "the orientation: how to use the course, with at most one warm-up",
    "15_errata": "an appendix: the errata of the sources",
}
WITH_EXERCISES = [p for p in NOTEBOOKS if p.stem not in WITHOUT_EXERCISES]


def test_strip_keeps_indentation_and_surroundings() -> None:
    source = (
        "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n\nprint(f(1))"
    )
    stripped = classroom.strip_solutions(source)
    assert "return x + y" not in stripped and "SOLUTION" not in stripped
    assert "    raise NotImplementedError(" in stripped and "    # YOUR CODE HERE" in stripped
    assert stripped.startswith("def f(x):\n    y = 1\n") and stripped.endswith("print(f(1))")
    compile(stripped, "<stripped>", "exec")  # still valid Python


@pytest.mark.parametrize(
    ("source", "pattern"),
    [
        ("### BEGIN SOLUTION\nx = 1", "without its"),
        ("x = 1\n### END SOLUTION", "without a"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another"),
    ],
)
def test_broken_markers_are_refused(source: str, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        classroom.strip_solutions(source, "test.ipynb, cell 3")


def test_every_notebook_has_three_or_more_collapsed_solutions_unless_listed_without_exercises() -> None:
    missing = set(WITHOUT_EXERCISES) - {p.stem for p in NOTEBOOKS}
    assert not missing, f"WITHOUT_EXERCISES names notebooks that do not exist: {sorted(missing)}"
    assert len(WITH_EXERCISES) >= 6
    for path in NOTEBOOKS:
        solutions = [c for c in nbformat.read(path, 4).cells if classroom.has_solution(c.source)]
        if path.stem in WITHOUT_EXERCISES:
            allowed = 1 if path.stem == "00_start_here" else 0  # 00's warm-up
            assert len(solutions) <= allowed, (
                f"{path.name} has {len(solutions)} exercises but is listed as {WITHOUT_EXERCISES[path.stem]!r}"
            )
            continue
        assert len(solutions) >= 3, (
            f"{path.name}: {len(solutions)} exercises; an appendix goes in WITHOUT_EXERCISES"
        )
        for cell in solutions:
            assert cell.cell_type == "code"
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, path.name


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("student")
    assert classroom.main(["--out", str(out)]) == 0
    return out


def test_student_copies_hold_no_solution_and_no_output(student_dir: Path) -> None:
    for full in NOTEBOOKS:
        student = nbformat.read(student_dir / full.name, 4)
        original = nbformat.read(full, 4)
        assert len(student.cells) == len(original.cells)
        for s_cell, o_cell in zip(student.cells, original.cells, strict=True):
            assert not classroom.has_solution(s_cell.source)
            if s_cell.cell_type == "code":
                assert s_cell.outputs == [] and s_cell.execution_count is None
                # folded only where the cell's code is an exercise's answer (tagged so), as in the full notebook
                folded = "source_hidden" in s_cell.metadata.get("jupyter", {})
                assert not folded or "answer-inside" in s_cell.metadata.get("tags", [])
            if not (classroom.has_solution(o_cell.source) or classroom.has_hidden_tests(o_cell.source)):
                assert s_cell.source == o_cell.source  # everything else is kept
            assert not classroom.has_hidden_tests(s_cell.source) and "check.require" not in s_cell.source
            for line in _solution_body(o_cell.source):
                assert line not in s_cell.source.splitlines(), (full.name, line)


def _hidden_body(source: str) -> list[str]:
    """The lines strictly between BEGIN and END HIDDEN TESTS markers."""
    body, inside = [], False
    for line in source.splitlines():
        if line.strip() in (classroom.BEGIN_HIDDEN, classroom.END_HIDDEN):
            inside = line.strip() == classroom.BEGIN_HIDDEN
        elif inside and line.strip():
            body.append(line.strip())
    return body


def _solution_body(source: str) -> list[str]:
    """The lines strictly between BEGIN and END SOLUTION markers."""
    body, inside = [], False
    for line in source.splitlines():
        if line.strip() in (classroom.BEGIN, classroom.END):
            inside = line.strip() == classroom.BEGIN
        elif inside and line.strip():
            body.append(line)
    return body


# The student copies are run once, by nbgrader's autograde of the "untouched" student in tests/test_nbgrader.py:
# nbgrader's released copies equal `make student`'s cell by cell (test_release_is_the_make_student_copy), so that
# run checks these copies too: every cell runs, only the exercise cells fail (with NotImplementedError), and every
# check cell says ✗ (test_untouched_copies_score_zero_and_fail_only_in_exercises). One execution per notebook
# serves both checks.


# What nbgrader's generate_assignment refuses or mis-grades, checked without running it (tests/test_nbgrader.py
# runs it): every exercise is an answer cell, a read-only check cell, and one grading cell per check call.
_NBGRADER_MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda p: p.stem)
def test_every_exercise_carries_nbgrader_metadata(path: Path) -> None:
    cells = nbformat.read(path, 4).cells
    grade_ids = [c.metadata["nbgrader"]["grade_id"] for c in cells if "nbgrader" in c.metadata]
    assert len(grade_ids) == len(set(grade_ids)), f"{path.name}: grade ids repeat"
    for index, cell in enumerate(cells):
        meta = cell.metadata.get("nbgrader")
        where = f"{path.name} cell {index}"
        if meta is not None:
            assert meta["schema_version"] == 3 and set(meta) >= {"grade", "solution", "locked", "task"}, where
        if classroom.has_solution(cell.source):
            assert meta is not None and meta["solution"] and not meta["grade"], (
                f"{where}: not a solution cell"
            )
            check_cell = cells[index + 1]  # the check cell follows its answer cell, read-only
            calls = re.findall(r"^check\.(\w+)\((.*)\)$", check_cell.source, re.M)
            assert calls and len(calls) == len(check_cell.source.splitlines()), (
                f"{where}: no check cell after it"
            )
            assert check_cell.metadata.get("nbgrader", {}).get("locked") is True, (
                f"{where}: check not read-only"
            )
            # Then the grading cells: together they require every check call once, in order. Each grading cell
            # takes one or more consecutive calls (parts graded together share a cell, all or nothing), is named
            # after its first, and is worth a point per call (two for a "_function" check).
            offset, todo = 2, list(calls)
            while todo:
                grading = cells[index + offset]
                g_meta = grading.metadata.get("nbgrader", {})
                name = todo[0][0]
                assert g_meta.get("grade") and g_meta.get("locked"), f"{where}: no grading cell for {name}"
                assert g_meta["grade_id"] == f"{name}-test", f"{where}: {g_meta['grade_id']} for {name}"
                body = _hidden_body(grading.source)
                assert body, f"{where}: the grading cell for {name} holds no hidden test"
                taken = todo[: len(body)]
                expected = [f"check.require(check.{n}, {a})" for n, a in taken]
                assert body == expected, f"{where}: the grading cell for {name} does not require {expected}"
                points = sum(2 if n.endswith("_function") else 1 for n, _ in taken)
                assert g_meta["points"] == points, f"{where}: {name}"
                todo, offset = todo[len(body) :], offset + 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_nbgrader_markers_only_in_exercise_and_grading_cells(path: Path) -> None:
    for index, cell in enumerate(nbformat.read(path, 4).cells):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") or meta.get("grade"):
            continue
        for marker in _NBGRADER_MARKERS:  # nbgrader finds its markers anywhere in a line, in markdown too
            assert marker not in cell.source, f"{path.name} cell {index}: {marker!r} outside an exercise cell"


def test_strip_removes_hidden_tests_and_their_markers() -> None:
    source = (
        f"# grading\n{classroom.BEGIN_HIDDEN}\ncheck.require(check.patch_count, x)\n{classroom.END_HIDDEN}"
    )
    assert classroom.has_hidden_tests(source) and not classroom.has_solution(source)
    assert classroom.strip_solutions(source) == "# grading"
    with pytest.raises(ValueError, match="END SOLUTION without a ### BEGIN SOLUTION"):
        classroom.strip_solutions(f"{classroom.BEGIN_HIDDEN}\nx = 1\n{classroom.END}")


def test_nbgrader_course_layout(tmp_path: Path) -> None:
    path = WITH_EXERCISES[0]
    assert classroom.main(["--nbgrader-course", str(tmp_path), str(path)]) == 0
    source = nbformat.read(tmp_path / "source" / path.stem / path.name, 4)
    answers = [c for c in source.cells if classroom.has_solution(c.source)]
    assert answers and all("source_hidden" not in c.metadata.get("jupyter", {}) for c in answers)
    config = (tmp_path / "nbgrader_config.py").read_text()
    compile(config, "nbgrader_config.py", "exec")
    assert repr(classroom.CODE_STUB) in config and "c.Execute.timeout = 600" in config
    (tmp_path / "nbgrader_config.py").write_text("# the teacher's own settings\n")
    assert classroom.main(["--nbgrader-course", str(tmp_path), str(path)]) == 0
    assert (tmp_path / "nbgrader_config.py").read_text() == "# the teacher's own settings\n"
