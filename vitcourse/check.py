"""Exercise checkers: each prints ✓ or a specific hint, returns True/False, and never raises.

Every public function here takes the learner's answer as it is (a number, a tuple, a tensor, an array, a
function, or something else entirely) and compares it with the package's own result. A wrong type, a wrong
shape, a NaN, a function that raises: each gets a sentence saying what was expected, never a traceback.

Usage in a notebook::

    from vitcourse import check
    check.patch_count(answer)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from . import position, tokens
from .blocks import EncoderBlock
from .models import T2T_STAGES

__all__ = [
    "Verdict",
    "patch_count",
    "token_length",
    "patch_number",
    "patchify_function",
    "soft_split_count",
    "count_tokens_function",
    "rebuild_function",
    "sinusoidal_entry",
    "sinusoidal_function",
    "scrambled_rows",
    "scores_shape",
    "qkv_weight_count",
    "attention_function",
    "vit_token_count",
    "block_parameter_count",
    "prepend_function",
    "t2t_token_count",
    "t2t_token_length",
    "t2t_grids_function",
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


def _say(ok: bool, message: str) -> Verdict:
    line = f"{PASS if ok else FAIL} {message}"
    print(line)
    return Verdict(ok, line)


def _never_raises(func: Callable[..., Verdict]) -> Callable[..., Verdict]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Verdict:
        try:
            return func(*args, **kwargs)
        except Exception as err:  # a checker must help, not crash
            return _say(False, f"the check could not use your answer ({type(err).__name__}: {err}).")

    return wrapper


def _describe(x: object) -> str:
    if isinstance(x, torch.Tensor):
        return f"a tensor of shape {tuple(x.shape)} and dtype {x.dtype}"
    if isinstance(x, np.ndarray):
        return f"a numpy array of shape {x.shape}"
    return f"{type(x).__name__} {x!r}" if not callable(x) else f"the function {getattr(x, '__name__', x)!r}"


def _int_answer(answer: object, expected: int, what: str, hint: str) -> Verdict:
    if isinstance(answer, torch.Tensor | np.ndarray) and np.size(answer) == 1:
        answer = answer.item()
    if answer is None:
        return _say(False, f"{what}: the answer is still None; replace None with a number.")
    if isinstance(answer, bool) or not isinstance(answer, int | float | np.integer | np.floating):
        return _say(False, f"{what}: expected a whole number, got {_describe(answer)}.")
    if isinstance(answer, float | np.floating) and not math.isfinite(answer):
        return _say(False, f"{what}: got {answer}; expected a finite whole number.")
    if answer != int(answer):
        return _say(False, f"{what}: {answer} is not a whole number; {hint}")
    if int(answer) != expected:
        direction = "too large" if answer > expected else "too small"
        return _say(False, f"{what}: {int(answer)} is {direction}. {hint}")
    return _say(True, f"{what}: {expected} is right.")


def _as_tensor(x: object, name: str) -> tuple[torch.Tensor | None, str]:
    """The learner's result as a CPU float tensor, or None and the reason it is not one."""
    if x is None:
        return None, f"{name} is None: did the function forget to return its result?"
    if isinstance(x, np.ndarray):
        return None, f"{name} is a numpy array; return a torch tensor (torch.from_numpy can convert it)."
    if not isinstance(x, torch.Tensor):
        return None, f"{name} should be a torch tensor, got {_describe(x)}."
    if x.device.type == "meta":
        return (
            None,
            f"{name} is on the meta device, which holds shapes but no numbers; compute it on the CPU or GPU.",
        )
    if x.is_complex():
        return None, f"{name} is complex; expected real numbers."
    return x.detach().to("cpu", torch.float64), ""


def _compare_tensors(got: object, expected: torch.Tensor, what: str, atol: float = 1e-5) -> tuple[bool, str]:
    """(ok, message): shape first, then NaNs, then the first entry that differs."""
    tensor, why = _as_tensor(got, what)
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
            f"{what} has the right shape but differs at index {idx}: got {tensor[idx].item():.6g}, "
            f"expected {expected[idx].item():.6g} ({int(wrong.sum())} of {wrong.numel()} entries differ).",
        )
    return True, ""


def _check_function(
    func: object,
    what: str,
    cases: Sequence[tuple[tuple, Any]],
    normalise: Callable[[object], object] | None = None,
) -> Verdict:
    """Call ``func(*args)`` for each case and compare with the expected result (tensor or plain value).

    ``normalise``, if given, turns the learner's result into the form the expected values have (for example a
    numpy integer pair into a tuple of ints) before comparing.
    """
    if func is None:
        return _say(
            False, f"{what}: the answer is still None; define the function and pass it (without calling it)."
        )
    if not callable(func):
        return _say(False, f"{what}: pass the function itself (no parentheses), got {_describe(func)}.")
    for args, expected in cases:
        shown = ", ".join(_describe(a) if isinstance(a, torch.Tensor) else repr(a) for a in args)
        try:
            with torch.no_grad():
                got = func(*args)
            if normalise is not None:
                got = normalise(got)
        except NotImplementedError:
            return _say(False, f"{what}: the function is not written yet (it raises NotImplementedError).")
        except Exception as err:
            return _say(False, f"{what}: calling it with ({shown}) raised {type(err).__name__}: {err}")
        if isinstance(expected, torch.Tensor):
            ok, message = _compare_tensors(got, expected, "the result")
            if not ok:
                return _say(False, f"{what} with ({shown}): {message}")
        elif got != expected:
            return _say(False, f"{what} with ({shown}): returned {_describe(got)}, expected {expected!r}.")
    return _say(True, f"{what}: all {len(cases)} test cases pass.")


# ----------------------------------------------------------------------------------------------------------
# 01 patch tokenization


@_never_raises
def patch_count(answer: object) -> Verdict:
    """Exercise 01.1: how many 10 x 10 patches does the 60 x 100 picture make?"""
    return _int_answer(
        answer,
        tokens.count_tokens(60, 100, 10, 10, 0).total,
        "patches of 10 x 10",
        "Count the patches down (60 / 10) and across (100 / 10), then multiply.",
    )


@_never_raises
def token_length(answer: object) -> Verdict:
    """Exercise 01.2: the length of one flattened 16 x 16 patch of a 3-channel image."""
    return _int_answer(
        answer,
        3 * 16 * 16,
        "token length for 16 x 16 patches of an RGB image",
        "A token holds every pixel of its patch in every channel: C x P x P.",
    )


@_never_raises
def patch_number(answer: object) -> Verdict:
    """Exercise 01.3: which patch (numbered from 1, row by row, P = 20) holds pixel (row 45, column 30)?"""
    expected = (45 // 20) * (100 // 20) + 30 // 20 + 1
    return _int_answer(
        answer,
        expected,
        "patch holding pixel (45, 30)",
        "Find the patch row (45 // 20) and column (30 // 20); there are 5 patches per row; numbering starts at 1.",
    )


@_never_raises
def patchify_function(func: object) -> Verdict:
    """Exercise 01.4: ``func(images, p)`` must equal ``vitcourse.tokens.patchify`` (reshape and permute only)."""
    gen = torch.Generator().manual_seed(0)
    cases = []
    for shape, p in (((1, 1, 60, 100), 20), ((2, 3, 8, 12), 4), ((1, 2, 6, 6), 3), ((1, 1, 4, 4), 1)):
        images = torch.rand(shape, generator=gen)
        cases.append(((images, p), tokens.patchify(images, p)))
    return _check_function(func, "your patchify", cases)


# ----------------------------------------------------------------------------------------------------------
# 02 soft split


@_never_raises
def soft_split_count(answer: object) -> Verdict:
    """Exercise 02.1: (rows, cols) of tokens for kernel 7, stride 4, padding 2 on the 60 x 100 picture."""
    expected = tokens.count_tokens(60, 100, 7, 4, 2)
    what = "tokens for kernel 7, stride 4, padding 2"
    if isinstance(answer, int | np.integer) and not isinstance(answer, bool):
        if answer == expected.total:
            return _say(False, f"{what}: {answer} is the total; the exercise asks for the pair (rows, cols).")
        return _say(False, f"{what}: give the pair (rows, cols), not one number.")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return _say(False, f"{what}: expected a pair (rows, cols), got {_describe(answer)}.")
    rows, cols = answer
    if (rows, cols) == (expected.cols, expected.rows):
        return _say(False, f"{what}: rows and columns are swapped; rows run down the 60-pixel height.")
    for name, got, exp, side in (("rows", rows, expected.rows, 60), ("cols", cols, expected.cols, 100)):
        if got != exp:
            return _say(
                False,
                f"{what}: {name} = {got!r} is wrong. Use floor(({side} + 2p - (k - 1) - 1) / s + 1) with "
                f"k=7, s=4, p=2.",
            )
    return _say(True, f"{what}: {expected.rows} x {expected.cols} = {expected.total} tokens.")


@_never_raises
def count_tokens_function(func: object) -> Verdict:
    """Exercise 02.2: ``func(h, w, k, s, p)`` must return (rows, cols) as nn.Unfold makes them."""
    cases = []
    for h, w, k, s, p in (
        (60, 100, 20, 10, 5),
        (60, 100, 7, 4, 2),
        (224, 224, 16, 16, 0),
        (13, 7, 3, 2, 1),
        (400, 100, 7, 4, 2),
        (5, 9, 5, 3, 0),
        (10, 10, 1, 1, 0),
    ):
        count = tokens.count_tokens(h, w, k, s, p)  # equal to nn.Unfold's count (tests/test_tokens.py)
        cases.append(((h, w, k, s, p), (count.rows, count.cols)))
    return _check_function(func, "your count_tokens", cases, normalise=_pair)


def _pairs(result: object) -> object:
    return [_pair(g) for g in result] if isinstance(result, tuple | list) else result


def _pair(result: object) -> object:
    if isinstance(result, tuple | list) and len(result) >= 2:
        return tuple(
            int(v) if isinstance(v, int | np.integer | float) and v == int(v) else v for v in result[:2]
        )
    return result


@_never_raises
def rebuild_function(func: object) -> Verdict:
    """Exercise 02.3: ``func(tokens, h, w)`` must lay (B, h * w, C) tokens back as a (B, C, h, w) image."""
    gen = torch.Generator().manual_seed(1)
    cases = []
    for b, n_rows, n_cols, c in ((1, 6, 10, 400), (2, 3, 5, 4), (1, 25, 7, 64), (3, 1, 4, 2)):
        t = torch.rand(b, n_rows * n_cols, c, generator=gen)
        cases.append(((t, n_rows, n_cols), tokens.rebuild_image(t, n_rows, n_cols)))
    return _check_function(func, "your rebuild", cases)


# ----------------------------------------------------------------------------------------------------------
# 03 position embeddings


@_never_raises
def sinusoidal_entry(answer: object) -> Verdict:
    """Exercise 03.1: PE[3, 5] of the sinusoidal table with d = 400."""
    expected = position.sinusoidal_table(4, 400)[3, 5].item()
    what = "PE[3, 5] for d = 400"
    if isinstance(answer, torch.Tensor | np.ndarray) and np.size(answer) == 1:
        answer = float(answer.item())
    if answer is None or isinstance(answer, bool) or not isinstance(answer, int | float | np.floating):
        return _say(False, f"{what}: expected a number, got {_describe(answer)}.")
    if not math.isfinite(answer):
        return _say(False, f"{what}: got {answer}; expected a finite number in [-1, 1].")
    if abs(answer - expected) < 1e-5:
        return _say(True, f"{what}: {expected:.6f} is right.")
    angle = 3 / 10000 ** (2 * (5 // 2) / 400)
    if abs(answer - math.sin(angle)) < 1e-5:
        return _say(False, f"{what}: j = 5 is odd, so it takes the cosine, not the sine.")
    if abs(answer - math.cos(3 / 10000 ** (5 / 400))) < 1e-5:
        return _say(False, f"{what}: the exponent uses 2 * (j // 2) = 4, not j = 5.")
    return _say(
        False, f"{what}: {answer:.6g} is not it. Angle = 3 / 10000 ** (2 * (5 // 2) / 400), then cos."
    )


@_never_raises
def sinusoidal_function(func: object) -> Verdict:
    """Exercise 03.2: ``func(n, d)`` must return the (n, d) sinusoidal table."""
    cases = [
        ((n, d), position.sinusoidal_table(n, d)) for n, d in ((15, 400), (176, 768), (4, 9), (1, 2), (7, 3))
    ]
    return _check_function(func, "your sinusoidal table", cases)


@_never_raises
def scrambled_rows(answer: object) -> Verdict:
    """Exercise 03.3: after swapping tokens 0 and 2, which original output row is now row 0, 1, 2, 3?"""
    expected = [2, 1, 0, 3]
    what = "rows of the output after swapping tokens 0 and 2"
    if isinstance(answer, torch.Tensor | np.ndarray):
        answer = answer.tolist()
    if not isinstance(answer, list | tuple) or len(answer) != 4:
        return _say(False, f"{what}: expected a list of 4 row numbers, got {_describe(answer)}.")
    if list(answer) == expected:
        return _say(True, f"{what}: {expected} — the output rows move exactly like the input tokens.")
    if list(answer) == [0, 1, 2, 3]:
        return _say(False, f"{what}: the output does change: attention moves its rows along with the tokens.")
    return _say(False, f"{what}: {list(answer)} is not it; each output row follows its own token.")


def _shape_answer(answer: object, expected: tuple[int, ...], what: str, hint: str) -> Verdict:
    if isinstance(answer, torch.Size):
        answer = tuple(answer)
    if not isinstance(answer, tuple | list):
        return _say(False, f"{what}: expected a tuple of {len(expected)} sizes, got {_describe(answer)}.")
    if len(answer) != len(expected):
        return _say(False, f"{what}: expected {len(expected)} sizes, got {len(answer)}. {hint}")
    for i, (got, exp) in enumerate(zip(answer, expected, strict=True)):
        if got != exp:
            return _say(False, f"{what}: size {i} is {got!r}, which is not right. {hint}")
    return _say(True, f"{what}: {tuple(expected)} is right.")


# ----------------------------------------------------------------------------------------------------------
# 04 attention


@_never_raises
def scores_shape(answer: object) -> Verdict:
    """Exercise 04.1: shape of Q K^T with 4 heads, batch 13, 100 tokens, 64 channels."""
    return _shape_answer(
        answer,
        (13, 4, 100, 100),
        "shape of Q K^T with 4 heads",
        "Each head compares every token with every token: (batch, heads, tokens, tokens).",
    )


@_never_raises
def qkv_weight_count(answer: object) -> Verdict:
    """Exercise 04.2: weights in a bias-free qkv layer from tokens of length 49 to 64 channels."""
    return _int_answer(
        answer,
        49 * 64 * 3,
        "weights of the qkv layer (49 -> 3 x 64, no bias)",
        "One linear map makes q, k and v at once: dim x chan x 3.",
    )


@_never_raises
def attention_function(func: object) -> Verdict:
    """Exercise 04.3: ``func(q, k, v)`` must equal ``F.scaled_dot_product_attention(q, k, v)``."""
    gen = torch.Generator().manual_seed(2)
    cases = []
    for shape in ((2, 1, 10, 64), (1, 4, 7, 16), (3, 2, 5, 3)):
        q, k, v = (torch.randn(shape, generator=gen) for _ in range(3))
        cases.append(((q, k, v), torch.nn.functional.scaled_dot_product_attention(q, k, v)))
    return _check_function(func, "your attention", cases)


# ----------------------------------------------------------------------------------------------------------
# 05 vision transformer


@_never_raises
def vit_token_count(answer: object) -> Verdict:
    """Exercise 05.1: tokens entering ViT-Base's encoder for a 224 x 224 image, 16 x 16 patches."""
    return _int_answer(
        answer,
        tokens.count_tokens(224, 224, 16, 16, 0).total + 1,
        "tokens entering the encoder",
        "Count the patches (224 / 16 per side), then remember the prediction token.",
    )


@_never_raises
def block_parameter_count(answer: object) -> Verdict:
    """Exercise 05.2: parameters of one ViT-Base encoder block (D = 768, MLP 3072, qkv bias)."""
    with torch.device("meta"):
        expected = sum(p.numel() for p in EncoderBlock(768, 12).parameters())
    return _int_answer(
        answer,
        expected,
        "parameters of one ViT-Base block",
        "Add two LayerNorms (2 x 768 each), qkv (768 x 2304 + 2304), proj (768 x 768 + 768), "
        "fc1 (768 x 3072 + 3072) and fc2 (3072 x 768 + 768).",
    )


@_never_raises
def prepend_function(func: object) -> Verdict:
    """Exercise 05.3: ``func(tokens, cls_token)`` must prepend a (1, 1, D) token to every item of (B, N, D)."""
    gen = torch.Generator().manual_seed(5)
    cases = []
    for b, n, d in ((13, 175, 768), (1, 15, 64), (4, 3, 2)):
        toks, cls = torch.randn(b, n, d, generator=gen), torch.randn(1, 1, d, generator=gen)
        cases.append(((toks, cls), torch.cat([cls.expand(b, -1, -1), toks], dim=1)))
    return _check_function(func, "your prepend", cases)


# ----------------------------------------------------------------------------------------------------------
# 06 tokens-to-token


def _t2t_grids(height: int, width: int) -> list[tuple[int, int]]:
    grids = []
    for k, s, p in T2T_STAGES:
        count = tokens.count_tokens(height, width, k, s, p)
        grids.append((count.rows, count.cols))
        height, width = count.rows, count.cols
    return grids


@_never_raises
def t2t_token_count(answer: object) -> Verdict:
    """Exercise 06.1: tokens out of the T2T module for a 224 x 224 image."""
    rows, cols = _t2t_grids(224, 224)[-1]
    return _int_answer(
        answer,
        rows * cols,
        "tokens out of the T2T module at 224 x 224",
        "Apply the count formula three times: (7, 4, 2), then (3, 2, 1) twice, each on the previous grid.",
    )


@_never_raises
def t2t_token_length(answer: object) -> Verdict:
    """Exercise 06.2: length of the tokens entering the second token transformer (token_dim 64, k = 3)."""
    return _int_answer(
        answer,
        64 * 3 * 3,
        "length of the tokens entering attention2",
        "The rebuilt image has token_dim = 64 channels, and each 3 x 3 window takes all of them.",
    )


@_never_raises
def t2t_grids_function(func: object) -> Verdict:
    """Exercise 06.3: ``func(h, w)`` must list the (rows, cols) token grid after each of T2T's three splits."""
    cases = [((h, w), _t2t_grids(h, w)) for h, w in ((224, 224), (60, 100), (400, 100), (32, 48), (9, 5))]
    return _check_function(func, "your T2T grids", cases, normalise=_pairs)
