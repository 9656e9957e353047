"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import math

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


#: ... with its query made this many times longer, in the same direction ...
LONGER = 3.0


#: ... and the key whose weight is asked for: key 2, the best match.
BEST_KEY = 2


def _lookup_weights(factor: float, scale: bool = True) -> torch.Tensor:
    """Section 1's lookup weights for the query made ``factor`` times longer (float64)."""
    gen = torch.Generator().manual_seed(LOOKUP_SEED)
    keys = torch.randn(4, 4, generator=gen).double()  # drawn as the notebook draws them, keys first
    query = factor * 1.5 * keys[BEST_KEY]
    scores = keys @ query / (math.sqrt(keys.shape[1]) if scale else 1.0)
    return scores.softmax(dim=0)


_LONGER_WHAT = "the weight of key 2 for the longer query"


@never_raises
def longer_query_weight(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): in section 1's lookup, with the query made 3 times longer in the same
    direction, the weight that key 2 gets (the softmax of 3 times the lookup's scores)."""
    value, refusal = _number(answer, _LONGER_WHAT, "a number")
    if refusal is not None:
        return refusal
    if not 0 <= value <= 1:
        return say(
            False,
            f"{_LONGER_WHAT}: {float(value):.4g} is not it: a weight lies between 0 and 1. The longer query "
            "changes the scores; the weights come from the new scores.",
        )
    before = float(_lookup_weights(1.0)[BEST_KEY])
    return float_answer(
        value,
        float(_lookup_weights(LONGER)[BEST_KEY]),
        _LONGER_WHAT,
        nudge="The idea is what a longer query does to each score, and what the softmax makes of the new scores.",
        wrong=(
            (
                1.0,
                "key 2 does not take all the weight: exp() of a score is never 0, so every key keeps some. If you "
                "computed a weight this close to 1, check that your scores are divided by the square root of d, "
                "as the printed ones are.",
            ),
            (
                before,
                "that is the weight of the query as it was: a dot product grows with the query's length.",
            ),
            (0.25, "that is what four equal scores give; a longer query does not make the scores equal."),
            (
                float(_lookup_weights(1 / LONGER)[BEST_KEY]),
                "that is the weight of a query 3 times shorter: you divided the scores instead of multiplying them.",
            ),
            (
                float(_lookup_weights(math.sqrt(LONGER))[BEST_KEY]),
                "the scores grow as the query does, by the same factor, not by its square root.",
            ),
        ),
        pointer=reread("Attention as a lookup"),
    )


def _attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    """softmax(q k^T * scale) v for one head and one item, the softmax over ``axis``."""
    return torch.softmax(q @ k.T * scale, dim=axis) @ v


@never_raises
def single_head_function(func: object) -> Verdict:
    """Exercise 04.2: ``func(q, k, v)`` for q (n_queries, d_k), k (n_keys, d_k), v (n_keys, d_v) returns
    softmax(q k^T / sqrt(d_k)) v, (n_queries, d_v), as ``F.scaled_dot_product_attention`` gives it."""
    gen = torch.Generator().manual_seed(4)
    cases = []
    # the first case is square (as many queries as keys, d_v = d_k), so that mistakes that need that still run
    for nq, nk, dk, dv in ((4, 4, 8, 8), (3, 6, 16, 5), (1, 4, 4, 3), (7, 5, 64, 2)):
        q, k, v = (torch.randn(n, d, generator=gen) for n, d in ((nq, dk), (nk, dk), (nk, dv)))
        expected = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        cases.append(((q, k, v), expected))
    mistakes = [
        Mistake(
            lambda q, k, v: _attention(q, k, v, q.shape[-1] ** -0.5, axis=0),
            "softmax over the wrong axis: each query's weights over the keys must sum to 1.",
        ),
        Mistake(lambda q, k, v: _attention(q, k, v, 1.0), "the scores are not scaled."),
        Mistake(
            lambda q, k, v: _attention(q, k, v, 1 / q.shape[-1]),
            "wrong scale: you divided the scores by d_k itself, not by its square root.",
        ),
        Mistake(
            lambda q, k, v: _attention(q, k, v, v.shape[-1] ** -0.5),
            "wrong scale: you took the length of the values; the scale belongs to the dot products of queries "
            "and keys.",
        ),
        Mistake(
            lambda q, k, v: _attention(q, k, v, q.shape[-1] ** 0.5),
            "wrong scale: you multiplied by the square root of d_k; the scale shrinks the scores.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T, dim=-1) * q.shape[-1] ** -0.5 @ v,
            "you scaled after the softmax: the scale acts on the scores, before they become weights.",
        ),
        Mistake(
            lambda q, k, v: (q @ k.T * q.shape[-1] ** -0.5) @ v,
            "the scores are used as weights without a softmax: weights are positive and sum to 1 over the keys.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T * q.shape[-1] ** -0.5, dim=-1),
            "you returned the weights; the output is the weighted sum of the values.",
        ),
        Mistake(
            lambda q, k, v: torch.softmax(q @ k.T * q.shape[-1] ** -0.5, dim=-1).T @ v,
            "the weights are transposed: output row i mixes the values with the weights of query i, row i of "
            "the weights.",
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


# Exercise 3's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")


_ENTROPY_RIGHT = "b"


_ENTROPY_WRONG = {
    "a": "the entropy here is that of each row's weights, not of its scores: it measures how evenly the row's "
    "weight is shared among the keys.",
    "c": "the softmax ignores a number added to every score, not one multiplied into them.",
    "d": "the scale multiplies the scores, not q and k: here q and k already have variance about 1 (section 2 "
    "printed it); it is their dot products that grow with d_k.",
    "e": "scores that differ more give one key a larger share, not more keys a share: exp() grows fastest for the "
    "largest score.",
}


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.3 (prediction): the letter of the statement, among a to e, that has both the right choice
    (the scaled weights have the larger mean entropy) and the right reason (the scale shrinks the gaps between
    the scores, so the softmax is flatter)."""
    return choice_answer(
        answer,
        _ENTROPY_RIGHT,
        "your prediction",
        _ENTROPY_OPTIONS,
        nudge="Each statement makes a choice and gives a reason; both must hold. The idea is how a row's "
        "weights depend on its scores.",
        pointer=reread("Attention as a lookup"),
        wrong=_ENTROPY_WRONG,
    )


#: Exercise 04.3, second part: two scores of one row that differ by this much before the scale ...
SCORE_GAP = 8.0


#: ... in the walk-through, whose heads have d_k = 64 channels.
WALK_THROUGH_DK = 64


@never_raises
def scaled_weight_ratio(answer: object) -> Verdict:
    """Exercise 04.3, second part: two keys of one row whose unscaled scores differ by 8; after the scale
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
