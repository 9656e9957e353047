"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import contextlib
import io
import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention
from ._core import (
    Mistake,
    Verdict,
    _number,
    check_function,
    choice_answer,
    float_answer,
    never_raises,
    reread,
    say,
)

__all__ = [
    "entropy_prediction",
    "longer_query_weight",
    "scaled_weight_ratio",
    "single_head_function",
]


#: Exercise 04.1: section 1's lookup (keys and values drawn from this seed, the query 1.5 times key 2, d = 4) ...
LOOKUP_SEED = 10


#: ... with its query multiplied by a factor c until key 2, the best match, gets this weight.
TARGET = 0.99


BEST_KEY = 2


def _lookup_weights(factor: float, scale: bool = True) -> torch.Tensor:
    """Section 1's lookup weights for the query made ``factor`` times longer (float64)."""
    gen = torch.Generator().manual_seed(LOOKUP_SEED)
    keys = torch.randn(4, 4, generator=gen).double()  # drawn as the notebook draws them, keys first
    query = factor * 1.5 * keys[BEST_KEY]
    scores = keys @ query / (math.sqrt(keys.shape[1]) if scale else 1.0)
    return scores.softmax(dim=0)


def _factor_for(target: float, scale: bool = True) -> float:
    """The smallest factor c for which key 2's weight reaches ``target`` (bisection)."""
    low, high = 1.0, 1000.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if _lookup_weights(middle, scale)[BEST_KEY] < target else (low, middle)
    return high


def _two_key_factor(target: float, scale: bool = True) -> float:
    """The two-key estimate of c: key 2 and its closest rival alone, whose weight ratio is exp(c * gap), so key 2's
    weight reaches ``target`` at c = ln(target / (1 - target)) / gap."""
    scores = _lookup_weights(1.0, scale).log()  # the scores, up to one constant that cancels in a gap
    rivals = torch.cat([scores[:BEST_KEY], scores[BEST_KEY + 1 :]])
    gap = float(scores[BEST_KEY] - rivals.max())
    return math.log(target / (1 - target)) / gap


_FACTOR_WHAT = "the two-key estimate of c"


@never_raises
def longer_query_weight(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): in section 1's lookup, the factor c by which the query must be multiplied (same
    direction) for key 2's weight to reach 0.99, estimated from key 2 and its closest rival alone (the softmax of
    two scores c * gap apart), within 3 %. The exact c, with all four keys, is about 9 % larger and fails: trying
    values of c in a cell does not give the estimate."""
    value, refusal = _number(answer, _FACTOR_WHAT, "a number")
    if refusal is not None:
        return refusal
    if value <= 1:
        return say(
            False,
            f"{_FACTOR_WHAT}: {float(value):.4g} is not it: at c = 1 key 2's weight is the one printed, below 0.99, "
            "and a factor of 1 or less does not make the query longer.",
        )
    right = _two_key_factor(TARGET)
    return float_answer(
        value,
        right,
        _FACTOR_WHAT,
        nudge="The idea: with two keys only, key 2's weight depends on the gap between their two scores alone. "
        "Write that weight as a function of c and the gap, then solve.",
        wrong=(
            (
                _two_key_factor(TARGET, scale=False),
                "your scores are not divided by the square root of d, as the printed ones are.",
            ),
            (
                _factor_for(TARGET),
                "that is the exact c, with all four keys (found by trying values?); the exercise asks for the "
                "estimate from key 2 and its closest rival alone.",
            ),
            (1.5 * right, "you measured the query against key 2; c multiplies the query as it is."),
            (right**2, "the scores grow by the same factor as the query, not by its square."),
            (
                math.log10(TARGET / (1 - TARGET)) / math.log(TARGET / (1 - TARGET)) * right,
                "the softmax uses e, so its inverse is the natural logarithm, not log base 10.",
            ),
        ),
        rel=0.03,
        pointer=reread("Attention as a lookup"),
    )


def _attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    """softmax(q k^T * scale) v for one head and one item, the softmax over ``axis``."""
    return torch.softmax(q @ k.T * scale, dim=axis) @ v


def _leading_axes_cases(gen: torch.Generator) -> list[tuple[tuple, torch.Tensor]]:
    """Cases with axes in front of the tokens, as in ViT's layer: (heads, N, d) and (batch, heads, N, d)."""
    cases = []
    for front, nq, nk, dk, dv in (((2,), 3, 5, 8, 4), ((3, 2), 6, 6, 16, 16), ((2, 1), 1, 4, 4, 3)):
        q, k, v = (torch.randn(*front, n, d, generator=gen) for n, d in ((nq, dk), (nk, dk), (nk, dv)))
        cases.append(((q, k, v), F.scaled_dot_product_attention(q, k, v)))
    return cases


def _reverses_all_axes(func: object, cases: list[tuple[tuple, torch.Tensor]]) -> bool:
    """Whether ``func`` uses ``.T`` and fails on a case with axes in front of the tokens (where ``.T`` reverses
    every axis, not the last two)."""
    code = getattr(func, "__code__", None)
    if code is None or "T" not in code.co_names:
        return False
    for args, expected in cases:
        try:
            with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                got = func(*args)
            if not (isinstance(got, torch.Tensor) and got.shape == expected.shape):
                return True
            if not torch.allclose(got.float(), expected, atol=1e-5):
                return True
        except Exception:  # noqa: BLE001 - a raise on these inputs is the mistake this looks for
            return True
    return False


@never_raises
def single_head_function(func: object) -> Verdict:
    """Exercise 04.2: ``func(q, k, v)`` for q (..., n_queries, d_k), k (..., n_keys, d_k), v (..., n_keys, d_v),
    with any axes in front of the tokens (batch, heads), returns softmax(q k^T / sqrt(d_k)) v, (..., n_queries,
    d_v), as ``F.scaled_dot_product_attention`` gives it. The first cases have no leading axes, so that the
    two-axis mistakes are diagnosed there; the last ones have one or two, where ``.T`` is the mistake."""
    gen = torch.Generator().manual_seed(4)
    cases = []
    # the first case is square (as many queries as keys, d_v = d_k), so that mistakes that need that still run
    for nq, nk, dk, dv in ((4, 4, 8, 8), (3, 6, 16, 5), (1, 4, 4, 3), (7, 5, 64, 2)):
        q, k, v = (torch.randn(n, d, generator=gen) for n, d in ((nq, dk), (nk, dk), (nk, dv)))
        expected = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        cases.append(((q, k, v), expected))
    batched = _leading_axes_cases(gen)
    if callable(func) and all(_same_on(func, args, expected) for args, expected in cases):
        if _reverses_all_axes(func, batched):
            return say(
                False,
                "your single_head_attention is right for plain matrices, but with axes in front of the tokens "
                "(batch, heads) it fails: `.T` reverses every axis of a tensor, not only the last two.",
            )
    cases = cases + batched
    mistakes = [
        Mistake(
            lambda q, k, v: _attention(q, k, v, q.shape[-1] ** -0.5, axis=0),
            "your softmax runs over the wrong axis.",
        ),
        Mistake(lambda q, k, v: _attention(q, k, v, 1.0), "the scores are not scaled."),
        Mistake(
            lambda q, k, v: _attention(q, k, v, 1 / q.shape[-1]),
            "you divided the scores by d_k itself.",
        ),
        Mistake(
            lambda q, k, v: _attention(q, k, v, v.shape[-1] ** -0.5),
            "your scale uses the size of the values.",
        ),
        Mistake(
            lambda q, k, v: _attention(q, k, v, q.shape[-1] ** 0.5),
            "you multiplied the scores by the square root of d_k.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T, dim=-1) * q.shape[-1] ** -0.5 @ v,
            "you scaled after the softmax.",
        ),
        Mistake(
            lambda q, k, v: (q @ k.T * q.shape[-1] ** -0.5) @ v,
            "your scores are used as weights without a softmax.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T * q.shape[-1] ** -0.5, dim=-1),
            "you returned the attention weights, not the output.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T * q.shape[-1] ** -0.5, dim=-1).T @ v,
            "your attention weights are transposed before they meet the values.",
        ),
    ]
    return check_function(
        func,
        "your single_head_attention",
        cases,
        mistakes=mistakes,
        forbidden=(
            "scaled_dot_product_attention",
            "MultiheadAttention",
            "multi_head_attention_forward",
            "Attention",
        ),
        forbidden_objects=(
            F.scaled_dot_product_attention,
            nn.MultiheadAttention,
            F.multi_head_attention_forward,
            Attention,
        ),
        write_with="matrix products and a softmax",
        nudge="The idea: each query is scored against every key, its scores become weights that sum to 1 over the "
        "keys, and its output mixes the values with those weights.",
        pointer=reread("All the queries at once"),
    )


def _same_on(func: object, args: tuple, expected: torch.Tensor) -> bool:
    """Whether ``func(*args)`` gives ``expected``; False for anything it raises or returns otherwise."""
    try:
        with torch.no_grad(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            got = func(*args)
        return (
            isinstance(got, torch.Tensor)
            and got.shape == expected.shape
            and torch.allclose(got.float(), expected, atol=1e-5)
        )
    except Exception:  # noqa: BLE001 - a learner's function may raise anything
        return False


# Exercise 3's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")


_ENTROPY_RIGHT = "b"


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.3 (prediction): the letter of the statement, among a to e, that has both the right choice
    (the scaled weights have the larger mean entropy) and the right reason (the scale shrinks the gaps between
    the scores, so the softmax is flatter). Wrong options get no diagnosis of their own, so that the question
    cannot be solved by walking through the options."""
    return choice_answer(
        answer,
        _ENTROPY_RIGHT,
        "your prediction",
        _ENTROPY_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. The idea is how a row's "
        "weights depend on its scores.",
        pointer=reread("Attention as a lookup"),
    )


#: Exercise 04.3, second part: two scores of one row that differ by this much before the scale ...
SCORE_GAP = 12.0


#: ... in the walk-through, whose heads have d_k = 64 channels.
WALK_THROUGH_DK = 64


@never_raises
def scaled_weight_ratio(answer: object) -> Verdict:
    """Exercise 04.3, second part: two keys of one row whose unscaled scores differ by 12; after the scale
    1/sqrt(64), how many times the weight of the lower key the higher key gets (softmax: exp of the scaled gap)."""
    scale = WALK_THROUGH_DK**-0.5
    right = math.exp(SCORE_GAP * scale)
    return float_answer(
        answer,
        right,
        "the weight ratio after the scale",
        nudge="The idea is how the softmax turns a gap between two scores into a ratio between two weights.",
        wrong=(
            (math.exp(SCORE_GAP), "that is the ratio without the scale: the scale acts on the scores first."),
            (SCORE_GAP * scale, "that is the scaled gap between the scores, not the ratio of the weights."),
            (SCORE_GAP, "that is the gap between the scores, not the ratio of the weights."),
            (
                math.exp(SCORE_GAP / WALK_THROUGH_DK),
                "the scale divides by the square root of d_k, not by d_k.",
            ),
            (1 / right, "upside down: the higher key's weight over the lower key's."),
        ),
        rel=0.005,
        pointer=reread("Attention as a lookup"),
    )
