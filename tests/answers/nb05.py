"""Right answers for the checkers of notebook 05; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check


def tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, axis: int = -1
) -> torch.Tensor:
    """Attention for (B, N, heads, head_dim) inputs, written with einsum; returns (B, N, heads, head_dim)."""
    p = torch.softmax(torch.einsum("bnhd,bmhd->bhnm", q, k) * scale, dim=axis)  # (B, heads, N, N)
    return torch.einsum("bhnm,bmhd->bnhd", p, v)


def aten_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """A known dodge: the ATen routine behind F.scaled_dot_product_attention, reached through torch.ops."""
    heads_first = torch.ops.aten._scaled_dot_product_attention_math(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    )[0]  # (B, heads, N, head_dim)
    return heads_first.transpose(1, 2)


# Exercise 1, second part: the buggy merge puts the head axis last: output channel c * heads + h holds head h's
# channel c, so head 2's channel 5 lands at 5 * 4 + 2.
HEAD2_CHANNEL5 = 5 * 4 + 2


# Exercise 2: 16 heads of head_dim 4 on N = 100 tokens: QK^T costs 16 * 100 * 100 * 4 = N^2 D multiply-adds, and the
# weights hold one 100 x 100 map per head.
SCORES_MACS = 16 * 100 * 100 * 4
WEIGHT_ENTRIES = 16 * 100 * 100


VALUE_CHECKS: dict = {
    check.merge_bug_choice: "a",
    check.merge_bug_channel: HEAD2_CHANNEL5,
    check.heads_growth_choice: "c",
    check.heads_scores_macs: SCORES_MACS,
    check.heads_weight_entries: WEIGHT_ENTRIES,
}
FUNCTION_CHECKS: dict = {
    check.attention_function: lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5),
}
MISTAKES: list = [
    (check.merge_bug_choice, "reshape", "not one of the options"),
    (check.merge_bug_channel, 37, "where the right merge puts it"),
    (check.merge_bug_channel, 12, "small test's 2 heads"),
    (check.merge_bug_channel, 13, "multiplied the head by the number of heads"),
    (check.heads_growth_choice, "growth", "not one of the options"),
    (check.attention_function, aten_attention, "_scaled_dot_product_attention_math"),
    (check.heads_scores_macs, 16 * 100 * 100 * 64, "all D channels"),
    (check.heads_scores_macs, 100 * 100 * 4, "one head's count"),
    (check.heads_scores_macs, 2 * 100 * 100 * 64, "weights @ V too"),
    (check.heads_scores_macs, 100 * 64 * 64, "D x D linear layer"),
    (check.heads_weight_entries, 100 * 100, "each head computes its own"),
    (check.heads_weight_entries, 4 * 100 * 100, "4-head walk-through"),
    (check.heads_weight_entries, 13 * 16 * 100 * 100, "all 13 items"),
    (check.heads_weight_entries, 16 * 100 * 4, "heads' outputs"),
]
