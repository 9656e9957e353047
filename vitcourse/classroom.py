"""Student copies of the course: solutions out, outputs cleared, everything else kept.

Solutions sit between nbgrader's markers in code cells::

    answer = None  # replace None with your answer
    ### BEGIN SOLUTION
    answer = 60
    ### END SOLUTION

:func:`strip_solutions` replaces each marked block (markers included) by a stub at the same indentation that
raises ``NotImplementedError`` with a friendly sentence. Lines outside the markers stay, so a placeholder such
as ``answer = None`` still runs and the check cell after it prints a hint instead of failing. Because the markers
are nbgrader's, a teacher who uses nbgrader can import the full notebooks as they are.

Command line (``make student`` runs it)::

    python -m vitcourse.classroom                  # notebooks/*.ipynb -> student/
    python -m vitcourse.classroom --out handout notebooks/02_soft_split.ipynb
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from ._validate import instance_of

__all__ = [
    "BEGIN",
    "END",
    "STUB_MESSAGE",
    "has_solution",
    "strip_solutions",
    "student_notebook",
    "build",
    "main",
]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB_MESSAGE = "This exercise is yours: replace this line with your answer, then run the check below."
_MARKER = re.compile(r"^(?P<indent>[ \t]*)### (?P<kind>BEGIN|END) SOLUTION[ \t]*$")


def has_solution(source: str) -> bool:
    """Whether a cell's source holds a solution block."""
    instance_of("source", source, str, "a cell's source (a str)")
    return any(_MARKER.match(line) for line in source.splitlines())


def strip_solutions(source: str, where: str = "cell") -> str:
    """Replace every solution block in ``source`` by a stub that raises ``NotImplementedError``.

    Args:
        source: a code cell's source.
        where: names the cell in error messages (e.g. ``"01_patch_tokenization.ipynb, cell 23"``).

    Raises:
        ValueError: a BEGIN without its END, an END without a BEGIN, or nested blocks.
    """
    instance_of("source", source, str, "a cell's source (a str)")
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), start=1):
        match = _MARKER.match(line)
        if match and match["kind"] == "BEGIN":
            if inside:
                raise ValueError(f"{where}, line {number}: {BEGIN} inside another solution block")
            inside = True
            indent = match["indent"]
            out.append(f"{indent}# YOUR CODE HERE")
            out.append(f"{indent}raise NotImplementedError({STUB_MESSAGE!r})")
        elif match:
            if not inside:
                raise ValueError(f"{where}, line {number}: {END} without a {BEGIN}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: {BEGIN} without its {END}")
    return "\n".join(out)


def student_notebook(nb: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """A student copy of ``nb``: solutions stubbed, every output and execution count cleared.

    Exercise cells are un-collapsed (their ``jupyter.source_hidden`` flag is dropped) so students see the stub.
    """
    student = nbformat.from_dict(nb)
    for index, cell in enumerate(student.cells):
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        if has_solution(cell.source):
            cell.source = strip_solutions(cell.source, f"{name}, cell {index}")
            jupyter = cell.metadata.get("jupyter", {})
            jupyter.pop("source_hidden", None)
            if not jupyter:
                cell.metadata.pop("jupyter", None)
    return student


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


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(
        prog="python -m vitcourse.classroom",
        description="Build student copies of the notebooks (solutions removed).",
    )
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="notebooks to copy (default: notebooks/*.ipynb)"
    )
    parser.add_argument(
        "--out", type=Path, default=root / "student", help="output folder (default: student/)"
    )
    args = parser.parse_args(argv)
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
    for target in build(notebooks, args.out):
        print(f"wrote {target.name}")
    print(f"{len(notebooks)} student notebooks in {args.out.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
