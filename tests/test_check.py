"""The exercise checkers: right answers pass, wrong answers of every kind get a hint, nothing ever raises."""

import ast
import importlib
import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vitcourse import check
from vitcourse.check import _core as check_core


def _load_answers() -> tuple[dict, dict, list]:
    """Merge tests/answers/nbNN.py: one file of right answers and diagnosed mistakes per notebook."""
    values: dict = {}
    functions: dict = {}
    mistakes: list = []
    for path in sorted((Path(__file__).parent / "answers").glob("nb*.py")):
        spec = importlib.util.spec_from_file_location(f"answers_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        values.update(module.VALUE_CHECKS)
        functions.update(module.FUNCTION_CHECKS)
        mistakes.extend(module.MISTAKES)
    return values, functions, mistakes


VALUE_CHECKS, FUNCTION_CHECKS, MISTAKES = _load_answers()
ALL_CHECKS = list(VALUE_CHECKS) + list(FUNCTION_CHECKS)


@pytest.mark.parametrize("checker", list(VALUE_CHECKS), ids=lambda f: f.__name__)
def test_right_value_passes(checker, capsys) -> None:
    verdict = checker(VALUE_CHECKS[checker])
    assert verdict and verdict.ok
    assert capsys.readouterr().out.startswith("✓")


@pytest.mark.parametrize("checker", list(FUNCTION_CHECKS), ids=lambda f: f.__name__)
def test_right_function_passes(checker, capsys) -> None:
    assert checker(FUNCTION_CHECKS[checker])
    assert capsys.readouterr().out.startswith("✓")


def _raises(*args):
    raise RuntimeError("boom")


def _not_implemented(*args):
    raise NotImplementedError


WRONG = [
    None,
    "60",
    3.5,
    float("nan"),
    float("inf"),
    -1,
    0,
    10**9,
    True,
    (1,),
    (15, 25, 3),
    [1, 2, 3],
    {"rows": 15},
    np.zeros((2, 2)),
    torch.zeros(3, 3),
    torch.tensor(float("nan")),
    _raises,
    _not_implemented,
    lambda *a: None,
    lambda *a: torch.zeros(1),
    lambda *a: np.zeros((1, 15, 400)),
    lambda *a: torch.full((1, 15, 400), float("nan")),
    lambda *a: "text",
    torch.zeros(3, device="meta"),
    lambda *a: torch.zeros(1, 15, 400, device="meta"),
    lambda *a: torch.zeros(1, 15, 400, dtype=torch.complex64),
    lambda *a: torch.zeros(1, 15, 400, dtype=torch.int64),
    lambda *a: [(1, 2)],
]


@pytest.mark.parametrize("checker", ALL_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("answer", WRONG, ids=lambda a: type(a).__name__)
def test_wrong_answers_get_a_hint_and_never_raise(checker, answer, capsys) -> None:
    verdict = checker(answer)
    out = capsys.readouterr().out
    assert not verdict
    assert out.startswith("✗") and len(out.strip()) > 20  # a sentence, not just a mark


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    checker=st.sampled_from(ALL_CHECKS),
    answer=st.one_of(
        st.none(),
        st.integers(-(10**12), 10**12),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),
        st.lists(st.integers(-5, 30), max_size=5),
        st.tuples(st.integers(-5, 30), st.integers(-5, 30)),
    ),
)
def test_fuzzed_answers_never_raise(checker, answer, capsys) -> None:
    verdict = checker(answer)
    out = capsys.readouterr().out
    assert isinstance(verdict, check.Verdict)
    assert out.startswith("✓" if verdict else "✗")


_tensors = st.builds(
    lambda shape, dtype, fill: torch.full(shape, fill).to(dtype),
    st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple),
    st.sampled_from([torch.float32, torch.float16, torch.float64, torch.int64, torch.bool, torch.complex64]),
    st.sampled_from([0.0, 1.0, -3.5, float("nan"), float("inf")]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    checker=st.sampled_from(ALL_CHECKS),
    result=st.one_of(_tensors, _tensors.map(lambda t: t.numpy() if t.dtype != torch.complex64 else t)),
)
def test_fuzzed_tensors_and_functions_returning_them_never_raise(checker, result, capsys) -> None:
    for answer in (result, lambda *a, r=result: r):
        verdict = checker(answer)
        out = capsys.readouterr().out
        assert isinstance(verdict, check.Verdict) and out.startswith("✓" if verdict else "✗")


@pytest.mark.parametrize(
    ("checker", "answer", "phrase"), MISTAKES, ids=[f"{m[0].__name__}-{i}" for i, m in enumerate(MISTAKES)]
)
def test_typical_mistakes_are_named(checker, answer, phrase, capsys) -> None:
    verdict = checker(answer)
    out = capsys.readouterr().out
    assert not verdict
    assert phrase in out, f"{checker.__name__}: expected the hint to say {phrase!r}, got: {out}"


def test_verdict_shows_nothing_in_a_notebook() -> None:
    verdict = check.count_growth(4)
    assert verdict._ipython_display_() is None
    assert "ok=True" in repr(verdict)


def test_every_public_checker_is_fuzzed() -> None:
    public = {getattr(check, name) for name in check.__all__ if name not in ("Verdict", "require")}
    assert public == set(ALL_CHECKS)


def test_check_function_can_keep_the_failing_case_out_of_its_verdict(capsys) -> None:
    """With ``show_args=False`` a wrong function's verdict names no arguments (where a failing case is itself an
    answer to find, as in 01 Ex 2), for a known mistake, an unexplained result and an exception alike."""
    from vitcourse.check._core import Mistake, check_function

    cases = [((45, 30), 4), ((7, 11), 2)]
    mistakes = [Mistake(lambda a, b: 0, "zero is the known mistake")]
    for func in (lambda a, b: 0, lambda a, b: 99, lambda a, b: 1 // 0):
        for show, named in ((True, True), (False, False)):
            message = check_function(func, "f", cases, mistakes=mistakes, show_args=show).message
            assert ("45, 30" in message) is named, message
    check_core.reset_attempts()
    capsys.readouterr()


def test_check_function_names_a_known_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    from vitcourse.check._core import Mistake, check_function

    x = torch.randn(3, 4)
    cases = [((x,), x.softmax(-1))]
    mistakes = [Mistake(lambda t: t.softmax(0), "softmax over the wrong axis")]
    assert not check_function(lambda t: t.softmax(0), "softmax", cases, mistakes=mistakes)
    assert "softmax over the wrong axis" in capsys.readouterr().out
    # An unknown wrong answer falls back to the first differing entry.
    assert not check_function(lambda t: t * 0, "softmax", cases, mistakes=mistakes)
    assert "differs at index" in capsys.readouterr().out
    assert check_function(lambda t: t.softmax(-1), "softmax", cases, mistakes=mistakes)


def test_a_learner_sys_exit_does_not_escape(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    assert not check.patchify_function(lambda x, p: sys.exit(1))
    assert "SystemExit" in capsys.readouterr().out


def test_require_is_silent_on_a_right_answer_and_fails_with_the_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check.require(check.count_growth, 4) is None
    assert capsys.readouterr().out == ""  # the check cell above the grading cell already printed the verdict
    with pytest.raises(AssertionError, match="how much each side of the picture grows"):
        check.require(check.count_growth, 2)
    with pytest.raises(AssertionError, match="still None"):
        check.require(check.count_growth, None)
    with pytest.raises(AssertionError, match="not written yet"):
        check.require(check.patchify_function, _not_written)
    assert capsys.readouterr().out == ""


def _not_written(images: torch.Tensor, p: int) -> torch.Tensor:
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "answer", "phrase"), MISTAKES, ids=[f"{m[0].__name__}-{i}" for i, m in enumerate(MISTAKES)]
)
def test_require_fails_on_every_typical_mistake(checker, answer, phrase) -> None:
    with pytest.raises(AssertionError) as raised:
        check.require(checker, answer)
    assert phrase in str(raised.value)


def test_require_refuses_what_is_not_a_checker() -> None:
    with pytest.raises(TypeError, match="checker must be a function of vitcourse.check"):
        check.require("count_growth", 4)
    with pytest.raises(TypeError, match="checker must return a Verdict"):
        check.require(lambda answer: answer == 60, 60)


# --- No answer before an attempt: what a right answer prints, and the hint ladder for unexplained wrong answers.

_NUMBER = r"\d+(?:[.,_]\d+)*(?:[eE][-+]?\d+)?"
_EXPRESSION = re.compile(rf"[(\s]*{_NUMBER}(?:[\s)(]*(?:\*\*|//|[-+*/^×÷·x])[\s(]*{_NUMBER}[)\s]*)+")


def _value_forms(value: object) -> list[str]:
    """The ways a number (or a tuple of sizes) could be written in a hint."""
    if isinstance(value, tuple | list):
        return [str(tuple(value)), ", ".join(str(v) for v in value), " x ".join(str(v) for v in value)]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return []
    forms = {repr(value), f"{value:,}", f"{value:_}"} if isinstance(value, int) else set()
    if isinstance(value, float):
        forms |= {f"{value:.{n}g}" for n in (3, 4, 5, 6)} | {repr(value)}
        if value == int(value):
            forms.add(str(int(value)))
    return sorted(forms)


def _evaluations(text: str) -> list[tuple[str, float]]:
    """Every arithmetic expression with numbers in ``text`` and each of its contiguous sub-expressions, with
    their values: ``"(45 // 10) * 10 + 30 // 10 + 1"`` yields 44 among others."""
    found = []
    for match in _EXPRESSION.finditer(text):
        expression = match.group(0)
        tokens = re.findall(rf"{_NUMBER}|\*\*|//|[-+*/^×÷·x()]", expression)
        for i in range(len(tokens)):
            for j in range(i + 1, len(tokens) + 1):
                piece = " ".join(tokens[i:j])
                python = piece.replace("×", "*").replace("÷", "/").replace("·", "*").replace("^", "**")
                python = re.sub(r"\bx\b", "*", python).replace(",", "").replace("_", "")
                try:
                    value = eval(python, {"__builtins__": {}}, {})  # numbers and operators only
                except Exception:
                    continue
                if isinstance(value, int | float):
                    found.append((piece, float(value)))
    return found


def _unexplained_wrong(checker, right):
    """A wrong answer of the right kind that no known mistake of ``checker`` explains, and the two messages the
    ladder gives it (first try, second try)."""
    if isinstance(right, bool):
        return None
    if isinstance(right, str):
        candidates = []
    elif isinstance(right, int):
        candidates = [right + d for d in (7919, 104729, -7, 13, 3 * right + 11)]
    elif isinstance(right, float):
        candidates = [right * f + 0.013 for f in (1.37, 0.61, 2.9, -1.0)]
    elif isinstance(right, tuple | list) and all(isinstance(v, int) for v in right):
        candidates = [tuple(v + d for v in right) for d in (7919, 13)]
    else:
        return None
    for answer in candidates:
        check_core.reset_attempts()
        first = checker(answer).message
        if "is not it:" in first:  # a diagnosed mistake, not the ladder
            continue
        second = checker(answer).message
        return answer, first, second
    return None


def _ladder_cases() -> list:
    cases = []
    for checker, right in VALUE_CHECKS.items():
        if isinstance(right, str | bool) or not isinstance(right, int | float | tuple | list):
            continue
        cases.append(checker)
    return cases


@pytest.mark.parametrize("checker", list(VALUE_CHECKS), ids=lambda f: f.__name__)
def test_a_right_answer_prints_no_value(checker, capsys) -> None:
    right = VALUE_CHECKS[checker]
    message = checker(right).message
    assert message.startswith("✓") and message.rstrip().endswith("right.")
    label = message.split(":")[0]  # the exercise's name may hold numbers of the question
    rest = message[len(label) :]
    for form in _value_forms(right):
        assert form not in rest, f"{checker.__name__}: the right answer {form!r} is printed: {message}"


@pytest.mark.parametrize("checker", _ladder_cases(), ids=lambda f: f.__name__)
def test_an_unexplained_wrong_answer_gets_neither_the_value_nor_its_recipe(checker) -> None:
    right = VALUE_CHECKS[checker]
    found = _unexplained_wrong(checker, right)
    assert found is not None, f"{checker.__name__}: every wrong answer tried is a diagnosed mistake"
    answer, first, second = found
    assert check_core.SOLUTION_NOTE not in first and check_core.SOLUTION_NOTE in second
    assert "too large" not in second and "too small" not in second
    targets = [float(v) for v in right] if isinstance(right, tuple | list) else [float(right)]
    for message in (first, second):
        for form in _value_forms(right):
            assert not re.search(rf"(?<![\d.]){re.escape(form)}(?![\d])", message), (
                f"{checker.__name__}: the hint holds the right value {form!r}: {message}"
            )
        for piece, value in _evaluations(message):
            for target in targets:
                if isinstance(right, tuple | list) and target <= 16:
                    continue  # small sizes (batch, heads) are part of the question
                assert not math.isclose(value, target, rel_tol=1e-3, abs_tol=1e-9), (
                    f"{checker.__name__}: {piece!r} in the hint evaluates to the right answer: {message}"
                )


def test_the_expression_finder_finds_a_recipe() -> None:
    """The test above can fail: a hint that spells the recipe out is caught."""
    values = [
        v for _, v in _evaluations("Find the patch row (45 // 10) and column (30 // 10); 4 * 10 + 3 + 1.")
    ]
    assert 44.0 in values
    assert 60.0 in [v for _, v in _evaluations("Count down (60 / 10) and across (100 / 10): 6 x 10.")]


def test_the_ladder_climbs_and_a_right_answer_resets_it(capsys) -> None:
    check_core.reset_attempts()
    kwargs = {"nudge": "Revisit section 2.", "pointer": "Look at the grid's rows."}
    first = check_core.int_answer(5, 7, "demo", **kwargs).message
    second = check_core.int_answer(4, 7, "demo", **kwargs).message
    assert "Revisit section 2." in first and "grid's rows" not in first
    assert "grid's rows" in second and check_core.SOLUTION_NOTE in second
    assert check_core.int_answer(7, 7, "demo", **kwargs).message == "✓ demo: right."
    assert "grid's rows" not in check_core.int_answer(5, 7, "demo", **kwargs).message


def test_choice_answer_lists_options_and_treats_every_wrong_option_alike(capsys) -> None:
    """A string outside the options gets the options; each wrong option gets the same ladder, no diagnosis."""
    options = ("a", "b", "c", "d")
    hints = {"nudge": "Think.", "pointer": "Reread it."}
    check_core.reset_attempts()
    assert check_core.choice_answer(" B ", "b", "pick", options, **hints)
    outside = check_core.choice_answer("e", "b", "pick", options, **hints).message
    assert outside == "✗ pick: 'e' is not one of the options ['a', 'b', 'c', 'd']."
    assert "expected one of the strings" in check_core.choice_answer(3, "b", "pick", options, **hints).message
    for answer, shown in (("a", "a"), (" C ", "c"), ("D", "d")):
        check_core.reset_attempts()
        first = check_core.choice_answer(answer, "b", "pick", options, **hints).message
        second = check_core.choice_answer(answer, "b", "pick", options, **hints).message
        assert first == f"✗ pick: '{shown}' is not it. Think."
        assert second == f"✗ pick: '{shown}' is not it. Think. Reread it. {check_core.SOLUTION_NOTE}"
    with pytest.raises(TypeError):  # no table of diagnoses per wrong option: they let a learner eliminate
        check_core.choice_answer(
            "c", "b", "pick", options, wrong={"c": "c confuses rows with columns."}, **hints
        )


def _listed_options(checker) -> list[str] | None:
    """The options a choice checker lists for a string that is none of them (see ``choice_answer``), or None
    when its message lists none (an answer that is not one of a few options, such as a string of letters)."""
    check_core.reset_attempts()
    message = checker("none of the options, surely").message
    found = re.search(r"is not one of the options (\[.*\])\.$", message)
    return ast.literal_eval(found.group(1)) if found else None


def _choice_checkers() -> list:
    return [checker for checker, right in VALUE_CHECKS.items() if isinstance(right, str)]


@pytest.mark.parametrize("checker", _choice_checkers(), ids=lambda f: f.__name__)
def test_every_wrong_option_of_a_choice_gets_the_same_feedback(checker, capsys) -> None:
    """The course's rule for choice questions: the feedback says no more about one wrong option than another,
    on the first try and from the second on, so a learner can neither finish a question by elimination nor
    read the right option off a diagnosis. The paired number or reason check grades the reasoning."""
    options = _listed_options(checker)
    if options is None:
        pytest.skip(f"{checker.__name__} lists no options: not a one-of-a-few-options question")
    right = VALUE_CHECKS[checker].strip().lower()
    wrong = [o for o in options if o.strip().lower() != right]
    assert len(wrong) == len(options) - 1, f"{checker.__name__}: the right answer is not one of {options}"
    feedback: dict[str, tuple[str, str]] = {}
    for option in wrong:
        check_core.reset_attempts()
        tries = (checker(option).message, checker(option).message)
        assert not any(m.startswith("✓") for m in tries), f"{checker.__name__}: {option!r} passed"
        feedback[option] = tuple(m.replace(repr(option), "<option>") for m in tries)
    first, *others = wrong
    for option in others:
        assert feedback[option] == feedback[first], (
            f"{checker.__name__}: the wrong options {first!r} and {option!r} get different feedback:\n"
            f"{feedback[first]}\n{feedback[option]}"
        )
    assert check_core.SOLUTION_NOTE in feedback[first][1], f"{checker.__name__}: the ladder does not climb"
    check_core.reset_attempts()


def test_the_choice_rule_covers_the_course() -> None:
    """The test above is not vacuous: it finds the options of the course's choice questions."""
    covered = {c.__name__ for c in _choice_checkers() if _listed_options(c) is not None}
    named = {"sqrt_rebuild_picture", "sqrt_rebuild_60x62", "sqrt_rebuild_36x64"}
    named |= {"seam_blocks_pair", "control_axis_prediction", "resize_control_design"}
    named |= {"control_run"}
    assert named <= covered, f"choice checkers whose options were not found: {sorted(named - covered)}"
    check_core.reset_attempts()


def test_an_unexplained_wrong_function_result_hides_the_expected_value(capsys) -> None:
    cases = [((3,), (6, 10))]
    message = check_core.check_function(
        lambda n: (7, 11), "grid", cases, nudge="Revisit the formula."
    ).message
    assert "(6, 10)" not in message and "Revisit the formula." in message
    x = torch.arange(6.0).reshape(2, 3)
    message = check_core.check_function(lambda t: t * 0 + 0.5, "double", [((x,), x * 2 + 0.25)]).message
    assert "differs at index" in message and "0.25" not in message


# "Write it yourself" checks fail for the package's own function, however it is handed in: the function itself,
# a wrapper that calls it, a lambda, a partial, or one that reaches it through a module attribute.
def _package_patchify_cases() -> list:
    import functools as ft

    from vitcourse import tokens as tk

    def wrapper(images, p):
        return tk.patchify(images, p)

    def with_unfold(images, p):
        return torch.nn.functional.unfold(images, p, stride=p).transpose(1, 2)

    return [tk.patchify, wrapper, lambda x, p: tk.patchify(x, p), ft.partial(tk.patchify), with_unfold]


@pytest.mark.parametrize(
    "func", _package_patchify_cases(), ids=["itself", "wrapper", "lambda", "partial", "F.unfold"]
)
def test_patchify_check_fails_for_the_package_version(func) -> None:
    verdict = check.patchify_function(func)
    assert not verdict and "write it yourself" in verdict.message


def test_sinusoidal_check_fails_for_the_package_version() -> None:
    from vitcourse import position

    def table_by_hand(n, d):  # the notebook's own loop version, under its name
        return position.sinusoidal_table(n, d)

    for func in (position.sinusoidal_table, lambda n, d: position.sinusoidal_table(n, d), table_by_hand,
                 lambda n, d: table_by_hand(n, d)):  # fmt: skip
        verdict = check.sinusoidal_function(func)
        assert not verdict and "write it yourself" in verdict.message


def test_write_it_yourself_checks_pass_a_function_written_out() -> None:
    def my_patchify(images, p):
        b, c, h, w = images.shape
        x = images.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(b, (h // p) * (w // p), c * p * p)

    def fixed_table(n, d):
        i = torch.arange(n, dtype=torch.float64)[:, None]
        omega = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        angle = i * omega.repeat_interleave(2)[:d]
        j = torch.arange(d)
        return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()

    assert check.patchify_function(my_patchify)
    assert check.sinusoidal_function(fixed_table)


def test_tokens_first_attention_check_fails_for_torchs_attention() -> None:
    import torch.nn.functional as F

    def through_sdpa(q, k, v):
        return F.scaled_dot_product_attention(*(t.transpose(1, 2) for t in (q, k, v))).transpose(1, 2)

    verdict = check.attention_function(through_sdpa)
    assert not verdict and "write it yourself" in verdict.message


def test_the_warm_up_names_the_misreading_never_the_region(capsys) -> None:
    """A near-miss in 00's warm-up gets the mistake named (a misreading near one half), not the region to fix."""
    right = {"moon", "sky below the band", "left face", "right face"}
    for wrong in (right | {"upper sky"}, right - {"sky below the band"}):
        assert not check.bright_regions(wrong).ok
        hint = capsys.readouterr().out.lower()
        assert "half" in hint
        assert "upper sky" not in hint and "sky below the band" not in hint, hint


def test_a_one_entry_tensor_or_array_counts_as_its_number(capsys) -> None:
    """A learner's number may come as a one-entry tensor or array (a result not yet turned into a float)."""
    right = VALUE_CHECKS[check.scaled_weight_ratio]
    for wrapped in (torch.tensor(right), torch.tensor([right]), np.array(right), np.array([[right]])):
        assert check.scaled_weight_ratio(wrapped).ok, wrapped
    assert not check.scaled_weight_ratio(torch.tensor([right, right])).ok
    capsys.readouterr()


def _module_alias(target):
    """A learner's way round a static check: the package's function bound to another name, called at run time."""
    namespace = {"target": target}
    exec("hidden = target\ndef answer(*args):\n    return hidden(*args)", namespace)  # noqa: S102
    return namespace["answer"]


def test_write_it_yourself_checks_catch_what_runs_not_only_what_is_written(capsys) -> None:
    """Each "write it yourself" check refuses the package's or torch's function reached at run time: through an
    alias made outside the function, ``getattr``, or a private helper of the package."""
    import torch.nn.functional as F

    from vitcourse import position, tokens, widgets
    from vitcourse.check import nb05

    refused = [
        (check.patchify_function, _module_alias(tokens.patchify)),
        (check.patchify_function, lambda x, p: F.pixel_unshuffle(x, p).flatten(2).transpose(1, 2)),
        (check.sinusoidal_function, _module_alias(position.sinusoidal_table)),
        (check.sinusoidal_function, lambda n, d: torch.from_numpy(widgets._table(n, d, 10000.0).copy())),
        (check.single_head_function, _module_alias(F.scaled_dot_product_attention)),
        (check.single_head_function, lambda q, k, v: F.scaled_dot_product_attention(q, k, v)),
        (check.attention_function, lambda q, k, v, *rest: nb05._tokens_first(q, k, v, q.shape[-1] ** -0.5)),
        (check.resize_2d_function, _module_alias(position.resize_position_embedding)),
    ]
    for checker, answer in refused:
        assert not checker(answer).ok, checker.__name__
        assert "yourself" in capsys.readouterr().out, checker.__name__
    for checker, answer in FUNCTION_CHECKS.items():  # the right answers, written by hand, still pass
        assert checker(answer).ok, checker.__name__
    capsys.readouterr()


def _written_forms(answer: object) -> set[str]:
    """How a right numeric answer could be written in a docstring: the integer itself (10 or more, so that
    small counts in a question's wording do not count), or the float at 2 to 4 significant figures."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return set()
    if isinstance(answer, int):
        return {str(answer)} if abs(answer) >= 10 else set()
    forms = {f"{answer:.{n}g}" for n in (2, 3, 4)} | {f"{answer:.2f}", f"{answer:.3f}"}
    return {f for f in forms if len(f.lstrip("-0.")) >= 2}


@pytest.mark.parametrize("checker", list(VALUE_CHECKS), ids=lambda f: f.__name__)
def test_no_docstring_states_the_right_value(checker) -> None:
    """`check.name?` in JupyterLab shows a checker's docstring, and `check.nb04?` its module's: neither may state
    the right value of a numeric answer."""
    module = importlib.import_module(checker.__module__)
    for where, text in (("docstring", checker.__doc__ or ""), ("module docstring", module.__doc__ or "")):
        for form in _written_forms(VALUE_CHECKS[checker]):
            assert not re.search(rf"(?<![\w.]){re.escape(form)}(?![\w])", text), (
                f"{checker.__name__}: its {where} states the right value {form}"
            )


def test_the_plateau_wait_is_graded_against_the_runs_passed_in(capsys) -> None:
    """Exercise 11.2 grades a reading of the learner's own figure, not a number stored with the course, and its
    statement passes only with a right reading."""
    exits = {("sinusoidal", 0): 40, ("sinusoidal", 1): 60, ("learned", 0): 90, ("learned", 1): 30}
    assert check.plateau_wait(25, exits=exits, warmup=15) and check.plateau_wait(27, exits=exits, warmup=15)
    assert not check.plateau_wait(12, exits=exits, warmup=15)
    assert "count from the end of the warm-up" in check.plateau_wait(40, exits=exits, warmup=15).message
    assert "a learned run" in check.plateau_wait(15, exits=exits, warmup=15).message
    assert not check.plateau_guess("B", wait=12, exits=exits, warmup=15)
    assert not check.plateau_guess("B", wait=None, exits=exits, warmup=15)
    assert check.plateau_guess("B", wait=25, exits=exits, warmup=15)
