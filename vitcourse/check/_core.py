"""The checkers' machinery: verdicts, the never-raise wrapper, number/shape/tensor comparisons, and
function checks that recognise typical wrong answers and name the mistake.

The exercises themselves live in one small module per notebook (``nb00`` ... ``nb07``); each reads as a
table of what is asked, what is right (computed by the same package code the notebook prints), and which
known-wrong variants to recognise.

What a learner sees (the design, so that no output gives an answer away before a try):

* a right answer prints ``✓ <what>: right.``, never the value, so a notebook's stored output (which GitHub and
  JupyterLab show to everyone) does not reveal the answer under the collapsed solution;
* a wrong number, shape or function result that a known mistake explains gets that mistake's diagnosis (it
  names the mistake, not the answer); a wrong option of a choice question never does (see the last point);
* any other wrong answer gets a ladder: the first time a *nudge* (which idea the exercise rests on, in plain
  words, with no method); from the second unexplained try of the same exercise on, the nudge plus a *pointer*
  (which section of the notebook to reread, made by :func:`reread` so that a test can check that the section
  exists) and a reminder that the worked solution is the exercise's collapsed cell. The method (which
  function, which axis, which formula) lives in the worked solution only. Neither rung contains the right value or an expression with numbers that evaluates to it
  (``tests/test_check.py`` checks every checker); "too large" / "too small" are never said, since they let a
  learner bisect to the answer without thinking;
* questions with a few fixed options (:func:`choice_answer`) are asked together with a reason or a number, so
  that guessing is not enough; every wrong option gets the same ladder and no diagnosis of its own, so that
  the feedback cannot be used to eliminate options or to read off the right one.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

__all__ = [
    "PASS",
    "FAIL",
    "Verdict",
    "Mistake",
    "say",
    "never_raises",
    "require",
    "describe",
    "int_answer",
    "float_answer",
    "shape_answer",
    "choice_answer",
    "known_mistakes",
    "unexplained",
    "right",
    "reset_attempts",
    "reread",
    "as_tensor",
    "compare_tensors",
    "check_function",
    "uses_any",
    "random_cases",
    "pair",
    "pairs",
]

PASS = "✓"
FAIL = "✗"


class Verdict:
    """What a check found: ``ok`` (also its truth value) and the ``message`` it printed.

    A verdict shows nothing when it ends a notebook cell (the message is already printed), so a learner sees
    one line, while a teacher's script can still test ``if check.patch_count(x): ...``.
    """

    def __init__(self, ok: bool, message: str) -> None:
        self.ok = ok
        self.message = message

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return f"Verdict(ok={self.ok}, message={self.message!r})"

    def _ipython_display_(self) -> None:
        pass


def say(ok: bool, message: str) -> Verdict:
    line = f"{PASS if ok else FAIL} {message}"
    print(line)
    return Verdict(ok, line)


# How many unexplained wrong answers each exercise (keyed by its ``what``) has had in this kernel; a right answer
# resets the count. It decides the rung of the hint ladder.
_ATTEMPTS: dict[str, int] = {}

SOLUTION_NOTE = "The worked solution is the exercise's collapsed cell: open it once you have tried."


def reread(section: str) -> str:
    """The second rung of the hint ladder: which section of the notebook to reread.

    ``section`` is the section's heading as the notebook shows it, without its leading ``#`` marks, its number
    and its time estimate (``"Attention as a lookup"`` for ``## 2. Attention as a lookup (10 min)``);
    ``tests/test_hints.py`` checks that every pointer names a heading of its notebook.
    """
    if not isinstance(section, str) or not section.strip():
        raise ValueError(f"section must be a notebook heading's text, got {section!r}.")
    return f'Reread the section "{section.strip()}" and try again.'


def reset_attempts() -> None:
    """Forget every exercise's count of wrong tries (the next unexplained wrong answer gets the first rung)."""
    _ATTEMPTS.clear()


def right(what: str) -> Verdict:
    """A right answer: ✓ and the exercise's name, never the value (stored outputs must not show it)."""
    _ATTEMPTS.pop(what, None)
    return say(True, f"{what}: right.")


def unexplained(what: str, got: str, nudge: str, pointer: str = "") -> Verdict:
    """A wrong answer no known mistake explains: the nudge the first time; nudge, pointer and where the worked
    solution is from the second time on (per exercise, per kernel). ``got`` describes the learner's answer."""
    tries = _ATTEMPTS.get(what, 0) + 1
    _ATTEMPTS[what] = tries
    parts = [f"{what}: {got}"]
    if nudge:
        parts.append(nudge)
    if tries >= 2:
        if pointer:
            parts.append(pointer)
        parts.append(SOLUTION_NOTE)
    return say(False, " ".join(parts))


def _error_text(err: BaseException) -> str:
    """``Name: message`` of an exception, even when its own ``str()`` raises (a learner's object may)."""
    try:
        return f"{type(err).__name__}: {err}"
    except Exception:  # noqa: BLE001 - the message is the learner's code; only its name is sure
        return f"{type(err).__name__} (its message could not be shown)"


def could_not_use(err: BaseException) -> str:
    """What a learner reads when their answer raised inside a check: the exception, never a traceback."""
    return f"the check could not use your answer ({_error_text(err)})."


def never_raises(func: Callable[..., Verdict]) -> Callable[..., Verdict]:
    """Wrap a checker so that whatever the learner's answer raises (when called, printed, compared, even
    ``SystemExit``) becomes a ✗ with the exception's name, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Verdict:
        try:
            return func(*args, **kwargs)
        except (Exception, SystemExit) as err:  # a checker must help, not crash
            return say(False, could_not_use(err))

    return wrapper


def require(checker: Callable[..., Verdict], *answers: object) -> None:
    """An autograder test: run ``checker(*answers)`` without printing and raise ``AssertionError`` with its
    hint unless the answer passes.

    The notebooks' grading cells call it between nbgrader's hidden-test markers, so a wrong answer fails the
    graded cell (and scores 0) while the friendly check cell above it still only prints ✓ or ✗. It prints
    nothing when the answer is right.

    Raises:
        TypeError: ``checker`` is not one of the course's checkers (a callable that returns a ``Verdict``).
        AssertionError: the checker's verdict is ✗ (the message is the checker's hint), or the answer raised
            inside the checker (anything, ``SystemExit`` included; the message names the exception).
    """
    if not callable(checker):
        raise TypeError(f"checker must be a function of vitcourse.check, got {describe(checker)}.")
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            verdict = checker(*answers)
        except (Exception, SystemExit) as err:  # the learner's object raised: a failed answer, not a crash
            raise AssertionError(f"{FAIL} {could_not_use(err)}") from None
    if not isinstance(verdict, Verdict):
        raise TypeError(
            f"checker must return a Verdict (use a function of vitcourse.check), got {describe(verdict)}."
        )
    if not verdict.ok:
        raise AssertionError(verdict.message)


def describe(x: object) -> str:
    """A short description of a learner's answer for a hint; never raises, whatever the object's repr does."""
    try:
        if isinstance(x, torch.Tensor):
            return f"a tensor of shape {tuple(x.shape)} and dtype {x.dtype}"
        if isinstance(x, np.ndarray):
            return f"a numpy array of shape {x.shape}"
        if callable(x):
            name = getattr(x, "__name__", None)
            return f"the function {name!r}" if isinstance(name, str) else f"a callable {type(x).__name__}"
        shown = repr(x)
        return f"{type(x).__name__} {shown[:200] + ' ...' if len(shown) > 200 else shown}"
    except (Exception, SystemExit):
        return f"an object of type {type(x).__name__} (it could not be shown)"


def _number(answer: object, what: str, kind: str) -> tuple[int | float | None, Verdict | None]:
    """The learner's answer as a plain finite number, or None and a verdict that says why it is not one."""
    one = answer.numel() == 1 if isinstance(answer, torch.Tensor) else np.size(answer) == 1
    if isinstance(answer, torch.Tensor | np.ndarray) and one:
        answer = answer.item()
    if answer is None:
        return None, say(False, f"{what}: the answer is still None; replace None with a number.")
    if isinstance(answer, bool) or not isinstance(answer, int | float | np.integer | np.floating):
        return None, say(False, f"{what}: expected {kind}, got {describe(answer)}.")
    if isinstance(answer, float | np.floating) and not math.isfinite(answer):
        return None, say(False, f"{what}: got {answer}; expected {kind} that is finite.")
    return answer, None


def known_mistakes(candidates: Sequence[tuple[Any, str]], expected: object) -> dict[Any, str]:
    """The ``wrong=`` table of a value checker from (wrong answer, diagnosis) pairs: where two mistakes give the
    same answer the first diagnosis wins, and the right answer is never one of them."""
    wrong: dict[Any, str] = {}
    for answer, diagnosis in candidates:
        if answer != expected:
            wrong.setdefault(answer, diagnosis)
    return wrong


def int_answer(
    answer: object,
    expected: int,
    what: str,
    nudge: str,
    wrong: Mapping[int, str] | None = None,
    *,
    pointer: str = "",
) -> Verdict:
    """Check a whole-number answer. ``wrong`` maps typical wrong numbers to the mistake each one reveals
    (e.g. ``{14: "you forgot the + 1 in the token-count formula"}``); other wrong numbers climb the hint ladder
    (``nudge``, then ``pointer``; see the module docstring)."""
    value, refusal = _number(answer, what, "a whole number")
    if refusal is not None:
        return refusal
    if value != int(value):
        return say(False, f"{what}: {value} is not a whole number. {nudge}")
    value = int(value)
    if value == expected:
        return right(what)
    if wrong and value in wrong:
        return say(False, f"{what}: {value} is not it: {wrong[value]}")
    return unexplained(what, f"{value} is not it.", nudge, pointer)


def float_answer(
    answer: object,
    expected: float,
    what: str,
    nudge: str,
    wrong: Sequence[tuple[float, str]] = (),
    rel: float = 0.01,
    *,
    pointer: str = "",
) -> Verdict:
    """Check a real-number answer to within ``rel`` (relative); ``wrong`` pairs typical wrong values with the
    mistake each one reveals; other wrong values climb the hint ladder (``nudge``, then ``pointer``)."""
    value, refusal = _number(answer, what, "a number")
    if refusal is not None:
        return refusal
    if abs(value) > 1e300:
        return unexplained(what, f"{float(value):.4g} is not it.", nudge, pointer)
    value = float(value)

    def close(a: float, b: float) -> bool:
        return abs(a - b) <= rel * abs(b) + 1e-12

    if close(value, expected):
        return right(what)
    for bad, mistake in wrong:
        if close(value, bad):
            return say(False, f"{what}: {value:.4g} is not it: {mistake}")
    return unexplained(what, f"{value:.4g} is not it.", nudge, pointer)


def choice_answer(
    answer: object,
    expected: str,
    what: str,
    options: Sequence[str],
    nudge: str,
    *,
    pointer: str = "",
) -> Verdict:
    """Check an answer that is one of ``options`` (strings, matched case-insensitively after stripping).

    A string outside the options gets the list of options. Every wrong option gets the same feedback, the
    hint ladder of :func:`unexplained` ("'x' is not it." and the nudge; from the second try the pointer and
    where the worked solution is), so the feedback never says more about one wrong option than another.
    That is why there is no ``wrong=`` table of diagnoses here, unlike the number checkers: with a few
    options, a diagnosis per wrong option lets a learner finish the question by elimination (try each
    option, read which are explained away), and a diagnosis of why an option is wrong all but names the
    right one. For the same reason the nudge must fit every wrong option alike and must not point to the
    right one. Ask a few-option question together with a reason or a number (two checks): that check grades
    the reasoning, so guessing is not enough (``tests/test_check.py`` holds every choice checker to this).
    """
    valid = {o.strip().lower(): o for o in options}
    if answer is None:
        return say(
            False, f"{what}: the answer is still None; replace None with one of {sorted(valid.values())}."
        )
    if not isinstance(answer, str):
        return say(False, f"{what}: expected one of the strings {list(options)}, got {describe(answer)}.")
    key = answer.strip().lower()
    if key not in valid:
        return say(False, f"{what}: {answer!r} is not one of the options {list(options)}.")
    if key == expected.strip().lower():
        return right(what)
    return unexplained(what, f"{valid[key]!r} is not it.", nudge, pointer)


def as_tensor(x: object, name: str) -> tuple[torch.Tensor | None, str]:
    """The learner's result as a CPU float tensor, or None and the reason it is not one."""
    if x is None:
        return None, f"{name} is None: did the function forget to return its result?"
    if isinstance(x, np.ndarray):
        return None, f"{name} is a numpy array; return a torch tensor (torch.from_numpy can convert it)."
    if not isinstance(x, torch.Tensor):
        return None, f"{name} should be a torch tensor, got {describe(x)}."
    if x.device.type == "meta":
        return (
            None,
            f"{name} is on the meta device, which holds shapes but no numbers; compute it on the CPU or GPU.",
        )
    if x.is_complex():
        return None, f"{name} is complex; expected real numbers."
    return x.detach().to("cpu", torch.float64), ""


def compare_tensors(got: object, expected: torch.Tensor, what: str, atol: float = 1e-5) -> tuple[bool, str]:
    """(ok, message): shape first, then NaNs, then the first entry that differs."""
    tensor, why = as_tensor(got, what)
    if tensor is None:
        return False, why
    expected = expected.detach().to("cpu", torch.float64)
    if tuple(tensor.shape) != tuple(expected.shape):
        same_numel = tensor.numel() == expected.numel()
        extra = (
            " (same number of entries: check the order of your reshape or transpose)" if same_numel else ""
        )
        return False, f"{what} has shape {tuple(tensor.shape)}, expected {tuple(expected.shape)}{extra}."
    if torch.isnan(tensor).any():
        return False, f"{what} contains NaN at index {tuple(torch.nonzero(torch.isnan(tensor))[0].tolist())}."
    wrong = (tensor - expected).abs() > atol + 1e-5 * expected.abs()
    if wrong.any():
        idx = tuple(torch.nonzero(wrong)[0].tolist())
        return (
            False,
            f"{what} has the right shape but differs at index {idx}, where it holds {tensor[idx].item():.6g} "
            f"({int(wrong.sum())} of {wrong.numel()} entries differ).",
        )
    return True, ""


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer to a function exercise, recognised by what it returns.

    ``variant`` is the wrong function itself (e.g. softmax over the wrong axis); it is called with the same
    arguments as the learner's function, and when the learner's result equals the variant's (and the variant
    differs from the right answer there), the checker prints ``hint``, which names the mistake.
    """

    variant: Callable[..., object]
    hint: str


def _same(got: object, reference: object) -> bool:
    if isinstance(reference, torch.Tensor):
        return compare_tensors(got, reference, "the result")[0]
    try:
        return bool(got == reference)
    except Exception:  # e.g. comparing a tensor with a tuple
        return False


def _diagnose(got: object, args: tuple, expected: object, mistakes: Sequence[Mistake]) -> str | None:
    """The hint of the first known mistake whose result equals the learner's, or None."""
    for mistake in mistakes:
        try:
            with torch.no_grad():
                wrong = mistake.variant(*args)
        except Exception:  # a variant that does not apply to these inputs says nothing
            continue
        if not _same(wrong, expected) and _same(got, wrong):
            return mistake.hint
    return None


def random_cases(
    seed: int, shapes: Sequence[Sequence[tuple[int, ...]]], answer: Callable[..., object]
) -> list[tuple[tuple, object]]:
    """Test cases for :func:`check_function`: for each entry of ``shapes`` (one shape per argument), standard-
    normal tensors drawn from a generator seeded with ``seed``, and ``answer`` applied to them."""
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for case in shapes:
        args = tuple(torch.randn(shape, generator=gen) for shape in case)
        cases.append((args, answer(*args)))
    return cases


def uses_any(func: object, names: Sequence[str], originals: Sequence[object] = ()) -> str | None:
    """The first of ``names`` that the learner's function is, wraps or calls, else None.

    A "write it yourself" exercise must fail for the package's own function. This finds it three ways: ``func``
    is one of ``originals`` (or a ``functools.partial`` of one); one of ``originals`` sits in its closure; or its
    code, or any function nested in it, refers to one of ``names`` (a global, an attribute such as
    ``tokens.patchify``, a closed-over name). Never raises.
    """
    try:
        target = func
        while isinstance(target, functools.partial):
            target = target.func
        for original in originals:
            if target is original:
                return getattr(original, "__name__", str(original))
        code = getattr(target, "__code__", None)
        if code is None:  # a callable object: the code of its __call__ method
            code = getattr(type(target).__dict__.get("__call__"), "__code__", None)
        for cell in getattr(target, "__closure__", None) or ():
            try:
                held = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            for original in originals:
                if held is original:
                    return getattr(original, "__name__", str(original))
        stack = [code] if code is not None else []
        while stack:
            current = stack.pop()
            referred = set(current.co_names) | set(current.co_freevars) | set(current.co_varnames)
            for name in names:
                if name in referred:
                    return name
            stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    except Exception:  # noqa: BLE001 - an odd object is simply not recognised
        return None
    return None


_PACKAGE = str(Path(__file__).resolve().parent.parent)  # vitcourse/: a learner's function may call none of it


def _codes(original: object) -> list:
    """The code objects a forbidden function or class runs: its own, or every method a class defines."""
    code = getattr(original, "__code__", None)
    if code is not None:
        return [code]
    if isinstance(original, type):
        return [f.__code__ for f in vars(original).values() if hasattr(f, "__code__")]
    return []


def calls_any(
    func: Callable, args: tuple, names: Sequence[str], originals: Sequence[object] = ()
) -> str | None:
    """What forbidden thing ``func(*args)`` calls while it runs, else None: one of ``originals`` (a function or
    a class, however it was reached: an alias, ``getattr``, a wrapper), a built-in function named in ``names``,
    or any function of the vitcourse package (its answers and the checkers' own helpers). Runs the call once
    under :func:`sys.setprofile`; whatever the call raises is left to the test cases. Never raises.
    """
    try:
        codes = {code: getattr(o, "__name__", str(o)) for o in originals for code in _codes(o)}
        found: list[str] = []

        def watch(frame: Any, event: str, arg: Any) -> None:
            if found:
                return
            if event == "call":
                code = frame.f_code
                if code in codes:
                    found.append(codes[code])
                elif code.co_filename.startswith(_PACKAGE):
                    found.append(f"the package's {code.co_name}")
            elif event == "c_call":
                name = getattr(arg, "__name__", "")
                if name in names or any(arg is o for o in originals):
                    found.append(name)

        previous = sys.getprofile()
        sys.setprofile(watch)
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                func(*args)
        except (Exception, SystemExit):  # noqa: BLE001 - the test cases report what the function raises
            pass
        finally:
            sys.setprofile(previous)
        return found[0] if found else None
    except Exception:  # noqa: BLE001 - an odd object is simply not recognised
        return None


def check_function(
    func: object,
    what: str,
    cases: Sequence[tuple[tuple, Any]],
    normalise: Callable[[object], object] | None = None,
    mistakes: Sequence[Mistake] = (),
    *,
    nudge: str = "",
    pointer: str = "",
    forbidden: Sequence[str] = (),
    forbidden_objects: Sequence[object] = (),
    write_with: str = "",
    show_args: bool = True,
) -> Verdict:
    """Call ``func(*args)`` for each case and compare with the expected result (tensor or plain value).

    ``normalise``, if given, turns the learner's result into the form the expected values have (for example a
    numpy integer pair into a tuple of ints) before comparing. ``mistakes`` are typical wrong answers: when a
    case fails and the learner's result equals one of them, the verdict names that mistake instead of only
    pointing at the first entry that differs. A mismatch no known mistake explains says where the result differs
    (never the expected value) and climbs the hint ladder (``nudge``, then ``pointer``).

    ``forbidden`` (names) and ``forbidden_objects`` (the functions themselves) are what a "write it yourself"
    exercise must not call: a function that is, wraps or calls one of them fails, the verdict naming what it used
    and what to write it with (``write_with``), before any case runs: read from its code (:func:`uses_any`), then
    watched while it runs on the first case (:func:`calls_any`, which also refuses any function of the package).

    ``show_args=False`` keeps the failing case's arguments out of the verdict, for an exercise where a failing
    case is itself an answer the learner is asked to find.
    """
    if func is None:
        return say(
            False, f"{what}: the answer is still None; define the function and pass it (without calling it)."
        )
    if not callable(func):
        return say(False, f"{what}: pass the function itself (no parentheses), got {describe(func)}.")
    used = None
    if forbidden or forbidden_objects:
        used = uses_any(func, forbidden, forbidden_objects)
        if used is None and cases:  # reached at run time: an alias, getattr, or a helper of the package
            used = calls_any(func, cases[0][0], forbidden, forbidden_objects)
    if used is not None:
        return say(
            False,
            f"{what}: your function uses `{used}`, which already does the job; the exercise asks you to write it "
            f"yourself{', with ' + write_with if write_with else ''}.",
        )
    for args, expected in cases:
        shown = ", ".join(describe(a) if isinstance(a, torch.Tensor) else repr(a) for a in args)
        where = f"with ({shown})" if show_args else "on one of the test cases"
        try:
            with torch.no_grad():
                got = func(*args)
            if normalise is not None:
                got = normalise(got)
        except NotImplementedError:
            return say(False, f"{what}: the function is not written yet (it raises NotImplementedError).")
        except (Exception, SystemExit) as err:  # a learner's sys.exit() must not end the checker either
            return say(False, f"{what}: calling it {where} raised {type(err).__name__}: {err}")
        if isinstance(expected, torch.Tensor):
            ok, message = compare_tensors(got, expected, "the result")
        else:
            ok = _same(got, expected)
            message = f"returned {describe(got)}, which is not right for these arguments."
        if not ok:
            hint = _diagnose(got, args, expected, mistakes)
            if hint is not None:
                return say(False, f"{what} {where}: {hint}")
            return unexplained(what, f"{where}{'' if show_args else ', it'} {message}", nudge, pointer)
    _ATTEMPTS.pop(what, None)
    return say(True, f"{what}: all {len(cases)} test cases pass.")


def shape_answer(
    answer: object, expected: tuple[int, ...], what: str, nudge: str, *, pointer: str = ""
) -> Verdict:
    """Check a shape (a tuple of sizes). A wrong size is named by its position, never by the right size."""
    if isinstance(answer, torch.Size):
        answer = tuple(answer)
    if not isinstance(answer, tuple | list):
        return say(False, f"{what}: expected a tuple of {len(expected)} sizes, got {describe(answer)}.")
    if len(answer) != len(expected):
        return say(False, f"{what}: expected {len(expected)} sizes, got {len(answer)}. {nudge}")
    for i, (got, exp) in enumerate(zip(answer, expected, strict=True)):
        if got != exp:
            return unexplained(what, f"size {i} is {got!r}, which is not right.", nudge, pointer)
    return right(what)


def pairs(result: object) -> object:
    return [pair(g) for g in result] if isinstance(result, tuple | list) else result


def pair(result: object) -> object:
    if isinstance(result, tuple | list) and len(result) >= 2:
        return tuple(
            int(v) if isinstance(v, int | np.integer | float) and v == int(v) else v for v in result[:2]
        )
    return result
