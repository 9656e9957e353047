"""Right answers for the checkers of notebook 04; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

import torch

from vitcourse import check

# Exercise 1: section 1's lookup (seed 10, four keys of length 4, the query 1.5 times key 2): the factor c by which
# the query must be multiplied for key 2's weight to reach 0.99, estimated from key 2 and its closest rival alone.
_gen = torch.Generator().manual_seed(10)
_KEYS = torch.randn(4, 4, generator=_gen).double()
_SCORES = _KEYS @ (1.5 * _KEYS[2]) / math.sqrt(4)


def _factor(scores: torch.Tensor = _SCORES) -> float:
    low, high = 1.0, 1000.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if (middle * scores).softmax(dim=0)[2] < 0.99 else (low, middle)
    return high


def _two_key(scores: torch.Tensor = _SCORES) -> float:
    rivals = torch.cat([scores[:2], scores[3:]])
    return math.log(99) / float(scores[2] - rivals.max())


EXACT_FACTOR = _factor()
QUERY_FACTOR = _two_key()


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float | None = None, axis: int = -1):
    """Exercise 2: single-head attention for q (..., n_queries, d_k), k (..., n_keys, d_k), v (..., n_keys, d_v)."""
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis) @ v


def attention_by_einsum(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Exercise 2 written another way: einsum, and the softmax by hand."""
    scores = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(k.shape[-1])
    weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    return torch.einsum("...ij,...jc->...ic", weights, v)


# Exercise 3, second part: unscaled scores 12 apart, scale 1/sqrt(64): weight ratio exp(12 / 8).
WEIGHT_RATIO = math.exp(12 / math.sqrt(64))


VALUE_CHECKS: dict = {
    check.longer_query_weight: QUERY_FACTOR,
    check.entropy_prediction: "b",
    check.scaled_weight_ratio: WEIGHT_RATIO,
}
FUNCTION_CHECKS: dict = {
    check.single_head_function: attention,
}
MISTAKES: list = [
    (check.longer_query_weight, _two_key(_SCORES * math.sqrt(4)), "square root of d"),  # scores not divided
    (check.longer_query_weight, EXACT_FACTOR, "all four keys"),
    (check.longer_query_weight, math.log10(99) / math.log(99) * QUERY_FACTOR, "natural logarithm"),
    (check.longer_query_weight, 1.5 * QUERY_FACTOR, "against key 2"),
    (check.longer_query_weight, QUERY_FACTOR**2, "not by its square"),
    (check.longer_query_weight, 1.0, "does not make the query longer"),
    (check.longer_query_weight, -0.2, "does not make the query longer"),
    (check.single_head_function, lambda q, k, v: attention(q, k, v, axis=0), "wrong axis"),
    (
        check.single_head_function,
        lambda q, k, v: torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1) @ v,
        "reverses every axis",
    ),
    (check.single_head_function, lambda q, k, v: attention(q, k, v, scale=1.0), "not scaled"),
    (check.single_head_function, lambda q, k, v: attention(q, k, v, scale=1 / q.shape[-1]), "d_k itself"),
    (check.single_head_function, lambda q, k, v: attention(q, k, v, scale=v.shape[-1] ** -0.5), "the values"),
    (
        check.single_head_function,
        lambda q, k, v: attention(q, k, v, scale=q.shape[-1] ** 0.5),
        "multiplied the",
    ),
    (
        check.single_head_function,
        lambda q, k, v: torch.softmax(q @ k.T, dim=-1) / math.sqrt(q.shape[-1]) @ v,
        "after the softmax",
    ),
    (check.single_head_function, lambda q, k, v: q @ k.T / math.sqrt(q.shape[-1]) @ v, "without a softmax"),
    (
        check.single_head_function,
        lambda q, k, v: (q @ k.T / math.sqrt(q.shape[-1])).softmax(-1),
        "returned the attention weights",
    ),
    (
        check.single_head_function,
        lambda q, k, v: (q @ k.T / math.sqrt(q.shape[-1])).softmax(-1).T @ v,
        "transposed",
    ),
    (
        check.single_head_function,
        lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v),
        "write it yourself",
    ),
    (check.single_head_function, torch.nn.functional.scaled_dot_product_attention, "write it yourself"),
    (check.entropy_prediction, "scaled", "not one of the options"),
    (check.scaled_weight_ratio, math.exp(12), "without the scale"),
    (check.scaled_weight_ratio, 1.5, "scaled gap"),
    (check.scaled_weight_ratio, 12, "gap between the scores"),
    (check.scaled_weight_ratio, math.exp(12 / 64), "not by d_k"),
    (check.scaled_weight_ratio, 1 / WEIGHT_RATIO, "upside down"),
]
