"""Hints lead to the idea, never to the method (README, "How a learner meets an exercise").

Read from the checkers' source (``vitcourse/check/nbNN.py``) with :mod:`ast`, so that every hint is checked,
also those only a rare wrong answer reaches:

* every call that can give an unexplained wrong answer its ladder (``int_answer``, ``float_answer``,
  ``shape_answer``, ``choice_answer``, ``check_function``, ``unexplained``) passes ``nudge=`` and ``pointer=``
  by keyword;
* every pointer is ``reread("Heading")`` and the heading is a section of the checker's own notebook;
* no hint string (nudge, pointer, diagnosis of a known mistake) holds a line of the notebook's worked
  solutions (the solution's key step), an arrow between shapes (``(B, N, C) -> (B, C, N)``: a recipe), or
  inline code that calls or indexes something.

The value itself (and any expression that evaluates to it) is ruled out by ``tests/test_check.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from vitcourse.classroom import has_solution

ROOT = Path(__file__).resolve().parent.parent
CHECKERS = sorted((ROOT / "vitcourse" / "check").glob("nb[0-9][0-9].py"))
LADDER = {"int_answer", "float_answer", "shape_answer", "choice_answer", "check_function", "unexplained"}
_MARKER = re.compile(r"^\s*### (BEGIN|END) (SOLUTION|HIDDEN TESTS)\s*$")


def _notebook_source(checker: Path) -> Path:
    number = checker.stem[2:]
    found = sorted((ROOT / "notebooks").glob(f"{number}_*.py"))
    assert found, f"{checker.name}: no notebook source notebooks/{number}_*.py"
    return found[0]


def _cells(source: Path) -> list[tuple[str, str]]:
    """(kind, text) per cell of a py:percent notebook source; markdown without its leading '# '."""
    cells: list[tuple[str, list[str]]] = []
    for line in source.read_text().splitlines():
        if line.startswith("# %%"):
            cells.append(("markdown" if "[markdown]" in line else "code", []))
        elif cells:
            cells[-1][1].append(line)
    out = []
    for kind, lines in cells:
        if kind == "markdown":
            lines = [re.sub(r"^# ?", "", line) for line in lines]
        out.append((kind, "\n".join(lines)))
    return out


def normalise_heading(text: str) -> str:
    """A heading as a pointer names it: no '#', no leading number ('2.' or '2.1'), no '(N min)' suffix."""
    text = re.sub(r"^#+\s*", "", text.strip())
    text = re.sub(r"^\d+(\.\d+)*\.?\s+", "", text)
    text = re.sub(r"\s*\(\s*(about\s+)?\d+\s*min(utes)?\s*\)\s*$", "", text)
    return text.strip()


def headings(source: Path) -> set[str]:
    found = set()
    for kind, text in _cells(source):
        if kind == "markdown":
            found |= {normalise_heading(line) for line in text.splitlines() if re.match(r"#+ ", line)}
    return found


def solution_lines(source: Path) -> set[str]:
    """The worked solutions' code lines that carry a step (comments and short lines left out)."""
    lines = set()
    for kind, text in _cells(source):
        if kind != "code" or not has_solution(text):
            continue
        inside = False
        for line in text.splitlines():
            if _MARKER.match(line):
                inside = "BEGIN SOLUTION" in line
                continue
            code = line.split("  #")[0].strip()
            if inside and len(code) >= 14 and not code.startswith(("#", "return ", "def ", "print(")):
                lines.add(re.sub(r"\s+", "", code))
    return lines


def _resolve(node: ast.AST, constants: dict[str, ast.AST]) -> ast.AST:
    while isinstance(node, ast.Name) and node.id in constants:
        node = constants[node.id]
    return node


def _strings(node: ast.AST) -> list[str]:
    """The literal text of a string expression (f-string parts included)."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _module(checker: Path) -> tuple[ast.Module, dict[str, ast.AST]]:
    tree = ast.parse(checker.read_text())
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return tree, constants


def _ladder_calls(tree: ast.Module) -> list[ast.Call]:
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in LADDER:
                calls.append(node)
    return calls


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda p: p.stem)
def test_every_ladder_gets_a_nudge_and_a_section_to_reread(checker: Path) -> None:
    tree, constants = _module(checker)
    sections = headings(_notebook_source(checker))
    calls = _ladder_calls(tree)
    if checker.stem != "nb00":
        assert calls, f"{checker.name}: no checker found (the test would pass vacuously)"
    for call in calls:
        where = f"{checker.name}, line {call.lineno}"
        keywords = {k.arg: k.value for k in call.keywords}
        assert "nudge" in keywords and "pointer" in keywords, f"{where}: pass nudge= and pointer= by keyword"
        pointer = _resolve(keywords["pointer"], constants)
        assert (
            isinstance(pointer, ast.Call)
            and getattr(pointer.func, "id", getattr(pointer.func, "attr", "")) == "reread"
            and len(pointer.args) == 1
            and isinstance(pointer.args[0], ast.Constant)
        ), f"{where}: the pointer must be reread('a heading of the notebook')"
        section = pointer.args[0].value
        assert section in sections, (
            f"{where}: reread({section!r}) names no section of {_notebook_source(checker).name}; "
            f"its sections: {sorted(sections)}"
        )
        nudge = _resolve(keywords["nudge"], constants)
        assert _strings(nudge) and "".join(_strings(nudge)).strip(), f"{where}: the nudge is empty"


_CODE = re.compile(r"`[^`]*[(\[][^`]*`")


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda p: p.stem)
def test_no_hint_holds_the_method(checker: Path) -> None:
    tree, _ = _module(checker)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    steps = solution_lines(_notebook_source(checker))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docstrings:
            continue
        text = node.value
        if len(text) < 25 or " " not in text:
            continue  # names, keys, format pieces: not a sentence a learner reads
        where = f"{checker.name}, line {node.lineno}"
        assert "->" not in text and "→" not in text, f"{where}: a hint spells out a recipe: {text!r}"
        assert not _CODE.search(text), f"{where}: a hint shows the code to write: {text!r}"
        squeezed = re.sub(r"\s+", "", text)
        for step in steps:
            assert step not in squeezed, f"{where}: the hint holds the worked solution's line {step!r}"


def test_the_hint_tests_can_fail() -> None:
    """The checks above catch what they are meant to catch."""
    assert _CODE.search("use `x.transpose(1, 2)` first")
    assert normalise_heading("## 2. Attention as a lookup (10 min)") == "Attention as a lookup"
    assert normalise_heading("### 3.1 Scores (about 5 min)") == "Scores"
    tree = ast.parse("int_answer(a, 1, 'w', 'Think.', pointer='Look at dim 1.')")
    call = _ladder_calls(tree)[0]
    assert isinstance({k.arg: k.value for k in call.keywords}["pointer"], ast.Constant)  # not reread(...)
