"""What a learner sees before trying an exercise (README, "How a learner meets an exercise").

JupyterLab (``make lab``) and a browse of the repository show the stored notebooks. Before a try, they must
show no answer: solutions and grading cells are collapsed, a grading cell holds only ``check.require`` calls,
and a check cell's stored output is only the ✓ line, which names no value (the checkers' own tests check that
no ✓ message and no hint holds the value).
"""

from __future__ import annotations

import ast
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


# --- The learner's copy (`make lab`): no stored output, worked solutions collapsed after the check, no grading.

from vitcourse.classroom import (  # noqa: E402
    COLLAPSED_HEADING,
    LEARNER_STUB,
    SOLUTION_HEADER,
    build_learner,
    learner_notebook,
    main,
)


def _learner(path: Path) -> nbformat.NotebookNode:
    return learner_notebook(nbformat.read(path, as_version=4), path.name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_fresh_learner_copy_holds_no_output(path: Path) -> None:
    nb = _learner(path)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_learner_copy_shows_no_answer_before_a_try(path: Path) -> None:
    full = _cells(path)
    nb = _learner(path)
    assert not any(has_hidden_tests(c.source) for c in nb.cells), "grading cells must be out of the way"
    assert not any(has_solution(c.source) for c in nb.cells), "no solution block stays in an answer cell"
    solutions = [i for i, c in enumerate(nb.cells) if "worked-solution" in c.metadata.get("tags", [])]
    assert len(solutions) == sum(has_solution(c.source) for c in full if c.cell_type == "code")
    for index in solutions:
        cell = nb.cells[index]
        assert cell.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
        assert cell.source.startswith(SOLUTION_HEADER)
        compile(cell.source, f"{path.name}, worked solution {index}", "exec")
        # it comes after the learner's answer cell and (where there is one) the exercise's check cell
        before = nb.cells[index - 1]
        assert before.cell_type == "code" and "worked-solution" not in before.metadata.get("tags", [])
    for cell in nb.cells:
        if cell.cell_type == "code" and "worked-solution" not in cell.metadata.get("tags", []):
            compile(cell.source, path.name, "exec")
            assert "nbgrader" not in cell.metadata


def test_the_answer_cell_keeps_the_placeholder_and_loses_the_solution() -> None:
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell(
        "answer = None  # replace None with a number\n### BEGIN SOLUTION\nanswer = 60\n### END SOLUTION"
    )
    answer.metadata = {
        "jupyter": {"source_hidden": True},
        "nbgrader": {"grade_id": "x-answer", "solution": True},
    }
    function = nbformat.v4.new_code_cell(
        "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
    )
    check_cell = nbformat.v4.new_code_cell("check.patch_count(answer)")
    check_cell.metadata = {"nbgrader": {"grade_id": "patch_count-check"}}
    grading = nbformat.v4.new_code_cell(
        "# Grading cell\n### BEGIN HIDDEN TESTS\ncheck.require(check.patch_count, answer)\n### END HIDDEN TESTS"
    )
    answer.outputs = [nbformat.v4.new_output("stream", text="60\n")]
    nb.cells = [answer, check_cell, grading, function]
    out = learner_notebook(nb).cells
    assert [c.source.splitlines()[0] for c in out] == [
        "answer = None  # replace None with a number",
        "check.patch_count(answer)",
        SOLUTION_HEADER.splitlines()[0],
        "def f(x):",
        SOLUTION_HEADER.splitlines()[0],
    ]
    assert out[0].source.splitlines()[1] == LEARNER_STUB and "60" not in out[0].source
    assert out[0].outputs == [] and "jupyter" not in out[0].metadata
    assert "answer = 60" in out[2].source and "replace None" not in out[2].source
    assert "raise NotImplementedError" in out[3].source and "2 * x" not in out[3].source
    namespace: dict = {}
    exec(out[3].source, namespace)  # the stub defines the function; calling it raises
    with pytest.raises(NotImplementedError):
        namespace["f"](1)


def test_an_edit_survives_the_next_build_and_rebuild_keeps_a_backup(tmp_path: Path) -> None:
    source = [NOTEBOOKS[1], NOTEBOOKS[2]]
    first = build_learner(source, tmp_path)
    assert [what for _, what in first] == ["written", "written"]
    target = tmp_path / source[0].name
    nb = nbformat.read(target, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("my notes"))
    nbformat.write(nb, target)
    again = build_learner(source, tmp_path)
    assert [what for _, what in again] == ["kept", "kept"]
    assert nbformat.read(target, as_version=4).cells[0].source == "my notes"
    assert main(["--learner", "--learner-dir", str(tmp_path), "--rebuild", str(source[0])]) == 0
    assert nbformat.read(target, as_version=4).cells[0].source != "my notes"
    backups = list((tmp_path / ".backup").glob(f"{source[0].stem}.*.ipynb"))
    assert len(backups) == 1 and nbformat.read(backups[0], as_version=4).cells[0].source == "my notes"


def test_rebuild_needs_named_notebooks_and_the_learner_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--learner", "--rebuild"])
    assert "needs the notebooks" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--rebuild", str(NOTEBOOKS[0])])
    assert "--learner only" in capsys.readouterr().err


def test_make_learner_keeps_a_learners_edit(tmp_path: Path) -> None:
    """`make lab` builds the copies through `make learner`: run it twice with an edit in between."""
    import os
    import shutil
    import subprocess

    root = Path(__file__).resolve().parent.parent
    if shutil.which("make") is None or not (root / ".venv" / "bin" / "python").exists():
        pytest.skip("make learner needs make and .venv")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    cmd = ["make", "--no-print-directory", "-o", ".venv/.installed", "learner", f"LEARNER={tmp_path}"]
    subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
    target = tmp_path / NOTEBOOKS[0].name
    nb = nbformat.read(target, as_version=4)
    assert all(c.outputs == [] for c in nb.cells if c.cell_type == "code")
    nb.cells.append(nbformat.v4.new_code_cell("x = 'mine'"))
    nbformat.write(nb, target)
    subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
    assert nbformat.read(target, as_version=4).cells[-1].source == "x = 'mine'"


def test_a_learner_copy_runs_top_to_bottom_without_an_answer(tmp_path: Path) -> None:
    """Run all on an untouched copy: every check says ✗ (no answer yet) and nothing stops the run."""
    from nbclient import NotebookClient

    path = next(p for p in NOTEBOOKS if p.name.startswith("01_"))
    nb = _learner(path)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    checks = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("check.")]
    assert checks
    for cell in checks:
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        assert text.startswith("✗"), f"an unanswered exercise must not pass: {cell.source!r} printed {text!r}"


def test_the_worked_solution_drops_every_placeholder_it_replaces() -> None:
    """A second answer's placeholder (``b = None  # (b)``) does not stay in the worked solution."""
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell(
        "a = None  # replace None with a number\nb = None  # (b)\n### BEGIN SOLUTION\na = 1\nb = None or 2\n"
        "### END SOLUTION"
    )
    answer.metadata = {
        "jupyter": {"source_hidden": True},
        "nbgrader": {"grade_id": "x-answer", "solution": True},
    }
    nb.cells = [answer]
    worked = [c for c in learner_notebook(nb).cells if "worked-solution" in c.metadata.get("tags", [])]
    assert len(worked) == 1
    body = worked[0].source.split(SOLUTION_HEADER, 1)[1]
    assert "b = None  # (b)" not in body and "a = None" not in body
    assert "a = 1" in body and "b = None or 2" in body  # the solution's own lines stay, even one naming None


_AFTER = re.compile(r"^#{1,6} After (?:Exercise (\d+)|playing)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_what_follows_an_exercise_is_a_bare_heading_and_opens_collapsed(path: Path) -> None:
    """After an exercise's check, the next words are a heading (its "After Exercise N" section, a new section)
    or the next exercise; an "After Exercise N" heading says nothing more (a title could give the answer); and
    the learner copy opens each such section collapsed."""
    cells = _cells(path)
    for index, cell in enumerate(cells):
        if not (
            cell.cell_type == "code" and "-check" in cell.metadata.get("nbgrader", {}).get("grade_id", "")
        ):
            continue
        after = next(
            c for c in cells[index + 1 :] if not (c.cell_type == "code" and has_hidden_tests(c.source))
        )
        first = after.source.lstrip().splitlines()[0] if after.source.strip() else ""
        assert after.cell_type == "markdown" and (first.startswith("#") or first.startswith("**Exercise")), (
            f"{path.name}, cell {index}: an exercise's check is followed by {first[:60]!r}, not by a heading"
        )
    headings = [
        c.source.lstrip().splitlines()[0]
        for c in cells
        if c.cell_type == "markdown" and _AFTER.match(c.source.lstrip())
    ]
    for heading in headings:
        assert re.fullmatch(r"#{2,4} After (Exercise \d+|playing)", heading), (
            f"{path.name}: {heading!r} says more than its number"
        )
    alone = [c.source.strip() for c in cells if c.cell_type == "markdown" and _AFTER.match(c.source.lstrip())]
    assert alone == headings, (
        f"{path.name}: an After Exercise heading shares its cell (JupyterLab folds only cells)"
    )
    copy = _learner(path)
    collapsed = [c for c in copy.cells if c.metadata.get(COLLAPSED_HEADING)]
    assert len(collapsed) == len(headings)
    assert all(_AFTER.match(c.source.lstrip()) for c in collapsed)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_predict_then_play_has_its_answers_folded(path: Path) -> None:
    """An explorer that asks for a prediction ("predict ... then play") is followed, before the next section,
    by an "After playing" heading, which the learner copy opens collapsed: the answers stay out of sight until
    the learner has played."""
    cells = _cells(path)
    for index, cell in enumerate(cells):
        if cell.cell_type != "markdown" or not re.search(r"predict[^.]*then play", cell.source, re.I):
            continue
        rest = [c for c in cells[index + 1 :] if c.cell_type == "markdown"]
        section = []
        for c in rest:
            if re.match(r"#{1,2} ", c.source.lstrip()):
                break
            section.append(c.source.strip())
        assert "### After playing" in section, f"{path.name}, cell {index}: a play's answers are not folded"
    copy = _learner(path)
    for c in copy.cells:
        if c.cell_type == "markdown" and c.source.strip() == "### After playing":
            assert c.metadata.get(COLLAPSED_HEADING), f"{path.name}: an After playing heading opens unfolded"


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a code cell binds (assignments, defs, imports, arguments) and the names it reads."""
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    bound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)}
    bound |= {n.name for n in nodes if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    bound |= {a.arg for n in nodes if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs}
    for n in nodes:
        if isinstance(n, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
    read = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bound, read


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_needs_a_folded_section(path: Path) -> None:
    """JupyterLab does not run the cells under a folded heading when a learner runs on past it (Shift+Enter goes
    to the next visible cell). So no cell of the core outside an "After Exercise N" or "After playing" fold reads
    a name that only a cell inside such a fold defines: a learner who leaves the answers folded still runs the
    whole core. An optional Evidence section may build on an answer's run if its own text says so (it names the
    "After Exercise" section to run first)."""
    fold_level = None
    evidence_says_so = None  # in an Evidence section: whether its text names the After section it needs
    in_fold: dict[str, int] = {}
    in_open: set[str] = set()
    for index, cell in enumerate(_cells(path)):
        if cell.cell_type == "markdown":
            heading = re.match(r"(#{1,6}) ", cell.source.lstrip())
            if heading and fold_level is not None and len(heading.group(1)) <= fold_level:
                fold_level = None
            if _AFTER.match(cell.source.lstrip()):
                fold_level = len(heading.group(1))
            if re.match(r"#{1,2} Evidence", cell.source.lstrip()):
                evidence_says_so = False
            if evidence_says_so is not None and re.search(r'"After (Exercise \d+|playing)"', cell.source):
                evidence_says_so = True
            continue
        if has_solution(cell.source) or has_hidden_tests(cell.source):
            continue
        bound, read = _names(cell.source)
        if fold_level is None:
            needed = sorted(n for n in read - bound if n in in_fold and n not in in_open)
            assert not needed or evidence_says_so, (
                f"{path.name}, cell {index} reads {needed}, which only folded cells define "
                f"(cells {sorted({in_fold[n] for n in needed})})"
            )
            in_open |= bound
        else:
            for name in bound - in_open:
                in_fold.setdefault(name, index)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_headings_start_their_cells_so_that_folding_works(path: Path) -> None:
    """JupyterLab folds the cells under a heading cell, and takes a cell's first heading as the cell's level.
    So every heading starts its own markdown cell (text above it would stay in view, a heading lower in a cell
    would end a fold early); every exercise is announced by a heading, so no exercise sits hidden inside the
    folded section of the one before; and each "After Exercise N" fold holds something."""
    cells = _cells(path)
    for index, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        lines = [line for line in cell.source.splitlines() if line.strip()]
        late = [line for line in lines[1:] if re.match(r"#{1,6} ", line)]
        assert not late, f"{path.name}, cell {index}: a heading inside the cell, not at its top: {late}"
        bold = re.search(r"\*\*Exercise \d+ \(", cell.source)
        assert not bold, f"{path.name}, cell {index}: an exercise announced in bold, not by a heading"
        if lines and _AFTER.match(lines[0]):
            following = cells[index + 1] if index + 1 < len(cells) else None
            assert following is not None and not (
                following.cell_type == "markdown" and following.source.lstrip().startswith("#")
            ), f"{path.name}, cell {index}: an empty After Exercise section"
