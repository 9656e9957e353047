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


# Exercise 1, second part: the buggy merge puts the head axis last: output channel c * heads + h holds head h's
# channel c, so head 2's channel 5 lands at 5 * 4 + 2.
HEAD2_CHANNEL5 = 5 * 4 + 2


# Exercise 2: the products cost more than qkv and proj when 2 N^2 c > 3 N L c + N c^2: N > (3 * 49 + 64) / 2 = 105.5.
THRESHOLD_TOKENS = 106


VALUE_CHECKS: dict = {
    check.merge_bug_choice: "a",
    check.merge_bug_channel: HEAD2_CHANNEL5,
    check.cost_threshold_tokens: THRESHOLD_TOKENS,
}
FUNCTION_CHECKS: dict = {
    check.attention_function: lambda q, k, v: tokens_first(q, k, v, q.shape[-1] ** -0.5),
}
MISTAKES: list = [
    (check.merge_bug_choice, "reshape", "not one of the options"),
    (check.merge_bug_channel, 37, "where the right merge puts it"),
    (check.merge_bug_channel, 12, "small test's 2 heads"),
    (check.merge_bug_channel, 13, "varies fastest"),
    (check.cost_threshold_tokens, 129, "64 channels in and out"),
    (check.cost_threshold_tokens, 99, "49 channels in and out"),
    (check.cost_threshold_tokens, 105, "not the same or less"),
]
