"""The exercise checkers: right answers pass, wrong answers of every kind get a hint, nothing ever raises."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vitcourse import check


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
    verdict = check.patch_count(60)
    assert verdict._ipython_display_() is None
    assert "ok=True" in repr(verdict)


def test_every_public_checker_is_fuzzed() -> None:
    public = {getattr(check, name) for name in check.__all__ if name not in ("Verdict", "require")}
    assert public == set(ALL_CHECKS)


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
    assert check.require(check.patch_count, 60) is None
    assert capsys.readouterr().out == ""  # the check cell above the grading cell already printed the verdict
    with pytest.raises(AssertionError, match="only the number of patch rows"):
        check.require(check.patch_count, 6)
    with pytest.raises(AssertionError, match="still None"):
        check.require(check.patch_count, None)
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
        check.require("patch_count", 60)
    with pytest.raises(TypeError, match="checker must return a Verdict"):
        check.require(lambda answer: answer == 60, 60)
