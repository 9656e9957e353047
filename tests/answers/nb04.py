"""Right answers for the checkers of notebook 04; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

import torch

from vitcourse import check


def entropy(q: torch.Tensor, k: torch.Tensor, scale: float, axis: int = -1) -> torch.Tensor:
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis)
    return torch.special.entr(p).sum(axis)  # one entropy per row: -sum p ln p


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis) @ v


def tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    """Attention for (B, N, heads, head_dim) inputs, written with einsum; returns (B, N, heads, head_dim)."""
    p = torch.softmax(torch.einsum("bnhd,bmhd->bhnm", q, k) * scale, dim=axis)  # (B, heads, N, N)
    return torch.einsum("bhnm,bmhd->bnhd", p, v)


def merge(o: torch.Tensor) -> torch.Tensor:
    b, h, n, d = o.shape
    return o.transpose(1, 2).reshape(b, n, h * d)


VALUE_CHECKS = {
    check.entropy_prediction: "scaled",
    check.scores_shape: (8, 12, 197, 197),
    check.attention_parameter_count: 49 * 3 * 64 + 64 * 64 + 64,
}
FUNCTION_CHECKS = {
    check.attention_entropy_function: lambda q, k, s: entropy(q, k, s).mean().item(),
    check.merge_heads_function: merge,
    check.attention_function: lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5),
}
MISTAKES = [
    (check.entropy_prediction, "unscaled", "flatter"),
    (check.entropy_prediction, "bigger", 'write "scaled" or "unscaled"'),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, s, axis=-2).mean(), "wrong axis"),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, s).mean() / math.log(2), "bits"),
    (check.attention_entropy_function, lambda q, k, s: -entropy(q, k, s).mean(), "sign"),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, 1.0).mean(), "did not apply `scale`"),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, 1 / s).mean(), "you divided by it"),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, s).sum(), "return their mean"),
    (
        check.attention_entropy_function,
        lambda q, k, s: entropy(q, k, s).mean() / q.shape[-2],
        "do not average it",
    ),
    (check.attention_entropy_function, lambda q, k, s: entropy(q, k, s), "one entropy per row"),
    (check.scores_shape, (8, 197, 197), "keep the head axis"),
    (check.scores_shape, (8, 12, 197, 64), "Q per head"),
    (check.scores_shape, (8, 12, 196, 196), "197"),
    (check.merge_heads_function, lambda o: o.reshape(o.shape[0], o.shape[2], -1), "wrong order"),
    (
        check.merge_heads_function,
        lambda o: o.permute(0, 2, 3, 1).reshape(o.shape[0], o.shape[2], -1),
        "interleaved",
    ),
    (check.attention_function, lambda q, k, v: attention(q, k, v, q.shape[-1] ** -0.5), "over the heads"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5, axis=-2),
        "wrong axis",
    ),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, 1.0), "not scaled"),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, 1 / q.shape[-1]), "1/d"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, (q.shape[2] * q.shape[-1]) ** -0.5),
        "full width",
    ),
    (check.attention_function, lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** 0.5), "multiplied by"),
    (
        check.attention_function,
        lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5).transpose(1, 2),
        "layout",
    ),
    (check.attention_parameter_count, 49 * 3 * 64 + 3 * 64 + 64 * 64 + 64, "no bias"),
    (check.attention_parameter_count, 64 * 3 * 64 + 64 * 64 + 64, "length 49"),
    (check.attention_parameter_count, 49 * 3 * 49 + 64 * 64 + 64, "64 channels each"),
    (check.attention_parameter_count, 49 * 3 * 64 + 64 * 64, "proj has a bias"),
    (check.attention_parameter_count, 49 * 3 * 64, "is missing"),
    (check.attention_parameter_count, 4 * 64 * 64 + 4 * 64, "keeps the token"),
]
