"""Student copies of the course, two ways: ``make student`` (this module, no database) or nbgrader.

Every exercise is three cells, each carrying nbgrader's cell metadata (``schema_version`` 3):

1. the **answer cell** (``solution``, grade id ``<checker>-answer``): the solution sits between nbgrader's
   markers, after a placeholder that stays in the student copy::

       answer = None  # replace None with your answer
       ### BEGIN SOLUTION
       answer = 60
       ### END SOLUTION

2. the **check cell** (read-only, ``<checker>-check``): ``check.patch_count(answer)`` prints ✓ or a hint and
   never raises, so a learner can check as often as they like;
3. a **grading cell** per checker (autograder test, ``<checker>-test``, 1 point for a number or shape, 2 for a
   function): between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS`` it calls
   ``check.require(check.patch_count, answer)``, which runs the same checker silently and raises
   ``AssertionError`` with its hint unless the answer is right.

Why a separate, hidden grading cell rather than asserting in the check cell: the check cell stays the friendly
one learners run (a wrong answer prints a hint, never a traceback), and student copies keep only the grading
cell's comment line, so nothing in them raises except the unanswered exercises themselves. Autograding puts
the hidden lines back: a wrong or missing answer then fails the grading cell and scores 0 for it, with the
checker's hint as the error message in the feedback. In the full notebooks the grading cells run too and print
nothing (strict nbval checks that every solution passes); a learner who edits a solution there and gets it
wrong sees the hint in the check cell and the same hint as an ``AssertionError`` in the grading cell.

**Student copies without nbgrader** (``make student``): :func:`strip_solutions` replaces each solution block
(markers included) by :data:`CODE_STUB` at the same indentation and removes each hidden-test block;
:func:`student_notebook` also clears every output and un-collapses the answer cells. Lines outside the markers
stay, so a placeholder such as ``answer = None`` still runs and the check cell after it prints a hint.

**Learner copies** (``make lab``, :func:`learner_notebook`, :func:`build_learner`): what a learner works in.
``make lab`` writes a copy of each notebook into ``learner/`` the first time and opens JupyterLab there. A copy
has no stored output (a learner sees each output only by running its cell); every exercise keeps the worked
solution, but in a cell of its own, collapsed (input and output), placed after the check cell, so that running
the notebook top to bottom checks the learner's answer first and only then runs the solution that later cells
build on; the grading cells are gone. The answer cell keeps only what stands outside the solution block (the
placeholder, a function's signature): a block at the top level becomes a comment, an indented one a stub that
raises ``NotImplementedError`` when the function is called (the checker says "not written yet"), so that a run
of the whole notebook never stops at an exercise. What follows an exercise sits under a heading "After Exercise
N", which the copy opens collapsed (JupyterLab's ``jp-MarkdownHeadingCollapsed``): the answer, worked through,
stays folded away until the learner has tried and clicks it open.

A copy is made once and never overwritten: ``make lab`` skips every notebook that has a copy, so a learner's
work survives the next ``make lab`` (and a course update). ``python -m vitcourse.classroom --learner --rebuild
notebooks/NN_name.ipynb`` makes one copy afresh; the old one moves to ``learner/.backup/`` with a time stamp.

**With nbgrader**: ``--nbgrader-course DIR`` lays out a course directory (``DIR/nbgrader_config.py`` and
``DIR/source/NN_name/NN_name.ipynb``, one assignment per notebook, answer cells un-collapsed) whose config
uses the same stub, so ``nbgrader generate_assignment`` writes student notebooks with the same cells and sources
as ``make student`` (nbgrader adds its own bookkeeping metadata: checksums, locks). ``make student`` stays the
light route: no nbgrader, no database, no course directory, a few seconds; ``tests/test_nbgrader.py`` runs
nbgrader end to end and checks that the two routes agree. TEACHING.md walks through both.

Command line (``make student`` runs the first)::

    python -m vitcourse.classroom                  # notebooks/*.ipynb -> student/
    python -m vitcourse.classroom --out handout notebooks/02_soft_split.ipynb
    python -m vitcourse.classroom --nbgrader-course course    # an nbgrader course directory
    python -m vitcourse.classroom --learner        # learner/ copies that are missing (make lab runs this)
    python -m vitcourse.classroom --learner --rebuild notebooks/04_attention.ipynb   # one copy afresh
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat

from ._validate import instance_of, writable_folder

__all__ = [
    "BEGIN",
    "END",
    "BEGIN_HIDDEN",
    "END_HIDDEN",
    "STUB_MESSAGE",
    "CODE_STUB",
    "NBGRADER_CONFIG",
    "has_solution",
    "has_hidden_tests",
    "strip_solutions",
    "student_notebook",
    "build",
    "LEARNER_STUB",
    "SOLUTION_HEADER",
    "learner_notebook",
    "build_learner",
    "AFTER_EXERCISE",
    "COLLAPSED_HEADING",
    "collapse_after_exercises",
    "nbgrader_course",
    "main",
]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
STUB_MESSAGE = "This exercise is yours: replace this line with your answer, then run the check below."
CODE_STUB = f"# YOUR CODE HERE\nraise NotImplementedError({STUB_MESSAGE!r})"
_MARKER = re.compile(r"^(?P<indent>[ \t]*)### (?P<kind>BEGIN|END) (?P<what>SOLUTION|HIDDEN TESTS)[ \t]*$")

# Written into an nbgrader course directory by nbgrader_course(); `{stub}` is CODE_STUB.
NBGRADER_CONFIG = """\
# nbgrader settings for the vitcourse notebooks (python -m vitcourse.classroom --nbgrader-course writes this).
c = get_config()  # noqa: F821  (nbgrader provides get_config)

# The course's name on the hub's exchange; change it if your hub already has a course of that name.
c.CourseDirectory.course_id = "vitcourse"

# The stub `make student` writes, so both routes give students the same notebooks.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}

# Autograding runs every notebook top to bottom. Each cell may take up to 10 minutes: the training notebooks' training
# cells take well under a minute on two free cores, but a server grading many submissions is seldom free.
# A kernel gets 2 minutes to start.
c.Execute.timeout = 600
c.Execute.startup_timeout = 120
"""


def has_solution(source: str) -> bool:
    """Whether a cell's source holds a solution block."""
    instance_of("source", source, str, "a cell's source (a str)")
    return any((m := _MARKER.match(line)) and m["what"] == "SOLUTION" for line in source.splitlines())


def has_hidden_tests(source: str) -> bool:
    """Whether a cell's source holds a hidden-test block (a grading cell's test)."""
    instance_of("source", source, str, "a cell's source (a str)")
    return any((m := _MARKER.match(line)) and m["what"] == "HIDDEN TESTS" for line in source.splitlines())


def strip_solutions(source: str, where: str = "cell") -> str:
    """Replace every solution block in ``source`` by a stub that raises ``NotImplementedError``, and remove
    every hidden-test block, markers included (what nbgrader's generate_assignment does).

    Args:
        source: a code cell's source.
        where: names the cell in error messages (e.g. ``"01_patch_tokenization.ipynb, cell 23"``).

    Raises:
        ValueError: a BEGIN without its END, an END without its BEGIN, or nested blocks.
    """
    instance_of("source", source, str, "a cell's source (a str)")
    out: list[str] = []
    inside: str | None = None  # "SOLUTION" or "HIDDEN TESTS" while in a block
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.match(line)
        if match and match["kind"] == "BEGIN":
            if inside:
                raise ValueError(f"{where}, line {number}: ### BEGIN {match['what']} inside another block")
            inside = match["what"]
            if inside == "SOLUTION":
                out.extend(f"{match['indent']}{stub}" for stub in CODE_STUB.splitlines())
        elif match:
            if inside != match["what"]:
                raise ValueError(
                    f"{where}, line {number}: ### END {match['what']} without a ### BEGIN {match['what']}"
                )
            inside = None
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: ### BEGIN {inside} without its ### END {inside}")
    return "\n".join(out)


AFTER_EXERCISE = re.compile(r"^#{1,6} After (Exercise \d+|playing)\b")
"""The heading that opens what follows an exercise or a "predict, then play" explorer: the answer worked through,
the cells that show it."""

COLLAPSED_HEADING = "jp-MarkdownHeadingCollapsed"
"""The cell metadata with which JupyterLab opens a heading collapsed (the cells under it hidden until a click)."""


def collapse_after_exercises(nb: nbformat.NotebookNode) -> int:
    """Collapse every "After Exercise N" section of ``nb`` in place; returns how many. In JupyterLab such a
    heading shows with the cells under it folded away, so what follows an exercise, its answer included, stays
    out of sight until the learner opens it. (The heading is a cell of its own in every notebook: JupyterLab
    folds the cells under a heading, not the rest of the heading's own cell; a test checks it.)"""
    collapsed = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and AFTER_EXERCISE.match(cell.source.lstrip()):
            cell.metadata[COLLAPSED_HEADING] = True
            collapsed += 1
    return collapsed


def student_notebook(nb: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """A student copy of ``nb``: solutions stubbed, hidden tests removed, every output and execution count
    cleared.

    Exercise and grading cells are un-collapsed (their ``jupyter.source_hidden`` flag is dropped) so students see
    the stub; in the full notebooks both are collapsed, so nothing gives an answer away before a try. Every
    "After Exercise N" section opens collapsed (:func:`collapse_after_exercises`).
    """
    student = nbformat.from_dict(nb)
    for index, cell in enumerate(student.cells):
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        if has_solution(cell.source) or has_hidden_tests(cell.source):
            _uncollapse(cell)  # the stub in view; a grading cell keeps only its comment line
            cell.source = strip_solutions(cell.source, f"{name}, cell {index}")
    collapse_after_exercises(student)
    return student


LEARNER_STUB = "# Your answer here. The worked solution is the collapsed cell after the check: open it once you have tried."
"""What replaces a top-level solution block in a learner copy (an indented block gets :data:`CODE_STUB`)."""

SOLUTION_HEADER = (
    "# Worked solution. Open it once you have tried; running it replaces your answer with the solution's,\n"
    "# so that the cells further down work either way."
)
"""The first lines of a learner copy's worked-solution cell."""


def _learner_answer(source: str, where: str) -> str:
    """The answer cell as a learner gets it: each solution block replaced by a comment (top level) or by a stub
    that raises when called (indented); hidden-test blocks cannot occur here (a grading cell is dropped)."""
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.match(line)
        if match and match["what"] == "SOLUTION" and match["kind"] == "BEGIN":
            if inside:
                raise ValueError(f"{where}, line {number}: ### BEGIN SOLUTION inside another block")
            inside = True
            indent = match["indent"]
            stub = LEARNER_STUB if not indent else CODE_STUB
            out.extend(f"{indent}{part}" for part in stub.splitlines())
        elif match and match["what"] == "SOLUTION":
            if not inside:
                raise ValueError(f"{where}, line {number}: ### END SOLUTION without a ### BEGIN SOLUTION")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: ### BEGIN SOLUTION without its ### END SOLUTION")
    return "\n".join(out)


_PLACEHOLDER = re.compile(r"#\s*replace None with")


_NONE_BEFORE_SOLUTION = re.compile(r"^\s*\w+\s*=\s*None\s*(#.*)?$")


def _without_markers(source: str) -> str:
    """A solution cell's source without the markers and without the placeholder lines it replaces: every line
    marked "replace None with", and every ``name = None`` before the solution begins (a second answer's
    placeholder, such as ``answer_b = None  # (b)``)."""
    kept, begun = [], False
    for line in source.splitlines():
        if _MARKER.match(line):
            begun = begun or "BEGIN" in line
            continue
        if _PLACEHOLDER.search(line) or (not begun and _NONE_BEFORE_SOLUTION.match(line)):
            continue
        kept.append(line)
    return "\n".join(kept)


def learner_notebook(nb: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """A learner copy of ``nb`` (module docstring, "Learner copies"): outputs and execution counts cleared,
    grading cells removed, each answer cell split into the learner's part (open) and the worked solution
    (collapsed, after the exercise's check cell).

    Raises:
        ValueError: a solution block without its end marker, or nested blocks.
    """
    instance_of("nb", nb, nbformat.NotebookNode, "a notebook read with nbformat")
    source = nbformat.from_dict(nb)
    cells: list[nbformat.NotebookNode] = []
    pending: nbformat.NotebookNode | None = None  # a worked solution waiting for its check cell
    for index, cell in enumerate(source.cells):
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            if has_hidden_tests(cell.source):
                continue  # grading cells are for teachers' autograding
            if has_solution(cell.source):
                if pending is not None:
                    cells.append(pending)
                where = f"{name}, cell {index}"
                solution = nbformat.v4.new_code_cell(SOLUTION_HEADER + "\n" + _without_markers(cell.source))
                solution.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
                solution.metadata["tags"] = ["worked-solution"]
                cell.source = _learner_answer(cell.source, where)
                _uncollapse(cell)
                cell.metadata.pop("nbgrader", None)
                cell.metadata["tags"] = [t for t in cell.metadata.get("tags", []) if t != "solution"]
                if not cell.metadata["tags"]:
                    cell.metadata.pop("tags")
                cells.append(cell)
                pending = solution
                continue
            if pending is not None and "-check" in cell.metadata.get("nbgrader", {}).get("grade_id", ""):
                cells.append(cell)
                cells.append(pending)
                pending = None
                continue
        if pending is not None:
            cells.append(pending)
            pending = None
        cells.append(cell)
    if pending is not None:
        cells.append(pending)
    for cell in cells:  # the learner copy is not an nbgrader assignment
        if cell.cell_type == "code":
            cell.metadata.pop("nbgrader", None)
    source.cells = cells
    collapse_after_exercises(source)
    return source


def build_learner(notebooks: list[Path], out_dir: Path, *, rebuild: bool = False) -> list[tuple[Path, str]]:
    """Write the learner copy of each notebook into ``out_dir`` unless it is there already.

    Returns (path, what happened) pairs: ``"written"``, ``"kept"`` (a copy exists: the learner's work) or
    ``"rebuilt"`` (``rebuild=True``: the old copy moved to ``out_dir/.backup/NAME.YYYYmmdd-HHMMSS.ipynb``).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    done = []
    for path in notebooks:
        target = out_dir / path.name
        what = "written"
        if target.exists():
            if not rebuild:
                done.append((target, "kept"))
                continue
            backup = out_dir / ".backup"
            backup.mkdir(exist_ok=True)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            moved = backup / f"{path.stem}.{stamp}.ipynb"
            counter = 1
            while moved.exists():
                moved = backup / f"{path.stem}.{stamp}-{counter}.ipynb"
                counter += 1
            shutil.move(target, moved)
            what = "rebuilt"
        nb = nbformat.read(path, as_version=4)
        nbformat.write(learner_notebook(nb, path.name), target)
        done.append((target, what))
    return done


def _uncollapse(cell: nbformat.NotebookNode) -> None:
    jupyter = cell.metadata.get("jupyter", {})
    jupyter.pop("source_hidden", None)
    if not jupyter:
        cell.metadata.pop("jupyter", None)


def build(notebooks: list[Path], out_dir: Path) -> list[Path]:
    """Write a student copy of each notebook into ``out_dir`` (created if missing); returns the written paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(student_notebook(nb, path.name), target)
        written.append(target)
    return written


def nbgrader_course(notebooks: list[Path], course_dir: Path) -> list[Path]:
    """Lay out an nbgrader course directory: one assignment per notebook, named after it.

    Writes ``course_dir/source/NN_name/NN_name.ipynb`` for each notebook (the full notebook, outputs kept,
    answer cells un-collapsed so the released stubs are in view, "After Exercise N" sections collapsed) and ``course_dir/nbgrader_config.py``
    (:data:`NBGRADER_CONFIG`) unless one is there already, so a teacher's own settings survive a re-run.
    Returns the written notebooks.
    """
    (course_dir / "source").mkdir(parents=True, exist_ok=True)
    config = course_dir / "nbgrader_config.py"
    if not config.exists():
        config.write_text(NBGRADER_CONFIG.format(stub=CODE_STUB))
    written = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and (has_solution(cell.source) or has_hidden_tests(cell.source)):
                _uncollapse(cell)
        collapse_after_exercises(nb)  # the released copies open each "After Exercise N" section folded
        target = course_dir / "source" / path.stem / path.name
        target.parent.mkdir(exist_ok=True)
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(
        prog="python -m vitcourse.classroom",
        description="Build student copies of the notebooks (solutions removed), or an nbgrader course directory.",
    )
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="notebooks to copy (default: notebooks/*.ipynb)"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, default=root / "student", help="output folder (default: student/)")
    where.add_argument(
        "--learner",
        action="store_true",
        help="learner copies into learner/ (outputs cleared, worked solutions collapsed, grading cells removed); "
        "an existing copy is kept unless --rebuild",
    )
    where.add_argument(
        "--nbgrader-course",
        type=Path,
        metavar="DIR",
        help="instead of student copies, lay out an nbgrader course directory in DIR "
        "(nbgrader_config.py and source/NN_name/NN_name.ipynb, one assignment per notebook)",
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="with --learner: make the named copies afresh (the old ones move to learner/.backup/)",
    )
    parser.add_argument(
        "--learner-dir",
        type=Path,
        default=root / "learner",
        help="with --learner: the folder (default: learner/)",
    )
    args = parser.parse_args(argv)
    if args.rebuild and not args.learner:
        parser.error("--rebuild works with --learner only (student copies are always written afresh)")
    if args.rebuild and not args.notebooks:
        parser.error(
            "--rebuild needs the notebooks to rebuild, e.g. notebooks/04_attention.ipynb (it never "
            "replaces every copy at once)"
        )
    notebooks = args.notebooks or sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:  # an installed package has no notebooks/ beside it
        print(
            f"no notebooks given and none in {root / 'notebooks'}: name the notebooks to copy",
            file=sys.stderr,
        )
        return 2
    for path in notebooks:
        if not path.exists():
            print(f"no such notebook: {path}", file=sys.stderr)
            return 2
        if not path.is_file():
            parser.error(f"notebooks: {str(path)!r} is not a file; name the .ipynb files to copy")
    if args.learner:
        try:
            writable_folder("--learner-dir", args.learner_dir)
        except ValueError as err:
            parser.error(str(err))
        for target, what in build_learner(notebooks, args.learner_dir, rebuild=args.rebuild):
            if what != "kept":
                print(f"{what} {args.learner_dir.name}/{target.name}")
        print(f"learner copies in {args.learner_dir}/ (an existing copy is never overwritten)")
        return 0
    for option, folder in (("--out", args.out), ("--nbgrader-course", args.nbgrader_course)):
        if folder is not None:
            try:
                writable_folder(option, folder)
            except ValueError as err:
                parser.error(str(err))
    if args.nbgrader_course is not None:
        for target in nbgrader_course(notebooks, args.nbgrader_course):
            print(f"wrote {target.relative_to(args.nbgrader_course)}")
        print(
            f"{len(notebooks)} assignments in {args.nbgrader_course}/source/; next, in that folder: "
            "nbgrader generate_assignment NN_name"
        )
        return 0
    for target in build(notebooks, args.out):
        print(f"wrote {target.name}")
    print(f"{len(notebooks)} student notebooks in {args.out.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
