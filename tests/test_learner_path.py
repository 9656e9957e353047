"""The learner's path through each notebook (README, "How a notebook is laid out"):

* the first cell states the time the notebook takes (at most an hour) and the core's timed sections fit in it;
* the core (every markdown cell before the first heading that contains "Evidence") is at most about 3,500 words,
  so that it can be read in the time stated beside running the cells and trying the exercises;
* where a notebook has an Evidence section, its core links to it;
* at least 80 % of the course's exercises ask for a prediction, an explanation, a design, a bug to find or a
  figure to read (a code exercise is the rest), and every exercise names its kind;
* no stored output or text between an exercise and the next heading states the exercise's right value, other
  than the worked solution's own collapsed cell;
* an "After Exercise N" fold (its heading cell up to the next heading cell of level 1 to 3, what JupyterLab hides
  while it is folded) holds at most 4 cells, the ones that give the answer away, and no start of a numbered
  section: core content after an answer sits under a heading of its own, not hidden in the fold;
* every notebook but the errata appendix is an hour-long unit: a first-time learner's minutes for its core (prose
  at 180 words a minute, 0.75 min per code cell, 1 min per figure, 8 min per exercise) are at most 60, its stated
  time lies within 15 % of them, and it holds at most 4 exercises;
* the course's order: the notebooks before training (``10_training``) read no trained model and use none of the
  training words in their core; training teaches them first.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from vitcourse.classroom import has_hidden_tests, has_solution

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_CORE_WORDS = 3600
MAX_MINUTES = 60
WORDS_PER_MINUTE = 200
THINKING = ("predict", "explain", "design", "find the bug", "read a figure")
KINDS = (*THINKING, "code")
_EXERCISE = re.compile(r"(?:\*\*|#+ )Exercise (\d+)\s*\(([^)]*)\)", re.I)
_TIME = re.compile(r"\*\*Time:\*\*\s*about\s+(\d+)\s+minutes", re.I)
_SECTION_TIME = re.compile(r"\((?:about\s+)?(\d+)\s*min(?:utes)?\)\s*$")


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _is_evidence(line: str) -> bool:
    return bool(re.match(r"#+ .*evidence", line, re.I))


def split_core(cells: list) -> tuple[list, list]:
    """(core cells, evidence cells): the core ends at the first heading that contains "Evidence"."""
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and any(_is_evidence(line) for line in cell.source.splitlines()):
            return cells[:index], cells[index:]
    return cells, []


def _clean(text: str) -> str:
    """Prose as a reader counts it: maths and inline code one word each, headings left out."""
    text = re.sub(r"\$\$.*?\$\$", " X ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]*\$", " X ", text)
    text = re.sub(r"`[^`\n]*`", " X ", text)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def core_words(cells: list) -> int:
    core, _ = split_core(cells)
    return len(_clean("\n".join(c.source for c in core if c.cell_type == "markdown")).split())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_notebook_states_its_time_and_the_core_fits_in_it(path: Path) -> None:
    cells = _read(path).cells
    first = next(c for c in cells if c.cell_type == "markdown")
    found = _TIME.search(first.source)
    assert found, f"{path.name}: the first cell must say '**Time:** about N minutes'"
    minutes = int(found.group(1))
    assert 0 < minutes <= MAX_MINUTES, f"{path.name}: {minutes} minutes; a notebook takes at most an hour"
    words = core_words(cells)
    assert words <= MAX_CORE_WORDS, (
        f"{path.name}: the core has {words} words of prose (at most {MAX_CORE_WORDS})"
    )
    assert words / WORDS_PER_MINUTE < minutes, f"{path.name}: reading the core alone takes longer than stated"
    core, _ = split_core(cells)
    sections = [
        line
        for c in core
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("## ")
    ]
    timed = [int(m.group(1)) for line in sections if (m := _SECTION_TIME.search(line))]
    untimed = [line for line in sections if not _SECTION_TIME.search(line) and "summary" not in line.lower()]
    assert not untimed, f"{path.name}: core sections without a time estimate: {untimed}"
    assert timed, f"{path.name}: the core has no timed '## ' section"
    assert sum(timed) <= minutes, (
        f"{path.name}: the sections take {sum(timed)} min, the notebook says {minutes}"
    )


def _anchor(heading: str) -> str:
    return "#" + re.sub(r"^#+\s*", "", heading.strip()).replace(" ", "-")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_core_links_to_its_evidence(path: Path) -> None:
    core, evidence = split_core(_read(path).cells)
    if path.name[:2] in {"03", "05", "06", "07", "09", "12", "13", "14"}:
        assert evidence, f"{path.name}: the findings' evidence belongs in a section headed 'Evidence ...'"
    if not evidence:
        return
    anchors = {
        _anchor(line)
        for c in evidence
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if re.match(r"#+ ", line)
    }
    links = set(
        re.findall(r"\]\((#[^)\s]+)\)", "\n".join(c.source for c in core if c.cell_type == "markdown"))
    )
    evidence_links = {link for link in links if link.lower().startswith("#evidence")}
    assert evidence_links, f"{path.name}: the core never links to its Evidence section"
    broken = evidence_links - anchors
    assert not broken, f"{path.name}: links to no heading: {sorted(broken)}; headings: {sorted(anchors)}"


def _exercises() -> list[tuple[str, int, str]]:
    found = []
    for path in NOTEBOOKS:
        for cell in _read(path).cells:
            if cell.cell_type == "markdown":
                found += [
                    (path.stem, int(n), kind.strip().lower()) for n, kind in _EXERCISE.findall(cell.source)
                ]
    return found


def test_exercises_make_one_think() -> None:
    exercises = _exercises()
    assert len(exercises) >= 25, f"only {len(exercises)} exercises found"
    unnamed = [e for e in exercises if not e[2].startswith(KINDS)]
    assert not unnamed, f"exercises whose kind is not one of {KINDS}: {unnamed}"
    thinking = [e for e in exercises if e[2].startswith(THINKING)]
    share = len(thinking) / len(exercises)
    assert share >= 0.8, f"{share:.0%} of the exercises ask for thought; code-only ones: " + str(
        [e for e in exercises if not e[2].startswith(THINKING)]
    )


def test_exercises_are_numbered_once_per_notebook() -> None:
    seen: dict[str, list[int]] = {}
    for stem, number, _ in _exercises():
        seen.setdefault(stem, []).append(number)
    for stem, numbers in seen.items():
        assert len(numbers) == len(set(numbers)), f"{stem}: an exercise is announced twice: {numbers}"


# --- No answer right below the exercise.


def _answers() -> dict[str, object]:
    values: dict[str, object] = {}
    for path in sorted((ROOT / "tests" / "answers").glob("nb*.py")):
        spec = importlib.util.spec_from_file_location(f"answers_path_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        values.update({checker.__name__: value for checker, value in module.VALUE_CHECKS.items()})
    return values


def value_forms(value: object) -> list[str]:
    """How a stored output could state the value: distinctive forms only (a small whole number, such as 4,
    appears everywhere in a notebook for other reasons)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [str(value), f"{value:,}"] if abs(value) >= 10 else []
    if isinstance(value, float):
        if value == int(value):
            return value_forms(int(value))
        forms = {f"{value:.3f}", f"{value:.4f}", f"{value:.3g}", f"{value:.4g}"}
        return sorted(f for f in forms if len(f.strip("0.-")) >= 2)
    if isinstance(value, tuple | list) and all(isinstance(v, int) for v in value):
        return [str(tuple(value)), " x ".join(map(str, value)), " × ".join(map(str, value))]
    return []


def _text(cell: nbformat.NotebookNode) -> str:
    if cell.cell_type == "markdown":
        return cell.source
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(str(out["data"].get("text/plain", "")))
            parts.append(str(out["data"].get("text/html", "")))
    return "".join(parts)


def _spans(cells: list) -> list[tuple[str, int, int, int]]:
    """(checker name, index of the exercise's markdown, index of the check cell, end of the span) per value
    exercise: the span runs from the exercise to the next markdown heading after its check cell."""
    spans = []
    for index, cell in enumerate(cells):
        grade = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type != "code" or not grade.endswith("-check"):
            continue
        start = max(
            (i for i in range(index) if cells[i].cell_type == "markdown" and "Exercise" in cells[i].source),
            default=None,
        )
        if start is None:
            continue
        end = next(
            (
                i
                for i in range(index + 1, len(cells))
                if cells[i].cell_type == "markdown" and re.search(r"^#+ ", cells[i].source, re.M)
            ),
            len(cells),
        )
        for name in re.findall(r"check\.(\w+)\(", cell.source):
            spans.append((name, start, index, end))
    return spans


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_output_below_an_exercise_states_its_answer(path: Path) -> None:
    answers = _answers()
    cells = _read(path).cells
    for name, start, _check, end in _spans(cells):
        forms = value_forms(answers.get(name))
        if not forms:
            continue
        for i in range(start + 1, end):
            cell = cells[i]
            if cell.cell_type == "code" and (has_solution(cell.source) or has_hidden_tests(cell.source)):
                if cell.get("outputs"):
                    hidden = cell.metadata.get("jupyter", {})
                    assert hidden.get("outputs_hidden") and hidden.get("source_hidden"), (
                        f"{path.name}, cell {i}: the worked solution prints; collapse its output too"
                    )
                continue
            text = _text(cell)
            for form in forms:
                assert not re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d])", text), (
                    f"{path.name}, cell {i}: states {form!r}, the answer of {name} (exercise at cell {start}), "
                    f"before the next heading; move it after a heading or into the worked solution"
                )


def test_the_answer_finder_finds_an_answer() -> None:
    """The test above can fail: a stored output that prints the value is caught."""
    assert "8.579" in value_forms(8.5787)
    assert "41,126" in value_forms(41126)
    assert value_forms(4) == []
    nb = nbformat.v4.new_notebook()
    exercise = nbformat.v4.new_markdown_cell("**Exercise 2 (predict).** How many?")
    check_cell = nbformat.v4.new_code_cell("check.scores_growth(answer)")
    check_cell.metadata["nbgrader"] = {"grade_id": "scores_growth-check"}
    reveal = nbformat.v4.new_code_cell("print(x)")
    reveal.outputs = [nbformat.v4.new_output("stream", text="growth: 8.579 times\n")]
    nb.cells = [exercise, check_cell, reveal, nbformat.v4.new_markdown_cell("## Next")]
    assert _spans(nb.cells) == [("scores_growth", 0, 1, 3)]


# --- An "After Exercise N" fold hides the answer and no more.

MAX_FOLD_CELLS = 4
_AFTER_EXERCISE = re.compile(r"(#{1,6}) After Exercise (\d+)")
_HEADING = re.compile(r"(#{1,6}) ")
# Folds every cell of which shows the exercise's answer, so that none can move out: (notebook, exercise) -> cells.
LONG_FOLDS = {
    # The seams inside the patches (figure, shared patches counted), then the blind model's outputs differing
    # and a blind ViT beating chance on 10 x 10 scrambles: each shows the answer (b) or its reason (i).
    ("11_training_choices", 3): 8,
    # The control the exercise asks for, then its run (heading, what it changes, the run): each names the answer.
    ("13_inside_trained_models", 3): 5,
}


def _first_line(cell: nbformat.NotebookNode) -> str:
    lines = [line.strip() for line in cell.source.splitlines() if line.strip()]
    return lines[0] if lines else ""


def _heading_level(cell: nbformat.NotebookNode) -> int:
    """The level of the heading a markdown cell starts with, as JupyterLab folds by it; 0 for no heading."""
    found = _HEADING.match(_first_line(cell)) if cell.cell_type == "markdown" else None
    return len(found.group(1)) if found else 0


def after_exercise_folds(cells: list) -> list[tuple[int, int, list]]:
    """(exercise number, index of the "After Exercise N" heading cell, the cells it folds) per fold. Folded, a
    heading hides every cell up to the next heading cell of its own level or a higher one (### : levels 1 to 3)."""
    folds = []
    for index, cell in enumerate(cells):
        found = _AFTER_EXERCISE.fullmatch(_first_line(cell)) if cell.cell_type == "markdown" else None
        if not found:
            continue
        level = len(found.group(1))
        end = next(
            (i for i in range(index + 1, len(cells)) if 0 < _heading_level(cells[i]) <= level), len(cells)
        )
        folds.append((int(found.group(2)), index, cells[index + 1 : end]))
    return folds


def starts_numbered_section(cell: nbformat.NotebookNode) -> bool:
    """A markdown cell that opens a numbered section: "#### 4. ...", "**4. ...**" or "4. ... (5 min)"."""
    line = _first_line(cell)
    if cell.cell_type != "markdown":
        return False
    if re.match(r"(?:#{1,6}\s+|\*\*)\d+(?:\.\d+)*\.?\s", line):
        return True
    return bool(re.match(r"\d+(?:\.\d+)*\.?\s", line) and _SECTION_TIME.search(line.rstrip("*")))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_an_after_exercise_fold_holds_the_answer_and_no_more(path: Path) -> None:
    """A learner opens an "After Exercise N" fold only after trying, so the fold holds what gives the answer away
    (its worked discussion, the cells that print or draw it), at most a few cells; what follows, new theory,
    the section's next step, a figure that shows no answer, sits under a heading of its own."""
    cells = _read(path).cells
    for number, index, folded in after_exercise_folds(cells):
        count, limit = len(folded), LONG_FOLDS.get((path.stem, number), MAX_FOLD_CELLS)
        assert count <= limit, (
            f"{path.name}, cell {index}: the fold after Exercise {number} hides {count} cells (at most {limit}); "
            f"end it with a '### ' heading cell where the answer ends and other content begins"
        )
        if (path.stem, number) in LONG_FOLDS:
            assert count > MAX_FOLD_CELLS, f"{path.name}: Exercise {number} no longer needs LONG_FOLDS"
        numbered = [_first_line(c) for c in folded if starts_numbered_section(c)]
        assert not numbered, (
            f"{path.name}, cell {index}: the fold after Exercise {number} hides the start of a section: {numbered}"
        )


def test_the_fold_rule_can_fail() -> None:
    """The folds are read as JupyterLab folds them: a '### ' or higher heading ends one, a '#### ' does not."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("### After Exercise 1"),
        md("The answer, worked through."),
        code("print(answer)"),
        md("#### 4. The next section (5 min)\n\nNew theory."),
        md("**5. Another one**"),
        md("1. a list, not a section"),
        md("### After Exercise 2"),
        code("print(answer)"),
        md("### The next step"),
        md("Visible."),
    ]
    folds = after_exercise_folds(cells)
    assert [(number, index, len(folded)) for number, index, folded in folds] == [(1, 0, 5), (2, 6, 1)]
    assert [starts_numbered_section(c) for c in folds[0][2]] == [False, False, True, True, False]
    assert starts_numbered_section(md("2. Queries, keys and values (8 min)"))


def _stated_minutes(path: Path) -> int | None:
    first = next(c for c in _read(path).cells if c.cell_type == "markdown")
    found = _TIME.search(first.source)
    return int(found.group(1)) if found else None


def _minutes_in(text: str) -> int | None:
    if found := re.search(r"(\d+)\s*min", text):
        return int(found.group(1))
    if re.search(r"\b(1|one) hour\b", text):
        return 60
    return None


def test_the_course_map_gives_each_notebooks_own_time() -> None:
    """00's course map says how long each notebook takes: the time that notebook states in its first cell."""
    start = next(p for p in NOTEBOOKS if p.name.startswith("00_"))
    rows = [
        line
        for c in _read(start).cells
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("|") and ".ipynb)" in line
    ]
    linked = {re.search(r"\((\d\d_[^)]+\.ipynb)\)", row).group(1): row for row in rows}
    assert {p.name for p in NOTEBOOKS} - {start.name} <= set(linked), "the map must list every notebook"
    for name, row in linked.items():
        stated = _stated_minutes(ROOT / "notebooks" / name)
        assert _minutes_in(row) == stated, f"00's map gives {name} {_minutes_in(row)} min; it says {stated}"


UNIT_MINUTES = 60
STATED_TOLERANCE = 0.15
MAX_EXERCISES = 4
WORDS_A_MINUTE = 180
_APPENDIX = "_errata"


def learner_minutes(cells: list) -> tuple[float, int]:
    """(minutes, exercises) of a notebook's core for a first-time learner, by the course's rule of thumb."""
    core, _ = split_core(cells)
    code = [c for c in core if c.cell_type == "code"]
    figures = sum("image/png" in o.get("data", {}) for c in code for o in c.get("outputs", []))
    exercises = sum("solution" in c.metadata.get("tags", []) for c in code)
    return core_words(cells) / WORDS_A_MINUTE + 0.75 * len(code) + figures + 8 * exercises, exercises


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_unit_fits_an_hour_and_states_its_time(path: Path) -> None:
    cells = _read(path).cells
    minutes, exercises = learner_minutes(cells)
    stated = int(_TIME.search(next(c for c in cells if c.cell_type == "markdown").source).group(1))
    assert abs(stated - minutes) <= STATED_TOLERANCE * minutes, (
        f"{path.name}: states {stated} min, the core takes a first-time learner about {minutes:.0f}"
    )
    if path.stem.endswith(_APPENDIX):
        return
    assert minutes <= UNIT_MINUTES, (
        f"{path.name}: about {minutes:.0f} learner-minutes; a unit takes at most an hour"
    )
    assert exercises <= MAX_EXERCISES, f"{path.name}: {exercises} exercises (at most {MAX_EXERCISES})"


def test_the_unit_rule_can_fail() -> None:
    """The estimate counts what it says: 180 words, a code cell, a figure and an exercise."""
    md = nbformat.v4.new_markdown_cell(" ".join(["word"] * 180))
    code = nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["solution"]})
    code.outputs = [nbformat.v4.new_output("display_data", data={"image/png": ""})]
    evidence = nbformat.v4.new_markdown_cell("## Evidence: more\n\n" + " ".join(["word"] * 900))
    assert learner_minutes([md, code, evidence]) == (1 + 0.75 + 1 + 8, 1)


# Words that training teaches (notebook 10): a notebook before it must not lean on them in its core.
TRAINING_WORDS = re.compile(
    r"training loss|cross-entropy|\bln 2\b|AdamW|weight decay|fine-tun|pre-train|\bteacher\b", re.I
)


def _before_training() -> list[Path]:
    first = next(p for p in NOTEBOOKS if p.stem.endswith("_training"))
    return [p for p in NOTEBOOKS if "00" < p.name[:2] < first.name[:2]]


@pytest.mark.parametrize("path", _before_training(), ids=lambda p: p.stem)
def test_the_parts_come_before_training(path: Path) -> None:
    core, _ = split_core(_read(path).cells)
    found = sorted(
        {
            m.group(0).lower()
            for c in core
            if c.cell_type == "markdown"
            for m in TRAINING_WORDS.finditer(c.source)
        }
    )
    assert not found, f"{path.name}: its core leans on words that notebook 10 teaches: {found}"
    readers = ("load_shipped", "load_checkpoint", "load_encoder", "load_sky")
    loads = [c.source for c in core if c.cell_type == "code" and any(r in c.source for r in readers)]
    assert not loads, f"{path.name}: its core reads a trained model before training is taught"
